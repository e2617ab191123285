/* report_text: the full text report of a known run (known_run.h) holds the
 * lines its figures give: the settings, requests, throughput, transfer,
 * the latency table and its distribution, the server's block and its
 * process table, status codes, bad status, errors, findings; none of the
 * server's or the findings' blocks when there are none; the distribution's
 * rows; labels and columns cut on UTF-8 characters. */
#include "known_run.h"
#include "../t.h"

/* Does text hold line (a whole line)? */
static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    const char *p;
    for (p = strstr(text, line); p; p = strstr(p + 1, line))
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return 1;
    return 0;
}

#define LINE(text, l) CHECKF(has_line(text, l), "no line '%s'", l)

static void known_lines(void)
{
    struct config cfg;
    struct run_result res;
    int rc;
    char *t = known_report(report_text, &res, &cfg, &rc);
    CHECK(t && rc == 0);
    {
        static const char head[] = "rafale: 4 connections on 2 threads, keep-alive, 1000 requests, GET, timeout 10.00s\n"
                                   "  " KNOWN_URL "\n\n";
        CHECK(strncmp(t, head, strlen(head)) == 0);
    }
    LINE(t, "Requests      1000 completed, 2 errors, 0 in flight at the end, in 2.00s");
    /* 2048000 and 102400 bytes in 2 s. */
    LINE(t, "Throughput    500.0 req/s, 1000.0KiB/s received, 50.0KiB/s sent");
    LINE(t, "Transfer      1.95MiB received, 100.0KiB sent");
    LINE(t, "Connections   4 opened (all 4 connected within 1.00ms)");
    LINE(t, "Latency         min     mean    stdev      p50      p75      p90      p95      p99    p99.9      max");
    /* 1..100 us: mean 50.5, stdev 28.9 (sqrt((100^2 - 1) / 12)). */
    LINE(t, "  total      1.00us     50us     29us     50us     75us     90us     95us     99us    100us    100us");
    /* Ten bins from 1 to 100 us, a factor of 10^0.2 each: 10 samples of
     * 1 us in the first, 380 of 63..100 us in the last. */
    LINE(t, "Latency distribution (total)");
    LINE(t, "    1.00us - 1.58us   #                                          1.00%  10");
    LINE(t, "      40us - 63us     ########################                  23.00%  230");
    LINE(t, "      63us - 100us    ########################################  38.00%  380");
    LINE(t, "Server        pid 4242 and its children: 1 process, 1 thread at most");
    LINE(t, "  CPU         2.00s, 2.00ms per request");
    LINE(t, "                  1                          8.00MiB     2.00s  srv --name=<script>alert(1)</script>");
    LINE(t, "Status codes  200: 990, 404: 10");
    LINE(t, "Bad status    10 (1.00% of responses) outside the expected 200: 404");
    /* 2 of the 1002 requests that ended. */
    LINE(t, "Errors        2 (0.20% of requests ended)");
    CHECK(strstr(t, "\n  timeout_answer           2  connected, and no complete response within --timeout") != NULL);
    CHECK(strstr(t, "\nFindings\n  [!] bad_status: " KNOWN_SUMMARY "\n      -> look at <its> logs\n"
                    "  [i] cpu_bound: an info\n      -> nothing to do\n") != NULL);
    free(t);

    /* No server watched, no findings: neither block. */
    res.has_server = 0;
    res.has_findings = 0;
    t = known_written(report_text, &res, &rc);
    CHECK(rc == 0 && strstr(t, "\nServer ") == NULL && strstr(t, "Findings") == NULL && strstr(t, "[!]") == NULL);
    LINE(t, "Requests      1000 completed, 2 errors, 0 in flight at the end, in 2.00s");
    free(t);
    known_free(&res, &cfg);
}

/* The distribution's rows: as many as asked (32 at most), none for one value or none. */
static void hist_rows(void)
{
    struct hist h;
    char *t = NULL;
    size_t len;
    FILE *f;
    uint64_t v;
    int n, lines = 0;
    const char *p;
    hist_init(&h);
    f = open_memstream(&t, &len);
    CHECK(report_hist_rows(f, &h, 10, 40, "") == 0); /* empty */
    hist_record_n(&h, 5000, 7);
    CHECK(report_hist_rows(f, &h, 10, 40, "") == 0); /* one value */
    fclose(f);
    CHECK(len == 0);
    free(t);
    for (v = 1; v <= 1000; v++)
        hist_record(&h, v * 1000);
    f = open_memstream(&t, &len);
    n = report_hist_rows(f, &h, 5, 20, ">>");
    fclose(f);
    for (p = t; *p; p++)
        lines += *p == '\n';
    CHECKF(n == 5 && lines == 5 && strncmp(t, ">>", 2) == 0, "%d rows, %d lines:\n%s", n, lines, t);
    free(t);
    f = open_memstream(&t, &len);
    n = report_hist_rows(f, &h, 100, 20, "");
    fclose(f);
    CHECK(n == 32);
    free(t);
    hist_fini(&h);
}

static void columns(void)
{
    char *t = NULL;
    size_t len;
    FILE *f = open_memstream(&t, &len);
    CHECK(report_chars("h\xc3\xa9llo") == 5 && report_chars("") == 0 && report_chars("\xe2\x82\xac!") == 2);
    report_put_col(f, "h\xc3\xa9llo w\xc3\xb6rld", 6); /* cut after 6 characters */
    fputc('|', f);
    report_put_col(f, "\xe2\x82\xac", 3); /* padded to 3 */
    fputc('|', f);
    report_put_col(f, "a\xc3\xa9", 2);
    fputc('|', f);
    fclose(f);
    CHECKF(strcmp(t, "h\xc3\xa9llo |\xe2\x82\xac  |a\xc3\xa9|") == 0, "'%s'", t);
    free(t);
}

static void labels(void)
{
    struct run_result res;
    struct config cfg;
    char b[256];
    CHECK(known_run(&res, &cfg) == 0);
    CHECK(strcmp(report_label(&cfg, 0, b, sizeof(b)), KNOWN_URL) == 0);
    CHECK(strcmp(report_method(&cfg, 0), "GET") == 0 && !report_is_other(&cfg, 0));
    known_free(&res, &cfg);
}

int main(void)
{
    T_RUN(known_lines);
    T_RUN(hist_rows);
    T_RUN(columns);
    T_RUN(labels);
    T_END("test_report_text");
}
