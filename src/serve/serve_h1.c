/* serve_h1.c - rafale serve's HTTP/1.1 answers: the request heads of a
 * read parsed (http_req.c) and answered in order, pipelined ones batched in
 * the thread's buffer; the status line and fields written once per answer
 * (a ready-made GET / refreshed each second); large bodies generated as the
 * socket takes them (serve_h1_gen_fill); request bodies skipped as they
 * come. What each route answers is serve_reply.c's. */
#include "serve_conn.h"
#include "buf.h"
#include "clock.h"
#include "http_lex.h"
#include "http_req.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Queues the status line and common headers. Returns -1 when out of memory
 * (the connection is then closed by the caller's flush failing). */
static int head_common(struct sthread *t, const struct req *r, int status, const char *ctype)
{
    int rc = buf_printf(&t->wb, "HTTP/1.1 %d %s\r\nServer: rafale\r\nDate: %s\r\n", status, status_reason(status), t->date);
    t->last_status = status;
    if (t->s->alt_svc[0])
        rc |= buf_printf(&t->wb, "Alt-Svc: %s\r\n", t->s->alt_svc); /* --http3 (RFC 9114 section 3.1.1) */
    if (ctype)
        rc |= buf_printf(&t->wb, "Content-Type: %s\r\n", ctype);
    if (!r->keep)
        rc |= buf_put(&t->wb, "Connection: close\r\n", 19);
    else if (r->minor == 0)
        rc |= buf_put(&t->wb, "Connection: keep-alive\r\n", 24);
    return rc ? -1 : 0;
}

/* A complete response with a body from memory. Returns 0, or -1 with
 * nothing of it queued: half a response must never reach the client. */
int serve_h1_respond(struct sthread *t, const struct req *r, int status, const char *ctype, const char *extra,
                     const char *body, size_t blen)
{
    size_t start = t->wb.len;
    int rc = head_common(t, r, status, ctype);
    if (extra)
        rc |= buf_put(&t->wb, extra, strlen(extra));
    if (status == 204 || status == 304) {
        rc |= buf_put(&t->wb, "\r\n", 2);
    } else {
        rc |= buf_printf(&t->wb, "Content-Length: %zu\r\n\r\n", blen);
        if (!r->head)
            rc |= buf_put(&t->wb, body, blen);
    }
    if (rc) {
        t->wb.len = start;
        return -1;
    }
    return 0;
}


void serve_h1_hello(struct sthread *t)
{
    struct buf saved = t->wb;
    struct req r = { .minor = 1, .keep = 1 };
    t->wb = t->hello;
    t->wb.len = 0;
    if (serve_h1_respond(t, &r, 200, "text/plain", NULL, SERVE_HELLO, sizeof(SERVE_HELLO) - 1) != 0)
        t->wb.len = 0; /* no ready-made answer: GET / is answered the long way */
    t->hello = t->wb;
    t->wb = saved;
}

/* A body of n pattern bytes (or chunks of them): small ones inline, larger
 * ones generated as the socket takes them. Returns 0, or -1. */
static int respond_bytes(struct sconn *c, const struct req *r, uint64_t n, int chunked)
{
    struct sthread *t = c->t;
    int rc = head_common(t, r, 200, "application/octet-stream");
    chunked = chunked && r->minor == 1;
    if (chunked)
        rc |= buf_put(&t->wb, "Transfer-Encoding: chunked\r\n\r\n", 30);
    else
        rc |= buf_printf(&t->wb, "Content-Length: %llu\r\n\r\n", (unsigned long long)n);
    if (rc || r->head)
        return rc ? -1 : 0;
    c->gen = chunked ? GEN_CHUNKED : GEN_BYTES;
    c->gen_left = n;
    c->gen_off = 0;
    return 0;
}

/* A large body from memory (a file): its head now, the bytes straight
 * from memory as the socket takes them. */
static int respond_file(struct sconn *c, const struct req *r, const char *ctype, const char *data, size_t len)
{
    struct sthread *t = c->t;
    if (head_common(t, r, 200, ctype) != 0 || buf_printf(&t->wb, "Content-Length: %zu\r\n\r\n", len) != 0)
        return -1;
    if (!r->head) {
        c->gen = GEN_MEM;
        c->gen_mem = data;
        c->gen_left = len;
        c->gen_off = 0;
    }
    return 0;
}

/* Appends the next part of a generated body to out, about GEN_BLOCK bytes. */
int serve_h1_gen_fill(struct sconn *c, struct buf *out)
{
    size_t room = GEN_BLOCK;
    if (c->gen == GEN_BYTES) {
        size_t k = c->gen_left < room ? (size_t)c->gen_left : room, i;
        if (buf_reserve(out, k) != 0)
            return -1;
        /* Byte i of the body is PATTERN[i % PATTERN_LEN]. */
        for (i = 0; i < k; i++)
            out->p[out->len + i] = SERVE_PATTERN[(c->gen_off + i) % SERVE_PATTERN_LEN];
        out->len += k;
        c->gen_off += k;
        c->gen_left -= k;
    } else {
        /* Chunks of up to 1000 bytes, so a client's chunk parser is exercised. */
        while (c->gen_left > 0 && room > 1100) {
            size_t k = c->gen_left < 1000 ? (size_t)c->gen_left : 1000, i;
            if (buf_printf(out, "%zx\r\n", k) != 0 || buf_reserve(out, k + 2) != 0)
                return -1;
            for (i = 0; i < k; i++)
                out->p[out->len + i] = SERVE_PATTERN[i % SERVE_PATTERN_LEN];
            out->len += k;
            memcpy(out->p + out->len, "\r\n", 2);
            out->len += 2;
            c->gen_left -= k;
            room -= k + 8;
        }
        if (c->gen_left == 0 && buf_put(out, "0\r\n\r\n", 5) != 0)
            return -1;
    }
    if (c->gen_left == 0)
        c->gen = GEN_NONE;
    return 0;
}

/* Queues the HTTP/1.1 form of a reply. Returns 1 when the response is
 * deferred (/delay), 0 when it is queued, -1 when out of memory. */
int serve_h1_emit(struct sconn *c, struct req *r, const struct reply *rp)
{
    struct sthread *t = c->t;
    char loc[2100];
    if (rp->close)
        r->keep = 0;
    switch (rp->kind) {
    case B_GEN_BYTES:
    case B_GEN_CHUNKED:
        return respond_bytes(c, r, rp->gen_len, rp->kind == B_GEN_CHUNKED);
    case B_DELAY:
        c->waiting = 1;
        c->d_head = (uint8_t)r->head;
        c->d_keep = (uint8_t)r->keep;
        c->d_minor = (uint8_t)r->minor;
        c->d_us = rp->delay_us;
        if (loop_timer_set(&t->loop, &c->timer, clock_ns() + (uint64_t)rp->delay_us * 1000u) != 0)
            return -1;
        return 1;
    case B_TEXT:
        return serve_h1_respond(t, r, rp->status, rp->ctype, NULL, rp->text, rp->blen);
    default:
        if (rp->blen > INLINE_BODY)
            return respond_file(c, r, rp->ctype, rp->body, rp->blen);
        if (rp->location)
            snprintf(loc, sizeof(loc), "Location: %.*s\r\n", (int)rp->loclen, rp->location);
        return serve_h1_respond(t, r, rp->status, rp->ctype, rp->location ? loc : NULL, rp->body, rp->blen);
    }
}

/* Routes one request. Returns as serve_h1_emit(). */
static int route(struct sconn *c, const struct http_req *hr, struct req *r)
{
    struct sthread *t = c->t;
    struct reply rp;
    /* The answer most benchmarks ask for, ready-made. */
    if (hr->plen == 1 && hr->path[0] == '/' && r->keep && r->minor == 1 && !r->head && t->hello.len) {
        t->last_status = 200;
        return buf_put(&t->wb, t->hello.p, t->hello.len);
    }
    serve_reply(t->s, &t->rng, hr->path, hr->plen, &rp);
    return serve_h1_emit(c, r, &rp);
}

static void access_log(struct sconn *c, const struct http_req *hr, size_t before)
{
    struct sthread *t = c->t;
    fprintf(t->s->log, "%s - - [%s] \"%.*s %.*s HTTP/1.%d\" %d %zu\n", c->peer, t->logdate, (int)hr->mlen, hr->method,
            (int)hr->plen, hr->path, hr->minor, t->last_status, t->wb.len - before);
}

/* May the connection take up another request now? Not while a response
 * is pending, and not while output waits (backpressure). */
int serve_h1_may_take(const struct sconn *c)
{
    return !c->closing && !c->waiting && c->gen == GEN_NONE && c->t->wb.len < OUT_HIGH &&
           c->out.len - c->out_off < OUT_HIGH;
}

/* Answers every complete request at the start of data, as far as it may.
 * Returns the bytes used (a request body being skipped counts). */
size_t serve_h1_handle(struct sconn *c, const char *data, size_t len)
{
    struct sthread *t = c->t;
    size_t used = 0;

    while (used < len && serve_h1_may_take(c)) {
        struct req r;
        /* (http_req_parse sets both when it refuses; set here too for
         * gcc's -flto, which cannot always tell.) */
        const char *why = "bad request";
        size_t before;
        int status = 400, rc;
        ssize_t n;

        if (c->skip) {
            /* The rest of a request body: read and dropped, never kept. */
            size_t k = len - used < c->skip ? len - used : (size_t)c->skip;
            used += k;
            c->skip -= k;
            continue;
        }
        n = http_req_parse(data + used, len - used, MAX_REQ_BODY, &c->req, &status, &why);
        if (n == -2)
            break;
        memset(&r, 0, sizeof(r));
        if (n < 0) {
            char body[160];
            int bl = snprintf(body, sizeof(body), "%s\n", why);
            r.minor = 1;
            /* Out of memory for the error answer: close without one. */
            (void)serve_h1_respond(t, &r, status, "text/plain", NULL, body, (size_t)bl);
            c->closing = 1;
            used = len; /* nothing after a refused request is read */
            break;
        }
        used += (size_t)n;
        c->skip = c->req.clen;
        c->fresh = 0;
        r.minor = c->req.minor;
        r.keep = c->req.keep;
        r.head = c->req.head;
        t->requests++;
        before = t->wb.len;
        rc = route(c, &c->req, &r);
        if (rc < 0) {
            t->wb.len = before; /* out of memory: no half response, close */
            c->closing = 1;
            break;
        }
        if (rc == 0) {
            if (!r.keep)
                c->closing = 1;
            if (t->s->log)
                access_log(c, &c->req, before);
        }
    }
    return used;
}
