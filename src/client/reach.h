/* reach.h - whether a run reaches its servers (reach.c): the first
 * contact stopped at once when every address fails, a connect's failure
 * waited out before the next. Private to src/client/, read through
 * client.h. */
#ifndef RAFALE_REACH_H
#define RAFALE_REACH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

struct conn;
struct plan;
struct worker;

/* What the workers share of it (the plan's). */
struct reach {
    atomic_int up;       /* a connection of the run was up */
    atomic_uint nup;     /* connections up now, over every worker: -n gives up only with none */
    atomic_int said;     /* the run stopped: msg says why (one writer: who set it) */
    /* Per endpoint, until a connection of the run is up: 2 in use, 1 a
     * connect to it failed, 0 no connection of -c goes there; and its
     * connections' first connects under way. */
    atomic_uchar *failed;
    atomic_uint *trying;
    char msg[400];
};

/* Before the workers start: the addresses their connections use. Returns
 * 0, or -1 when out of memory. */
int reach_init(struct plan *pl, const struct worker *ws, uint32_t nt);
void reach_fini(struct plan *pl);
/* c begins to connect. */
void reach_try(struct conn *c);
/* c is up (TCP and TLS, or QUIC's handshake): its next failed connect waits
 * from the start again, and the run has made contact. */
void reach_up(struct conn *c);
/* c, up, closes: one connection up fewer in the run. */
void reach_closed(struct conn *c);
/* c's connect failed (it was in state was, it is idle now) with error k,
 * errno e or detail, after took ns, on a request of the target: it waits
 * before the next (when the failure was quick and not this host's), and
 * before any connection of the run was up, its address is marked (every
 * address marked, no connect under way: the run stops, pl->reach->msg says
 * where and why). */
void reach_failed(struct conn *c, uint8_t was, enum err_kind k, int e, const char *detail, uint64_t took,
                  uint32_t target, uint64_t now);
/* c's timer ended its wait: it may connect again. */
void reach_resume(struct conn *c);
/* A run without a deadline (-n alone) whose connects have failed for
 * --timeout (w->t_down), none up meanwhile nor now: 1 (w->gave_up set), the
 * worker stops; reach_why says why (n bytes). */
int reach_gave_up(struct worker *w, uint64_t now);
void reach_why(const struct worker *w, char *why, size_t n);

#endif
