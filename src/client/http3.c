/* http3.c - the HTTP/3 session under a client connection (RFC 9114), on
 * nghttp3 over the QUIC transport of http3_quic.c: each request is a
 * bidirectional stream (a slot of the connection's pool, up to --streams at
 * once), its header fields HTTP/2's built once per target (plan_h2.c);
 * responses end in any order, as over HTTP/2.
 *
 * Choices, with the RFC 9114 section they come from:
 * - ALPN "h3" (section 3.1); a server that does not agree ends the run;
 * - a stream the server resets is h3_stream_reset with its code (8.1);
 * - a GOAWAY (5.2) drains the connection; the connection closes once the
 *   rest are answered;
 * - requests refused unprocessed (streams from a GOAWAY's id on, or reset
 *   with H3_REQUEST_REJECTED: 4.1.1 says it is safe) are sent again on
 *   another connection, as over HTTP/2 (mux.c), up to MUX_RETRIES times
 *   on a server that processes none, and counted; the rest are
 *   h3_goaway errors;
 * - a stream past --timeout is cancelled (H3_REQUEST_CANCELLED, 4.1.1) and
 *   counted as a timeout; the connection stays;
 * - a slot's stream is its QUIC stream id + 1, so that 0 still says "not
 *   submitted" (the first client stream is 0). */
#include "http3.h"
#include "err.h"
#include "clock.h"

#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>



static int bind_streams(struct conn *c);

static int64_t sid(const struct slot *s)
{
    return (int64_t)s->stream - 1;
}

/* The stream of s is done with: nothing of the libraries' may reach s. */
static void detach(struct conn *c, struct slot *s)
{
    struct h3 *h = h3_of(c);
    if (s->stream > 0) {
        if (h->hc)
            nghttp3_conn_set_stream_user_data(h->hc, sid(s), NULL);
        if (h->qc)
            ngtcp2_conn_set_stream_user_data(h->qc, sid(s), NULL);
    }
    s->stream = 0;
    h->body[s - c->slots] = NULL;
    conn_release(c, s);
    h->done++;
}

/* Has the server answered on c, or may it still: a GOAWAY that lets some
 * streams through, a response, or a stream before s still in flight? QUIC
 * does not order streams, so a refusal of s may come before the answer to
 * an earlier stream, or before the GOAWAY that explains it. */
static int progress(const struct conn *c, const struct slot *s)
{
    uint32_t i;
    if (h3_of(c)->goaway_id > 0 || h3_of(c)->completed > 0)
        return 1;
    for (i = 0; s->stream > 0 && i < c->cap; i++)
        if (c->slots[i].busy && c->slots[i].stream > 0 && c->slots[i].stream < s->stream)
            return 1;
    return 0;
}

/* s was refused unprocessed: sent again on another connection (mux.c),
 * unless the server processes nothing on this one (a GOAWAY naming stream
 * 0, refusals of its first stream before any answer) and s had its
 * chances. */
static void refused(struct conn *c, struct slot *s, const char *why)
{
    if (mux_retry(c, s, progress(c, s)))
        record_retry(c->w, s, 1);
    else
        record_error(c, s, ERR_H3_GOAWAY, 0, why, h3_of(c)->now);
    detach(c, s);
}

/* --- nghttp3's callbacks (user data: the connection; stream's: the slot) --- */

static int on_begin_headers(nghttp3_conn *hc, int64_t id, void *ud, void *sud)
{
    struct conn *c = ud;
    struct slot *s = sud;
    (void)hc;
    (void)id;
    if (s)
        mux_first(c, s, h3_of(c)->now);
    return 0;
}

static int on_header(nghttp3_conn *hc, int64_t id, int32_t token, nghttp3_rcbuf *name, nghttp3_rcbuf *value,
                     uint8_t flags, void *ud, void *sud)
{
    struct conn *c = ud;
    struct slot *s = sud;
    nghttp3_vec n = nghttp3_rcbuf_get_buf(name), v = nghttp3_rcbuf_get_buf(value);
    (void)hc;
    (void)id;
    (void)flags;
    if (s == NULL)
        return 0;
    record_headers(c->w, 1, 0, n.len + v.len, h3_of(c)->now);
    /* nghttp3 checked the field (RFC 9114 section 4.3.2): three digits. */
    if (token == NGHTTP3_QPACK_TOKEN__STATUS && v.len == 3)
        s->status = (uint16_t)((v.base[0] - '0') * 100 + (v.base[1] - '0') * 10 + (v.base[2] - '0'));
    else if (token == NGHTTP3_QPACK_TOKEN_SET_COOKIE && c->w->plan->cfg->cookies)
        conn_cookie(c, s, (const char *)v.base, v.len);
    if (c->w->capturing)
        mux_field(c, s, (const char *)n.base, n.len, (const char *)v.base, v.len);
    return 0;
}

/* Body bytes: counted, kept for checks, and their credit given back. */
static int on_data(nghttp3_conn *hc, int64_t id, const uint8_t *data, size_t len, void *ud, void *sud)
{
    struct conn *c = ud;
    struct slot *s = sud;
    (void)hc;
    ngtcp2_conn_extend_max_stream_offset(h3_of(c)->qc, id, len);
    ngtcp2_conn_extend_max_offset(h3_of(c)->qc, len);
    if (s == NULL)
        return 0;
    record_frame_bytes(c->w, s, len, h3_of(c)->now);
    if (s->capt && (c->w->plan->targets[s->target].capture || c->w->showing))
        verify_keep(s->capt, c->w->plan, (const char *)data, len);
    return 0;
}

static int on_deferred_consume(nghttp3_conn *hc, int64_t id, size_t n, void *ud, void *sud)
{
    struct conn *c = ud;
    (void)hc;
    (void)sud;
    ngtcp2_conn_extend_max_stream_offset(h3_of(c)->qc, id, n);
    ngtcp2_conn_extend_max_offset(h3_of(c)->qc, n);
    return 0;
}

/* The response is whole: ended here, its time the arrival of its last
 * packet. */
static int on_end_stream(nghttp3_conn *hc, int64_t id, void *ud, void *sud)
{
    struct conn *c = ud;
    struct slot *s = sud;
    (void)hc;
    (void)id;
    if (s == NULL)
        return 0;
    mux_ended(c, s, h3_of(c)->now);
    h3_of(c)->completed++;
    detach(c, s);
    return 0;
}

static int on_h3_stream_close(nghttp3_conn *hc, int64_t id, uint64_t code, void *ud, void *sud)
{
    struct conn *c = ud;
    struct slot *s = sud;
    (void)hc;
    (void)id;
    if (s == NULL)
        return 0; /* ended, failed or given up on already */
    if (code == NGHTTP3_H3_REQUEST_REJECTED)
        refused(c, s, "H3_REQUEST_REJECTED, refused again");
    else {
        record_error(c, s, ERR_H3_RESET, 0, http3_quic_code_name(1, code), h3_of(c)->now);
        detach(c, s);
    }
    return 0;
}

/* The server asks us to stop sending the request (section 4.1.1). */
static int on_stop_sending(nghttp3_conn *hc, int64_t id, uint64_t code, void *ud, void *sud)
{
    struct conn *c = ud;
    (void)hc;
    (void)sud;
    ngtcp2_conn_shutdown_stream_write(h3_of(c)->qc, id, code);
    return 0;
}

/* A GOAWAY: streams from id on will not be processed (section 5.2). */
static int on_shutdown(nghttp3_conn *hc, int64_t id, void *ud)
{
    struct conn *c = ud;
    struct h3 *h = h3_of(c);
    uint32_t i;
    (void)hc;
    h->goaway_id = id;
    c->draining = 1;
    for (i = 0; c->count && i < c->cap; i++) {
        struct slot *s = &c->slots[i];
        if (!s->busy || (s->stream > 0 && sid(s) < id))
            continue;
        if (s->stream > 0)
            ngtcp2_conn_shutdown_stream(h->qc, sid(s), NGHTTP3_H3_REQUEST_CANCELLED);
        refused(c, s, "at or above the GOAWAY's stream id, refused again");
    }
    return 0;
}

/* --- ngtcp2's stream callbacks: what QUIC hands HTTP/3 --- */

static int on_recv_stream_data(ngtcp2_conn *qc, uint32_t flags, int64_t id, uint64_t offset, const uint8_t *data,
                               size_t len, void *ud, void *sud)
{
    struct conn *c = ud;
    struct slot *s = sud;
    nghttp3_ssize n;
    (void)offset;
    if (s) /* a response: its field sections' bytes on the wire, QPACK's side of the saving */
        record_headers(c->w, 1, http3_frames_headers(&h3_of(c)->frames[s - c->slots], data, len), 0, h3_of(c)->now);
    n = nghttp3_conn_read_stream(h3_of(c)->hc, id, data, len, (flags & NGTCP2_STREAM_DATA_FLAG_FIN) != 0);
    if (n < 0)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    /* What nghttp3 consumed (frame headers, fields) is credit again; the
     * body's comes back in on_data. */
    ngtcp2_conn_extend_max_stream_offset(qc, id, (uint64_t)n);
    ngtcp2_conn_extend_max_offset(qc, (uint64_t)n);
    return 0;
}

static int on_acked(ngtcp2_conn *qc, int64_t id, uint64_t offset, uint64_t len, void *ud, void *sud)
{
    struct conn *c = ud;
    (void)qc;
    (void)offset;
    (void)sud;
    return nghttp3_conn_add_ack_offset(h3_of(c)->hc, id, len) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE;
}

static int on_stream_close(ngtcp2_conn *qc, uint32_t flags, int64_t id, uint64_t code, void *ud, void *sud)
{
    struct conn *c = ud;
    struct h3 *h = h3_of(c);
    int r;
    (void)sud;
    h->lost += ngtcp2_conn_get_stream_loss_count(qc, id);
    if (!(flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET))
        code = NGHTTP3_H3_NO_ERROR;
    r = nghttp3_conn_close_stream(h->hc, id, code);
    if (h->held)
        http3_body_done(h, id); /* neither library points at it any more */
    return r == 0 || r == NGHTTP3_ERR_STREAM_NOT_FOUND ? 0 : NGTCP2_ERR_CALLBACK_FAILURE;
}

/* RESET_STREAM: the response ends here, not when both directions close. */
static int on_stream_reset(ngtcp2_conn *qc, int64_t id, uint64_t final_size, uint64_t code, void *ud, void *sud)
{
    struct conn *c = ud;
    struct slot *s = sud;
    (void)qc;
    (void)final_size;
    if (s && code == NGHTTP3_H3_REQUEST_REJECTED) {
        refused(c, s, "H3_REQUEST_REJECTED, refused again");
    } else if (s) {
        record_error(c, s, ERR_H3_RESET, 0, http3_quic_code_name(1, code), h3_of(c)->now);
        detach(c, s);
    }
    return nghttp3_conn_shutdown_stream_read(h3_of(c)->hc, id) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE;
}

static int on_quic_stop_sending(ngtcp2_conn *qc, int64_t id, uint64_t code, void *ud, void *sud)
{
    struct conn *c = ud;
    (void)qc;
    (void)code;
    (void)sud;
    return nghttp3_conn_shutdown_stream_read(h3_of(c)->hc, id) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE;
}

static int on_extend_stream_data(ngtcp2_conn *qc, int64_t id, uint64_t max, void *ud, void *sud)
{
    struct conn *c = ud;
    (void)qc;
    (void)max;
    (void)sud;
    return nghttp3_conn_unblock_stream(h3_of(c)->hc, id) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE;
}

static int on_extend_streams(ngtcp2_conn *qc, uint64_t max, void *ud)
{
    struct conn *c = ud;
    (void)qc;
    (void)max;
    h3_of(c)->more_streams = 1;
    return 0;
}

static int on_handshake_completed(ngtcp2_conn *qc, void *ud)
{
    struct conn *c = ud;
    (void)qc;
    h3_of(c)->handshaken = 1;
    if (h3_of(c)->hc)
        return 0; /* opened for 0-RTT */
    return bind_streams(c) == 0 ? 0 : NGTCP2_ERR_CALLBACK_FAILURE;
}

/* --- the plan's shared part --- */

/* HTTP/3 sends HTTP/2's header fields (RFC 9114 section 4.3 keeps its
 * pseudo-fields), and its connections share TLS credentials and the
 * libraries' callbacks; every target must be https://. */
static int h3_plan_init(struct plan *pl, char *err, size_t errlen)
{
    const struct config *cfg = pl->cfg;
    struct h3_plan *hp;
    uint32_t i;
    int r;
    if (plan_h2_build(pl, err, errlen) != 0)
        return -1;
    for (i = 0; i < pl->nendpoints; i++)
        if (!pl->endpoints[i].tls) {
            err_set(err, errlen, NULL, "--http3 speaks QUIC, which is always encrypted: give https:// URLs");
            return -1;
        }
    if ((hp = calloc(1, sizeof(*hp))) == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    pl->shared = hp;
    hp->verify = !cfg->tls.insecure;
    if ((r = gnutls_certificate_allocate_credentials(&hp->cred)) != 0) {
        hp->cred = NULL;
        err_set(err, errlen, NULL, "GnuTLS: %s", gnutls_strerror(r));
        return -1;
    }
    r = cfg->tls.cacert ? gnutls_certificate_set_x509_trust_file(hp->cred, cfg->tls.cacert, GNUTLS_X509_FMT_PEM)
                        : gnutls_certificate_set_x509_system_trust(hp->cred);
    if (r < 0 && hp->verify) {
        err_set(err, errlen, NULL, "%s: %s", cfg->tls.cacert ? cfg->tls.cacert : "the system's trusted CAs",
                 gnutls_strerror(r));
        return -1;
    }
    if (cfg->tls.cert &&
        (r = gnutls_certificate_set_x509_key_file2(hp->cred, cfg->tls.cert, cfg->tls.key ? cfg->tls.key : cfg->tls.cert,
                                                    GNUTLS_X509_FMT_PEM, cfg->tls.pass, 0)) < 0) {
        err_set(err, errlen, NULL, "%s: %s", cfg->tls.cert, gnutls_strerror(r));
        return -1;
    }
    http3_quic_callbacks(&hp->qcb);
    http3_early_callbacks(&hp->qcb);
    hp->qcb.handshake_completed = on_handshake_completed;
    hp->qcb.recv_stream_data = on_recv_stream_data;
    hp->qcb.acked_stream_data_offset = on_acked;
    hp->qcb.stream_close = on_stream_close;
    hp->qcb.stream_reset = on_stream_reset;
    hp->qcb.stream_stop_sending = on_quic_stop_sending;
    hp->qcb.extend_max_stream_data = on_extend_stream_data;
    hp->qcb.extend_max_local_streams_bidi = on_extend_streams;
    hp->hcb.begin_headers = on_begin_headers;
    hp->hcb.recv_header = on_header;
    hp->hcb.recv_data = on_data;
    hp->hcb.deferred_consume = on_deferred_consume;
    hp->hcb.end_stream = on_end_stream;
    hp->hcb.stream_close = on_h3_stream_close;
    hp->hcb.stop_sending = on_stop_sending;
    hp->hcb.reset_stream = on_stop_sending;
    hp->hcb.shutdown = on_shutdown;
    return 0;
}

static void h3_plan_free(struct plan *pl)
{
    struct h3_plan *hp = pl->shared;
    plan_h2_free(pl);
    if (hp == NULL)
        return;
    if (hp->cred)
        gnutls_certificate_free_credentials(hp->cred);
    free(hp);
    pl->shared = NULL;
}

static int bind_streams(struct conn *c)
{
    struct h3 *h = h3_of(c);
    const struct h3_plan *hp = c->w->plan->shared;
    nghttp3_settings set;
    int64_t ctrl, enc, dec;
    nghttp3_settings_default(&set);
    if (nghttp3_conn_client_new(&h->hc, &hp->hcb, &set, NULL, c) != 0) {
        h->hc = NULL;
        return -1;
    }
    /* Section 6.2.1: a control stream, and QPACK's two (RFC 9204 4.2). */
    if (ngtcp2_conn_open_uni_stream(h->qc, &ctrl, NULL) != 0 || ngtcp2_conn_open_uni_stream(h->qc, &enc, NULL) != 0 ||
        ngtcp2_conn_open_uni_stream(h->qc, &dec, NULL) != 0 || nghttp3_conn_bind_control_stream(h->hc, ctrl) != 0 ||
        nghttp3_conn_bind_qpack_streams(h->hc, enc, dec) != 0)
        return -1;
    return 0;
}

/* --- requests --- */

/* The request's body, whole, from the plan's copy or the connection's copy
 * of the slot's expansion (http3_body.c: both outlive the stream). */
static nghttp3_ssize body_read(nghttp3_conn *hc, int64_t id, nghttp3_vec *vec, size_t veccnt, uint32_t *flags, void *ud,
                               void *sud)
{
    struct conn *c = ud;
    struct slot *s = sud;
    const struct plan_target *pt;
    (void)hc;
    (void)id;
    (void)veccnt;
    *flags |= NGHTTP3_DATA_FLAG_EOF;
    if (s == NULL)
        return 0;
    pt = &c->w->plan->targets[s->target];
    vec[0].base = (uint8_t *)(pt->req ? pt->body : h3_of(c)->body[s - c->slots]);
    vec[0].len = pt->req ? pt->body_len : s->req_len;
    return 1;
}

/* s's request on a new stream; none when the server's stream limit is
 * reached (it goes when the limit is raised). */
static void submit(struct conn *c, struct slot *s)
{
    struct h3 *h = h3_of(c);
    const struct plan *pl = c->w->plan;
    const struct plan_target *pt = &pl->targets[s->target];
    nghttp3_data_reader dr = { body_read };
    nghttp3_nv *nv = h->nv;
    const nghttp2_nv *f = pt->h2nv;
    const char *v = pt->h2val ? s->req + plan_h2_body_room(pt) : NULL;
    const char *path = pl->cfg->urls[s->target].target;
    size_t k, n = pt->h2nnv, ck, plen = strlen(path);
    int64_t id;
    int r;

    s->status = 0;
    s->got_first = 0;
    s->ended = 0;
    if ((r = ngtcp2_conn_open_bidi_stream(h->qc, &id, s)) != 0) {
        if (r != NGTCP2_ERR_STREAM_ID_BLOCKED) {
            record_error(c, s, ERR_QUIC_CLOSE, 0, ngtcp2_strerror(r), clock_ns());
            detach(c, s);
        }
        return;
    }
    /* The fields built once, with templated values and cookies in place
     * (nghttp3 copies them). */
    for (k = 0; k < n; k++) {
        nv[k].name = f[k].name;
        nv[k].namelen = f[k].namelen;
        nv[k].value = f[k].value;
        nv[k].valuelen = f[k].valuelen;
        nv[k].flags = NGHTTP3_NV_FLAG_NONE;
        if (v && pt->h2val[k].nparts) {
            nv[k].valuelen = ((size_t)(uint8_t)v[0] << 8) | (uint8_t)v[1];
            nv[k].value = (uint8_t *)v + 2;
            v += 2 + nv[k].valuelen;
        }
    }
    if (pl->replay) {
        /* The log's method and path (nghttp3 copies them). */
        const char *m;
        replay_fields(s->req, s->req_len, &m, &nv[H2_METHOD].valuelen, &path, &plen);
        nv[H2_METHOD].value = (uint8_t *)m;
        nv[H2_PATH].value = (uint8_t *)path;
        nv[H2_PATH].valuelen = plen;
    }
    if (c->jar && (ck = cookie_header(c->jar, path, plen, pt->tls, time(NULL), c->w->wbuf + H3_BATCH * H3_SLOT)) >
                      0) {
        nv[n].name = (uint8_t *)"cookie";
        nv[n].namelen = 6;
        nv[n].value = (uint8_t *)c->w->wbuf + H3_BATCH * H3_SLOT;
        nv[n].valuelen = ck;
        nv[n].flags = NGHTTP3_NV_FLAG_NONE;
        n++;
    }
    if (pt->has_body && !pt->req &&
        (h->body[s - c->slots] = http3_body_take(h, id, s->req, s->req_len, plan_h2_body_room(pt))) == NULL)
        r = NGHTTP3_ERR_NOMEM;
    else
        r = nghttp3_conn_submit_request(h->hc, id, nv, n, pt->has_body ? &dr : NULL, s);
    if (r != 0) {
        ngtcp2_conn_shutdown_stream(h->qc, id, NGHTTP3_H3_INTERNAL_ERROR);
        record_error(c, s, ERR_QUIC_CLOSE, 0, nghttp3_strerror(r), clock_ns());
        detach(c, s);
        return;
    }
    s->stream = (int32_t)(id + 1);
    memset(&h->frames[s - c->slots], 0, sizeof(*h->frames));
}

/* Requests added before the connection was up or beyond the stream limit. */
static void submit_waiting(struct conn *c)
{
    uint32_t i;
    h3_of(c)->more_streams = 0;
    for (i = 0; c->count && i < c->cap; i++)
        if (c->slots[i].busy && c->slots[i].stream == 0) {
            submit(c, &c->slots[i]);
            if (c->slots[i].busy && c->slots[i].stream == 0)
                break; /* the limit */
        }
}

/* After packets were read (outside ngtcp2): the handshake's end, the
 * refill after answers, a connection done with; then what waits is
 * written. */
static void settle(struct conn *c, uint64_t now)
{
    struct h3 *h = h3_of(c);
    struct worker *w = c->w;
    const struct config *cfg = w->plan->cfg;
    uint64_t rpc = cfg->requests_per_conn;

    if (h->handshaken == 1) {
        h->handshaken = 2;
        if (http3_quic_alpn(c) != 0)
            return;
        http3_early_done(c, now);
        if (h->hc == NULL && bind_streams(c) != 0) { /* its early data refused: a session again */
            conn_fail(c, ERR_QUIC_CLOSE, ENOMEM, "no HTTP/3 session", now);
            return;
        }
        record_connect(w, c->sess->oldest(c), now); /* the handshake's time: QUIC's connect */
        record_tls(w, c->sess->oldest(c), now - c->sess->oldest(c)->t_sent, gnutls_session_is_resumed(h->tls) != 0);
        conn_up(c, now); /* submits (ready), refills, writes */
        return;
    }
    if (c->state != C_OPEN) {
        http3_quic_flush(c); /* the handshake goes on */
        return;
    }
    if (h->more_streams)
        submit_waiting(c);
    /* Done with it (its GOAWAY came, or --close, or its share of
     * requests): closed before any refill, as over HTTP/2. */
    if (c->count == 0 && (c->draining || !cfg->keepalive || (rpc && c->nreq >= rpc))) {
        http3_quic_goodbye(c);
        return;
    }
    /* Top up once half the streams are free, as over HTTP/2 (conn.c). */
    if (h->done && c->count < c->cap && (c->cap <= 2 || c->count <= c->cap / 2 || rate_mode(w))) {
        h->done = 0;
        if (rate_mode(w))
            workq_enqueue(c);
        else
            conn_fill(c, now);
        if (c->state != C_OPEN)
            return;
    }
    h->done = 0;
    http3_quic_flush(c);
}

/* --- the session_ops --- */

static void h3_added(struct conn *c, struct slot *s)
{
    s->stream = 0;
    if (h3_of(c) && (c->state == C_OPEN || h3_of(c)->early == 2) && h3_of(c)->hc)
        submit(c, s);
}

static int h3_ready(struct conn *c, uint64_t now)
{
    (void)now;
    submit_waiting(c);
    return 0;
}

static void h3_write(struct conn *c)
{
    if (c->state == C_OPEN)
        http3_quic_flush(c);
}

static int h3_want_write(const struct conn *c)
{
    return h3_of(c) && h3_of(c)->npend > 0;
}

/* (Datagrams are read by http3_quic.c's own handler, never by conn.c.) */
static int h3_read(struct conn *c, const char *buf, size_t n, uint64_t now)
{
    (void)c;
    (void)buf;
    (void)n;
    (void)now;
    return 0;
}

static void h3_eof(struct conn *c, uint64_t now)
{
    conn_fail(c, ERR_QUIC_CLOSE, 0, "the socket closed", now);
}

/* A stream given up on (--timeout): cancelled (section 4.1.1). */
static void cancel(struct conn *c, struct slot *s)
{
    if (s->stream > 0)
        ngtcp2_conn_shutdown_stream(h3_of(c)->qc, sid(s), NGHTTP3_H3_REQUEST_CANCELLED);
    detach(c, s);
}

static void h3_timeout(struct conn *c, uint64_t now)
{
    struct h3 *h = h3_of(c);
    const struct config *cfg = c->w->plan->cfg;
    uint64_t limit = cfg->timeout_ns;

    if (c->state != C_OPEN) {
        uint64_t hs = cfg->connect_timeout_ns < limit ? cfg->connect_timeout_ns : limit;
        if (now >= mux_oldest(c)->t_sent + hs)
            conn_fail(c, ERR_QUIC_HANDSHAKE, 0, "no answer to the QUIC handshake within --connect-timeout", now);
        else
            conn_arm(c);
        return;
    }
    h->now = now;
    mux_timeouts(c, now, cancel);
    if (c->state != C_OPEN)
        return;
    h->done = 0;
    http3_quic_flush(c);
    if (c->state == C_OPEN)
        conn_arm(c);
}

static void h3_closed(struct conn *c)
{
    struct h3 *h = h3_of(c);
    uint64_t now = clock_ns();
    if (h == NULL)
        return;
    record_quic(c->w, 0, 0, h->lost, now);
    h->lost = 0;
    if (h->hc)
        nghttp3_conn_del(h->hc);
    h->hc = NULL;
    http3_quic_free(h, now);
    http3_body_all_done(h);
}

static size_t h3_expand_slot(struct conn *c, struct slot *s, struct tpl_ctx *ctx, char *buf)
{
    return plan_h2_expand(c->w->plan, s->target, ctx, buf);
}

/* The UDP socket's events: its datagrams, then what they set off. */
static void on_io(struct loop_io *io, uint32_t ev)
{
    struct h3 *h = container_of(io, struct h3, io);
    struct conn *c = h->c;
    if (h->qc == NULL || c->fd < 0)
        return;
    h->done = 0;
    if ((ev & (LOOP_IN | LOOP_ERR)) && http3_quic_input(c) != 0)
        return;
    if ((ev & LOOP_OUT) && h->npend && http3_quic_flush(c) != 0)
        return;
    settle(c, h->now);
}

static int h3_prepare(struct conn *c, uint64_t now)
{
    const struct plan *pl = c->w->plan;
    struct h3 *h = c->ctx;
    size_t most = 0;
    uint32_t i;
    if (h == NULL && (h = c->ctx = calloc(1, sizeof(*h))) == NULL) {
        conn_fail(c, ERR_CONNECT_OTHER, ENOMEM, "out of memory for an HTTP/3 connection", now);
        return -1;
    }
    /* Untemplated requests may have any number of fields (-H). */
    for (i = 0; i < pl->ntargets; i++)
        most = pl->targets[i].h2nnv > most ? pl->targets[i].h2nnv : most;
    if ((h->body == NULL && (h->body = calloc(c->cap, sizeof(*h->body))) == NULL) ||
        (h->frames == NULL && (h->frames = calloc(c->cap, sizeof(*h->frames))) == NULL) ||
        (h->nv == NULL && (h->nv = calloc(most + 1, sizeof(*h->nv))) == NULL)) {
        conn_fail(c, ERR_CONNECT_OTHER, ENOMEM, "out of memory for an HTTP/3 connection", now);
        return -1;
    }
    h->c = c;
    h->io.fn = on_io;
    return 0;
}

/* The first flight made the 0-RTT key (--http3-0rtt, http3_early.c): the
 * HTTP/3 session and the requests go early. */
static void h3_open(struct conn *c, uint64_t now)
{
    struct h3 *h = h3_of(c);
    if (http3_quic_open(c, now) != 0 || h->early != 1 || h->hc)
        return;
    if (bind_streams(c) != 0) {
        conn_fail(c, ERR_QUIC_HANDSHAKE, ENOMEM, "no HTTP/3 session for 0-RTT", now);
        return;
    }
    h->early = 2;
    submit_waiting(c);
    http3_quic_flush(c);
}

static void h3_fini(struct conn *c)
{
    struct h3 *h = c->ctx;
    if (h == NULL)
        return;
    h3_closed(c);
    http3_body_free(h);
    gnutls_free(h->ticket.data);
    free(h->body);
    free(h->frames);
    free(h->nv);
    free(h->pend);
    free(h);
    c->ctx = NULL;
}

const struct session_ops session_http3 = {
    .name = "h3",
    .multiplexed = 1,
    .wbuf = H3_WBUF,
    .plan_init = h3_plan_init,
    .plan_free = h3_plan_free,
    .slot_new = mux_slot_new,
    .added = h3_added,
    .ready = h3_ready,
    .write = h3_write,
    .want_write = h3_want_write,
    .read = h3_read,
    .eof = h3_eof,
    .oldest = mux_oldest,
    .timeout = h3_timeout,
    .closed = h3_closed,
    .expand = h3_expand_slot,
    .prepare = h3_prepare,
    .fini = h3_fini,
    .open = h3_open,
};
