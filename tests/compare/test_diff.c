/* rafale diff's verdicts: a clear win, a clear loss, no change, and the
 * undecided (too noisy, too few rounds) from rounds of two compares and
 * from two runs' own intervals; the same run twice; the table and JSON
 * saying them. */
#include "diff.h"
#include "../t.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rounds: three figures (req/s, p50, p99 in us) of n rounds. */
struct rounds {
    double v[3][8];
};

static void windows(const struct rounds *b, int nb, const struct rounds *n, int nn, double resolution,
                    struct diff_result *d)
{
    const double *fb[3] = { b->v[0], b->v[1], b->v[2] }, *fn[3] = { n->v[0], n->v[1], n->v[2] };
    diff_windows(fb, nb, fn, nn, 0.05, resolution, d);
}

static const struct rounds base = { { { 1000, 1010, 990 }, { 800, 810, 790 }, { 2000, 2020, 1980 } } };

static void a_clear_win_and_a_clear_loss(void)
{
    /* Half again the throughput, half the p50; p99 twice as long. */
    static const struct rounds now = { { { 1500, 1510, 1490 }, { 400, 405, 395 }, { 4000, 4040, 3960 } } };
    struct diff_result d;
    windows(&base, 3, &now, 3, 0, &d);
    CHECK(d.n == 3 && d.threshold == 0.05);
    CHECK(strcmp(d.f[0].name, "req/s") == 0 && strcmp(d.f[0].key, "rps") == 0 && d.f[0].higher_better);
    CHECK(strcmp(d.f[1].key, "p50_us") == 0 && !d.f[1].higher_better && strcmp(d.f[2].key, "p99_us") == 0);
    /* The rounds' geometric means, their ratio inside its interval. */
    CHECKF(fabs(d.f[0].base - 999.9667) < 0.01 && fabs(d.f[0].ratio - 1.5) < 0.001, "%g %g", d.f[0].base, d.f[0].ratio);
    CHECK(d.f[0].ci[0] < d.f[0].ratio && d.f[0].ratio < d.f[0].ci[1] && d.f[0].ci[0] > 1.4 && d.f[0].ci[1] < 1.6);
    CHECK(d.f[0].verdict == DIFF_FASTER && d.f[1].verdict == DIFF_FASTER && d.f[2].verdict == DIFF_SLOWER);
    CHECK(d.worse == 1 && d.undecided == 0);
}

static void no_change_is_the_same(void)
{
    static const struct rounds now = { { { 1002, 1008, 992 }, { 801, 808, 792 }, { 2003, 2015, 1985 } } };
    static const struct rounds flat = { { { 1000, 1000, 1000 }, { 800, 800, 800 }, { 2000, 2000, 2000 } } };
    struct diff_result d;
    int i;
    windows(&base, 3, &now, 3, 0, &d);
    for (i = 0; i < 3; i++)
        CHECKF(d.f[i].verdict == DIFF_SAME && strcmp(d.f[i].why, "within the threshold") == 0, "%s: %s", d.f[i].name,
               diff_verdict_name(d.f[i].verdict));
    CHECK(d.worse == 0 && d.undecided == 0);
    /* Rounds that count the same requests (resolution 0 then): identical
     * rounds are a point; a coarse count widens throughput's interval past
     * the band, so it cannot be told the same. */
    windows(&flat, 3, &flat, 3, 0, &d);
    CHECK(d.f[0].ci[0] == 1 && d.f[0].ci[1] == 1 && d.f[0].verdict == DIFF_SAME);
    windows(&flat, 3, &flat, 3, 0.1, &d);
    CHECK(fabs(d.f[0].ci[0] - 1 / 1.1) < 1e-9 && fabs(d.f[0].ci[1] - 1.1) < 1e-9);
    CHECK(d.f[0].verdict == DIFF_UNDECIDED && d.f[1].verdict == DIFF_SAME && d.undecided == 1);
}

static void the_undecided(void)
{
    /* Rounds that swing by half: the interval holds no change and is wider
     * than the band. */
    static const struct rounds noisy = { { { 600, 1500, 1000 }, { 400, 1200, 900 }, { 1000, 3000, 2500 } } };
    static const struct rounds now = { { { 1100, 1050, 1080 }, { 700, 720, 710 }, { 1900, 1950, 2000 } } };
    struct diff_result d;
    windows(&noisy, 3, &now, 3, 0, &d);
    CHECK(d.f[0].verdict == DIFF_UNDECIDED && strstr(d.f[0].why, "too noisy") == d.f[0].why);
    CHECK(d.undecided == 3 && d.worse == 0);
    /* Two rounds: no interval at all, whatever the change. */
    windows(&base, 2, &now, 3, 0, &d);
    CHECK(isnan(d.f[0].ci[0]) && isnan(d.f[0].ci[1]) && d.f[0].verdict == DIFF_UNDECIDED);
    CHECK(strcmp(d.f[0].why, "too few samples: 3 or more of each") == 0);
    /* A figure missing from one side (no round had it): undecided. */
    {
        struct rounds zero = base;
        zero.v[2][0] = zero.v[2][1] = zero.v[2][2] = 0;
        windows(&base, 3, &zero, 3, 0, &d);
        CHECK(d.f[2].now == 0 && d.f[2].ratio == 0 && d.f[2].verdict == DIFF_UNDECIDED);
    }
}

/* A run of completed answers in elapsed_s seconds, latencies of lat_us,
 * throughput's own interval +-pct; no interval for latency (NaN). */
static void run(struct run_figures *r, uint64_t completed, double elapsed_s, double lat_us, double pct)
{
    int i;
    memset(r, 0, sizeof(*r));
    CHECK(stats_init(&r->total) == 0);
    r->total.completed = completed;
    r->elapsed_s = elapsed_s;
    r->start_unix_s = 1700000000 + elapsed_s;
    hist_record_n(&r->total.h[H_LATENCY], (uint64_t)(lat_us * 1e3), completed);
    r->ci.batches = 40;
    r->ci.rps.est = (double)completed / elapsed_s;
    r->ci.rps.lo = r->ci.rps.est * (1 - pct);
    r->ci.rps.hi = r->ci.rps.est * (1 + pct);
    r->ci.mean.lo = r->ci.mean.hi = NAN;
    for (i = 0; i < RUN_CI_NPCTS; i++)
        r->ci.pct[i].lo = r->ci.pct[i].hi = NAN;
}

static void two_runs_by_their_own_intervals(void)
{
    struct run_figures a, b;
    struct diff_result d;
    run(&a, 100000, 10, 500, 0.01);
    run(&b, 80000, 10, 500, 0.01);
    diff_results(&a, &b, 0.05, &d);
    CHECK(d.n == 5 && strcmp(d.f[0].key, "rps") == 0 && strcmp(d.f[4].key, "p99_us") == 0);
    CHECK(d.f[0].base == 10000 && d.f[0].now == 8000 && fabs(d.f[0].ratio - 0.8) < 1e-12);
    CHECK(d.f[0].ci[0] > 0.78 && d.f[0].ci[1] < 0.82 && d.f[0].verdict == DIFF_SLOWER);
    /* Latency without intervals: undecided, said so; not counted worse. */
    CHECK(d.f[1].verdict == DIFF_UNDECIDED &&
          strcmp(d.f[1].why, "too few samples: a run this short bounds no interval") == 0);
    CHECK(d.worse == 1 && d.undecided == 4);
    /* A file diffed with itself: the same samples, the same. */
    diff_results(&a, &a, 0.05, &d);
    CHECK(d.f[0].verdict == DIFF_SAME && d.f[0].ci[0] == 1 && d.f[2].verdict == DIFF_SAME &&
          strcmp(d.f[2].why, "the same run: the same samples") == 0 && d.worse == 0 && d.undecided == 0);
    stats_fini(&a.total);
    stats_fini(&b.total);
}

static void said_in_the_table_and_json(void)
{
    static const struct rounds now = { { { 500, 505, 495 }, { 800, 812, 788 }, { 1000, 3000, 2500 } } };
    struct diff_result d;
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    json_t *j, *figs;
    json_error_t je;
    windows(&base, 3, &now, 3, 0, &d);
    CHECK(d.f[0].verdict == DIFF_SLOWER && d.f[1].verdict == DIFF_SAME && d.f[2].verdict == DIFF_UNDECIDED);
    diff_print(f, &d, "a.json", "b.json");
    fclose(f);
    CHECK(strstr(text, "rafale diff: a.json -> b.json\n") == text);
    CHECK(strstr(text, "-50.0%") != NULL && strstr(text, "within 5.0% either way") != NULL);
    CHECKF(strstr(text, "Verdict: worse: req/s\n") != NULL, "%s", text);
    CHECK(strstr(text, "Undecided (the samples cannot tell; not counted as worse): p99\n") != NULL);
    free(text);

    f = open_memstream(&text, &n);
    CHECK(diff_json(f, &d, "a.json", "b\"c.json") == 0);
    fclose(f);
    j = json_loads(text, 0, &je);
    CHECKF(j != NULL, "%s\n%s", je.text, text);
    figs = json_object_get(json_object_get(j, "diff"), "figures");
    CHECK(strcmp(json_string_value(json_object_get(json_object_get(j, "diff"), "new")), "b\"c.json") == 0);
    CHECK(json_integer_value(json_object_get(json_object_get(j, "diff"), "worse")) == 1);
    CHECK(json_array_size(figs) == 3);
    CHECK(strcmp(json_string_value(json_object_get(json_array_get(figs, 0), "verdict")), "slower") == 0);
    CHECK(strcmp(json_string_value(json_object_get(json_array_get(figs, 1), "figure")), "p50_us") == 0);
    CHECK(json_array_size(json_object_get(json_array_get(figs, 0), "ratio_ci")) == 2);
    json_decref(j);
    free(text);

    /* Two rounds: no interval, said as such. */
    windows(&base, 2, &now, 2, 0, &d);
    f = open_memstream(&text, &n);
    diff_print(f, &d, "a", "b");
    CHECK(diff_json(f, &d, "a", "b") == 0);
    fclose(f);
    CHECK(strstr(text, "(too few samples)") != NULL && strstr(text, "\"ratio_ci\": null") != NULL);
    CHECK(strstr(text, "Verdict: no figure got significantly worse\n") != NULL);
    free(text);
    CHECK(strcmp(diff_verdict_name(DIFF_FASTER), "faster") == 0 && strcmp(diff_verdict_name(-1), "undecided") == 0 &&
          strcmp(diff_verdict_name(9), "undecided") == 0);
}

int main(void)
{
    T_RUN(a_clear_win_and_a_clear_loss);
    T_RUN(no_change_is_the_same);
    T_RUN(the_undecided);
    T_RUN(two_runs_by_their_own_intervals);
    T_RUN(said_in_the_table_and_json);
    T_END("diff");
}
