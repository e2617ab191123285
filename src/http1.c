/* http1.c - the HTTP/1.1 session under a client connection: requests go out
 * as their prebuilt bytes, in order, several in one writev when pipelining;
 * responses come back in the same order, through the response parser
 * (http_parse.c), and each one that ends is recorded and decides whether
 * the connection carries another request (RFC 9112 §9.3). */
#include "engine_int.h"
#include "clock.h"

#include <errno.h>
#include <string.h>

/* Requests are answered in order: the slots are a ring from c->head. */
static struct slot *h1_slot_new(struct conn *c)
{
    return &c->slots[(c->head + c->count) % c->cap];
}

static struct slot *h1_oldest(struct conn *c)
{
    return slot_at(c, 0);
}

static int h1_ready(struct conn *c, uint64_t now)
{
    (void)c;
    (void)now;
    return 0;
}

static void h1_closed(struct conn *c)
{
    c->h1.nsent = 0;
    c->h1.woff = 0;
    c->h1.hp.sink_len = c->h1.hp.sink_mark = 0; /* a response cut short sets nothing */
}

static void h1_added(struct conn *c, struct slot *s)
{
    /* The oldest request's response is the one parsed next. */
    if (c->count == 0) {
        hp_reset(&c->h1.hp, c->w->plan->urls[s->url].head);
        c->h1.got_first = 0;
    }
}

static int h1_want_write(const struct conn *c)
{
    return c->h1.nsent < c->count;
}

static void h1_write(struct conn *c)
{
    struct worker *w = c->w;

    while (c->h1.nsent < c->count) {
        int n = 0;
        uint32_t i;
        ssize_t r;
        for (i = c->h1.nsent; i < c->count && n < MAX_IOV; i++, n++) {
            const struct slot *s = slot_at(c, i);
            size_t off = i == c->h1.nsent ? c->h1.woff : 0;
            w->iov[n].iov_base = (char *)s->req + off;
            w->iov[n].iov_len = s->req_len - off;
        }
        r = n == 1 ? c->ops->write(c->io_ctx, c->fd, w->iov[0].iov_base, w->iov[0].iov_len)
                   : c->ops->writev(c->io_ctx, c->fd, w->iov, n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                return; /* edge-triggered EPOLLOUT will call us back */
            conn_io_error(c, ERR_WRITE, clock_ns());
            return;
        }
        record_sent(w, slot_at(c, c->h1.nsent), (uint64_t)r);
        while (r > 0) {
            size_t left = slot_at(c, c->h1.nsent)->req_len - c->h1.woff;
            if ((size_t)r >= left) {
                r -= (ssize_t)left;
                c->h1.nsent++;
                c->h1.woff = 0;
            } else {
                c->h1.woff += (size_t)r;
                r = 0;
            }
        }
    }
}

/* The oldest outstanding request got its whole response. Returns 0 when
 * the connection stays open, -1 when it was closed. */
static int h1_complete(struct conn *c, uint64_t now, int force_close)
{
    struct worker *w = c->w;
    const struct config *cfg = w->plan->cfg;
    enum hp_close why = hp_close_reason(&c->h1.hp);
    int server_keeps = why == HP_KEEP;
    enum close_kind closed = CLOSE__COUNT;

    if (c->h1.hp.sink_len) {
        /* --cookies: what the response set, into the connection's jar. */
        const char *v = c->h1.hp.sink, *end = v + c->h1.hp.sink_len;
        while (v < end) {
            const char *nl = memchr(v, '\n', (size_t)(end - v));
            conn_cookie(c, slot_at(c, 0), v, (size_t)(nl - v));
            v = nl + 1;
        }
        c->h1.hp.sink_len = c->h1.hp.sink_mark = 0;
    }
    /* hp_close and close_kind list the reasons in the same order. */
    if (cfg->keepalive && !server_keeps)
        closed = why == HP_CLOSE_HEADER ? CLOSE_HEADER : why == HP_CLOSE_HTTP10 ? CLOSE_HTTP10 : CLOSE_BODY_EOF;
    record_response(w, slot_at(c, 0), c->h1.hp.status, c->h1.t_first, closed, now);
    if (c->h1.nsent == 0)
        force_close = 1; /* answered before the request was written whole */
    else
        c->h1.nsent--;
    conn_release(c, slot_at(c, 0));
    c->head = (uint16_t)((c->head + 1) % c->cap);

    if (force_close || !cfg->keepalive || !server_keeps ||
        (cfg->requests_per_conn && c->nreq >= cfg->requests_per_conn && c->count == 0)) {
        if (c->count > 0) {
            /* The server closes with pipelined requests unanswered. */
            conn_fail(c, ERR_CLOSED_EARLY, 0, "closed with pipelined requests unanswered", now);
            return -1;
        }
        conn_close(c);
        worker_enqueue(c);
        return -1;
    }
    if (c->count > 0) {
        hp_reset(&c->h1.hp, w->plan->urls[slot_at(c, 0)->url].head);
        c->h1.got_first = 0;
        conn_arm(c);
    }
    return 0;
}

static int h1_read(struct conn *c, const char *buf, size_t n, uint64_t now)
{
    size_t off = 0;
    int done = 0;

    record_received(c->w, c->count ? slot_at(c, 0) : NULL, (uint64_t)n, now);
    while (off < n) {
        ssize_t r;
        if (c->count == 0) {
            /* Bytes nobody asked for: the responses counted, but the
             * connection is not trusted any more. */
            conn_close(c);
            worker_enqueue(c);
            return -1;
        }
        if (!c->h1.got_first) {
            c->h1.got_first = 1;
            c->h1.t_first = now;
        }
        r = hp_feed(&c->h1.hp, buf + off, n - off);
        if (r == -1) {
            conn_fail(c, ERR_MALFORMED, 0, c->h1.hp.error, now);
            return -1;
        }
        if (r == -2)
            break;
        off += (size_t)r;
        done++;
        if (h1_complete(c, now, 0) < 0)
            return -1;
    }
    return done;
}

static void h1_eof(struct conn *c, uint64_t now)
{
    /* RFC 9112 §6.3: a body without a length ends with the connection. */
    if (hp_eof(&c->h1.hp)) {
        if (!c->h1.got_first)
            c->h1.t_first = now;
        h1_complete(c, now, 1);
    } else {
        conn_fail(c, ERR_CLOSED_EARLY, 0, NULL, now);
    }
}

const struct session_ops session_http1 = {
    .name = "http/1.1",
    .multiplexed = 0,
    .slot_new = h1_slot_new,
    .added = h1_added,
    .ready = h1_ready,
    .write = h1_write,
    .want_write = h1_want_write,
    .read = h1_read,
    .eof = h1_eof,
    .oldest = h1_oldest,
    .timeout = NULL,
    .closed = h1_closed,
};
