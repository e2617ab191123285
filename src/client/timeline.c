/* timeline.c - the per-second timeline; see timeline.h. */
#include "timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct tl_open {
    uint32_t sec;
    uint32_t closed;            /* workers that closed it */
    uint64_t completed, errors;
    struct hist h;
};

int timeline_init(struct timeline *t, uint32_t nthreads)
{
    memset(t, 0, sizeof(*t));
    t->nthreads = nthreads ? nthreads : 1;
    return pthread_mutex_init(&t->mu, NULL);
}

void timeline_fini(struct timeline *t)
{
    uint32_t i;
    for (i = 0; i < t->nopen; i++)
        hist_fini(&t->open[i].h);
    free(t->open);
    free(t->done);
    if (t->hists)
        for (i = 0; i < t->ndone; i++)
            hist_fini(&t->hists[i]);
    free(t->hists);
    if (t->keep_cum)
        hist_fini(&t->cum);
    pthread_mutex_destroy(&t->mu);
    memset(t, 0, sizeof(*t));
}

/* Moves the oldest open seconds that every worker has closed to done.
 * Seconds close in order, so finished ones are at the front. */
static void settle(struct timeline *t, int all)
{
    uint32_t k = 0, i;
    while (k < t->nopen && (all || t->open[k].closed >= t->nthreads)) {
        struct tl_open *o = &t->open[k];
        if (t->ndone <= o->sec) {
            uint32_t need = o->sec + 1;
            if (need > t->capdone) {
                uint32_t cap = t->capdone ? t->capdone : 64;
                struct tl_second *d;
                while (cap < need)
                    cap *= 2;
                if ((d = realloc(t->done, cap * sizeof(*d))) == NULL) {
                    t->oom = 1;
                    break;
                }
                t->done = d;
                if (t->keep_hist) {
                    struct hist *hs = realloc(t->hists, cap * sizeof(*hs));
                    if (hs == NULL) {
                        t->oom = 1;
                        break;
                    }
                    t->hists = hs;
                }
                t->capdone = cap;
            }
            /* Seconds nobody reported (no thread saw them) are zero. */
            memset(&t->done[t->ndone], 0, (need - t->ndone) * sizeof(*t->done));
            if (t->keep_hist)
                for (i = t->ndone; i < need; i++)
                    hist_init_bits(&t->hists[i], TL_SUB_BITS);
            t->ndone = need;
        }
        t->done[o->sec].completed = o->completed;
        t->done[o->sec].errors = o->errors;
        t->done[o->sec].p50_ns = hist_percentile(&o->h, 50);
        t->done[o->sec].p99_ns = hist_percentile(&o->h, 99);
        t->done[o->sec].max_ns = o->h.total ? (double)o->h.max : 0;
        if (t->keep_cum && o->sec + 1 == t->ndone)
            t->latest_p90_ns = hist_percentile(&o->h, 90);
        if (t->keep_cum) {
            if (hist_merge(&t->cum, &o->h) != 0)
                t->oom = 1;
            t->cum_req += o->completed;
            t->cum_err += o->errors;
        }
        if (t->keep_hist) {
            /* Moved, not copied: the second's buckets become the kept ones. */
            hist_fini(&t->hists[o->sec]);
            t->hists[o->sec] = o->h;
        } else {
            hist_fini(&o->h);
        }
        k++;
    }
    if (k) {
        for (i = k; i < t->nopen; i++)
            t->open[i - k] = t->open[i];
        t->nopen -= k;
    }
}

void timeline_close(struct timeline *t, uint32_t sec, uint64_t completed, uint64_t errors, const struct hist *h)
{
    uint32_t i;
    struct tl_open *o = NULL;

    pthread_mutex_lock(&t->mu);
    for (i = 0; i < t->nopen; i++)
        if (t->open[i].sec == sec) {
            o = &t->open[i];
            break;
        }
    if (o == NULL && sec >= t->ndone) {
        if (t->nopen == t->capopen) {
            uint32_t cap = t->capopen ? t->capopen * 2 : 8;
            struct tl_open *n = realloc(t->open, cap * sizeof(*n));
            if (n == NULL) {
                t->oom = 1;
                pthread_mutex_unlock(&t->mu);
                return;
            }
            t->open = n;
            t->capopen = cap;
        }
        /* Kept sorted by second: a new one is the latest. */
        for (i = t->nopen; i > 0 && t->open[i - 1].sec > sec; i--)
            t->open[i] = t->open[i - 1];
        o = &t->open[i];
        memset(o, 0, sizeof(*o));
        o->sec = sec;
        hist_init_bits(&o->h, TL_SUB_BITS);
        t->nopen++;
    }
    if (o) {
        o->closed++;
        o->completed += completed;
        o->errors += errors;
        if (h && hist_merge(&o->h, h) != 0)
            t->oom = 1;
        settle(t, 0);
    }
    pthread_mutex_unlock(&t->mu);
}

void timeline_finish(struct timeline *t)
{
    pthread_mutex_lock(&t->mu);
    settle(t, 1);
    pthread_mutex_unlock(&t->mu);
}

int timeline_latest(struct timeline *t, struct tl_second *out, double *p90_ns)
{
    int got = 0;
    pthread_mutex_lock(&t->mu);
    if (t->ndone) {
        *out = t->done[t->ndone - 1];
        *p90_ns = t->keep_cum ? t->latest_p90_ns : -1;
        got = 1;
    }
    pthread_mutex_unlock(&t->mu);
    return got;
}

void timeline_keep_cumulative(struct timeline *t)
{
    if (hist_init_bits(&t->cum, TL_SUB_BITS) == 0)
        t->keep_cum = 1;
}

uint32_t timeline_cumulative(struct timeline *t, struct hist *out, uint64_t *requests, uint64_t *errors)
{
    uint32_t n;
    pthread_mutex_lock(&t->mu);
    hist_reset(out);
    if (t->keep_cum && hist_merge(out, &t->cum) != 0)
        t->oom = 1;
    *requests = t->cum_req;
    *errors = t->cum_err;
    n = t->ndone;
    pthread_mutex_unlock(&t->mu);
    return n;
}
