/* mux.c - what the multiplexed sessions share (HTTP/2's http2.c, HTTP/3's
 * http3.c), written once, as ngtcp2's examples share their client base: a
 * connection's slots are a pool (a request takes any free one, answers end
 * in any order); a request refused unprocessed goes again on another
 * connection; and a response's life on its slot, the same whatever frames
 * carry it: its first field section, the fields its checks read, its end,
 * its timeout. The stream under the slot stays the session's. */
#include "client.h"

#include <stdlib.h>
#include <string.h>

#define MUX_RETRIES 3 /* sends of a request refused by a server that processes nothing */

struct slot *mux_slot_new(struct conn *c)
{
    uint32_t i;
    for (i = 0; i < c->cap; i++) {
        struct slot *s = &c->slots[(c->hint + i) % c->cap];
        if (!s->busy) {
            c->hint = (uint16_t)((c->hint + i + 1) % c->cap);
            return s;
        }
    }
    return &c->slots[0]; /* not reached: the caller checked count < cap */
}

struct slot *mux_oldest(struct conn *c)
{
    struct slot *o = NULL;
    uint32_t i;
    for (i = 0; i < c->cap; i++)
        if (c->slots[i].busy && (o == NULL || c->slots[i].t_sent < o->t_sent))
            o = &c->slots[i];
    return o ? o : &c->slots[0];
}

int mux_retry(struct conn *c, struct slot *s, int progress)
{
    struct worker *w = c->w;
    const struct plan *pl = w->plan;
    struct slot again = *s;
    /* A server that processes nothing at all on a connection gets
     * MUX_RETRIES chances per request; one that answers some streams and
     * refuses the rest (a request limit per connection) is followed as
     * long as it does. */
    if (!progress && s->retries >= MUX_RETRIES)
        return 0;
    again.retries = (uint8_t)(s->retries + !progress);
    again.busy = 0;
    again.stream = 0;
    again.kept = NULL;
    /* A templated or replayed request goes again as it was ({{seq}} once,
     * the log's line it was given). */
    int own = pl->targets[s->target].req == NULL || pl->replay;
    if (own && (again.kept = malloc(pl->max_len)) != NULL)
        memcpy(again.kept, s->req, pl->max_len);
    if ((!own || again.kept) && workq_retry(w, &again) == 0)
        return 1;
    free(again.kept);
    return 0;
}

void mux_first(struct conn *c, struct slot *s, uint64_t now)
{
    if (s->got_first)
        return;
    s->got_first = 1;
    s->t_first = conn_arrival(c, now);
    if (c->w->plan->targets[s->target].capture || c->w->showing) {
        /* Once per slot, kept for its next streams. */
        if (s->capt == NULL)
            s->capt = calloc(1, sizeof(*s->capt));
        if (s->capt)
            s->capt->len = s->capt->head_len = s->capt->total = s->capt->over = 0;
    }
}

void mux_field(struct conn *c, struct slot *s, const char *name, size_t nlen, const char *value, size_t vlen)
{
    const struct plan *pl = c->w->plan;
    /* The fields as "name: value" lines (not the pseudo-fields, not
     * trailers after DATA): the head of what a check reads. */
    if (!c->w->capturing || nlen == 0 || name[0] == ':' || s->capt == NULL ||
        !(pl->targets[s->target].capture || c->w->showing) ||
        s->capt->len != s->capt->head_len)
        return;
    verify_keep(s->capt, pl, name, nlen);
    verify_keep(s->capt, pl, ": ", 2);
    verify_keep(s->capt, pl, value, vlen);
    verify_keep(s->capt, pl, "\r\n", 2);
    s->capt->head_len = s->capt->len;
}

void mux_ended(struct conn *c, struct slot *s, uint64_t now)
{
    uint8_t after = c->w->plan->targets[s->target].after;
    s->ended = 1;
    if (c->w->showing)
        show_exchange(c, s, s->status, -1, s->capt);
    if (after & AFTER_VERIFY)
        verify_response(c, s, s->status, s->capt, now);
    if (after & AFTER_THINK)
        conn_thought(c, s->target, now);
    record_response(c, s, s->status, s->got_first ? s->t_first : now, CLOSE__COUNT, now);
}

void mux_timeouts(struct conn *c, uint64_t now, void (*drop)(struct conn *c, struct slot *s))
{
    uint64_t limit = c->w->plan->cfg->timeout_ns;
    uint32_t i;
    for (i = 0; c->count && i < c->cap; i++) {
        struct slot *s = &c->slots[i];
        if (!s->busy || now < s->t_sent + limit)
            continue;
        record_error(c, s, ERR_TIMEOUT_ANSWER, 0, NULL, now);
        drop(c, s);
    }
    if (rate_mode(c->w))
        workq_enqueue(c);
    else
        conn_fill(c, now);
}
