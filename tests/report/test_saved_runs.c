/* The files a run writes that `rafale report` cannot write again (CSV,
 * HdrHistogram), and the JSON of a run and of a compare, from the saved
 * results of tests/data/saved/: each read back, written, and held byte for
 * byte against what was written before. The CSV and HdrHistogram files
 * are in expected/; the JSON is the saved file itself (a result read back
 * is written the same, but that an empty pss_note reads back as "PSS not
 * recorded"), or expected/NAME.json where a saved run keeps less than the
 * run had (the SLO's checks, an error's own words). The reports of these
 * runs are saved_runs_report_the_same's (tests/integ/saved_runs.py).
 * `build/tests/report/test_saved_runs --write` writes the expected files again (make
 * saved-expected), when an output is meant to change. */
#include "compare_load.h"
#include "report.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIR "tests/data/saved/"

static const char *const runs[] = { "ka", "close", "rate", "h2", "h3", "mon", "stages", "errs", "checks", "calibrated",
                                    "shard0", "base", "compare" };

static int write_mode;

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, got = 1;
    *n = 0;
    if (f == NULL)
        return NULL;
    while (got > 0) {
        if (*n == cap && (buf = realloc(buf, cap = cap * 2 + 65536)) == NULL)
            break;
        got = fread(buf + *n, 1, cap - *n, f);
        *n += got;
    }
    fclose(f);
    return buf;
}

/* The saved file as a result read back writes it: an empty pss_note is
 * "PSS not recorded" then (report_load_server.c). */
static char *saved_as_read(const char *name, size_t *n)
{
    static const char empty[] = "\"pss_note\": \"\"", note[] = "\"pss_note\": \"PSS not recorded\"";
    char path[256], *in, *out, *at, *from;
    size_t m, k = 0;
    snprintf(path, sizeof(path), DIR "%s.json", name);
    if ((in = slurp(path, &m)) == NULL || (out = malloc(m * 2 + 1)) == NULL) {
        free(in);
        return NULL;
    }
    in[m] = '\0'; /* slurp leaves room */
    for (from = in; (at = strstr(from, empty)) != NULL; from = at + sizeof(empty) - 1) {
        memcpy(out + k, from, (size_t)(at - from));
        k += (size_t)(at - from);
        memcpy(out + k, note, sizeof(note) - 1);
        k += sizeof(note) - 1;
    }
    memcpy(out + k, from, m - (size_t)(from - in));
    *n = k + m - (size_t)(from - in);
    free(in);
    return out;
}

/* One output: got, n bytes, against path's (or, when path is missing and
 * saved is set, the saved file's as read back). --write: path made again,
 * or removed when the saved file says the same. */
static void hold(const char *what, const char *got, size_t n, const char *path, const char *saved)
{
    char *want;
    size_t m = 0;
    if (write_mode && saved && (want = saved_as_read(saved, &m)) != NULL && got && n == m && memcmp(got, want, n) == 0)
        unlink(path);
    else if (write_mode) {
        FILE *f = fopen(path, "wb");
        CHECKF(f && got && fwrite(got, 1, n, f) == n && fclose(f) == 0, "writing %s", path);
    }
    want = saved && access(path, F_OK) != 0 ? saved_as_read(saved, &m) : slurp(path, &m);
    CHECKF(got && want && n == m && memcmp(got, want, n) == 0,
           "%s written from the saved result differs from %s (make saved-expected, if meant)", what,
           saved && access(path, F_OK) != 0 ? "the saved file" : path);
    free(want);
}

/* The saved result called name: each of its outputs. */
static void one(const char *name)
{
    struct loaded l;
    char path[256], err[512], *buf;
    size_t n;
    FILE *f;
    int o;

    snprintf(path, sizeof(path), DIR "%s.json", name);
    memset(&l, 0, sizeof(l));
    CHECKF(compare_load(path, &l, err, sizeof(err)) == 0, "%s: %s", path, err);
    for (o = 0; o < (l.is_compare ? 1 : 3); o++) {
        static const char *const ext[] = { "json", "csv", "hdr" };
        buf = NULL;
        if ((f = open_memstream(&buf, &n)) == NULL)
            break;
        if (l.is_compare)
            report_compare_json(f, &l.cf, &l.cmp);
        else if (o == 0)
            report_json(f, &l.run);
        else if (o == 1)
            report_csv(f, &l.run);
        else
            hist_print_hdr(f, &l.run.fig.total.h[H_LATENCY]);
        fclose(f);
        snprintf(path, sizeof(path), DIR "expected/%s.%s", name, ext[o]);
        hold(ext[o], buf, n, path, o == 0 ? name : NULL);
        free(buf);
    }
    compare_load_free(&l);
}

int main(int argc, char **argv)
{
    size_t i;
    write_mode = argc > 1 && strcmp(argv[1], "--write") == 0;
    for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        t_case = runs[i];
        one(runs[i]);
    }
    T_END("test_saved_runs");
}
