/* report_csv: ab's -e table, byte for byte: "Percentage served,Time in
 * ms", then percentile 0 to 100 each with its latency in ms to three
 * decimals. Latencies of whole microseconds below 131 us are kept by the
 * histogram within half a microsecond (its buckets there are 512 ns wide
 * or less), so each row is exactly the sample it names. */
#include "report.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

/* The CSV of a run whose latencies are us[0..n) microseconds. */
static char *csv_of(const uint64_t *us, int n, size_t *len)
{
    struct run_result res;
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    int i;
    result_init(&res);
    stats_init(&res.fig.total);
    for (i = 0; i < n; i++)
        hist_record(&res.fig.total.h[H_LATENCY], us[i] * 1000);
    CHECK(f && report_csv(f, &res) == 0);
    fclose(f);
    result_free(&res);
    return text;
}

/* n samples (100 or 1000), 1..100 us n / 100 times each, in any order:
 * row p is the sample of rank p% of n, p us (row 0 the least, 1 us). */
static void samples(int n)
{
    uint64_t us[1000];
    char want[4096], *got;
    size_t len, at;
    int i;
    for (i = 0; i < n; i++)
        us[i] = (uint64_t)(n == 100 ? 100 - i : i % 100 + 1);
    at = (size_t)snprintf(want, sizeof(want), "Percentage served,Time in ms\n0,0.001\n");
    for (i = 1; i <= 100; i++)
        at += (size_t)snprintf(want + at, sizeof(want) - at, "%d,%d.%03d\n", i, i / 1000, i % 1000);
    got = csv_of(us, n, &len);
    CHECKF(len == strlen(want) && strcmp(got, want) == 0, "%d samples", n);
    if (strcmp(got, want) != 0) {
        char *g = got, *w = want;
        while (*g && *g == *w)
            g++, w++;
        while (g > got && g[-1] != '\n')
            g--, w--;
        fprintf(stderr, "  first difference: got '%.12s', want '%.12s'\n", g, w);
    }
    free(got);
}

static void hundred_samples(void)
{
    samples(100);
}

static void thousand_samples(void)
{
    samples(1000);
}

/* One sample: every row is it; none: every row 0. */
static void one_and_none(void)
{
    uint64_t one = 1234567; /* 1.234567 s: the histogram's bucket, clamped to min and max, is the sample */
    char *got;
    size_t len;
    int i, rows = 0, same = 1;
    got = csv_of(&one, 1, &len);
    for (i = 0; i <= 100; i++) {
        char row[32];
        snprintf(row, sizeof(row), "\n%d,1234.567\n", i);
        same &= strstr(got, row) != NULL;
    }
    for (i = 0; got[i]; i++)
        rows += got[i] == '\n';
    CHECK(same && rows == 102 && strncmp(got, "Percentage served,Time in ms\n0,1234.567\n", 40) == 0);
    free(got);
    got = csv_of(NULL, 0, &len);
    CHECK(strncmp(got, "Percentage served,Time in ms\n0,0.000\n1,0.000\n", 45) == 0 && strstr(got, "\n100,0.000\n"));
    free(got);
}

int main(void)
{
    T_RUN(hundred_samples);
    T_RUN(thousand_samples);
    T_RUN(one_and_none);
    T_END("test_report_csv");
}
