/* serve_h2.c - one HTTP/2 connection of `rafale serve`, on nghttp2's server
 * session. A request is answered when its stream ends (RFC 9113 §8.1),
 * with the same answer as over HTTP/1.1 (serve_reply); bodies are produced
 * only as nghttp2 asks for them, so flow control (§5.2) and a client that
 * does not read hold back generation, never buffer it. /delay answers wait
 * in their stream until serve_h2_tick(); /close answers, then sends GOAWAY. */
#include "serve_h2.h"
#include "buf.h"
#include "http_req.h"

#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATH 8192 /* a longer :path is answered 414 */

struct sstream {
    struct sstream *next, *prev;  /* the active list, or the free list (next) */
    int32_t id;
    uint8_t head, delayed, path_too_long, answered, too_large;
    uint32_t fields;              /* header fields, and their size as §6.5.2 counts it */
    uint64_t list_size;
    uint64_t due;                 /* a /delay answer's time */
    uint64_t off;                 /* body bytes produced */
    struct reply rp;
    char status[8], clen[24], method[16];
    struct buf path;              /* kept when the stream is reused */
};

struct sh2 {
    nghttp2_session *ng;
    struct sh2_env env;
    struct sstream *active, *free;
    uint32_t nstreams;
    uint64_t now;
    int32_t goaway_last;          /* our GOAWAY's last-stream-id, or -1 */
};

static void stream_unlink(struct sh2 *h, struct sstream *st)
{
    if (st->prev)
        st->prev->next = st->next;
    else
        h->active = st->next;
    if (st->next)
        st->next->prev = st->prev;
    st->next = h->free;
    st->prev = NULL;
    h->free = st;
    h->nstreams--;
}

static struct sstream *stream_new(struct sh2 *h, int32_t id)
{
    struct sstream *st = h->free;
    if (st)
        h->free = st->next;
    else if ((st = calloc(1, sizeof(*st))) == NULL)
        return NULL;
    st->id = id;
    st->head = st->delayed = st->path_too_long = st->answered = st->too_large = 0;
    st->fields = 0;
    st->list_size = 0;
    st->off = 0;
    st->method[0] = '\0';
    st->path.len = 0;
    st->prev = NULL;
    st->next = h->active;
    if (h->active)
        h->active->prev = st;
    h->active = st;
    h->nstreams++;
    return st;
}

/* The body's bytes, as nghttp2 asks for them. */
static ssize_t body_read(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *ud)
{
    struct sstream *st = src->ptr;
    const struct reply *rp = &st->rp;
    uint64_t total = rp->kind == B_GEN_BYTES || rp->kind == B_GEN_CHUNKED ? rp->gen_len : rp->blen;
    size_t k = total - st->off < len ? (size_t)(total - st->off) : len, i;
    (void)ng;
    (void)id;
    (void)ud;
    if (rp->kind == B_GEN_BYTES)
        for (i = 0; i < k; i++)
            buf[i] = (uint8_t)SERVE_PATTERN[(st->off + i) % SERVE_PATTERN_LEN];
    else if (rp->kind == B_GEN_CHUNKED)
        /* The bytes of HTTP/1.1's 1000-byte chunks, without the framing. */
        for (i = 0; i < k; i++)
            buf[i] = (uint8_t)SERVE_PATTERN[((st->off + i) % 1000) % SERVE_PATTERN_LEN];
    else
        memcpy(buf, (rp->kind == B_TEXT ? rp->text : rp->body) + st->off, k);
    st->off += k;
    if (st->off == total)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)k;
}

static nghttp2_nv nv(const char *name, const char *value, size_t vlen)
{
    nghttp2_nv v = { (uint8_t *)name, (uint8_t *)value, strlen(name), vlen, NGHTTP2_NV_FLAG_NO_COPY_NAME };
    return v;
}

static void submit(struct sh2 *h, struct sstream *st)
{
    const struct reply *rp = &st->rp;
    nghttp2_nv hd[7];
    nghttp2_data_provider prd;
    size_t n = 0;
    int has_len = rp->kind != B_GEN_CHUNKED, no_body = rp->status == 204 || rp->status == 304;
    uint64_t len = rp->kind == B_GEN_BYTES || rp->kind == B_GEN_CHUNKED ? rp->gen_len : rp->blen;

    st->answered = 1;
    snprintf(st->status, sizeof(st->status), "%d", rp->status);
    hd[n++] = nv(":status", st->status, strlen(st->status));
    hd[n++] = nv("server", "rafale", 6);
    hd[n++] = nv("date", h->env.date, strlen(h->env.date));
    if (rp->ctype)
        hd[n++] = nv("content-type", rp->ctype, strlen(rp->ctype));
    if (rp->location)
        hd[n++] = nv("location", rp->location, rp->loclen);
    if (h->env.s->alt_svc[0])
        hd[n++] = nv("alt-svc", h->env.s->alt_svc, strlen(h->env.s->alt_svc)); /* --http3 */
    if (has_len && !no_body) {
        snprintf(st->clen, sizeof(st->clen), "%llu", (unsigned long long)len);
        hd[n++] = nv("content-length", st->clen, strlen(st->clen));
    }
    prd.source.ptr = st;
    prd.read_callback = body_read;
    st->off = 0;
    /* No DATA at all for HEAD, 204, 304 and empty bodies: HEADERS ends the stream. */
    nghttp2_submit_response(h->ng, st->id, hd, n, st->head || no_body || len == 0 ? NULL : &prd);
    if (h->env.log)
        fprintf(h->env.log, "%s - - [%s] \"%s %.*s HTTP/2.0\" %d %llu\n", h->env.peer, h->env.logdate, st->method,
                (int)st->path.len, st->path.p ? st->path.p : "", rp->status,
                (unsigned long long)(st->head || no_body ? 0 : len));
    if (rp->close && h->goaway_last < 0) {
        /* /close over HTTP/2: no stream after this one on this connection
         * (§6.8); one GOAWAY only, as its last-stream-id may not grow. */
        h->goaway_last = st->id;
        nghttp2_submit_goaway(h->ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_NO_ERROR, NULL, 0);
    }
}

/* A whole request: answered now, or when its delay is over. */
static void answer(struct sh2 *h, struct sstream *st)
{
    if (st->answered || st->delayed)
        return;
    if (h->goaway_last >= 0 && st->id > h->goaway_last) {
        /* Above our GOAWAY: not processed, and said so (§8.7: the client
         * may send it again elsewhere). */
        st->answered = 1;
        nghttp2_submit_rst_stream(h->ng, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_REFUSED_STREAM);
        return;
    }
    (*h->env.requests)++;
    if (st->too_large)
        reply_text(&st->rp, 431, "request header fields too large\n");
    else if (st->path_too_long || st->path.len == 0)
        reply_text(&st->rp, st->path_too_long ? 414 : 400, st->path_too_long ? "path too long\n" : "no :path\n");
    else
        serve_reply(h->env.s, h->env.rng, st->path.p, st->path.len, &st->rp);
    if (st->rp.kind == B_DELAY) {
        st->delayed = 1;
        st->due = h->now + (uint64_t)st->rp.delay_us * 1000u;
        return;
    }
    submit(h, st);
}

/* --- nghttp2's callbacks (user data: the session) --- */

static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
    struct sh2 *h = ud;
    struct sstream *st;
    if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    if ((st = stream_new(h, f->hd.stream_id)) == NULL)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* this stream is reset, the connection stays */
    nghttp2_session_set_stream_user_data(ng, f->hd.stream_id, st);
    return 0;
}

static int on_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *ud)
{
    struct sstream *st = nghttp2_session_get_stream_user_data(ng, f->hd.stream_id);
    (void)flags;
    (void)ud;
    if (st == NULL || f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    /* The limits of HTTP/1.1's side (http_req.h) and of the
     * SETTINGS_MAX_HEADER_LIST_SIZE we advertise: a field list's size is
     * its names and values plus 32 bytes a field (RFC 9113 §6.5.2). nghttp2
     * does not enforce the setting on what it receives; past it the
     * request is answered 431, as over HTTP/1.1. */
    st->list_size += namelen + valuelen + 32;
    /* The pseudo-header fields stand for the request line, not fields. */
    if ((namelen && name[0] != ':' && ++st->fields > HR_MAX_FIELDS) || st->list_size > HR_MAX_HEAD)
        st->too_large = 1;
    if (namelen == 7 && memcmp(name, ":method", 7) == 0) {
        size_t k = valuelen < sizeof(st->method) - 1 ? valuelen : sizeof(st->method) - 1;
        memcpy(st->method, value, k);
        st->method[k] = '\0';
        st->head = valuelen == 4 && memcmp(value, "HEAD", 4) == 0;
    } else if (namelen == 5 && memcmp(name, ":path", 5) == 0) {
        st->path.len = 0;
        if (valuelen > MAX_PATH)
            st->path_too_long = 1;
        else if (buf_put(&st->path, value, valuelen) != 0)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    return 0;
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *f, void *ud)
{
    struct sh2 *h = ud;
    struct sstream *st;
    /* The request is whole at END_STREAM, its body (skipped) included. */
    if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) && (f->hd.flags & NGHTTP2_FLAG_END_STREAM) &&
        (st = nghttp2_session_get_stream_user_data(ng, f->hd.stream_id)) != NULL)
        answer(h, st);
    return 0;
}

static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t code, void *ud)
{
    struct sh2 *h = ud;
    struct sstream *st = nghttp2_session_get_stream_user_data(ng, id);
    (void)code;
    if (st)
        stream_unlink(h, st);
    return 0;
}

/* --- the API --- */

struct sh2 *serve_h2_new(const struct sh2_env *env, uint32_t max_streams)
{
    struct sh2 *h = calloc(1, sizeof(*h));
    nghttp2_session_callbacks *cb = NULL;
    nghttp2_settings_entry iv[2] = {
        { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams },
        /* What serve reads of a request head over HTTP/1.1, too. */
        { NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, HR_MAX_HEAD },
    };
    if (h == NULL || nghttp2_session_callbacks_new(&cb) != 0)
        goto fail;
    h->env = *env;
    h->goaway_last = -1;
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    if (nghttp2_session_server_new(&h->ng, cb, h) != 0) {
        h->ng = NULL;
        goto fail;
    }
    nghttp2_session_callbacks_del(cb);
    cb = NULL;
    if (nghttp2_submit_settings(h->ng, NGHTTP2_FLAG_NONE, iv, 2) != 0)
        goto fail;
    return h;
fail:
    if (cb)
        nghttp2_session_callbacks_del(cb);
    serve_h2_free(h);
    return NULL;
}

void serve_h2_free(struct sh2 *h)
{
    struct sstream *st;
    if (h == NULL)
        return;
    if (h->ng)
        nghttp2_session_del(h->ng); /* no callback runs in here */
    while ((st = h->active) != NULL) {
        h->active = st->next;
        buf_free(&st->path);
        free(st);
    }
    while ((st = h->free) != NULL) {
        h->free = st->next;
        buf_free(&st->path);
        free(st);
    }
    free(h);
}

int serve_h2_recv(struct sh2 *h, const uint8_t *p, size_t n, uint64_t now)
{
    h->now = now;
    return nghttp2_session_mem_recv(h->ng, p, n) < 0 ? -1 : 0;
}

ssize_t serve_h2_send(struct sh2 *h, const uint8_t **out)
{
    ssize_t k = nghttp2_session_mem_send(h->ng, out);
    return k < 0 ? -1 : k;
}

int serve_h2_done(const struct sh2 *h)
{
    return !nghttp2_session_want_read(h->ng) && !nghttp2_session_want_write(h->ng);
}

uint32_t serve_h2_streams(const struct sh2 *h)
{
    return h->nstreams;
}

uint32_t serve_h2_waiting(const struct sh2 *h)
{
    const struct sstream *st;
    uint32_t n = 0;
    for (st = h->active; st; st = st->next)
        n += !st->answered && !st->delayed;
    return n;
}

uint64_t serve_h2_deadline(const struct sh2 *h)
{
    const struct sstream *st;
    uint64_t d = UINT64_MAX;
    for (st = h->active; st; st = st->next)
        if (st->delayed && st->due < d)
            d = st->due;
    return d;
}

void serve_h2_tick(struct sh2 *h, uint64_t now)
{
    struct sstream *st;
    h->now = now;
    for (st = h->active; st; st = st->next)
        if (st->delayed && st->due <= now) {
            uint32_t us = st->rp.delay_us;
            int close = st->rp.close;
            st->delayed = 0;
            serve_reply_delayed(&st->rp, us);
            st->rp.close = (uint8_t)close;
            submit(h, st);
        }
}

void serve_h2_goaway(struct sh2 *h)
{
    nghttp2_session_terminate_session(h->ng, NGHTTP2_NO_ERROR);
}
