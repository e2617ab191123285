/* report_side: saved runs side by side: each run's settings in a line and
 * its first URL under it, then a row of its headline figures read across:
 * the known run's (known_run.h) every column, a run without a server
 * watched ("-" for CPU and memory), one with no answer ("-" for its
 * latencies, not 0ns), an interrupted one, names of any length. */
#include "known_run.h"
#include "../t.h"

/* The words of the line of text that starts with start (after its
 * newline), joined by single spaces, into out. */
static const char *row(const char *text, const char *start, char *out, size_t n)
{
    const char *p = strstr(text, start);
    size_t at = 0;
    out[0] = '\0';
    if (p && *p == '\n')
        p++;
    while (p && *p && *p != '\n' && at + 1 < n) {
        if (*p == ' ') {
            while (*p == ' ')
                p++;
            if (*p != '\n' && *p && at)
                out[at++] = ' ';
            continue;
        }
        out[at++] = *p++;
    }
    out[at] = '\0';
    return out;
}

static void side_by_side(void)
{
    struct run_result a, b, c;
    struct config ca, cb, cc;
    const struct run_result *runs[3] = { &a, &b, &c };
    const char *names[3] = { "a.json", "runs/the-second-one.json", "c.json" };
    char *t = NULL, r[512], err[256];
    size_t len;
    FILE *f;
    CHECK(known_run(&a, &ca) == 0 && known_run(&b, &cb) == 0 && known_run(&c, &cc) == 0);
    /* b: no server watched, interrupted, a second URL. */
    b.has_server = 0;
    b.fig.interrupted = 1;
    CHECK(targets_add_url(&cb, "http://127.0.0.1:8080/b", err, sizeof(err)) == 0);
    /* c: nothing answered, no findings. */
    stats_fini(&c.fig.total);
    stats_init(&c.fig.total);
    c.fig.total.errors[ERR_CONNECT_REFUSED] = 3;
    c.has_findings = 0;
    f = open_memstream(&t, &len);
    report_side_text(f, runs, names, 3);
    fclose(f);
    CHECK(strncmp(t, "Side by side  3 runs, a row each (rafale report FILE gives one in full)\n", 71) == 0);
    /* The settings, the URL under them past the widest name. */
    CHECK(strstr(t, "\n  a.json: 4 connections on 2 threads, keep-alive, 1000 requests, GET, timeout 10.00s\n"
                    "                            " KNOWN_URL "\n") != NULL);
    CHECK(strstr(t, "\n  runs/the-second-one.json: 4 connections on 2 threads, keep-alive, 1000 requests, GET, "
                    "timeout 10.00s\n                            " KNOWN_URL " and 1 more\n") != NULL);
    CHECK(strcmp(row(t, "\n  file ", r, sizeof(r)), "file requests errors bad status req/s p50 p99 max conn/req "
                                                    "CPU/req memory peak warnings") == 0);
    /* 1000 answers, 2 errors, 10 bad of 1000, 500/s, 4 connections for
     * 1000 answers, 2 s of server CPU for 1000 answers, 8 MiB RSS. */
    CHECKF(strcmp(row(t, "\n  a.json ", r, sizeof(r)),
                  "a.json 1000 2 1.0% 500.0 50us 99us 100us 0.00 2.00ms 8.00MiB RSS bad_status") == 0, "'%s'", r);
    CHECKF(strcmp(row(t, "\n  runs/the-second-one.json ", r, sizeof(r)),
                  "runs/the-second-one.json 1000 2 1.0% 500.0 50us 99us 100us 0.00 - - interrupted, bad_status") == 0,
           "'%s'", r);
    CHECKF(strcmp(row(t, "\n  c.json ", r, sizeof(r)), "c.json 0 3 0.0% 0.0 - - - 0.00 - 8.00MiB RSS -") == 0, "'%s'",
           r);
    /* The columns line up: the last one starts at the same place in the header and a row. */
    {
        const char *h = strstr(t, "\n  file "), *x = strstr(t, "\n  a.json ");
        CHECK(h && x && strstr(h, "warnings") - h == strstr(x, "bad_status") - x);
    }
    free(t);
    known_free(&a, &ca);
    known_free(&b, &cb);
    known_free(&c, &cc);
}

int main(void)
{
    T_RUN(side_by_side);
    T_END("test_report_side");
}
