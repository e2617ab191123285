/* result: a run's result made empty, filled with every array its figures
 * and its server's can hold, moved and freed (the sanitized build's leak
 * check sees anything left behind); a configuration it does not own kept. */
#include "result.h"
#include "../t.h"

#include <string.h>

/* An empty result but for server_output_bytes, -1 (unknown). */
static int empty(const struct run_result *r)
{
    struct run_result z;
    memset(&z, 0, sizeof(z));
    z.server_output_bytes = -1;
    return memcmp(r, &z, sizeof(z)) == 0;
}

/* Every array of the figures, the server's, and a configuration owned. */
static void fill(struct run_result *r)
{
    struct run_figures *f = &r->fig;
    uint32_t i;
    result_init(r);
    stats_init(&f->total);
    hist_record(&f->total.h[H_LATENCY], 1500000);
    f->ntargets = 3;
    f->per_target = calloc(3, sizeof(*f->per_target));
    f->target_in_flight = calloc(3, sizeof(uint64_t));
    for (i = 0; i < 3; i++) {
        stats_init(&f->per_target[i]);
        hist_record(&f->per_target[i].h[H_LATENCY], 1000 * (i + 1));
    }
    f->nchecks = 2;
    f->checks = calloc(2, sizeof(*f->checks));
    f->nvars = 1;
    f->var_names = calloc(1, sizeof(*f->var_names));
    f->skipped_var = calloc(1, sizeof(uint64_t));
    f->nseconds = 4;
    f->timeline = calloc(4, sizeof(*f->timeline));
    f->tl_hist = calloc(4, sizeof(*f->tl_hist));
    for (i = 0; i < 4; i++) {
        hist_init_bits(&f->tl_hist[i], TL_SUB_BITS);
        hist_record(&f->tl_hist[i], 2000000);
    }
    f->nstages = 2;
    f->per_stage = calloc(2, sizeof(*f->per_stage));
    for (i = 0; i < 2; i++) {
        stats_init(&f->per_stage[i]);
        hist_record(&f->per_stage[i].h[H_LATENCY], 3000000);
    }
    f->nshards = 2;
    f->shards = calloc(2, sizeof(*f->shards));
    batches_init(&f->batches, TL_SUB_BITS);
    {
        struct hist h;
        hist_init_bits(&h, TL_SUB_BITS);
        hist_record(&h, 4000000);
        batches_add(&f->batches, 0, &h, 1);
        hist_fini(&h);
    }
    hist_init(&f->ends);
    hist_record(&f->ends, 5000000);
    r->has_server = 1;
    r->server.nprocs = 2;
    r->server.procs = calloc(2, sizeof(*r->server.procs));
    r->server.npoints = 3;
    r->server.series = calloc(3, sizeof(*r->server.series));
    r->own_cfg = calloc(1, sizeof(*r->own_cfg));
    config_defaults(r->own_cfg);
    config_add_header(r->own_cfg, "X-Test: 1");
    r->cfg = r->own_cfg;
    r->server_output_bytes = 77;
}

static void init_is_empty(void)
{
    struct run_result r;
    memset(&r, 0xab, sizeof(r));
    result_init(&r);
    CHECK(r.server_output_bytes == -1);
    CHECK(r.cfg == NULL && r.own_cfg == NULL && r.slo == NULL && r.fig.per_target == NULL);
    CHECK(r.has_server == 0 && r.has_net == 0 && r.has_findings == 0 && r.found.n == 0);
    CHECK(empty(&r));
    result_free(&r); /* an empty result frees nothing, stays empty */
    CHECK(empty(&r));
}

static void free_empties(void)
{
    struct run_result r;
    fill(&r);
    CHECK(r.fig.per_target[2].h[H_LATENCY].total == 1 && r.fig.batches.n == 1 && r.cfg->nheaders == 1);
    result_free(&r);
    CHECK(empty(&r));
    result_free(&r); /* twice: nothing is freed again */
    CHECK(empty(&r));
}

static void move_leaves_source_empty(void)
{
    struct run_result a, b;
    const struct stats *pt;
    fill(&a);
    pt = a.fig.per_target;
    result_move(&b, &a);
    CHECK(empty(&a));
    CHECK(b.fig.per_target == pt && b.fig.ntargets == 3 && b.cfg == b.own_cfg && b.own_cfg != NULL);
    CHECK(b.server_output_bytes == 77 && b.has_server == 1 && b.server.nprocs == 2);
    CHECK(b.fig.total.h[H_LATENCY].total == 1 && b.fig.total.h[H_LATENCY].max == 1500000);
    result_free(&a); /* the source owns nothing now */
    result_free(&b);
    CHECK(empty(&b));
}

/* A result that points at its caller's configuration does not free it. */
static void borrowed_config_kept(void)
{
    struct run_result r;
    struct config cfg;
    config_defaults(&cfg);
    config_add_header(&cfg, "X-Kept: 1");
    result_init(&r);
    r.cfg = &cfg;
    result_free(&r);
    CHECK(r.cfg == NULL && cfg.nheaders == 1 && strcmp(cfg.headers[0], "X-Kept: 1") == 0);
    config_free(&cfg);
}

int main(void)
{
    T_RUN(init_is_empty);
    T_RUN(free_empties);
    T_RUN(move_leaves_source_empty);
    T_RUN(borrowed_config_kept);
    T_END("test_result");
}
