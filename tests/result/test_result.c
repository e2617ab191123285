/* result: a run's result made empty, filled with arrays of its figures and
 * of its server's and a configuration of its own, moved and freed (the
 * sanitized build's leak check sees anything left behind); a configuration
 * it does not own kept. */
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

/* Arrays of the figures and of the server's, and a configuration owned. */
static void fill(struct run_result *r)
{
    struct run_figures *f = &r->fig;
    result_init(r);
    /* Some of its figures' arrays (test_figures frees each of them). */
    stats_init(&f->total);
    hist_record(&f->total.h[H_LATENCY], 1500000);
    f->nchecks = 2;
    f->checks = calloc(2, sizeof(*f->checks));
    f->nshards = 3;
    f->shards = calloc(3, sizeof(*f->shards));
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
    CHECK(r.fig.shards && r.fig.nshards == 3 && r.cfg->nheaders == 1);
    result_free(&r);
    CHECK(empty(&r));
    result_free(&r); /* twice: nothing is freed again */
    CHECK(empty(&r));
}

static void move_leaves_source_empty(void)
{
    struct run_result a, b;
    const struct shard_info *sh;
    fill(&a);
    sh = a.fig.shards;
    result_move(&b, &a);
    CHECK(empty(&a));
    CHECK(b.fig.shards == sh && b.fig.nshards == 3 && b.cfg == b.own_cfg && b.own_cfg != NULL);
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
