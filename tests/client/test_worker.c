/* A worker's state (src/client/worker.c): its connections numbered over
 * the run, spread over the endpoints, each with its pipeline's slots and,
 * for templated requests, its buffer; room for --max-connections beyond
 * -c; its figures per target; its generator the same for the same --seed
 * and thread, apart for another thread. */
#include "client.h"
#include "targets.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static void plan_of(struct config *cfg, struct plan *pl, uint32_t pipeline, const char *header)
{
    char err[256], notes[256];
    config_defaults(cfg);
    CHECKF(targets_add_url(cfg, "http://127.0.0.1:1/a", err, sizeof(err)) == 0, "%s", err);
    CHECKF(targets_add_url(cfg, "http://127.0.0.1:2/b", err, sizeof(err)) == 0, "%s", err);
    cfg->pipeline = pipeline;
    cfg->seed = 42;
    cfg->seed_given = 1;
    if (header)
        CHECK(config_add_header(cfg, header) == 0);
    CHECKF(config_finish(cfg, err, sizeof(err), notes, sizeof(notes)) == 0, "%s", err);
    CHECKF(plan_build(cfg, pl, err, sizeof(err)) == 0, "%s", err);
    pl->sess = &session_http1;
}

static void connections_laid_out(void)
{
    struct config cfg;
    struct plan pl;
    struct worker w;
    uint32_t i;
    int ok = 1;
    plan_of(&cfg, &pl, 3, NULL);
    CHECK(pl.nendpoints == 2);
    /* Thread 1: 3 connections of -c, room for 5, numbered from 10. */
    CHECK(worker_init(&w, &pl, 1, 3, 5, 10, 77) == 0);
    CHECK(w.nconns == 5 && w.nactive == 3 && w.budget == 77 && w.id == 1 && w.plan == &pl);
    for (i = 0; i < 5; i++) {
        const struct conn *c = &w.conns[i];
        ok &= c->number == 10 + i && c->endpoint == (10 + i) % 2 && c->rr == (10 + i) / 2 && c->cap == 3 &&
              c->slots != &c->one && c->tbuf == NULL && c->fd == -1 && c->state == C_IDLE && c->w == &w &&
              c->sess == &session_http1 && c->ctx != NULL;
    }
    CHECK(ok);
    CHECK(w.per_target != NULL && w.per_stage == NULL && w.wbuf == NULL && w.rbuf != NULL && !w.capturing &&
          !w.logging && !w.verbose);
    worker_free(&w);
    plan_free(&pl);
    config_free(&cfg);
}

static void templated_buffers(void)
{
    struct config cfg;
    struct plan pl;
    struct worker w;
    plan_of(&cfg, &pl, 1, "X-Id: {{seq}}");
    CHECK(pl.templated && pl.max_len > 0);
    CHECK(worker_init(&w, &pl, 0, 2, 0, 0, 0) == 0);
    /* No pipelining: one slot, in the connection; a buffer of max_len. */
    CHECK(w.nconns == 2 && w.conns[0].slots == &w.conns[0].one && w.conns[1].cap == 1);
    CHECK(w.conns[0].tbuf != NULL && w.conns[1].tbuf != NULL && w.vars == 0);
    memset(w.conns[1].tbuf, 'x', pl.max_len); /* ASan: all of it is there */
    worker_free(&w);
    plan_free(&pl);
    config_free(&cfg);
}

static void seeded(void)
{
    struct config cfg;
    struct plan pl;
    struct worker a, b, c;
    plan_of(&cfg, &pl, 1, NULL);
    CHECK(worker_init(&a, &pl, 0, 1, 0, 0, 0) == 0 && worker_init(&b, &pl, 0, 1, 0, 0, 0) == 0 &&
          worker_init(&c, &pl, 1, 1, 0, 1, 0) == 0);
    CHECK(a.rng == b.rng && a.rng != c.rng && a.rng != 0 && c.rng != 0);
    worker_free(&a);
    worker_free(&b);
    worker_free(&c);
    plan_free(&pl);
    config_free(&cfg);
}

int main(void)
{
    T_RUN(connections_laid_out);
    T_RUN(templated_buffers);
    T_RUN(seeded);
    T_END("test_worker");
}
