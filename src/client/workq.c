/* workq.c - a worker's work queue and its ring of requests to send again:
 * which connections wait to be given a request (closed loop: their next
 * one; rate mode: the next due one), whether another request may start,
 * and the requests an HTTP/2 server refused unprocessed (RFC 9113 §8.7),
 * sent again first. Plain data structures on the worker: the engine, the
 * connections and the sessions use them, and they call nothing back. */
#include "client.h"

#include <stdlib.h>

void workq_enqueue(struct conn *c)
{
    struct worker *w = c->w;
    if (c->queued || c->waiting)
        return; /* a connection waiting to connect again comes back with its timer (reach.c) */
    c->queued = 1;
    w->q[(w->qhead + w->qlen) % w->nconns] = (uint32_t)(c - w->conns);
    w->qlen++;
}

struct conn *workq_dequeue(struct worker *w)
{
    struct conn *c;
    if (w->qlen == 0)
        return NULL;
    c = &w->conns[w->q[w->qhead]];
    w->qhead = (w->qhead + 1) % w->nconns;
    w->qlen--;
    c->queued = 0;
    return c;
}

int workq_may_start(const struct worker *w)
{
    return !w->stopping && w->st.started + w->st.skipped < w->budget;
}

int workq_retry(struct worker *w, const struct slot *s)
{
    if (w->rlen == w->rcap) {
        /* Rare (a server's GOAWAY): grown as needed, never on the hot path. */
        uint32_t cap = w->rcap ? w->rcap * 2 : 16, i;
        struct slot *n = malloc(cap * sizeof(*n));
        if (n == NULL)
            return -1;
        for (i = 0; i < w->rlen; i++)
            n[i] = w->retry[(w->rhead + i) % w->rcap];
        free(w->retry);
        w->retry = n;
        w->rcap = cap;
        w->rhead = 0;
    }
    w->retry[(w->rhead + w->rlen) % w->rcap] = *s;
    w->retry[(w->rhead + w->rlen) % w->rcap].capt = NULL; /* the capture stays with its slot */
    w->rlen++;
    return 0;
}

void workq_retry_take(struct worker *w, struct slot *s)
{
    struct capture *keep = s->capt;
    *s = w->retry[w->rhead];
    s->capt = keep;
    w->rhead = (w->rhead + 1) % w->rcap;
    w->rlen--;
}
