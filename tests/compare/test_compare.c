/* What `rafale compare` concludes from its runs (compare_summarize), on runs
 * made up here: the median, the spread, bad statuses, refused keep-alive,
 * server CPU and memory. Built through cmp_saved_*, as `rafale report
 * A.json B.json` builds its side-by-side page. */
#include "compare.h"
#include "findings.h"
#include "report_compare.h"
#include "../t.h"
#include "verdict.h"

#include <math.h>
#include <string.h>

/* A run of `completed` responses in `secs`, over `conns` connections, of
 * which `bad` had a status outside --expect. */
static struct run_result run(uint64_t completed, double secs, uint64_t conns, uint64_t bad)
{
    struct run_result r;
    result_init(&r);
    stats_init(&r.fig.total);
    r.fig.total.started = r.fig.total.completed = completed;
    r.fig.total.conns_opened = conns;
    r.fig.total.bad_status = bad;
    r.fig.elapsed_s = secs;
    hist_record_n(&r.fig.total.h[H_LATENCY], 1000000, completed); /* 1 ms each */
    return r;
}

static struct config keepalive_cfg(void)
{
    struct config cfg;
    config_defaults(&cfg);
    cfg.keepalive = 1;
    cfg.threads = 1;
    return cfg;
}

static void median_spread_and_server_figures(void)
{
    struct config cfg = keepalive_cfg();
    struct compare_file p;
    struct compare_result r;
    struct run_result a = run(1000, 1.0, 10, 0), b = run(1200, 1.0, 10, 0), c = run(1100, 1.0, 10, 0);
    struct monitor_result m;
    struct compare_cell *cell;

    memset(&m, 0, sizeof(m));
    m.cpu_s = 0.5;
    m.has_pss = m.has_alone = 1;
    m.alone_peak_bytes = 30 << 20;
    m.pss_peak_bytes = 20 << 20;
    m.rss_peak_bytes = 90 << 20;
    CHECK(compare_saved_init(&p, &r, &cfg, 1) == 0);
    a.server = m;
    a.has_server = 1;
    CHECK(compare_saved_add(&p, &r, 0, "a.json", "http://127.0.0.1:1/", &a) == 0);
    /* More runs of the same cell, as repeat = 3 would make. */
    cell = compare_cell_at(&r, 0, 0);
    CHECK(compare_add_run(cell, &b) == 0 && compare_add_run(cell, &c) == 0);
    CHECK(a.fig.total.h[H_LATENCY].counts == NULL && a.server.alone_peak_bytes == 0 && !a.has_server); /* taken over */
    compare_summarize(&p, &r);
    CHECKF(cell->rps_median == 1100 && cell->rps_min == 1000 && cell->rps_max == 1200, "%g %g %g", cell->rps_median,
           cell->rps_min, cell->rps_max);
    CHECK(cell->total.completed == 3300 && cell->total.h[H_LATENCY].total == 3300);
    CHECK(cell->unstable);                 /* 200 apart on a median of 1100: over 10% */
    CHECK(!cell->invalid && !cell->keepalive_refused && cell->bad_pct == 0);
    CHECKF(fabs(cell->server_cpu_us - 500) < 1e-9, "%g", cell->server_cpu_us); /* 0.5 s over 1000 requests */
    CHECK(cell->mem_kind == CMP_MEM_ALONE && cell->mem_peak == 30 << 20 && cell->best_run == 0);
    CHECK(strcmp(compare_mem_name(cell->mem_kind), "alone") == 0 && strcmp(compare_mem_key(CMP_MEM_PSS), "pss") == 0);
    CHECK(strcmp(p.servers[0].name, "a.json") == 0 && p.nworkloads == 1 && p.set.repeat == 1);
    compare_result_free(&r);
    compare_file_free(&p);
    config_free(&cfg);
}

static void bad_statuses_make_a_cell_invalid(void)
{
    struct config cfg = keepalive_cfg();
    struct compare_file p;
    struct compare_result r;
    struct run_result ok = run(1000, 1.0, 10, 500), broken = run(1000, 1.0, 10, 501);
    CHECK(compare_saved_init(&p, &r, &cfg, 2) == 0);
    CHECK(compare_saved_add(&p, &r, 0, "half", "u", &ok) == 0);
    CHECK(compare_saved_add(&p, &r, 1, "most", "u", &broken) == 0);
    compare_summarize(&p, &r);
    CHECK(!compare_cell_at(&r, 0, 0)->invalid && compare_cell_at(&r, 0, 0)->bad_pct == 50);
    CHECK(compare_cell_at(&r, 0, 1)->invalid);
    CHECK(compare_cell_at(&r, 0, 0)->server_cpu_us < 0); /* no server watched: unknown, not zero */
    compare_result_free(&r);
    compare_file_free(&p);
    config_free(&cfg);
}

static void a_new_connection_per_request_is_refused_keepalive(void)
{
    struct config cfg = keepalive_cfg();
    struct compare_file p;
    struct compare_result r;
    struct run_result closes = run(1000, 1.0, 1000, 0), keeps = run(1000, 1.0, 950, 0), few = run(9, 1.0, 9, 0);
    CHECK(compare_saved_init(&p, &r, &cfg, 3) == 0);
    CHECK(compare_saved_add(&p, &r, 0, "closes", "u", &closes) == 0);
    CHECK(compare_saved_add(&p, &r, 1, "boundary", "u", &keeps) == 0);
    CHECK(compare_saved_add(&p, &r, 2, "few", "u", &few) == 0);
    compare_summarize(&p, &r);
    CHECK(compare_cell_at(&r, 0, 0)->keepalive_refused && compare_cell_at(&r, 0, 0)->conns_per_req == 1);
    CHECK(compare_cell_at(&r, 0, 1)->keepalive_refused);   /* 0.95 connections per request */
    CHECK(!compare_cell_at(&r, 0, 2)->keepalive_refused);  /* too few requests to tell */
    compare_result_free(&r);
    compare_file_free(&p);

    /* With --close, a connection per request is what was asked. */
    cfg.keepalive = 0;
    closes = run(1000, 1.0, 1000, 0);
    CHECK(compare_saved_init(&p, &r, &cfg, 1) == 0);
    CHECK(compare_saved_add(&p, &r, 0, "closes", "u", &closes) == 0);
    compare_summarize(&p, &r);
    CHECK(!compare_cell_at(&r, 0, 0)->keepalive_refused);
    compare_result_free(&r);
    compare_file_free(&p);
    config_free(&cfg);
}

static void an_empty_cell_is_not_a_result(void)
{
    struct config cfg = keepalive_cfg();
    struct compare_file p;
    struct compare_result r;
    struct run_result none = run(0, 1.0, 0, 0);
    CHECK(compare_saved_init(&p, &r, &cfg, 2) == 0);
    CHECK(compare_saved_add(&p, &r, 0, "nothing", "u", &none) == 0);
    compare_summarize(&p, &r);
    CHECK(compare_cell_at(&r, 0, 0)->invalid && compare_cell_at(&r, 0, 0)->rps_median == 0);
    CHECK(!compare_cell_at(&r, 0, 1)->invalid && compare_cell_at(&r, 0, 1)->nruns == 0 && compare_cell_at(&r, 0, 1)->rps_min == 0);
    compare_result_free(&r);
    compare_file_free(&p);
    config_free(&cfg);
}

/* A cell's findings are every one its runs found: two runs that each
 * found half the rules leave all of them in the cell, none dropped (a cell
 * held 16 of the 18 rules, the last two of a second run lost silently). */
static void a_cell_keeps_every_finding_of_its_runs(void)
{
    struct config cfg = keepalive_cfg();
    struct compare_file p;
    struct compare_result r;
    struct run_result a = run(1000, 1.0, 10, 0), b = run(1000, 1.0, 10, 0);
    struct compare_cell *cell;
    int i;
    CHECK(compare_saved_init(&p, &r, &cfg, 1) == 0);
    CHECK(compare_saved_add(&p, &r, 0, "a", "u", &a) == 0);
    cell = compare_cell_at(&r, 0, 0);
    CHECK(compare_add_run(cell, &b) == 0);
    for (i = 0; i < FINDING_COUNT; i++) {
        struct findings *fs = &cell->runs[i % 2].found;
        struct finding *f = &fs->f[fs->n++];
        snprintf(f->id, sizeof(f->id), "%s", findings_name((enum finding_id)i));
        f->warning = 1;
    }
    compare_summarize(&p, &r);
    CHECKF(cell->found.n == FINDING_COUNT, "%d of %d", cell->found.n, FINDING_COUNT);
    for (i = 0; i < FINDING_COUNT; i++) {
        const struct finding *f = findings_get(&cell->found, (enum finding_id)i);
        CHECKF(f != NULL && findings_ev(f, "runs", 0) == 1, "%s", findings_name((enum finding_id)i));
    }
    compare_result_free(&r);
    compare_file_free(&p);
    config_free(&cfg);
}

/* The "vs best" words: a slower verdict whose interval reaches 1.004 says
 * 1.004, not a "1.00" that would seem to contradict it. */
static void ratio_words(void)
{
    struct compare_cell c;
    char b[96];
    memset(&c, 0, sizeof(c));
    c.nruns = 4;
    /* The words come from the pair behind the verdict (c.vs_best). */
    c.verdict = c.vs_best.verdict = VERDICT_SLOWER;
    c.vs_best.ratio = 1.28;
    c.vs_best.ci[0] = 1.004;
    c.vs_best.ci[1] = 1.6449;
    CHECKF(strcmp(report_compare_ratio_text(b, sizeof(b), &c, 0), "1.28x slower (1.004\xe2\x80\x93" "1.64)") == 0, "%s", b);
    c.verdict = c.vs_best.verdict = VERDICT_SAME;
    c.vs_best.ci[0] = 0.97;
    c.vs_best.ci[1] = 1.0;
    CHECKF(strcmp(report_compare_ratio_text(b, sizeof(b), &c, 0), "same (0.97\xe2\x80\x93" "1.00)") == 0, "%s", b);
    c.verdict = c.vs_best.verdict = VERDICT_UNDECIDED;
    c.vs_best.ci[0] = 0.7;
    c.vs_best.ci[1] = 18.89;
    CHECKF(strcmp(report_compare_ratio_text(b, sizeof(b), &c, 0), "undecided (0.70\xe2\x80\x93" "18.89)") == 0, "%s", b);
    c.vs_best.ci[0] = c.vs_best.ci[1] = NAN;
    c.vs_best.n = 2;
    CHECKF(strcmp(report_compare_ratio_text(b, sizeof(b), &c, 0), "undecided (2 rounds: no interval)") == 0, "%s", b);
    c.verdict = VERDICT_BEST;
    CHECK(strcmp(report_compare_ratio_text(b, sizeof(b), &c, 0), "best") == 0);
}

/* The verdict line says "Fastest" only when every other valid result was
 * decided slower or the same; otherwise it names the reference and claims
 * nothing: one undecided may be as fast, one decided faster is, and with
 * no other valid result nothing was compared. */
static void fastest_only_when_decided(void)
{
    struct config cfg = keepalive_cfg();
    struct compare_file p;
    struct compare_result r;
    struct run_result a = run(1000, 1.0, 10, 0), b = run(900, 1.0, 10, 0), c = run(990, 1.0, 10, 0);
    struct compare_cell *cb, *cc;
    char line[1000];
    CHECK(compare_saved_init(&p, &r, &cfg, 3) == 0);
    CHECK(compare_saved_add(&p, &r, 0, "a", "u", &a) == 0 && compare_saved_add(&p, &r, 1, "b", "u", &b) == 0 &&
          compare_saved_add(&p, &r, 2, "c", "u", &c) == 0);
    compare_summarize(&p, &r);
    /* The verdicts as rounds would decide them. */
    compare_cell_at(&r, 0, 0)->verdict = VERDICT_BEST;
    cb = compare_cell_at(&r, 0, 1);
    cc = compare_cell_at(&r, 0, 2);
    cb->verdict = cb->vs_best.verdict = VERDICT_SLOWER;
    cb->vs_best.ratio = 1.11;
    cb->vs_best.ci[0] = 1.08;
    cb->vs_best.ci[1] = 1.14;
    cc->verdict = cc->vs_best.verdict = VERDICT_SAME;
    cc->ratio = 1.01;
    cc->ratio_ci[0] = 0.99;
    cc->ratio_ci[1] = 1.02;
    report_compare_verdict_line(line, sizeof(line), &p, &r, 0);
    CHECKF(strcmp(line, "Fastest: a (1000 req/s). c: same as a (0.99\xe2\x80\x93" "1.02). b 1.11x slower "
                        "(1.08\xe2\x80\x93" "1.14).") == 0, "%s", line);
    cc->verdict = cc->vs_best.verdict = VERDICT_UNDECIDED;
    cc->ratio_ci[0] = 0.9;
    cc->ratio_ci[1] = 1.2;
    report_compare_verdict_line(line, sizeof(line), &p, &r, 0);
    CHECKF(strncmp(line, "No fastest decided. Reference: a (1000 req/s). b 1.11x slower", 61) == 0 &&
           strstr(line, "c: undecided against a, 1.01x") != NULL, "%s", line);
    cc->verdict = cc->vs_best.verdict = VERDICT_FASTER;
    cc->vs_best.ratio = 0.95;
    cc->vs_best.ci[0] = 0.93;
    cc->vs_best.ci[1] = 0.97;
    report_compare_verdict_line(line, sizeof(line), &p, &r, 0);
    CHECKF(strncmp(line, "Reference: a (1000 req/s).", 26) == 0 && strstr(line, "c 1.05x faster") != NULL, "%s",
           line);
    /* A result that is not valid, or a server that failed, decides nothing
     * either way. */
    cc->invalid = 1;
    cc->verdict = cc->vs_best.verdict = VERDICT_INVALID;
    report_compare_verdict_line(line, sizeof(line), &p, &r, 0);
    CHECKF(strncmp(line, "Fastest: a (1000 req/s).", 24) == 0 && strstr(line, "c: not valid") != NULL, "%s", line);
    r.failed[1] = 1;
    cb->verdict = cb->vs_best.verdict = VERDICT_INVALID;
    report_compare_verdict_line(line, sizeof(line), &p, &r, 0);
    CHECKF(strncmp(line, "Only valid result: a (1000 req/s).", 34) == 0 && strstr(line, "b: not valid (failed)") != NULL,
           "%s", line);
    compare_result_free(&r);
    compare_file_free(&p);
    config_free(&cfg);
}

/* A failed server's last output lines reach the terminal: its colours and
 * other escape sequences are kept from it, its UTF-8 kept. */
static void output_lines_scrubbed(void)
{
    char lines[CMP_OUTPUT_LINES][CMP_OUTPUT_COLS + 4], buf[CMP_OUTPUT_COLS + 4], big[300];
    int n = compare_output_lines("ok\n\x1b[31mERROR\x1b[0m caf\xc3\xa9 \xc2\x9b" "2J\r\n", lines);
    CHECK(n == 2 && strcmp(lines[0], "ok") == 0);
    CHECKF(n == 2 && strcmp(lines[1], "?[31mERROR?[0m caf\xc3\xa9 ?2J") == 0, "%s", lines[1]);
    memset(big, 'x', sizeof(big));
    big[0] = '\x1b';
    CHECK(strcmp(compare_cut(big, sizeof(big), buf) + CMP_OUTPUT_COLS, "\xe2\x80\xa6") == 0 && buf[0] == '?');
}

int main(void)
{
    T_RUN(median_spread_and_server_figures);
    T_RUN(bad_statuses_make_a_cell_invalid);
    T_RUN(a_new_connection_per_request_is_refused_keepalive);
    T_RUN(an_empty_cell_is_not_a_result);
    T_RUN(a_cell_keeps_every_finding_of_its_runs);
    T_RUN(ratio_words);
    T_RUN(fastest_only_when_decided);
    T_RUN(output_lines_scrubbed);
    T_END("test_compare");
}
