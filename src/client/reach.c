/* reach.c - whether the run reaches its servers.
 *
 * The first contact: until a connection of the run is up, an address whose
 * connect failed without reaching a server (refused, no answer within
 * --connect-timeout, a QUIC handshake that failed, no route) is marked;
 * once every address the run's connections use is, and no connection's
 * first connect is still under way (one of them may yet succeed), nothing
 * listens where the run was sent, and it stops with one line saying where
 * and why rather
 * than try a closed port at full speed for its whole length (which made a
 * latency table of requests never answered). One address down among others
 * up is not: the run goes on, its errors counted. The workers share this
 * through the plan's atomics, touched by a failed connect before any
 * connection was up and once per worker when one is: never after.
 *
 * The wait after a failed connect: a connection whose connect failed
 * connects again only after a wait, 4 ms doubling up to 1 s, from the start
 * again once it is up: a server that died mid-run is not flooded with
 * connects (the run goes on). A closed loop's connection starts nothing
 * meanwhile; in rate mode it is out of the work queue, the due requests go
 * to the others, and while every connection waits they end at once with
 * the last connect's error (engine.c), the schedule keeping its due times.
 * A connect that took its whole --connect-timeout does not wait again (it
 * waited already), and failures of this host (no local port, no descriptor,
 * no memory) do not wait: the server never saw them.
 *
 * Giving up: a run bounded by -n alone has no other end; when its connects
 * have failed for --timeout with no connection up, the worker stops and the
 * report says why. */
#include "client.h"
#include "clock.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BACKOFF_MIN_NS (4 * NS_PER_MS)
#define BACKOFF_MAX_NS NS_PER_S

int reach_init(struct plan *pl, const struct worker *ws, uint32_t nt)
{
    uint32_t t, i;
    if ((pl->reach = calloc(1, sizeof(*pl->reach))) == NULL ||
        (pl->reach->failed = calloc(pl->nendpoints, sizeof(*pl->reach->failed))) == NULL ||
        (pl->reach->trying = calloc(pl->nendpoints, sizeof(*pl->reach->trying))) == NULL)
        return -1;
    /* An address in use: one a connection of -c goes to. */
    for (t = 0; t < nt; t++)
        for (i = 0; i < ws[t].nactive; i++)
            atomic_store(&pl->reach->failed[ws[t].conns[i].endpoint], 2);
    return 0;
}

void reach_fini(struct plan *pl)
{
    if (pl->reach) {
        free(pl->reach->failed);
        free(pl->reach->trying);
    }
    free(pl->reach);
    pl->reach = NULL;
}

void reach_try(struct conn *c)
{
    struct worker *w = c->w;
    /* A connection's first connect, before the first contact: after it,
     * one load of a line no one writes again. (Its next ones are not
     * waited for: a connection that retries at once after each timeout
     * would hold the verdict back for ever.) */
    if (c->first == 0 && !w->up && !atomic_load_explicit(&w->plan->reach->up, memory_order_relaxed)) {
        atomic_fetch_add(&w->plan->reach->trying[c->endpoint], 1);
        c->first = 1;
    }
}

/* c's first connect ended. */
static void tried(struct conn *c)
{
    if (c->first == 1) {
        atomic_fetch_sub(&c->w->plan->reach->trying[c->endpoint], 1);
        c->first = 2;
    }
}

void reach_up(struct conn *c)
{
    struct worker *w = c->w;
    /* The run is up before this connect stops counting as under way: a
     * worker that sees no connect under way then sees the run up. */
    if (!w->up) {
        w->up = 1;
        atomic_store(&w->plan->reach->up, 1);
    }
    tried(c);
    c->backoff_ns = 0;
    c->cut = 0;
    w->t_down = 0;
    if (!c->counted_up) {
        c->counted_up = 1;
        atomic_fetch_add_explicit(&w->plan->reach->nup, 1, memory_order_relaxed);
    }
}

void reach_closed(struct conn *c)
{
    if (c->counted_up) {
        c->counted_up = 0;
        atomic_fetch_sub_explicit(&c->w->plan->reach->nup, 1, memory_order_relaxed);
    }
}

/* A failure that every connection to that address will meet again:
 * nothing reached a server there (a connect that timed out in the TLS
 * handshake came after one did), or its TLS handshake failed (a
 * certificate not trusted here, no common version or cipher: the same
 * settings meet the same server). Over QUIC the TLS handshake is the
 * connect's (C_CONNECTING until it is done). */
static int unreached(uint8_t was, enum err_kind k, int e, int quic)
{
    switch (k) {
    case ERR_CONNECT_REFUSED:
    case ERR_QUIC_HANDSHAKE:
        return 1;
    case ERR_TLS:
        return was == C_HANDSHAKE || (quic && was == C_CONNECTING);
    case ERR_TIMEOUT_CONNECT:
        return was == C_CONNECTING;
    case ERR_CONNECT_OTHER:
        return e != 0 && e != ENOMEM && e != EMFILE && e != ENFILE && e != ENOBUFS;
    default:
        return 0;
    }
}

/* Why a connect failed, in words; with advice, what to look at. */
static void cause(const struct worker *w, uint32_t endpoint, int kind, int e, const char *detail, int advice,
                  char *out, size_t n)
{
    const struct plan *pl = w->plan;
    int quic = pl->proto->quic, unix_socket = pl->endpoints[endpoint].addr.ss.ss_family == AF_UNIX;
    char a[128], t[32];
    int k = snprintf(out, n, "%s: ", net_addr_str(&pl->endpoints[endpoint].addr, a, sizeof(a)));
    if (k < 0 || (size_t)k >= n)
        return;
    out += k;
    n -= (size_t)k;
    switch (kind) {
    case ERR_CONNECT_REFUSED:
        if (!advice)
            snprintf(out, n, "connection refused");
        else if (quic)
            snprintf(out, n, "connection refused (ICMP port unreachable): nothing listens on that UDP port (is the "
                             "server running, with HTTP/3? is the port right?)");
        else
            snprintf(out, n, "connection refused: nothing listens there (is the server running? is the %s right?)",
                     unix_socket ? "socket's path" : "port");
        break;
    case ERR_TIMEOUT_CONNECT:
        snprintf(out, n, "no answer to the connect within %s (--connect-timeout)%s",
                 units_fmt_ns(t, sizeof(t), (double)pl->cfg->connect_timeout_ns),
                 advice ? ": is the host up? does a firewall drop the packets?" : "");
        break;
    case ERR_QUIC_HANDSHAKE:
        snprintf(out, n, "no HTTP/3 connection: %s%s", detail ? detail : "the QUIC handshake failed",
                 advice ? " (is the server running, with HTTP/3 on that UDP port?)" : "");
        break;
    case ERR_TLS: {
        /* OpenSSL's verify reasons ("self-signed certificate", "unable to
         * get local issuer certificate", "hostname mismatch", "certificate
         * has expired"; http3_quic.c's in the same words) name what to do:
         * a CA given for the first, another name or the dates for the others. */
        const char *help = "";
        char name[sizeof(pl->endpoints[endpoint].host) + 160];
        if (!advice || detail == NULL || strstr(detail, "--insecure")) {
            /* nothing to add */
        } else if (strstr(detail, "mismatch")) {
            snprintf(name, sizeof(name), " (the server's certificate is not for %s: use a name it names (--resolve "
                     "or --connect-to keep the address), or --insecure skips the check)", pl->endpoints[endpoint].host);
            help = name;
        } else if (strstr(detail, "expired") || strstr(detail, "not yet valid"))
            help = " (its dates are not now: renew it, or set this host's clock; --insecure skips the check)";
        else if (strstr(detail, "certificate"))
            help = " (the server's certificate is not trusted here: --cacert FILE gives its CA, --insecure skips the "
                   "check)";
        snprintf(out, n, "TLS handshake failed: %s%s", detail ? detail : "TLS error", help);
        break;
    }
    default:
        snprintf(out, n, "cannot connect: %s", detail ? detail : strerror(e));
        break;
    }
}

/* Before any connection was up, every address in use has had a connect
 * fail that reached no server, and none is under way: nothing listens
 * where the run was sent. */
static int all_failed(const struct reach *r, uint32_t n)
{
    uint32_t i;
    if (atomic_load(&r->up))
        return 0;
    for (i = 0; i < n; i++)
        if (atomic_load(&r->failed[i]) == 2 || atomic_load(&r->trying[i]) != 0)
            return 0;
    /* Up meanwhile (reach_up publishes it before its connect stops being
     * under way). */
    return !atomic_load(&r->up);
}

/* The run stops, saying the last failure's address and cause (and that
 * the others failed too). */
static void say_unreached(struct conn *c, enum err_kind k, int e, const char *detail)
{
    struct worker *w = c->w;
    struct reach *r = w->plan->reach;
    uint32_t i, others = 0;
    size_t at;
    if (atomic_exchange(&r->said, 1) != 0)
        return;
    for (i = 0; i < w->plan->nendpoints; i++)
        others += i != c->endpoint && atomic_load(&r->failed[i]) == 1;
    cause(w, c->endpoint, (int)k, e, detail, 1, r->msg, sizeof(r->msg));
    at = strlen(r->msg);
    if (others)
        snprintf(r->msg + at, sizeof(r->msg) - at, "; the run's %u other address%s could not be reached either", others,
                 others == 1 ? "" : "es");
    w->stopping = 1;
    atomic_store(w->plan->failed, 1);
}

void reach_failed(struct conn *c, uint8_t was, enum err_kind k, int e, const char *detail, uint64_t took,
                  uint32_t target, uint64_t now)
{
    struct worker *w = c->w;
    struct reach *r = w->plan->reach;
    int quic = w->plan->proto->quic;
    /* A TLS handshake cut short without an alert or a certificate's fault
     * may be a server's hiccup on its first connection: the same
     * connection's second in a row says it, not the first. */
    int hiccup = k == ERR_TLS && detail && !strstr(detail, "certificate") && !strstr(detail, "alert") &&
                 !strstr(detail, "mismatch") && c->cut++ == 0;
    if (!hiccup)
        tried(c);
    if (!hiccup && !w->up && unreached(was, k, e, quic) && !atomic_load_explicit(&r->up, memory_order_relaxed)) {
        atomic_store(&r->failed[c->endpoint], 1);
        if (all_failed(r, w->plan->nendpoints))
            say_unreached(c, k, e, detail);
    }
    /* This host's shortage: the server saw nothing, waiting would only slow
     * the run down (a port freed, a descriptor closed, it goes on). */
    if (k == ERR_ADDR_UNAVAILABLE || (k == ERR_CONNECT_OTHER && !unreached(was, k, e, quic)) || w->stopping)
        return;
    if (w->t_down == 0)
        w->t_down = now;
    w->down_endpoint = c->endpoint;
    w->down_kind = (int)k;
    w->down_errno = e;
    w->down_detail = detail;
    /* A connect that took its whole --connect-timeout has waited already. */
    if (took >= w->plan->cfg->connect_timeout_ns)
        return;
    c->backoff_ns = c->backoff_ns ? (c->backoff_ns * 2 < BACKOFF_MAX_NS ? c->backoff_ns * 2 : BACKOFF_MAX_NS)
                                  : BACKOFF_MIN_NS;
    if (loop_timer_set(&w->loop, &c->timer, now + c->backoff_ns) != 0)
        return; /* no room for its timer: at once, as without a wait */
    c->waiting = 1;
    w->nwaiting++;
    record_backoff(c, target, now);
}

void reach_resume(struct conn *c)
{
    c->waiting = 0;
    c->w->nwaiting--;
    workq_enqueue(c);
}

int reach_gave_up(struct worker *w, uint64_t now)
{
    const struct plan *pl = w->plan;
    if (pl->t_deadline != UINT64_MAX || now - w->t_down < pl->cfg->timeout_ns)
        return 0;
    /* A connection up anywhere in the run (another thread's, to another
     * target): not given up, the clock starts again. */
    if (atomic_load_explicit(&pl->reach->nup, memory_order_relaxed)) {
        w->t_down = now;
        return 0;
    }
    w->gave_up = 1;
    return 1;
}

void reach_why(const struct worker *w, char *why, size_t n)
{
    cause(w, w->down_endpoint, w->down_kind, w->down_errno, w->down_detail, 0, why, n);
}
