/* conn.c - a client connection: its socket, its transport (plain or TLS,
 * io_ops), its request timeout, and the states
 *
 *     IDLE -> CONNECTING -> HANDSHAKE -> OPEN -> ... -> IDLE
 *
 * What goes over it is the session's business (http1.c or http2.c, behind
 * session_ops, chosen by the engine): the connection asks the session to
 * expand and write the requests it was given, hands it the bytes it reads,
 * and names no protocol itself. Its work comes from the worker's queue
 * (workq.c); every figure goes through record.c. */
#include "client.h"
#include "clock.h"
#include "rxstamp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum err_kind connect_kind(int e)
{
    switch (e) {
    case ECONNREFUSED:
        return ERR_CONNECT_REFUSED;
    case ETIMEDOUT:
        return ERR_TIMEOUT_CONNECT;
    case EADDRNOTAVAIL:
        return ERR_ADDR_UNAVAILABLE;
    default:
        return ERR_CONNECT_OTHER;
    }
}

void conn_close(struct conn *c)
{
    /* (record_response marks it at a connection's first measured answer;
     * this, those of the warm-up) */
    if (c->tcp_answers)
        conn_spoke(c);
    record_tcpinfo(c);
    if (c->fd >= 0) {
        c->ops->close(c->io_ctx, c->fd);
        c->fd = -1;
        c->w->open--;
    }
    reach_closed(c);
    c->sess->closed(c);
    c->ops = &io_plain;
    c->io_ctx = NULL;
    c->state = C_IDLE;
    c->draining = 0;
    if (c->count) {
        uint32_t i;
        for (i = 0; i < c->cap; i++)
            c->slots[i].busy = 0;
        c->count = 0;
    }
}

/* A timeout before the connection is up (TCP or TLS handshake) is the
 * connect's, told apart from a connected request's: the first says the
 * server's accept queue (or the path), the second the server's answer. */
static enum err_kind timeout_kind(const struct conn *c)
{
    return c->state == C_CONNECTING || c->state == C_HANDSHAKE ? ERR_TIMEOUT_CONNECT : ERR_TIMEOUT_ANSWER;
}

void conn_arm(struct conn *c)
{
    const struct config *cfg = c->w->plan->cfg;
    uint64_t limit = cfg->timeout_ns;
    if (c->count == 0)
        return; /* idle connections never time out */
    if (c->state == C_CONNECTING && cfg->connect_timeout_ns < limit)
        limit = cfg->connect_timeout_ns;
    if (loop_timer_set(&c->w->loop, &c->timer, c->sess->oldest(c)->t_sent + limit) != 0)
        /* No room in the timer heap: without a timeout the request could
         * wait forever, so it ends now, said as such. */
        conn_fail(c, timeout_kind(c), ENOMEM, "no memory for the request's timer", clock_ns());
}

void conn_fail(struct conn *c, enum err_kind k, int e, const char *detail, uint64_t now)
{
    uint32_t i, target = UINT32_MAX;
    uint64_t t_try = now;
    uint8_t was = c->state;
    for (i = 0; c->count && i < c->cap; i++)
        if (c->slots[i].busy) {
            target = c->slots[i].target;
            if (c->slots[i].t_sent < t_try) /* its connect began with its oldest request */
                t_try = c->slots[i].t_sent;
            record_error(c, &c->slots[i], k, e, detail, now);
            conn_release(c, &c->slots[i]);
        }
    conn_close(c);
    if (was != C_OPEN) /* its connect failed: it may wait before the next (out of the queue then) */
        reach_failed(c, was, k, e, detail, now - t_try, target, now);
    workq_enqueue(c);
}

void conn_abort(struct conn *c, enum err_kind k, const char *fmt, ...)
{
    struct worker *w = c->w;
    if (w->err[0] == '\0') {
        char a[120];
        va_list ap;
        int n = snprintf(w->err, sizeof(w->err), "%s ", net_addr_str(&w->plan->endpoints[c->endpoint].addr, a, sizeof(a)));
        va_start(ap, fmt);
        if (n > 0 && (size_t)n < sizeof(w->err))
            vsnprintf(w->err + n, sizeof(w->err) - (size_t)n, fmt, ap);
        va_end(ap);
    }
    w->stopping = 1;
    atomic_store(w->plan->failed, 1);
    conn_fail(c, k, 0, NULL, clock_ns());
}

void conn_mismatch(struct conn *c, enum err_kind k, const char *detail, const char *fmt, ...)
{
    char why[sizeof(c->w->err)];
    va_list ap;
    if (atomic_load_explicit(&c->w->plan->endpoints[c->endpoint].spoke, memory_order_relaxed)) {
        conn_fail(c, k, 0, detail, clock_ns());
        return;
    }
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    conn_abort(c, k, "%s", why);
}

void conn_io_error(struct conn *c, enum err_kind plain_kind, uint64_t now)
{
    /* EPROTO from a transport that can name it: a TLS failure (an alert, a
     * truncated record), not a reset or a write error. */
    if (errno == EPROTO && c->ops->error)
        conn_fail(c, ERR_TLS, 0, c->ops->error(c->io_ctx), now);
    else
        conn_fail(c, plain_kind, errno, NULL, now);
}

void conn_cookie(struct conn *c, const struct slot *s, const char *v, size_t n)
{
    const char *path = c->w->plan->cfg->urls[s->target].target;
    if (c->jar == NULL && (c->jar = calloc(1, sizeof(*c->jar))) == NULL)
        return; /* out of memory: the cookie is not kept */
    /* The default Path comes from the target's path as written. */
    cookie_set(c->jar, v, n, path, strlen(path), time(NULL));
}

/* The next target of c, as --order says. */
static uint32_t next_target(struct conn *c)
{
    const struct plan *pl = c->w->plan;
    const struct plan_endpoint *tg = &pl->endpoints[c->endpoint];
    switch (pl->cfg->order_mode) {
    case ORDER_SEQUENTIAL:
        /* One sequence over the whole run: with -n, every target gets its
         * exact share. */
        return tg->order[(atomic_fetch_add_explicit(&pl->next[c->endpoint], 1, memory_order_relaxed) * pl->tset->stride +
                          pl->tset->offset) % tg->norder]; /* with --shard: this shard's turns of the run's sequence */
    case ORDER_RANDOM:
        return tg->order[template_rand(&c->w->rng) % tg->norder];
    case ORDER_SESSION:
        return tg->order[c->walk++ % tg->norder];
    default:
        return tg->targets[c->rr++ % tg->ntargets];
    }
}

/* The bytes of s's request: built once, or expanded now into the slot's
 * part of the connection's buffer (a request sent again keeps its own).
 * Returns 0, or 1 + the variable whose value cannot stand where it goes
 * (a CR or LF in a header would end it and start another request). */
static uint32_t conn_request(struct conn *c, struct slot *s)
{
    const struct plan *pl = c->w->plan;
    const struct plan_target *pt = &pl->targets[s->target];
    struct tpl_ctx ctx;
    char *buf;

    if (pt->req && !pl->replay) {
        s->req = pt->req;
        s->req_len = pt->len;
        return 0;
    }
    buf = c->tbuf + (size_t)(s - c->slots) * pl->max_len;
    if (s->kept) { /* sent again as it was (its req_len kept) */
        memcpy(buf, s->kept, pl->max_len);
        free(s->kept);
        s->kept = NULL;
        s->req = buf;
        return 0;
    }
    if (pl->replay) {
        s->req = buf;
        s->req_len = replay_request(c->w, s, buf);
        return 0;
    }
    template_ctx_start(&ctx, c->number, &c->w->rng);
    ctx.vars = c->vars;
    s->req_len = c->sess->expand(c, s, &ctx, buf);
    s->req = buf;
    return ctx.bad_var;
}

/* The target c sends next. One that needs a variable its session has not
 * set is skipped (counted, with the variable: a failed login does not
 * flood the server with requests it must refuse) and the next one tried.
 * Returns 0 when none is sent: the budget went to skips, or, in a closed
 * loop, c skipped a whole turn of its targets, so nothing it could send
 * would set a variable: it takes no more work. */
static int pick_target(struct conn *c, uint64_t t_due, uint32_t *target)
{
    struct worker *w = c->w;
    const struct plan *pl = w->plan;
    uint32_t turn = pl->endpoints[c->endpoint].norder;
    for (;;) {
        uint32_t u = next_target(c);
        const struct plan_target *pt = &pl->targets[u];
        uint64_t missing;
        if (!verify_missing(c, pt)) {
            c->skips = 0;
            *target = u;
            return 1;
        }
        missing = pt->vars & ~(c->vars ? c->vars->set : 0);
        record_skip(w, u, (uint32_t)__builtin_ctzll(missing), t_due);
        if (!rate_mode(w) && ++c->skips > turn) {
            /* A turn's worth skipped: is any target sendable at all? If
             * not, nothing it could send would set a variable. */
            const struct plan_endpoint *tg = &pl->endpoints[c->endpoint];
            uint32_t k;
            for (k = 0; k < tg->ntargets && verify_missing(c, &pl->targets[tg->targets[k]]); k++)
                ;
            if (k == tg->ntargets) {
                c->parked = 1;
                w->parked++;
                return 0;
            }
            c->skips = 0;
        }
        if (rate_mode(w) || (t_due >= pl->t_measure && !workq_may_start(w)))
            return 0; /* rate mode: this due request was the one skipped */
    }
}

/* Gives c a request due at t_due, or (t_due 0) the oldest one waiting to be
 * sent again. The caller checked the budget. Returns 0 when it gave none
 * (pick_target). */
static int conn_add(struct conn *c, uint64_t t_due, uint64_t now)
{
    struct worker *w = c->w;
    struct slot *s;
    uint32_t target = 0;

    if (t_due != 0 && w->vars && (c->parked || !pick_target(c, t_due, &target)))
        return 0;
    s = c->sess->slot_new(c);
    if (t_due == 0) {
        workq_retry_take(w, s); /* started already: its times and target go on */
    } else {
        s->t_due = t_due;
        s->t_sent = now;
        s->hops = 0;
        if (w->plan->replay) { /* the log's next request: its target, its method */
            const struct replay_entry *e = replay_take(w);
            s->target = e->target;
            s->head = e->head;
        } else {
            s->target = w->vars ? target : next_target(c);
            s->head = (uint8_t)w->plan->targets[s->target].head;
        }
        s->measured = t_due >= w->plan->t_measure;
        s->retries = 0;
        s->kept = NULL;
        s->bytes_in = 0;
        record_start(c, s, now);
    }
    c->thinking = 0; /* the timer is this request's timeout's from here */
    if (conn_request(c, s)) {
        /* Started, and ended at once: never written. */
        record_error(c, s, ERR_BAD_VALUE, 0, "an extracted value holds a byte its place in the request cannot carry",
                     now);
        if (c->count == 0)
            workq_enqueue(c); /* its next turn, from the loop (no recursion) */
        return 0;
    }
    s->busy = 1;
    c->sess->added(c, s);
    c->count++;
    c->nreq++;
    return 1;
}

void conn_unsent(struct conn *c, uint64_t due, uint64_t now)
{
    struct worker *w = c->w;
    struct slot s;
    memset(&s, 0, sizeof(s));
    s.t_due = due;
    s.t_sent = now;
    s.target = w->plan->replay ? replay_take(w)->target : next_target(c);
    s.measured = due >= w->plan->t_measure;
    s.unsent = 1;
    record_start(c, &s, now);
    record_error(c, &s, (enum err_kind)w->down_kind, w->down_errno, w->down_detail, now);
}

void conn_fill(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    uint64_t rpc = w->plan->cfg->requests_per_conn;
    int was_idle = c->count == 0;

    if (c->count == 0 && (uint32_t)(c - w->conns) >= w->nactive && w->plan->ramped == 2) {
        /* A connection the stages let go: closed once its request is done. */
        if (c->state != C_IDLE)
            conn_close(c);
        return;
    }
    /* --think: the pause after its last answer holds the next request. */
    if (w->afters && c->think_until > now && !rate_mode(w)) {
        conn_think(c);
        return;
    }
    while (c->count < c->cap && !c->draining && (rpc == 0 || c->nreq < rpc)) {
        if (w->rlen)
            conn_add(c, 0, now);
        else if (!workq_may_start(w) || !conn_add(c, now, now))
            break;
    }
    if (was_idle)
        conn_arm(c);
    if (c->state == C_OPEN)
        c->sess->write(c);
}

const struct net_addr *conn_source(const struct conn *c)
{
    const struct worker *w = c->w;
    const struct config *cfg = w->plan->cfg;
    if (cfg->nsources == 0)
        return NULL;
    return &cfg->sources[(c - w->conns + w->st.conns_opened) % cfg->nsources];
}

/* Opens a connection for the request just added to an idle connection. */
static void conn_open(struct conn *c, uint64_t now)
{
    struct worker *w = c->w;
    const struct config *cfg = w->plan->cfg;
    const struct net_addr *src = NULL;
    int fd, e;

    src = conn_source(c);
    c->nreq = c->count;
    c->tcp_answers = 0;
    if (c->sess->prepare(c, now) != 0)
        return;
    reach_try(c);
    if (c->sess->open) {
        c->sess->open(c, now);
        return;
    }
    fd = net_connect(&w->plan->endpoints[c->endpoint].addr, src);
    if (fd < 0) {
        conn_fail(c, connect_kind(-fd), -fd, NULL, now);
        return;
    }
    c->fd = fd;
    c->ops = &io_plain;
    c->io_ctx = NULL;
    /* One setsockopt per connection; refused (an old kernel, a sandbox),
     * the connection's answers are stamped as they are read. */
    c->rx_stamp = 0;
    c->stamping = !cfg->user_timestamps && rxstamp_enable(fd) == 0;
    if (c->stamping && w->rx.m.msg_iov == NULL) /* the worker's first */
        rxstamp_msg_init(&w->rx, w->rbuf, IO_RBUF_SIZE);
    c->state = C_CONNECTING;
    w->open++;
    if ((e = loop_add(&w->loop, fd, LOOP_IN | LOOP_OUT, &c->io)) != 0) {
        conn_fail(c, ERR_CONNECT_OTHER, e, NULL, now);
        return;
    }
    conn_arm(c);
}

void conn_take(struct conn *c, uint64_t t_due, uint64_t now)
{
    if (c->waiting)
        return; /* its timer brings it back (reach.c) */
    if (c->w->afters && t_due && c->think_until > now && !rate_mode(c->w)) {
        conn_think(c);
        return;
    }
    if (!conn_add(c, t_due, now))
        return;
    if (c->state == C_IDLE) {
        conn_open(c, now);
        return;
    }
    if (c->count == 1)
        conn_arm(c);
    c->sess->write(c);
}

/* hup: the event said the peer closed or failed; then read on until the
 * end of stream, because no further edge will announce it. */
static void conn_read(struct conn *c, int hup)
{
    struct worker *w = c->w;

    for (;;) {
        ssize_t n = c->stamping ? c->ops->recv(c->io_ctx, c->fd, &w->rx, &c->rx_stamp)
                                : c->ops->read(c->io_ctx, c->fd, w->rbuf, IO_RBUF_SIZE);
        uint64_t now;

        if (n > 0) {
            int done;
            now = clock_ns();
            /* The session stamps its answers with the kernel's arrival,
             * and records now beside it: the client's own delay. */
            w->t_arr = c->rx_stamp ? rxstamp_mono(&w->clk, c->rx_stamp, now) : 0;
            done = c->sess->read(c, w->rbuf, (size_t)n, now);
            w->t_arr = 0;
            if (done < 0)
                return;
            /* Pipelining and HTTP/2 streams: top up once half the window
             * has drained, so each write carries several requests instead
             * of one per response (a connection keeps between N/2 and N in
             * flight; measured: a third fewer CPU per request at 10 streams).
             * Rate mode sends each request when it is due. */
            if (done && c->count < c->cap &&
                (c->cap <= 2 || c->count <= c->cap / 2 || rate_mode(w))) {
                if (rate_mode(w))
                    workq_enqueue(c);
                else /* the next request starts now, not at the read: its
                      * answer's parsing and recording are not its latency */
                    conn_fill(c, clock_ns());
                if (c->state != C_OPEN)
                    return;
            }
            /* HTTP/2 answers frames of its own (SETTINGS and PING acks,
             * WINDOW_UPDATE): sent with whatever the refill added. */
            if (c->sess->multiplexed && c->sess->want_write(c)) {
                c->sess->write(c);
                if (c->state != C_OPEN)
                    return;
            }
            /* Drained: the next arrival raises a new edge; but an end of
             * stream read with the data (a close_notify) raises none. */
            if (n < IO_RBUF_SIZE && !hup && !(c->ops->ending && c->ops->ending(c->io_ctx)))
                return;
            continue;
        }
        if (n == 0) {
            now = clock_ns();
            if (c->count == 0) {
                /* An idle keep-alive connection closed by the server. */
                record_idle_close(w, CLOSE_IDLE, now);
                conn_close(c);
                workq_enqueue(c);
            } else {
                c->sess->eof(c, now);
            }
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN)
            return;
        if (c->count == 0) {
            conn_close(c);
            workq_enqueue(c);
            return;
        }
        conn_io_error(c, ERR_RESET, clock_ns());
        return;
    }
}

void conn_up(struct conn *c, uint64_t now)
{
    c->state = C_OPEN;
    reach_up(c);
    if (c->sess->ready(c, now) != 0)
        return;
    if (rate_mode(c->w)) {
        conn_arm(c);
        c->sess->write(c);
        if (c->state == C_OPEN && c->count < c->cap)
            workq_enqueue(c);
    } else {
        conn_fill(c, now);
    }
}

static void conn_handshake(struct conn *c)
{
    int r = c->ops->handshake(c->io_ctx, c->fd), kind;
    uint64_t now;
    if (r == IO_WANT_READ || r == IO_WANT_WRITE)
        return; /* both directions are watched: the next edge calls us again */
    now = clock_ns();
    if (r == IO_ERROR) {
        if (c->ops->error == NULL)
            conn_fail(c, ERR_CONNECT_OTHER, errno, NULL, now);
        else if (c->tls_peer == TLS_PEER_PLAIN_HTTP)
            conn_mismatch(c, ERR_TLS, "wrong version number: the server answered in plain HTTP: try http://",
                          "does not speak TLS: it answered the TLS handshake in plain HTTP; use http://");
        else if (c->tls_peer == TLS_PEER_NO_ALPN)
            conn_mismatch(c, ERR_TLS, c->ops->error(c->io_ctx),
                          "does not speak %s over TLS: it refused %s in the TLS handshake (ALPN: "
                          "no_application_protocol); %s",
                          c->w->plan->proto->label, c->w->plan->proto->alpn, c->w->plan->proto->advice);
        else
            conn_fail(c, ERR_TLS, 0, c->ops->error(c->io_ctx), now);
        return;
    }
    kind = c->ops->handshake_kind(c->io_ctx);
    if (kind != IO_HS_NONE)
        record_tls(c->w, c->sess->oldest(c), now - c->t_tcp, kind == IO_HS_RESUMED);
    conn_up(c, now);
}

static void conn_on_io(struct loop_io *io, uint32_t ev)
{
    struct conn *c = container_of(io, struct conn, io);
    struct worker *w = c->w;

    switch (c->state) {
    case C_CONNECTING: {
        /* A connect that failed is said by an error event (epoll's EPOLLERR
         * or EPOLLHUP): only then is SO_ERROR asked, not once per
         * connection. */
        int e = (ev & LOOP_ERR) ? net_connect_result(c->fd) : 0;
        uint64_t now = clock_ns();
        if (e != 0) {
            conn_fail(c, connect_kind(e), e, NULL, now);
            return;
        }
        if (!(ev & (LOOP_OUT | LOOP_ERR)))
            return;
        record_connect(w, c->sess->oldest(c), now);
        if (w->plan->endpoints[c->endpoint].tls) {
            const char *why = NULL;
            void *ssl = tls_client_conn(w->plan->tls, c->fd, w->plan->endpoints[c->endpoint].host,
                                        &w->tickets[c->endpoint], &c->tls_peer, &why);
            if (ssl == NULL) {
                conn_fail(c, ERR_TLS, 0, why, now);
                return;
            }
            c->ops = &io_tls;
            c->io_ctx = ssl;
            c->t_tcp = now;
        }
        c->state = C_HANDSHAKE;
        conn_handshake(c);
        return;
    }
    case C_HANDSHAKE:
        conn_handshake(c);
        return;
    case C_OPEN:
        if ((ev & LOOP_OUT) && c->sess->want_write(c))
            c->sess->write(c);
        if (c->state == C_OPEN && (ev & LOOP_IN))
            conn_read(c, (ev & LOOP_ERR) != 0);
        return;
    default:
        return;
    }
}

void conn_thought(struct conn *c, uint32_t target, uint64_t now)
{
    const struct plan_target *pt = &c->w->plan->targets[target];
    if (pt->think_hi)
        c->think_until = now + pt->think_lo +
                         (pt->think_hi > pt->think_lo ? template_rand(&c->w->rng) % (pt->think_hi - pt->think_lo + 1) : 0);
}

void conn_think(struct conn *c)
{
    /* The timer is the request timeout's: it is free only with nothing
     * outstanding. With requests still out (pipelining, HTTP/2 streams)
     * nothing new is added, and the last answer's refill comes back here. */
    if (c->count > 0)
        return;
    c->thinking = 1;
    if (loop_timer_set(&c->w->loop, &c->timer, c->think_until) != 0) {
        c->thinking = 0;
        c->think_until = 0; /* no room for the timer: no pause, rather than no next request */
        workq_enqueue(c);
    }
}

static void conn_on_timer(struct timer *t, uint64_t now)
{
    struct conn *c = container_of(t, struct conn, timer);
    if (c->waiting) {
        reach_resume(c);
        return;
    }
    if (c->thinking) {
        c->thinking = 0;
        if (c->count == 0) {
            c->think_until = 0;
            workq_enqueue(c);
            return;
        }
        /* (A request was added meanwhile: this is its timeout's timer.) */
    }
    if (c->count == 0 || c->state == C_IDLE)
        return;
    if ((c->state == C_OPEN || c->sess->open) && c->sess->timeout) {
        c->sess->timeout(c, now);
        return;
    }
    if (now < c->sess->oldest(c)->t_sent + c->w->plan->cfg->timeout_ns && c->state != C_CONNECTING) {
        conn_arm(c); /* the request that timer was for has been answered */
        return;
    }
    conn_fail(c, timeout_kind(c), c->state == C_CONNECTING ? ETIMEDOUT : 0, NULL, now);
}

int conn_init(struct conn *c, struct worker *w, const struct session_ops *sess, uint32_t number, uint32_t endpoint,
              uint32_t rr, uint16_t depth, struct slot *slots, char *tbuf)
{
    memset(c, 0, sizeof(*c));
    c->w = w;
    c->fd = -1;
    c->io.fn = conn_on_io;
    c->timer.fn = conn_on_timer;
    c->ops = &io_plain;
    c->sess = sess;
    c->cap = depth;
    c->slots = slots ? slots : &c->one;
    c->endpoint = endpoint;
    c->rr = rr;
    c->number = number;
    c->tbuf = tbuf;
    if (sess->ctx_size && (c->ctx = calloc(1, sess->ctx_size)) == NULL)
        return -1;
    return 0;
}

void conn_fini(struct conn *c)
{
    if (c->sess)
        c->sess->fini(c);
    free(c->jar);
    c->jar = NULL;
    if (c->vars)
        free(c->vars->val);
    free(c->vars);
    c->vars = NULL;
}
