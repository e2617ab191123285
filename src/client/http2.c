/* http2.c - the HTTP/2 session under a client connection, through
 * libnghttp2: each request is a stream (a slot of the connection's pool,
 * up to --streams at once), submitted with header fields built once per target;
 * responses end in any order. nghttp2 turns submissions into frames and
 * frames into callbacks; this file moves bytes between it and the
 * connection's transport, and turns the callbacks into record_* calls.
 *
 * Choices, with the RFC 9113 section they come from:
 * - prior knowledge on http:// (h2c, §3.3), ALPN "h2" on https:// (§3.2);
 *   a server that does not agree ends the whole run with a one-line error;
 * - SETTINGS_ENABLE_PUSH = 0 and large flow-control windows (--h2-window,
 *   §6.9), so windows never throttle a benchmark;
 * - a stream past --timeout is reset with CANCEL (§8.7) and counted as a
 *   timeout; the connection stays;
 * - requests refused unprocessed (streams above a GOAWAY's last-stream-id,
 *   or RST_STREAM REFUSED_STREAM) are sent again on another connection
 *   (§8.7 says it is safe), up to MUX_RETRIES times (mux.c), and counted;
 *   the rest are h2_goaway errors;
 * - a connection error (a bad frame, flow control violated, no SETTINGS)
 *   fails every stream on it as h2_protocol, and the connection is replaced. */
#include "http2.h"
#include "clock.h"
#include "err.h"
#include "request.h"

#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void set_callbacks(nghttp2_session_callbacks *cb);
static int on_data_chunk(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *ud);

/* --- what the plan's sessions share: their header fields, nghttp2's callbacks and options --- */

struct h2_plan {
    nghttp2_session_callbacks *cb;
    nghttp2_option *opt;
};

static int h2_plan_init(struct plan *pl, char *err, size_t errlen)
{
    struct h2_plan *hp;
    uint32_t i;
    if (plan_h2_build(pl, err, errlen) != 0)
        return -1;
    if ((hp = pl->shared = calloc(1, sizeof(*hp))) == NULL || nghttp2_session_callbacks_new(&hp->cb) != 0 ||
        nghttp2_option_new(&hp->opt) != 0)
        return err_set(err, errlen, NULL, "out of memory");
    set_callbacks(hp->cb);
    /* DATA is only looked at when some target's checks read bodies, or -v
     * shows the first (after which the callback returns at once). */
    for (i = 0; i < pl->ntargets; i++)
        if (pl->targets[i].capture || pl->show) {
            nghttp2_session_callbacks_set_on_data_chunk_recv_callback(hp->cb, on_data_chunk);
            break;
        }
    return 0;
}

static void h2_plan_free(struct plan *pl)
{
    struct h2_plan *hp = pl->shared;
    plan_h2_free(pl);
    if (hp == NULL)
        return;
    if (hp->cb)
        nghttp2_session_callbacks_del(hp->cb);
    if (hp->opt)
        nghttp2_option_del(hp->opt);
    free(hp);
    pl->shared = NULL;
}

/* --- a connection's session --- */

static void h2_free(struct conn *c)
{
    struct h2 *h = c->ctx;
    if (h == NULL)
        return;
    if (h->ng)
        nghttp2_session_del(h->ng);
    free(h->pend);
    free(h);
    c->ctx = NULL;
}

static struct slot *stream_slot(struct conn *c, int32_t id)
{
    return nghttp2_session_get_stream_user_data(h2_of(c)->ng, id);
}

/* The stream of s is done with (ended, failed or refused): nothing of
 * nghttp2's may reach s any more. */
static void detach(struct conn *c, struct slot *s)
{
    if (s->stream > 0)
        nghttp2_session_set_stream_user_data(h2_of(c)->ng, s->stream, NULL);
    s->stream = 0;
    conn_release(c, s);
    h2_of(c)->done++;
}

/* s was refused unprocessed: sent again on another connection (mux.c),
 * unless the server processes nothing on this one (a GOAWAY with
 * last-stream-id 0, refusals before any answer) and s had its chances. */
static void refused(struct conn *c, struct slot *s, const char *why)
{
    if (mux_retry(c, s, h2_of(c)->goaway_last > 0 || h2_of(c)->completed > 0))
        record_retry(c->w, s, 0);
    else
        record_error(c, s, ERR_H2_GOAWAY, 0, why, h2_of(c)->now);
    detach(c, s);
}

/* Request body bytes, from the plan's copy. */
static ssize_t body_read(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *ud)
{
    struct conn *c = ud;
    struct slot *s = nghttp2_session_get_stream_user_data(ng, id);
    const struct plan_target *pt;
    const char *body;
    size_t left, k, total;
    (void)src;
    if (s == NULL)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* given up on: the stream is reset */
    pt = &c->w->plan->targets[s->target];
    /* A templated request's body was expanded into the slot's buffer. */
    body = pt->req ? pt->body : s->req;
    total = pt->req ? pt->body_len : s->req_len;
    left = total - s->body_off;
    k = left < len ? left : len;
    memcpy(buf, body + s->body_off, k);
    s->body_off += k;
    if (s->body_off == total)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)k;
}

static void submit(struct conn *c, struct slot *s)
{
    const struct plan *pl = c->w->plan;
    const struct plan_target *pt = &pl->targets[s->target];
    nghttp2_data_provider prd;
    int32_t id;

    s->status = 0;
    s->got_first = 0;
    s->ended = 0;
    s->body_off = 0;
    prd.source.ptr = NULL;
    prd.read_callback = body_read;
    if (pt->h2val || pl->replay || (c->jar && c->jar->n && pt->h2nnv <= H2_MAX_FIELDS)) {
        /* Templated field values, expanded with the request (conn.c), a
         * replayed request's method and path, and the connection's
         * cookies: nghttp2 copies them. */
        nghttp2_nv nv[H2_MAX_FIELDS + 1];
        size_t n = plan_h2_fields(pl, s, c->jar, c->w->wbuf, nv);
        id = nghttp2_submit_request(h2_of(c)->ng, NULL, nv, n, pt->has_body ? &prd : NULL, s);
    } else {
        id = nghttp2_submit_request(h2_of(c)->ng, NULL, pt->h2nv, pt->h2nnv, pt->has_body ? &prd : NULL, s);
    }
    if (id > 0) {
        s->stream = id;
        return;
    }
    s->stream = 0;
    if (id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE) {
        /* 2^31 streams used up on this connection: another one. */
        c->draining = 1;
        refused(c, s, "stream ids used up");
        return;
    }
    record_error(c, s, ERR_H2_PROTOCOL, 0, nghttp2_strerror(id), clock_ns());
    detach(c, s);
}

/* --- nghttp2's callbacks (user data: the connection) --- */

static int on_begin_frame(nghttp2_session *ng, const nghttp2_frame_hd *hd, void *ud)
{
    struct conn *c = ud;
    struct slot *s;
    (void)ng;
    if (hd->type == NGHTTP2_HEADERS || hd->type == NGHTTP2_CONTINUATION)
        record_headers(c->w, 0, hd->length, 0, h2_of(c)->now);
    if (hd->stream_id > 0 && (s = stream_slot(c, hd->stream_id)) != NULL)
        record_frame_bytes(c->w, s, hd->length + 9, h2_of(c)->now);
    return 0;
}

static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
    struct conn *c = ud;
    struct slot *s;
    (void)ng;
    if (f->hd.type == NGHTTP2_HEADERS && (s = stream_slot(c, f->hd.stream_id)) != NULL)
        mux_first(c, s, h2_of(c)->now);
    return 0;
}

static int on_data_chunk(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *ud)
{
    struct conn *c = ud;
    struct slot *s = stream_slot(c, id);
    (void)ng;
    (void)flags;
    if (s && s->capt && (c->w->plan->targets[s->target].capture || c->w->showing))
        verify_keep(s->capt, c->w->plan, (const char *)data, len);
    return 0;
}

static int on_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *ud)
{
    struct conn *c = ud;
    struct slot *s;
    (void)ng;
    (void)flags;
    record_headers(c->w, 0, 0, namelen + valuelen, h2_of(c)->now);
    if (namelen == 10 && c->w->plan->cfg->cookies && memcmp(name, "set-cookie", 10) == 0 &&
        (s = stream_slot(c, f->hd.stream_id)) != NULL)
        conn_cookie(c, s, (const char *)value, valuelen);
    /* nghttp2 checked the field (RFC 9113 §8.3.2): three digits. */
    if (namelen == 7 && memcmp(name, ":status", 7) == 0 && valuelen == 3 &&
        (s = stream_slot(c, f->hd.stream_id)) != NULL)
        s->status = (uint16_t)((value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0'));
    if (c->w->capturing && (s = stream_slot(c, f->hd.stream_id)) != NULL)
        mux_field(c, s, (const char *)name, namelen, (const char *)value, valuelen);
    return 0;
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
    struct conn *c = ud;
    struct slot *s;
    (void)ng;
    switch (f->hd.type) {
    case NGHTTP2_SETTINGS:
        if (!(f->hd.flags & NGHTTP2_FLAG_ACK))
            h2_of(c)->got_settings = 1;
        break;
    case NGHTTP2_GOAWAY:
        /* §6.8: no new stream on this connection; those above last-stream-id
         * were not processed (nghttp2 closes them as REFUSED_STREAM). */
        h2_of(c)->goaway_last = f->goaway.last_stream_id;
        h2_of(c)->goaway_code = f->goaway.error_code;
        c->draining = 1;
        break;
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA:
        /* The response is whole at END_STREAM: ended here, so its time is
         * the arrival of its last frame. */
        if ((f->hd.flags & NGHTTP2_FLAG_END_STREAM) && (s = stream_slot(c, f->hd.stream_id)) != NULL) {
            h2_of(c)->completed++;
            mux_ended(c, s, h2_of(c)->now);
            detach(c, s);
        }
        break;
    default:
        break;
    }
    return 0;
}

static int on_invalid_frame(nghttp2_session *ng, const nghttp2_frame *f, int lib_error, void *ud)
{
    struct conn *c = ud;
    struct slot *s;
    (void)ng;
    if (f->hd.stream_id == 0) {
        h2_of(c)->lib_error = lib_error;
        return 0;
    }
    /* nghttp2 resets the stream. A malformed response (§8.1.1: a bad
     * field, a content-length the DATA does not match) is malformed; a
     * stream's flow control violated (§6.9) or a frame out of place is the
     * protocol broken. */
    if ((s = stream_slot(c, f->hd.stream_id)) != NULL) {
        int http = lib_error == NGHTTP2_ERR_HTTP_HEADER || lib_error == NGHTTP2_ERR_HTTP_MESSAGING;
        record_error(c, s, http ? ERR_MALFORMED : ERR_H2_PROTOCOL, 0, nghttp2_strerror(lib_error), h2_of(c)->now);
        detach(c, s);
    }
    return 0;
}

static int on_frame_send(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
    struct conn *c = ud;
    struct slot *s;
    (void)ng;
    /* nghttp2 resets a stream the server broke (its flow control, a frame
     * out of place): a protocol error, said with the code we sent. Streams
     * we gave up on (timeouts) are detached before. */
    if (f->hd.type == NGHTTP2_RST_STREAM && (s = stream_slot(c, f->hd.stream_id)) != NULL) {
        record_error(c, s, ERR_H2_PROTOCOL, 0, nghttp2_http2_strerror(f->rst_stream.error_code), h2_of(c)->now);
        detach(c, s);
    }
    return 0;
}

static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t code, void *ud)
{
    struct conn *c = ud;
    struct h2 *h = h2_of(c);
    struct slot *s = stream_slot(c, id);
    (void)ng;
    if (s == NULL)
        return 0; /* ended, failed or given up on already */
    if (code == NGHTTP2_REFUSED_STREAM) {
        refused(c, s, h->goaway_last >= 0 && id > h->goaway_last ? "above the GOAWAY's last-stream-id, refused again"
                                                                  : "RST_STREAM REFUSED_STREAM, refused again");
        return 0;
    }
    if (h->lib_error)
        record_error(c, s, ERR_H2_PROTOCOL, 0, nghttp2_strerror(h->lib_error), h->now);
    else if (h->goaway_last >= 0 && code == NGHTTP2_NO_ERROR)
        record_error(c, s, ERR_H2_GOAWAY, 0, "closed after a GOAWAY before the response was complete", h->now);
    else
        record_error(c, s, ERR_H2_RST_STREAM, 0, nghttp2_http2_strerror(code), h->now);
    detach(c, s);
    return 0;
}

static int on_error(nghttp2_session *ng, int lib_error, const char *msg, size_t len, void *ud)
{
    struct conn *c = ud;
    (void)ng;
    (void)msg;
    (void)len;
    /* The message is nghttp2's, formatted; the reports keep static text. */
    if (h2_of(c)->lib_error == 0)
        h2_of(c)->lib_error = lib_error;
    return 0;
}

static void set_callbacks(nghttp2_session_callbacks *cb)
{
    nghttp2_session_callbacks_set_on_begin_frame_callback(cb, on_begin_frame);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(cb, on_invalid_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
    nghttp2_session_callbacks_set_error_callback2(cb, on_error);
}

/* --- the session_ops --- */

static void h2_added(struct conn *c, struct slot *s)
{
    s->stream = 0;
    if (c->state == C_OPEN && h2_of(c) && h2_of(c)->ng)
        submit(c, s);
    /* Otherwise submitted once the connection is ready. */
}

static int h2_ready(struct conn *c, uint64_t now)
{
    const struct plan *pl = c->w->plan;
    uint32_t win = (1u << pl->cfg->h2_window_bits) - 1, i;
    nghttp2_settings_entry iv[2] = {
        { NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
        { NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, win },
    };
    struct h2 *h = h2_of(c);

    if (pl->endpoints[c->endpoint].tls) {
        const char *p = c->ops->alpn(c->io_ctx);
        if (p == NULL || strcmp(p, "h2") != 0) {
            /* RFC 9113 section 3.2: h2 over TLS is chosen in ALPN. */
            conn_mismatch(c, ERR_H2_PROTOCOL, "the server did not choose h2 in the TLS handshake (ALPN)",
                          "does not speak HTTP/2 over TLS: its TLS handshake chose %s (ALPN), not h2; drop --http2",
                          p ? p : "no protocol");
            return -1;
        }
        conn_spoke(c);
    }
    if (h == NULL && (h = c->ctx = calloc(1, sizeof(*h))) == NULL) {
        conn_fail(c, ERR_H2_PROTOCOL, ENOMEM, "out of memory for an HTTP/2 session", now);
        return -1;
    }
    h->goaway_last = -1;
    h->goaway_code = 0;
    h->lib_error = 0;
    h->completed = 0;
    h->got_settings = h->got_bytes = 0;
    h->pend_len = h->pend_off = 0;
    h->now = now;
    if (nghttp2_session_client_new2(&h->ng, ((const struct h2_plan *)pl->shared)->cb, c,
                                    ((const struct h2_plan *)pl->shared)->opt) != 0) {
        h->ng = NULL;
        conn_fail(c, ERR_H2_PROTOCOL, ENOMEM, "out of memory for an HTTP/2 session", now);
        return -1;
    }
    /* §3.4: the preface and our SETTINGS go out with the first requests. */
    if (nghttp2_submit_settings(h->ng, NGHTTP2_FLAG_NONE, iv, 2) != 0 ||
        nghttp2_session_set_local_window_size(h->ng, NGHTTP2_FLAG_NONE, 0, (int32_t)win) != 0) {
        conn_fail(c, ERR_H2_PROTOCOL, ENOMEM, "out of memory for an HTTP/2 session", now);
        return -1;
    }
    for (i = 0; i < c->cap; i++)
        if (c->slots[i].busy && c->slots[i].stream == 0)
            submit(c, &c->slots[i]);
    return 0;
}

static int h2_want_write(const struct conn *c)
{
    const struct h2 *h = h2_of(c);
    return h && h->ng && (h->pend_len > h->pend_off || nghttp2_session_want_write(h->ng));
}

/* After the bytes were taken in: is the connection done? Returns 0 when it
 * stays, -1 when it was closed (and queued to be used again). */
static int settle(struct conn *c)
{
    struct h2 *h = h2_of(c);
    const struct config *cfg = c->w->plan->cfg;
    uint64_t rpc = cfg->requests_per_conn;

    /* A connection error nghttp2 found in what it read (a SETTINGS value
     * out of range) is answered with its GOAWAY; once that is sent the
     * session wants nothing more, and the connection ends now rather than
     * at --timeout. */
    if (nghttp2_session_want_write(h->ng)) {
        http2_write(c);
        if (c->state != C_OPEN)
            return -1;
    }
    if (!nghttp2_session_want_read(h->ng)) {
        /* The session is over: a connection error found by nghttp2 (its
         * GOAWAY goes out first), or the server's GOAWAY and nothing left. */
        http2_write(c);
        if (c->state != C_OPEN)
            return -1;
        if (c->count)
            conn_fail(c, h->goaway_last >= 0 && !h->lib_error ? ERR_H2_GOAWAY : ERR_H2_PROTOCOL, 0,
                      h->lib_error ? nghttp2_strerror(h->lib_error) : nghttp2_http2_strerror(h->goaway_code),
                      h->now);
        else {
            conn_close(c);
            workq_enqueue(c);
        }
        return -1;
    }
    if (c->count == 0 && (c->draining || !cfg->keepalive || (rpc && c->nreq >= rpc))) {
        /* Done with it (its GOAWAY came, or --close, or its share of
         * requests): say so (§5.4.1 asks for a GOAWAY first), then close. */
        if (!c->draining) {
            nghttp2_session_terminate_session(h->ng, NGHTTP2_NO_ERROR);
            http2_write(c);
            if (c->state != C_OPEN)
                return -1;
        }
        conn_close(c);
        workq_enqueue(c);
        return -1;
    }
    return 0;
}

/* The first line of what the server sent, quoted into q (up to 60
 * characters, printable ASCII), for the line that ends the run. */
static const char *first_line(const char *p, size_t n, char *q, size_t qn)
{
    size_t i, k = 0;
    for (i = 0; i < n && p[i] != '\r' && p[i] != '\n' && k + 4 < qn && i < 60; i++)
        q[k++] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
    if (i < n && p[i] != '\r' && p[i] != '\n' && k + 4 < qn) {
        memcpy(q + k, "...", 3);
        k += 3;
    }
    q[k] = '\0';
    return q;
}

/* The server answered the preface with what is no HTTP/2 (§3.4 wants its
 * SETTINGS first): HTTP/1.x (a status line; Python's http.server sends an
 * HTML page and no status line), TLS, or anything else. */
static void not_h2(struct conn *c, const char *buf, size_t n)
{
    char q[72];
    if (n >= 7 && memcmp(buf, "HTTP/1.", 7) == 0)
        conn_mismatch(c, ERR_H2_PROTOCOL, "the server answered HTTP/2's preface in HTTP/1",
                      "does not speak HTTP/2 without TLS (h2c): it answered in HTTP/1.%c (\"%s\"); drop --http2, or "
                      "use https:// for HTTP/2 over TLS",
                      n > 7 && buf[7] >= '0' && buf[7] <= '9' ? buf[7] : 'x', first_line(buf, n, q, sizeof(q)));
    else if (conn_tls_record(buf, n))
        conn_mismatch(c, ERR_H2_PROTOCOL, "the server speaks TLS: try https://",
                      "does not speak HTTP/2 without TLS (h2c): it speaks TLS: use https:// for HTTP/2 over TLS");
    else
        conn_mismatch(c, ERR_H2_PROTOCOL, "the server's first frame is not SETTINGS (RFC 9113 section 3.4)",
                      "does not speak HTTP/2 without TLS (h2c): its answer is not HTTP/2 (\"%s\"); drop --http2, or "
                      "use https:// for HTTP/2 over TLS", first_line(buf, n, q, sizeof(q)));
}

static int h2_read(struct conn *c, const char *buf, size_t n, uint64_t now)
{
    struct h2 *h = h2_of(c);
    ssize_t r;

    if (h == NULL || h->ng == NULL)
        return 0;
    record_received(c->w, NULL, (uint64_t)n, now);
    if (!h->got_bytes) {
        h->got_bytes = 1;
        /* §3.4: the server's preface is a SETTINGS frame, first. */
        if (n >= 4 && (uint8_t)buf[3] != NGHTTP2_SETTINGS) {
            not_h2(c, buf, n);
            return -1;
        }
        if (n >= 4)
            conn_spoke(c);
    }
    h->now = now;
    h->done = 0;
    r = nghttp2_session_mem_recv(h->ng, (const uint8_t *)buf, n);
    if (r < 0) {
        conn_fail(c, ERR_H2_PROTOCOL, 0, nghttp2_strerror((int)r), now);
        return -1;
    }
    if (settle(c) < 0)
        return -1;
    return h->done;
}

static void h2_eof(struct conn *c, uint64_t now)
{
    struct h2 *h = h2_of(c);
    uint32_t i;
    h->now = now;
    for (i = 0; c->count && i < c->cap; i++) {
        struct slot *s = &c->slots[i];
        if (!s->busy)
            continue;
        if (h->goaway_last >= 0 && (s->stream == 0 || s->stream > h->goaway_last))
            refused(c, s, "above the GOAWAY's last-stream-id, refused again");
        else {
            record_error(c, s, h->goaway_last >= 0 ? ERR_H2_GOAWAY : ERR_CLOSED_EARLY, 0,
                         h->goaway_last >= 0 ? "closed after a GOAWAY before the response was complete" : NULL, now);
            detach(c, s);
        }
    }
    conn_close(c);
    workq_enqueue(c);
}

/* A stream given up on (--timeout): reset with CANCEL (RFC 9113 §8.7). */
static void cancel(struct conn *c, struct slot *s)
{
    if (s->stream > 0)
        nghttp2_submit_rst_stream(h2_of(c)->ng, NGHTTP2_FLAG_NONE, s->stream, NGHTTP2_CANCEL);
    detach(c, s);
}

static void h2_timeout(struct conn *c, uint64_t now)
{
    struct h2 *h = h2_of(c);

    if (h == NULL || h->ng == NULL)
        return;
    if (!h->got_settings && now >= mux_oldest(c)->t_sent + c->w->plan->cfg->timeout_ns) {
        /* §3.4: the server's preface is a SETTINGS frame; none came. */
        conn_fail(c, ERR_H2_PROTOCOL, 0, "the server sent no SETTINGS frame (RFC 9113 section 3.4)", now);
        return;
    }
    h->now = now;
    mux_timeouts(c, now, cancel);
    if (c->state != C_OPEN)
        return;
    http2_write(c);
    if (c->state == C_OPEN)
        conn_arm(c);
}

static void h2_closed(struct conn *c)
{
    struct h2 *h = h2_of(c);
    if (h == NULL)
        return;
    if (h->ng)
        nghttp2_session_del(h->ng);
    h->ng = NULL;
    h->pend_len = h->pend_off = 0;
    if (h->pend_cap > H2_WBUF) {
        free(h->pend);
        h->pend = NULL;
        h->pend_cap = 0;
    }
}

static size_t h2_expand_slot(struct conn *c, struct slot *s, struct tpl_ctx *ctx, char *buf)
{
    return plan_h2_expand(c->w->plan, s->target, ctx, buf);
}

static int h2_prepare(struct conn *c, uint64_t now)
{
    (void)c;
    (void)now;
    return 0; /* its session is made once the transport is up (h2_ready) */
}

const struct session_ops session_http2 = {
    .name = "h2",
    .multiplexed = 1,
    .wbuf = H2_WBUF,
    .plan_init = h2_plan_init,
    .plan_free = h2_plan_free,
    .slot_new = mux_slot_new,
    .added = h2_added,
    .ready = h2_ready,
    .write = http2_write,
    .want_write = h2_want_write,
    .read = h2_read,
    .eof = h2_eof,
    .oldest = mux_oldest,
    .timeout = h2_timeout,
    .closed = h2_closed,
    .expand = h2_expand_slot,
    .prepare = h2_prepare,
    .fini = h2_free,
};
