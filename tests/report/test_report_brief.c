/* report_brief: the short report of a known run (known_run.h), byte for
 * byte, each line under the label the full report gives it; and its
 * variants: no answer, no error, an aborted run, the rate mode's latency,
 * a throughput interval. */
#include "known_run.h"
#include "../t.h"

#define BRIEF_REST                                                                                                     \
    "Status codes  200: 990, 404: 10\n"                                                                                \
    "Bad status    10 (1.00% of responses) outside the expected 200: 404\n"                                            \
    "Errors        2 (0.20% of requests ended): timeout_answer 2\n"

static void known_brief(void)
{
    struct run_result res;
    struct config cfg;
    char *t;
    int rc;
    t = known_report(report_brief, &res, &cfg, &rc);
    CHECK(t && rc == 0);
    CHECKF(strcmp(t, "Requests      1000 completed, 2 errors, 0 in flight at the end, in 2.00s\n"
                     "Throughput    500.0 req/s\n"
                     "Latency       p50 50us, p99 99us, max 100us\n" BRIEF_REST
                     "Findings      [!] bad_status: " KNOWN_SUMMARY "\n"
                     "              [i] cpu_bound: an info\n") == 0,
           "\n%s", t);
    free(t);

    /* Its throughput's interval; rate mode's latency, from when each was
     * due; an aborted run first; no findings. */
    res.fig.ci.rps.lo = 480.25;
    res.fig.ci.rps.hi = 519.75;
    res.fig.target_rate = 500;
    res.fig.aborted = 1;
    res.fig.aborted_at_s = 1.5;
    snprintf(res.fig.aborted_why, sizeof(res.fig.aborted_why), "p99 above 90us");
    res.has_findings = 0;
    t = known_written(report_brief, &res, &rc);
    CHECKF(strcmp(t, "Aborted       the SLO was lost 1.5s into the run: p99 above 90us (--abort-on-fail)\n"
                     "Requests      1000 completed, 2 errors, 0 in flight at the end, in 2.00s\n"
                     "Throughput    500.0 req/s (95%: 480.2-519.8)\n"
                     "Latency       p50 50us, p99 99us, max 100us (from when each request was due)\n" BRIEF_REST) == 0,
           "\n%s", t);
    free(t);
    known_free(&res, &cfg);
}

/* Nothing answered, nothing failed: said as such, not as 0ns. */
static void no_answer(void)
{
    struct run_result res;
    struct config cfg;
    char *t;
    int rc;
    config_defaults(&cfg);
    result_init(&res);
    res.cfg = &cfg;
    stats_init(&res.fig.total);
    res.fig.gave_up_s = 10;
    snprintf(res.fig.gave_up_why, sizeof(res.fig.gave_up_why), "127.0.0.1:9: connection refused");
    report_ci(&res.fig); /* as a run's end does: no interval */
    t = known_written(report_brief, &res, &rc);
    CHECKF(rc == 0 && strcmp(t, "Gave up       no connection could be opened: 127.0.0.1:9: connection refused\n"
                                "Requests      0 completed, 0 errors, 0 in flight at the end, in 0.00s\n"
                                "Throughput    0.0 req/s\n"
                                "Latency       none: no answer\n"
                                "Status codes  none\n"
                                "Errors        none\n") == 0,
           "\n%s", t);
    free(t);
    known_free(&res, &cfg);
}

int main(void)
{
    T_RUN(known_brief);
    T_RUN(no_answer);
    T_END("test_report_brief");
}
