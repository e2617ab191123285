/* worker.c - a worker thread's state made and freed: its event loop, its
 * connections and their slots, buffers, figures per target and stage, the
 * batch tick's and the second's histograms. What it does while it runs is
 * engine.c's; this is what it holds. */
#include "client.h"
#include "clock.h"

#include <stdlib.h>
#include <string.h>

void worker_free(struct worker *w)
{
    uint32_t i;
    if (w->per_target) {
        for (i = 0; i < figures_rows(w->plan->ntargets); i++)
            stats_fini(&w->per_target[i]);
    }
    if (w->conns)
        for (i = 0; i < w->nconns; i++) {
            uint32_t k;
            for (k = 0; w->conns[i].slots && k < w->conns[i].cap; k++)
                if (w->conns[i].slots[k].capt) {
                    free(w->conns[i].slots[k].capt->p);
                    free(w->conns[i].slots[k].capt);
                }
            if (w->conns[i].slots != &w->conns[i].one)
                free(w->conns[i].slots);
            free(w->conns[i].tbuf);
            conn_fini(&w->conns[i]);
        }
    for (i = 0; i < w->rlen; i++)
        free(w->retry[(w->rhead + i) % w->rcap].kept);
    free(w->retry);
    free(w->cens);
    free(w->ka_ended);
    free(w->chk_pass);
    free(w->chk_fail);
    free(w->chk_seen_t);
    free(w->chk_seen);
    free(w->skipped_var);
    free(w->live_status);
    reqlog_worker_free(w);
    free(w->per_target);
    if (w->per_stage)
        for (i = 0; i < w->plan->ramp.n; i++)
            stats_fini(&w->per_stage[i]);
    free(w->per_stage);
    hist_fini(&w->tl_h);
    hist_fini(&w->tick_h);
    hist_fini(&w->ends);
    if (w->tickets)
        for (i = 0; i < w->plan->nendpoints; i++)
            tls_ticket_free(&w->tickets[i]);
    free(w->tickets);
    stats_fini(&w->st);
    free(w->conns);
    free(w->q);
    backlog_free(&w->backlog);
    free(w->rbuf);
    free(w->wbuf);
    loop_fini(&w->loop);
}

/* A well-mixed nonzero seed from any number (splitmix64). */
static uint64_t splitmix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x ? x : 1;
}

int worker_init(struct worker *w, const struct plan *pl, uint32_t id, uint32_t nconns, uint32_t nmax,
                uint32_t first_conn, uint64_t budget)
{
    const struct config *cfg = pl->cfg;
    uint32_t i, depth = config_depth(cfg);

    memset(w, 0, sizeof(*w));
    w->plan = pl;
    w->id = id;
    w->loop.epfd = -1;
    w->nconns = nmax > nconns ? nmax : nconns;
    w->nactive = nconns;
    w->budget = budget;
    nconns = w->nconns;
    if (loop_init(&w->loop, nconns < 1024 ? (int)nconns + 16 : 1024) != 0)
        return -1;
    w->conns = calloc(nconns, sizeof(*w->conns));
    w->q = calloc(nconns, sizeof(uint32_t));
    w->rbuf = malloc(IO_RBUF_SIZE);
    /* The session writes through it; --follow rebuilds a redirect's request there. */
    if ((pl->sess->wbuf || cfg->follow) &&
        (w->wbuf = malloc(cfg->follow && pl->max_len > 64 * 1024 ? pl->max_len : 64 * 1024)) == NULL)
        return -1;
    w->per_target = calloc(figures_rows(pl->ntargets), sizeof(*w->per_target));
    w->tickets = calloc(pl->nendpoints, sizeof(*w->tickets));
    w->ka_ended = calloc(KA_MAX + 1, sizeof(*w->ka_ended));
    w->chk_pass = calloc(pl->nchecks + 1, sizeof(*w->chk_pass));
    w->chk_fail = calloc(pl->nchecks + 1, sizeof(*w->chk_fail));
    w->chk_seen_t = calloc(pl->nchecks + 1, sizeof(*w->chk_seen_t));
    w->chk_seen = calloc(pl->nchecks + 1, sizeof(*w->chk_seen));
    w->skipped_var = calloc(TPL_MAX_VARS, sizeof(*w->skipped_var));
    w->abort = (uint8_t)cfg->abort_on_fail;
    w->logging = pl->log != NULL;
    w->live = pl->live != NULL;
    if (w->live && (w->live_status = calloc(STATUS_MAX, sizeof(*w->live_status))) == NULL)
        return -1;
    w->vars = pl->tset->nvars > 0;
    for (i = 0; i < pl->ntargets; i++) {
        w->capturing |= pl->targets[i].capture != 0;
        w->afters |= pl->targets[i].after != 0;
    }
    w->verbose = pl->show != NULL;
    w->showing = w->verbose;
    w->capturing |= w->showing;
    w->afters |= w->showing;
    if (w->chk_pass == NULL || w->chk_fail == NULL || w->chk_seen_t == NULL || w->chk_seen == NULL ||
        w->skipped_var == NULL || (pl->log && reqlog_worker_init(w) != 0))
        return -1;
    tcpinfo_sum_init(&w->tcp);
    hist_init_bits(&w->tl_h, TL_SUB_BITS);
    hist_init_bits(&w->tick_h, TL_SUB_BITS);
    hist_init(&w->ends);
    if (w->tickets == NULL || w->ka_ended == NULL || w->conns == NULL || w->q == NULL || w->rbuf == NULL || w->per_target == NULL ||
        stats_init(&w->st) != 0)
        return -1;
    for (i = 0; i < figures_rows(pl->ntargets); i++)
        if (stats_init(&w->per_target[i]) != 0)
            return -1;
    if (pl->ramped) {
        if ((w->per_stage = calloc(pl->ramp.n, sizeof(*w->per_stage))) == NULL)
            return -1;
        for (i = 0; i < pl->ramp.n; i++)
            if (stats_init(&w->per_stage[i]) != 0)
                return -1;
    }
    /* --order random and the templates' generator: --seed repeats a run. */
    w->rng = splitmix((cfg->seed_given ? cfg->seed : clock_ns()) + 0x9E3779B97F4A7C15ULL * (id + 1) +
                      0xD1B54A32D192ED03ULL * cfg->shard_index); /* shards with one --seed draw apart */
    for (i = 0; i < nconns; i++) {
        struct slot *slots = depth > 1 ? calloc(depth, sizeof(struct slot)) : NULL;
        char *tbuf = pl->templated ? malloc(depth * pl->max_len) : NULL;
        if ((depth > 1 && slots == NULL) || (pl->templated && tbuf == NULL)) {
            free(slots);
            free(tbuf);
            return -1;
        }
        /* Spread the starting target so each target gets its share from the start. */
        if (conn_init(&w->conns[i], w, pl->sess, first_conn + i, (first_conn + i) % pl->nendpoints,
                      (first_conn + i) / pl->nendpoints, (uint16_t)depth, slots, tbuf) != 0)
            return -1;
    }
    return 0;
}
