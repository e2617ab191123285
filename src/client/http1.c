/* http1.c - the HTTP/1.1 session under a client connection: requests go out
 * as their prebuilt bytes, in order, several in one writev when pipelining;
 * responses come back in the same order, through the response parser
 * (http_parse.c), and each one that ends is recorded and decides whether
 * the connection carries another request (RFC 9112 §9.3). */
#include "client.h"
#include "clock.h"
#include "http_lex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* HTTP/1.1's state on a connection (conn.ctx), kept across reconnects. */
struct h1 {
    struct hp hp;        /* the response being parsed: the oldest request's */
    uint16_t nsent;      /* outstanding requests written whole */
    uint8_t got_first;   /* a byte of the oldest request's response arrived */
    size_t woff;         /* bytes written of the first unsent request */
    uint64_t t_first;    /* when that byte arrived */
    struct capture capt; /* the response being read, when its target has checks */
    char *sink;          /* --cookies: the Set-Cookie values of the response being read */
    char *loc;           /* --follow: its Location */
};

/* Requests are answered in order: the slots are a ring from c->head. */
static struct slot *h1_slot_new(struct conn *c)
{
    return &c->slots[(c->head + c->count) % c->cap];
}

static struct slot *h1_oldest(struct conn *c)
{
    return slot_at(c, 0);
}

/* The parser's span of the response being read (its field lines, its body
 * data), kept for the checks that read them. */
static void h1_span(void *ctx, enum hp_span kind, const char *at, size_t n)
{
    struct conn *c = ctx;
    verify_span(&((struct h1 *)c->ctx)->capt, c->w->plan, kind, at, n);
}

static int h1_ready(struct conn *c, uint64_t now)
{
    (void)c;
    (void)now;
    return 0;
}

static void h1_closed(struct conn *c)
{
    struct h1 *h = c->ctx;
    verify_reset(&h->capt); /* a response cut short is not checked */
    h->nsent = 0;
    h->woff = 0;
    h->hp.sink_len = h->hp.sink_mark = 0; /* a response cut short sets nothing */
    h->hp.loc_len = 0;                       /* nor is followed */
}

static void h1_added(struct conn *c, struct slot *s)
{
    struct h1 *h = c->ctx;
    /* The oldest request's response is the one parsed next. */
    if (c->count == 0) {
        http_parse_reset(&h->hp, s->head);
        h->got_first = 0;
    }
}

static int h1_want_write(const struct conn *c)
{
    const struct h1 *h = c->ctx;
    return h->nsent < c->count;
}

static void h1_write(struct conn *c)
{
    struct worker *w = c->w;
    struct h1 *h = c->ctx;

    while (h->nsent < c->count) {
        int n = 0;
        uint32_t i;
        ssize_t r;
        for (i = h->nsent; i < c->count && n < MAX_IOV; i++, n++) {
            const struct slot *s = slot_at(c, i);
            size_t off = i == h->nsent ? h->woff : 0;
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
        record_sent(w, slot_at(c, h->nsent), (uint64_t)r);
        while (r > 0) {
            size_t left = slot_at(c, h->nsent)->req_len - h->woff;
            if ((size_t)r >= left) {
                r -= (ssize_t)left;
                h->nsent++;
                h->woff = 0;
            } else {
                h->woff += (size_t)r;
                r = 0;
            }
        }
    }
}

/* --follow ---------------------------------------------------------------- */

/* RFC 9110 §15.4: the redirections a browser follows. */
static int is_redirect(unsigned st)
{
    return st == 301 || st == 302 || st == 303 || st == 307 || st == 308;
}

/* A redirect to follow: the request is rebuilt for its Location (GET for a
 * 303, and for a POST answered 301 or 302, as browsers do) and sent on the
 * same connection; the chain is one request. Returns 1 when it was, -1
 * when the Location cannot be a request-target, 0 otherwise. */
static int h1_follow(struct conn *c)
{
    struct worker *w = c->w;
    const struct plan *pl = w->plan;
    const struct config *cfg = pl->cfg;
    struct slot *s = slot_at(c, 0);
    struct h1 *h = c->ctx;
    struct hp *hp = &h->hp;
    const char *req = s->req, *end = req + s->req_len, *sp1, *sp2, *line, *head_end, *last_cookie, *bad;
    char path[2100], *out = w->wbuf, *buf;
    size_t plen, o = 0;
    int to_get;

    if (!cfg->follow || !is_redirect(hp->status) || hp->loc_len == 0 || http_parse_close_reason(hp) != HP_KEEP ||
        h->nsent == 0 || s->hops >= cfg->follow) {
        hp->loc_len = 0;
        return 0;
    }
    sp1 = memchr(req, ' ', s->req_len);
    sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(end - sp1 - 1)) : NULL;
    head_end = sp2 ? memmem(sp2, (size_t)(end - sp2), "\r\n\r\n", 4) : NULL;
    if (head_end == NULL)
        return 0;
    plen = url_same_origin(&cfg->urls[s->target], hp->loc, hp->loc_len, sp1 + 1, (size_t)(sp2 - sp1 - 1), path,
                           sizeof(path));
    hp->loc_len = 0;
    if (plen == 0) {
        record_redirect(w, s, 1); /* another origin: this answer ends the request */
        return 0;
    }
    /* A Location that is no request-target (a space, a CR, a control
     * byte: "/x HTTP/1.0 y") would rewrite the request line: nothing is
     * sent and the request ends as bad_value (RFC 9112 §3.2). */
    if ((bad = template_bad_byte(path, plen, TPL_TARGET)) != NULL) {
        hp->loc_len = 0;
        return -1;
    }
    to_get = hp->status == 303 || ((hp->status == 301 || hp->status == 302) && sp1 - req == 4 && !memcmp(req, "POST", 4));
    /* The request line... */
    if (to_get) {
        memcpy(out, "GET", 3);
        o = 3;
    } else {
        memcpy(out, req, (size_t)(sp1 - req));
        o = (size_t)(sp1 - req);
    }
    out[o++] = ' ';
    memcpy(out + o, path, plen);
    o += plen;
    memcpy(out + o, " HTTP/1.1", 9);
    o += 9;
    /* ...the same fields (not the body's, without a body; not the jar's
     * Cookie, the last Cookie field, which it writes afresh for the new
     * path; a user's own Cookie field stays)... */
    last_cookie = NULL;
    for (line = memchr(sp2, '\n', (size_t)(end - sp2)) + 1; s->jar_line && line < head_end + 2;) {
        const char *nl = memchr(line, '\n', (size_t)(head_end + 2 - line));
        if (lex_prefix_ci(line, (size_t)(nl - line), "cookie:"))
            last_cookie = line;
        line = nl + 1;
    }
    for (line = memchr(sp2, '\n', (size_t)(end - sp2)) + 1; line < head_end + 2;) {
        const char *nl = memchr(line, '\n', (size_t)(head_end + 2 - line));
        size_t ln = (size_t)(nl - line) + 1;
        int drop = line == last_cookie ||
                   (to_get && (lex_prefix_ci(line, ln, "content-length:") || lex_prefix_ci(line, ln, "content-type:") ||
                               lex_prefix_ci(line, ln, "transfer-encoding:")));
        if (!drop) {
            out[o++] = '\r';
            out[o++] = '\n';
            memcpy(out + o, line, ln - 2);
            o += ln - 2;
        }
        line = nl + 1;
    }
    s->jar_line = 0;
    if (c->jar && c->jar->n) {
        size_t k;
        memcpy(out + o, "\r\nCookie: ", 10);
        k = cookie_header(c->jar, path, plen, cfg->urls[s->target].tls, time(NULL), out + o + 10);
        if (k)
            o += 10 + k;
        s->jar_line = k != 0;
    }
    memcpy(out + o, "\r\n\r\n", 4);
    o += 4;
    /* ...and the body, unless it became a GET. */
    if (!to_get) {
        memcpy(out + o, head_end + 4, (size_t)(end - head_end - 4));
        o += (size_t)(end - head_end - 4);
    }
    buf = c->tbuf + (size_t)(s - c->slots) * pl->max_len;
    memcpy(buf, out, o);
    s->req = buf;
    s->req_len = o;
    s->hops++;
    record_redirect(w, s, 0);
    h->nsent = 0;
    h->woff = 0;
    h->got_first = 0;
    if (to_get)
        s->head = 0;
    http_parse_reset(hp, s->head);
    return 1;
}

/* The oldest outstanding request got its whole response. Returns 0 when
 * the connection stays open, -1 when it was closed. */
static int h1_complete(struct conn *c, uint64_t now, int force_close)
{
    struct worker *w = c->w;
    struct h1 *h = c->ctx;
    const struct config *cfg = w->plan->cfg;
    enum hp_close why = http_parse_close_reason(&h->hp);
    int server_keeps = why == HP_KEEP;
    enum close_kind closed = CLOSE__COUNT;
    int followed;

    if (h->hp.sink_len) {
        /* --cookies: what the response set, into the connection's jar. */
        const char *v = h->hp.sink, *end = v + h->hp.sink_len;
        while (v < end) {
            const char *nl = memchr(v, '\n', (size_t)(end - v));
            conn_cookie(c, slot_at(c, 0), v, (size_t)(nl - v));
            v = nl + 1;
        }
        h->hp.sink_len = h->hp.sink_mark = 0;
    }
    if ((followed = h1_follow(c)) > 0) {
        verify_reset(&h->capt); /* the redirect's answer is not the one checked */
        h1_write(c);
        return c->state == C_OPEN ? 0 : -1;
    }
    /* hp_close and close_kind list the reasons in the same order. */
    if (cfg->keepalive && !server_keeps)
        closed = why == HP_CLOSE_HEADER ? CLOSE_HEADER : why == HP_CLOSE_HTTP10 ? CLOSE_HTTP10
               : why == HP_CLOSE_FRAMING ? CLOSE_FRAMING : CLOSE_BODY_EOF;
    if (followed < 0) {
        record_error(c, slot_at(c, 0), ERR_BAD_VALUE, 0, "a redirect's Location is not a request-target", now);
        verify_reset(&h->capt); /* its bytes are not the next response's */
    } else {
        if (w->afters) {
            uint8_t after = w->plan->targets[slot_at(c, 0)->target].after;
            if (w->showing)
                show_exchange(c, slot_at(c, 0), h->hp.status, h->hp.minor, &h->capt);
            if (after & AFTER_VERIFY)
                verify_response(c, slot_at(c, 0), h->hp.status, &h->capt, now);
            else
                verify_reset(&h->capt); /* -v's, shown */
            if (after & AFTER_THINK)
                conn_thought(c, slot_at(c, 0)->target, now);
        }
        record_response(c, slot_at(c, 0), h->hp.status, h->t_first, closed, now);
    }
    if (h->nsent == 0)
        force_close = 1; /* answered before the request was written whole */
    else
        h->nsent--;
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
        workq_enqueue(c);
        return -1;
    }
    if (c->count > 0) {
        http_parse_reset(&h->hp, slot_at(c, 0)->head);
        h->got_first = 0;
        conn_arm(c);
    }
    return 0;
}

/* Bytes that came with no request in flight, fed to the parser as a
 * response of their own (r: what it returned for their len bytes): a 408
 * (Request Timeout), the way some servers end an idle keep-alive
 * connection (RFC 9110 §15.5.9)? Whole, or its head so far (the rest may be
 * in the next read); anything after it is not. */
static int h1_idle_408(const struct hp *hp, ssize_t r, size_t len)
{
    return hp->status == 408 && (r == (ssize_t)len || (r == -2 && (hp->flags & HP_F_HEAD_DONE)));
}

/* A response the parser refused, from its start at p: one that begins
 * with a TLS record (an alert, most often) is a TLS port's answer to plain
 * HTTP. */
static void h1_malformed(struct conn *c, const char *p, size_t n, uint64_t now)
{
    const struct h1 *h = c->ctx;
    if (h->hp.status == 0 && h->hp.linelen <= 1 && conn_tls_record(p, n) && c->ops == &io_plain)
        conn_mismatch(c, ERR_MALFORMED, "the server speaks TLS: try https://",
                      "speaks TLS, not plain HTTP: it answered with a TLS record; use https://");
    else
        conn_fail(c, ERR_MALFORMED, 0, h->hp.error, now);
}

static int h1_read(struct conn *c, const char *buf, size_t n, uint64_t now)
{
    struct h1 *h = c->ctx;
    size_t off = 0;
    int done = 0;

    record_received(c->w, c->count ? slot_at(c, 0) : NULL, (uint64_t)n, now);
    while (off < n) {
        ssize_t r;
        int stray = c->count == 0;
        if (stray) {
            /* Bytes with no request left to answer, on an idle connection
             * or after the last answer in this read: read as a response of
             * their own (one call of the parser, so that it stays inlined
             * here), to tell a 408 from an answer nobody asked for. */
            http_parse_reset(&h->hp, 0);
        } else if (!h->got_first) {
            h->got_first = 1;
            h->t_first = conn_arrival(c, now);
        }
        /* Checks that read the head or body: the parser says where they are. */
        if (c->w->capturing)
            h->hp.span = !stray && (c->w->plan->targets[slot_at(c, 0)->target].capture || c->w->showing) ? h1_span
                                                                                                           : NULL;
        else if (h->hp.span)
            h->hp.span = NULL; /* -v's capture ended (show.c) */
        r = http_parse_feed(&h->hp, buf + off, n - off);
        if (stray) {
            /* The answers before them counted; these go to no request (never
             * to the next one), and the connection is not trusted any more. */
            record_idle_close(c->w, h1_idle_408(&h->hp, r, n - off) ? CLOSE_IDLE_408 : CLOSE_UNSOLICITED, now);
            conn_close(c);
            workq_enqueue(c);
            return -1;
        }
        if (r == -1) {
            h1_malformed(c, buf + off, n - off, now);
            return -1;
        }
        if (c->w->logging)
            slot_at(c, 0)->bytes_in += r == -2 ? n - off : (size_t)r;
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
    struct h1 *h = c->ctx;
    /* RFC 9112 §6.3: a body without a length ends with the connection;
     * over TLS only with a close_notify (§9.8): a bare TCP close may have
     * cut it short, so it is no complete response. */
    if (http_parse_eof(&h->hp) && c->ops->eof_clean && !c->ops->eof_clean(c->io_ctx)) {
        conn_fail(c, ERR_CLOSED_EARLY, 0, "TLS ended without close_notify: a body that ends with the connection "
                  "may be cut short (RFC 9112 section 9.8)", now);
    } else if (http_parse_eof(&h->hp)) {
        if (!h->got_first)
            h->t_first = now;
        h1_complete(c, now, 1);
    } else {
        conn_fail(c, ERR_CLOSED_EARLY, 0, NULL, now);
    }
}

static size_t h1_expand(struct conn *c, struct slot *s, struct tpl_ctx *ctx, char *buf)
{
    return plan_expand(c->w->plan, s->target, ctx, c->jar, buf, &s->jar_line);
}

static int h1_prepare(struct conn *c, uint64_t now)
{
    const struct config *cfg = c->w->plan->cfg;
    struct h1 *h = c->ctx;
    h->hp.span_ctx = c; /* (h1_span's) */
    if (cfg->follow && h->loc == NULL) {
        if ((h->loc = malloc(2048)) == NULL) {
            conn_fail(c, ERR_CONNECT_OTHER, ENOMEM, "out of memory for redirects", now);
            return -1;
        }
        h->hp.loc = h->loc;
        h->hp.loc_cap = 2048;
    }
    if (cfg->cookies && h->sink == NULL) {
        /* Where the parser puts Set-Cookie values (once per connection). */
        if ((h->sink = malloc(JAR_TEXT)) == NULL) {
            conn_fail(c, ERR_CONNECT_OTHER, ENOMEM, "out of memory for the cookie jar", now);
            return -1;
        }
        h->hp.sink = h->sink;
        h->hp.sink_cap = JAR_TEXT;
    }
    return 0;
}

static void h1_fini(struct conn *c)
{
    struct h1 *h = c->ctx;
    if (h == NULL)
        return;
    free(h->loc);
    free(h->sink);
    free(h->capt.p);
    free(h);
    c->ctx = NULL;
}

const struct session_ops session_http1 = {
    .name = "http/1.1",
    .multiplexed = 0,
    .ctx_size = sizeof(struct h1),
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
    .expand = h1_expand,
    .prepare = h1_prepare,
    .fini = h1_fini,
};
