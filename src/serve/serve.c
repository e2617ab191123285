/* serve.c - `rafale serve`: a small, fast HTTP/1.1 target server.
 *
 * One thread per core, each with its own SO_REUSEPORT listener and event
 * loop, sharing nothing but read-only files. Requests are parsed (http_req.c)
 * straight from a per-thread read buffer; only a partial request head or
 * unsent output is kept in the connection, so idle keep-alive connections
 * cost a few hundred bytes. Responses to pipelined requests are batched into
 * one write.
 *
 * It is a reference target, and it may end up facing the internet by
 * mistake, so it is a well-behaved server: request bodies are skipped as they
 * come, never buffered; large responses (/bytes, /chunked, big files) are
 * generated as the socket takes them, and pipelined requests are not taken
 * up while output waits (backpressure, not buffering); buffers shrink back;
 * a request head must arrive within --header-timeout and an idle connection
 * is closed after --idle-timeout, as a connection whose client stops reading. */
#include "serve.h"
#include "serve_int.h"
#include "serve_h2.h"
#include "buf.h"
#include "clock.h"
#include "http_lex.h"
#include "http_req.h"
#include "loop.h"
#include "net.h"
#include "tls.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#define MAX_REQ_BODY (1u << 20)    /* largest request body accepted (skipped, never kept) */
#define DRAIN_NS (2 * NS_PER_S)    /* lingering close: how long to wait for the client's FIN */
#define OUT_HIGH (256 * 1024)      /* no more pipelined requests taken while this much output waits */
#define GEN_BLOCK (64 * 1024)      /* a generated body goes out this much at a time */
#define INLINE_BODY (64 * 1024)    /* larger bodies are generated as they are sent */
#define KEEP_CAP (256 * 1024)      /* a buffer grown past this is freed once empty */

/* A response body produced as the socket takes it. */
enum gen_kind { GEN_NONE, GEN_BYTES, GEN_CHUNKED, GEN_MEM };

struct sthread;

struct sconn {
    struct loop_io io;
    struct timer timer;
    struct sthread *t;
    int fd;
    uint8_t closing;     /* close once the queued output is sent */
    uint8_t draining;    /* output sent and write side shut: wait for the client's FIN */
    uint8_t waiting;     /* a /delay response is pending */
    uint8_t d_head, d_keep, d_minor;
    uint8_t handshaking; /* TLS handshake under way */
    uint8_t fresh;       /* no request yet: the header timeout applies while idle */
    uint8_t gen;         /* enum gen_kind */
    struct sh2 *h2;      /* HTTP/2 (h2c preface, or ALPN h2), or NULL */
    const struct io_ops *ops;
    void *io_ctx;
    uint32_t d_ms;
    uint64_t skip;       /* bytes of a request body still to discard */
    uint64_t gen_left;   /* bytes of the generated body still to produce */
    uint64_t gen_off;    /* produced so far */
    const char *gen_mem; /* GEN_MEM: the bytes */
    uint64_t t_req;      /* when the head being read began */
    uint64_t t_idle;     /* when the connection last became idle (or was accepted) */
    uint64_t t_out;      /* when output last made progress */
    struct http_req req; /* parser state of a partial head */
    struct buf in;      /* unparsed input, only when a head is split */
    struct buf out;     /* unsent output */
    size_t out_off;
    struct sconn *next_free;
    struct sconn *next_all;  /* every connection ever allocated, for shutdown */
    char peer[48];
};

struct sthread {
    struct serve *s;
    struct loop loop;
    int lfd;
    int lfd_shared;          /* another thread's listener (a Unix socket) */
    struct loop_io lio;
    struct timer tick;
    pthread_t th;
    uint64_t accepted, requests;
    char *rbuf;
    struct buf wb;          /* responses being built, flushed once per read */
    int last_status;         /* of the response just queued, for the access log */
    char date[40];           /* Date header value */
    char logdate[40];        /* access log time */
    struct buf hello;       /* ready-made keep-alive answer to GET / */
    struct sconn *free;
    struct sconn *all;
    uint32_t rng;
    const atomic_int *stop;
};

/* What a response needs to know of its request. */
struct req {
    int minor;
    int keep;
    int head;
};

/* --- responses --- */


/* Queues the status line and common headers. Returns -1 when out of memory
 * (the connection is then closed by the caller's flush failing). */
static int head_common(struct sthread *t, const struct req *r, int status, const char *ctype)
{
    int rc = buf_printf(&t->wb, "HTTP/1.1 %d %s\r\nServer: rafale\r\nDate: %s\r\n", status, serve_reason(status), t->date);
    t->last_status = status;
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
static int respond(struct sthread *t, const struct req *r, int status, const char *ctype, const char *extra,
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


static void build_hello(struct sthread *t)
{
    struct buf saved = t->wb;
    struct req r = { .minor = 1, .keep = 1 };
    t->wb = t->hello;
    t->wb.len = 0;
    if (respond(t, &r, 200, "text/plain", NULL, SERVE_HELLO, sizeof(SERVE_HELLO) - 1) != 0)
        t->wb.len = 0; /* no ready-made answer: GET / is answered the long way */
    t->hello = t->wb;
    t->wb = saved;
}

static void on_tick(struct timer *tm, uint64_t now)
{
    struct sthread *t = container_of(tm, struct sthread, tick);
    time_t sec = time(NULL);
    struct tm g;
    gmtime_r(&sec, &g);
    strftime(t->date, sizeof(t->date), "%a, %d %b %Y %H:%M:%S GMT", &g);
    strftime(t->logdate, sizeof(t->logdate), "%d/%b/%Y:%H:%M:%S +0000", &g);
    build_hello(t);
    timer_set(&t->loop, &t->tick, now + NS_PER_S);
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
static int gen_fill(struct sconn *c, struct buf *out)
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
static int emit(struct sconn *c, struct req *r, const struct reply *rp)
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
        c->d_ms = rp->delay_ms;
        if (timer_set(&t->loop, &c->timer, clock_ns() + (uint64_t)rp->delay_ms * NS_PER_MS) != 0)
            return -1;
        return 1;
    case B_TEXT:
        return respond(t, r, rp->status, rp->ctype, NULL, rp->text, rp->blen);
    default:
        if (rp->blen > INLINE_BODY)
            return respond_file(c, r, rp->ctype, rp->body, rp->blen);
        if (rp->location)
            snprintf(loc, sizeof(loc), "Location: %.*s\r\n", (int)rp->loclen, rp->location);
        return respond(t, r, rp->status, rp->ctype, rp->location ? loc : NULL, rp->body, rp->blen);
    }
}

/* Routes one request. Returns as emit(). */
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
    return emit(c, r, &rp);
}

static void access_log(struct sconn *c, const struct http_req *hr, size_t before)
{
    struct sthread *t = c->t;
    fprintf(t->s->log, "%s - - [%s] \"%.*s %.*s HTTP/1.%d\" %d %zu\n", c->peer, t->logdate, (int)hr->mlen, hr->method,
            (int)hr->plen, hr->path, hr->minor, t->last_status, t->wb.len - before);
}

/* May the connection take up another request now? Not while a response
 * is pending, and not while output waits (backpressure). */
static int sc_may_take(const struct sconn *c)
{
    return !c->closing && !c->waiting && c->gen == GEN_NONE && c->t->wb.len < OUT_HIGH &&
           c->out.len - c->out_off < OUT_HIGH;
}

/* Answers every complete request at the start of data, as far as it may.
 * Returns the bytes used (a request body being skipped counts). */
static size_t handle_all(struct sconn *c, const char *data, size_t len)
{
    struct sthread *t = c->t;
    size_t used = 0;

    while (used < len && sc_may_take(c)) {
        struct req r;
        const char *why;
        size_t before;
        int status, rc;
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
            (void)respond(t, &r, status, "text/plain", NULL, body, (size_t)bl);
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

/* --- connections --- */

static void sc_free(struct sconn *c)
{
    struct sthread *t = c->t;
    timer_cancel(&t->loop, &c->timer);
    if (c->fd >= 0)
        c->ops->close(c->io_ctx, c->fd);
    c->fd = -1;
    c->io_ctx = NULL;
    sh2_free(c->h2);
    c->h2 = NULL;
    buf_free(&c->in);
    buf_free(&c->out);
    c->next_free = t->free;
    t->free = c;
}

static int sc_pending_out(const struct sconn *c)
{
    return c->out.len > c->out_off || c->gen != GEN_NONE;
}

/* The deadline of whatever the connection waits for now: the client to
 * read what it was sent, the rest of a request, or its next request. Not
 * while a /delay response or a lingering close owns the timer. */
static void sc_arm(struct sconn *c)
{
    const struct serve_config *cfg = &c->t->s->cfg;
    uint64_t d;
    if (c->waiting || c->draining)
        return;
    if (c->h2) {
        /* A client that stops reading, a request that does not arrive in
         * time (the slowloris of HTTP/2: streams opened, never finished),
         * an idle connection or one whose answers wait for windows the
         * client never opens; not while a /delay answer is due. */
        if (sc_pending_out(c))
            d = c->t_out + cfg->idle_timeout_ns;
        else if (sh2_deadline(c->h2) != UINT64_MAX)
            d = sh2_deadline(c->h2);
        else
            d = c->t_idle + (sh2_waiting(c->h2) ? cfg->header_timeout_ns : cfg->idle_timeout_ns);
        timer_set(&c->t->loop, &c->timer, d);
        return;
    }
    if (sc_pending_out(c))
        d = c->t_out + cfg->idle_timeout_ns;
    else if (c->in.len || c->skip || c->handshaking)
        d = c->t_req + cfg->header_timeout_ns;
    else
        d = c->t_idle + (c->fresh ? cfg->header_timeout_ns : cfg->idle_timeout_ns);
    timer_set(&c->t->loop, &c->timer, d);
}

static void sc_drain_start(struct sconn *c)
{
    /* Nothing unread: a plain close sends FIN, not RST; no need to linger. */
    if (c->in.len == 0 && c->skip == 0 && !c->ops->lingers) {
        sc_free(c);
        return;
    }
    /* Lingering close: send our FIN, then wait for the client's, so unread
     * request bytes cannot turn our close into a reset that eats the response. */
    c->ops->shutdown(c->io_ctx, c->fd);
    c->draining = 1;
    timer_set(&c->t->loop, &c->timer, clock_ns() + DRAIN_NS);
}

/* Writes what c->out holds, refilling it from the body generator, until the
 * socket refuses more. Returns 0 when everything is sent, 1 when the socket
 * is full (EPOLLOUT will call again), -1 when the connection failed. */
static int sc_pump(struct sconn *c)
{
    for (;;) {
        ssize_t w;
        if (c->out.len == c->out_off) {
            c->out.len = c->out_off = 0;
            if (c->gen == GEN_NONE) {
                buf_shrink(&c->out, KEEP_CAP);
                return 0;
            }
            if (c->gen == GEN_MEM) {
                /* A file: straight from memory, nothing copied. */
                w = c->ops->write(c->io_ctx, c->fd, c->gen_mem + c->gen_off, (size_t)c->gen_left);
                if (w > 0) {
                    c->gen_off += (uint64_t)w;
                    c->gen_left -= (uint64_t)w;
                    c->t_out = clock_ns();
                    if (c->gen_left == 0)
                        c->gen = GEN_NONE;
                    continue;
                }
                goto failed;
            }
            if (gen_fill(c, &c->out) != 0)
                return -1;
            continue;
        }
        w = c->ops->write(c->io_ctx, c->fd, c->out.p + c->out_off, c->out.len - c->out_off);
        if (w > 0) {
            c->out_off += (size_t)w;
            c->t_out = clock_ns();
            continue;
        }
    failed:
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return 1;
        return -1;
    }
}

/* Sends what the thread buffered for c (behind anything already waiting),
 * then the generated body if there is one. Returns as sc_pump. */
static int sc_send(struct sconn *c)
{
    struct sthread *t = c->t;
    int rc = 0;
    if (t->wb.len) {
        if (c->out.len > c->out_off) {
            rc = buf_put(&c->out, t->wb.p, t->wb.len);
        } else {
            const char *p = t->wb.p;
            size_t n = t->wb.len;
            while (n > 0) {
                ssize_t w = c->ops->write(c->io_ctx, c->fd, p, n);
                if (w > 0) {
                    p += w;
                    n -= (size_t)w;
                    c->t_out = clock_ns();
                    continue;
                }
                if (w < 0 && errno == EINTR)
                    continue;
                if (w < 0 && errno == EAGAIN) {
                    c->out.len = c->out_off = 0;
                    rc = buf_put(&c->out, p, n);
                    break;
                }
                rc = -1;
                break;
            }
        }
        t->wb.len = 0;
        buf_shrink(&t->wb, KEEP_CAP);
        if (rc != 0)
            return -1;
    }
    return sc_pump(c);
}

static void sc_read(struct sconn *c, int hup);

/* --- HTTP/2 connections (the session is serve_h2.c's) --- */

/* Sends what the session has, gathered in the thread's buffer, until the
 * socket is full. Returns as sc_pump. */
static int sc_h2_flush(struct sconn *c)
{
    struct sthread *t = c->t;
    int rc;
    if (c->out.len > c->out_off && (rc = sc_pump(c)) != 0)
        return rc;
    for (;;) {
        const uint8_t *p;
        ssize_t k;
        t->wb.len = 0;
        /* Bodies are produced as asked: stop gathering at OUT_HIGH, so a
         * client that does not read holds generation back. */
        while (t->wb.len < OUT_HIGH && (k = sh2_send(c->h2, &p)) != 0) {
            if (k < 0 || buf_put(&t->wb, p, (size_t)k) != 0) {
                t->wb.len = 0;
                return -1;
            }
        }
        if (t->wb.len == 0)
            return 0;
        if ((rc = sc_send(c)) != 0)
            return rc;
        c->t_idle = c->t_out;
    }
}

/* After the session took bytes or time passed: send, then close when the
 * session is over. Returns 0 when the connection goes on. */
static int sc_h2_settle(struct sconn *c)
{
    int rc = sc_h2_flush(c);
    if (rc < 0) {
        sc_free(c);
        return -1;
    }
    if (rc == 0 && sh2_done(c->h2)) {
        sc_drain_start(c);
        return -1;
    }
    sc_arm(c);
    return 0;
}

static void sc_h2_read(struct sconn *c, int hup)
{
    struct sthread *t = c->t;
    for (;;) {
        ssize_t n;
        /* Backpressure: nothing more is taken in while output waits. */
        if (sc_pending_out(c)) {
            sc_arm(c);
            return;
        }
        n = c->ops->read(c->io_ctx, c->fd, t->rbuf, IO_RBUF_SIZE);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            sc_free(c);
            return;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            sc_arm(c);
            return;
        }
        c->t_idle = clock_ns();
        if (sh2_recv(c->h2, (const uint8_t *)t->rbuf, (size_t)n, c->t_idle) != 0) {
            sc_free(c);
            return;
        }
        if (sc_h2_settle(c) != 0)
            return;
        if (n < IO_RBUF_SIZE && !hup)
            return;
    }
}

/* The connection speaks HTTP/2 from here on; first holds bytes already
 * read (the preface, perhaps more). */
static void sc_h2_start(struct sconn *c, const char *first, size_t n)
{
    struct sthread *t = c->t;
    struct sh2_env env = { t->s, t->date, &t->rng, &t->requests, t->s->log, c->peer, t->logdate };
    c->h2 = sh2_new(&env, t->s->cfg.h2_streams ? t->s->cfg.h2_streams : 128);
    c->fresh = 0;
    c->t_idle = clock_ns();
    if (c->h2 == NULL || (n && sh2_recv(c->h2, (const uint8_t *)first, n, c->t_idle) != 0)) {
        sc_free(c);
        return;
    }
    c->in.len = 0;
    if (sc_h2_settle(c) == 0)
        sc_h2_read(c, 0);
}

/* Do the first bytes of a plain connection begin (or begin to begin) the
 * HTTP/2 preface? 1: all of it, 2: a part, so far; 0: no. */
static int h2_preface(const char *p, size_t n)
{
    size_t k = n < SH2_PREFACE_LEN ? n : SH2_PREFACE_LEN;
    if (memcmp(p, SH2_PREFACE, k) != 0)
        return 0;
    return n >= SH2_PREFACE_LEN ? 1 : 2;
}

/* Output drained or a delay ended: take up buffered requests, then read. */
static void sc_resume(struct sconn *c)
{
    int rc;
    if (c->in.len && sc_may_take(c)) {
        size_t used = handle_all(c, c->in.p, c->in.len);
        memmove(c->in.p, c->in.p + used, c->in.len - used);
        c->in.len -= used;
        buf_shrink(&c->in, KEEP_CAP);
        if (used)
            c->t_idle = c->t_req = clock_ns();
    }
    rc = sc_send(c);
    if (rc < 0) {
        sc_free(c);
        return;
    }
    if (rc > 0 || c->waiting) {
        sc_arm(c);
        return;
    }
    if (c->closing) {
        sc_drain_start(c);
        return;
    }
    if (c->in.len && sc_may_take(c)) {
        sc_resume(c); /* more requests were waiting behind the output */
        return;
    }
    sc_read(c, 0);
}

/* hup: the client closed its side; read on to the end of stream, since no
 * further edge will announce it. */
static void sc_read(struct sconn *c, int hup)
{
    struct sthread *t = c->t;
    for (;;) {
        ssize_t n;
        size_t used;
        uint64_t now;
        int rc, was_idle = c->in.len == 0 && c->skip == 0;
        if (!sc_may_take(c) || sc_pending_out(c)) {
            sc_arm(c);
            return;
        }
        n = c->ops->read(c->io_ctx, c->fd, t->rbuf, IO_RBUF_SIZE);
        if (n == 0) {
            sc_free(c);
            return;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN) {
                sc_free(c);
                return;
            }
            sc_arm(c);
            return;
        }
        now = clock_ns();
        if (was_idle)
            c->t_req = now; /* a new request begins: its head has header-timeout to arrive */
        if (c->fresh && c->ops == &io_plain) {
            /* h2c with prior knowledge (RFC 9113 §3.3): the preface, not a request. */
            const char *d;
            int pre;
            if (c->in.len && buf_put(&c->in, t->rbuf, (size_t)n) != 0) {
                sc_free(c);
                return;
            }
            d = c->in.len ? c->in.p : t->rbuf;
            pre = h2_preface(d, c->in.len ? c->in.len : (size_t)n);
            if (pre == 1) {
                sc_h2_start(c, d, c->in.len ? c->in.len : (size_t)n);
                return;
            }
            if (pre == 2) {
                if (c->in.len == 0 && buf_put(&c->in, t->rbuf, (size_t)n) != 0) {
                    sc_free(c);
                    return;
                }
                sc_arm(c);
                return;
            }
            if (c->in.len) {
                /* Not HTTP/2 after all: the buffered bytes are a request. */
                used = handle_all(c, c->in.p, c->in.len);
                memmove(c->in.p, c->in.p + used, c->in.len - used);
                c->in.len -= used;
                goto answered;
            }
        }
        if (c->in.len) {
            /* A split head: the parser refuses one over HR_MAX_HEAD, so the
             * buffer stays within a head and one read. */
            if (buf_put(&c->in, t->rbuf, (size_t)n) != 0) {
                sc_free(c);
                return;
            }
            used = handle_all(c, c->in.p, c->in.len);
            memmove(c->in.p, c->in.p + used, c->in.len - used);
            c->in.len -= used;
            buf_shrink(&c->in, KEEP_CAP);
        } else {
            used = handle_all(c, t->rbuf, (size_t)n);
            if (used < (size_t)n && buf_put(&c->in, t->rbuf + used, (size_t)n - used) != 0) {
                sc_free(c);
                return;
            }
        }
    answered:
        if (used && c->skip == 0) {
            /* Something was answered: what is left began now. */
            c->t_idle = now;
            c->t_req = now;
        }
        rc = sc_send(c);
        if (rc < 0) {
            sc_free(c);
            return;
        }
        if (c->closing && rc == 0) {
            sc_drain_start(c);
            return;
        }
        if (n < IO_RBUF_SIZE && !hup) {
            sc_arm(c);
            return;
        }
    }
}

static void sc_on_io(struct loop_io *io, uint32_t ev)
{
    struct sconn *c = container_of(io, struct sconn, io);
    if (c->handshaking) {
        int r = c->ops->handshake(c->io_ctx, c->fd);
        if (r == IO_ERROR) {
            sc_free(c);
            return;
        }
        if (r != IO_OK)
            return;
        c->handshaking = 0;
        c->t_idle = clock_ns();
        if (c->ops->alpn(c->io_ctx) && strcmp(c->ops->alpn(c->io_ctx), "h2") == 0) {
            sc_h2_start(c, NULL, 0); /* RFC 9113 §3.2: h2 chosen by ALPN */
            return;
        }
        sc_read(c, (ev & LOOP_ERR) != 0);
        return;
    }
    if (c->draining) {
        char buf[4096];
        ssize_t n;
        while ((n = c->ops->read(c->io_ctx, c->fd, buf, sizeof(buf))) > 0)
            ;
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            sc_free(c);
        return;
    }
    if (c->h2) {
        if ((ev & LOOP_OUT) && sc_pending_out(c) && sc_h2_settle(c) != 0)
            return;
        if (!sc_pending_out(c) && (ev & (LOOP_IN | LOOP_OUT)))
            sc_h2_read(c, (ev & LOOP_ERR) != 0);
        return;
    }
    if ((ev & LOOP_OUT) && sc_pending_out(c)) {
        int rc = sc_pump(c);
        if (rc < 0) {
            sc_free(c);
            return;
        }
        if (rc > 0) {
            sc_arm(c);
            return;
        }
        sc_resume(c);
        return;
    }
    if (ev & LOOP_IN)
        sc_read(c, (ev & LOOP_ERR) != 0);
}

static void sc_on_timer(struct timer *tm, uint64_t now)
{
    struct sconn *c = container_of(tm, struct sconn, timer);
    struct sthread *t = c->t;
    const struct serve_config *cfg = &t->s->cfg;
    if (c->draining) {
        sc_free(c);
        return;
    }
    if (c->h2) {
        if (sh2_deadline(c->h2) <= now) {
            sh2_tick(c->h2, now);
            sc_h2_settle(c);
            return;
        }
        if (sc_pending_out(c) ? now >= c->t_out + cfg->idle_timeout_ns
                              : sh2_deadline(c->h2) == UINT64_MAX &&
                                    now >= c->t_idle + (sh2_waiting(c->h2) ? cfg->header_timeout_ns
                                                                           : cfg->idle_timeout_ns)) {
            if (!sc_pending_out(c)) {
                sh2_goaway(c->h2); /* say so, then close */
                if (sc_h2_flush(c) == 0) {
                    sc_drain_start(c);
                    return;
                }
            }
            sc_free(c);
            return;
        }
        sc_arm(c);
        return;
    }
    if (c->waiting) {
        struct req r = { .minor = c->d_minor, .keep = c->d_keep, .head = c->d_head };
        struct reply rp;
        serve_delayed_reply(&rp, c->d_ms);
        c->waiting = 0;
        if (emit(c, &r, &rp) != 0 || !r.keep)
            c->closing = 1;
        c->t_idle = now;
        sc_resume(c);
        return;
    }
    /* A timeout: a client that stopped reading, a request head (or body)
     * that did not come in time, or an idle connection. */
    if (sc_pending_out(c)) {
        if (now < c->t_out + cfg->idle_timeout_ns) {
            sc_arm(c);
            return;
        }
        sc_free(c);
        return;
    }
    if (c->in.len || c->skip || c->handshaking) {
        struct req r = { .minor = 1, .keep = 0, .head = 0 };
        if (now < c->t_req + cfg->header_timeout_ns) {
            sc_arm(c);
            return;
        }
        if (c->handshaking) {
            sc_free(c);
            return;
        }
        /* RFC 9110 §15.5.9: 408, then close. */
        if (respond(t, &r, 408, "text/plain", NULL, "request not received in time\n", 29) != 0) {
            sc_free(c);
            return;
        }
        c->closing = 1;
        c->in.len = 0;
        c->skip = 0;
        if (sc_send(c) == 0)
            sc_drain_start(c);
        else
            sc_free(c);
        return;
    }
    if (now < c->t_idle + (c->fresh ? cfg->header_timeout_ns : cfg->idle_timeout_ns)) {
        sc_arm(c);
        return;
    }
    sc_free(c);
}

static void on_accept(struct loop_io *io, uint32_t ev)
{
    struct sthread *t = container_of(io, struct sthread, lio);
    (void)ev;
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int one = 1;
        struct sconn *c;
        int fd = accept4(t->lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return; /* EAGAIN, or out of descriptors: the next arrival retries */
        }
        t->accepted++;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (t->free) {
            struct sconn *keep_all;
            c = t->free;
            t->free = c->next_free;
            keep_all = c->next_all;
            memset(c, 0, sizeof(*c));
            c->next_all = keep_all;
        } else if ((c = calloc(1, sizeof(*c))) == NULL) {
            close(fd);
            continue;
        } else {
            c->next_all = t->all;
            t->all = c;
        }
        c->t = t;
        c->fd = fd;
        c->io.fn = sc_on_io;
        c->timer.fn = sc_on_timer;
        c->ops = &io_plain;
        c->fresh = 1;
        c->t_idle = c->t_req = c->t_out = clock_ns();
        if (t->s->tls) {
            c->io_ctx = tls_server_conn(t->s->tls, fd);
            if (c->io_ctx == NULL) {
                sc_free(c);
                continue;
            }
            c->ops = &io_tls;
            c->handshaking = 1;
        }
        if (t->s->log) {
            struct net_addr a;
            char *colon;
            memcpy(&a.ss, &ss, sl);
            a.len = sl;
            net_addr_str(&a, c->peer, sizeof(c->peer));
            colon = strrchr(c->peer, ':');
            if (colon)
                *colon = '\0';
        }
        if (loop_add(&t->loop, fd, LOOP_IN | LOOP_OUT, &c->io) != 0) {
            sc_free(c);
            continue;
        }
        sc_arm(c);
        /* No read yet: the request has rarely arrived with the handshake, and
         * epoll reports data that is already there when the socket is added. */
        if (c->handshaking)
            sc_on_io(&c->io, LOOP_IN);
    }
}

static void *sthread_main(void *arg)
{
    struct sthread *t = arg;
    while (!atomic_load_explicit(t->stop, memory_order_relaxed))
        if (loop_poll(&t->loop, 100 * NS_PER_MS) < 0)
            break;
    return NULL;
}

/* --- files for /random --- */

static const char *ctype_of(const char *name)
{
    static const char *const map[][2] = {
        { ".html", "text/html" }, { ".htm", "text/html" }, { ".css", "text/css" },
        { ".js", "application/javascript" }, { ".json", "application/json" }, { ".txt", "text/plain" },
        { ".png", "image/png" }, { ".jpg", "image/jpeg" }, { ".jpeg", "image/jpeg" }, { ".gif", "image/gif" },
        { ".svg", "image/svg+xml" }, { ".ico", "image/x-icon" }, { ".xml", "application/xml" },
    };
    const char *dot = strrchr(name, '.');
    size_t i;
    if (dot)
        for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
            if (strcasecmp(dot, map[i][0]) == 0)
                return map[i][1];
    return "application/octet-stream";
}

static int load_files(struct serve *s, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t cap = 0, total = 0;

    if (d == NULL) {
        snprintf(err, errlen, "cannot open --files directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;
        FILE *f;
        struct file_ent *fe;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        total += (size_t)st.st_size;
        if (total > (1u << 30)) {
            closedir(d);
            snprintf(err, errlen, "--files directory '%s' holds more than 1 GiB", dir);
            return -1;
        }
        if (s->nfiles == cap) {
            struct file_ent *nf;
            cap = cap ? cap * 2 : 16;
            nf = realloc(s->files, cap * sizeof(*nf));
            if (nf == NULL)
                break;
            s->files = nf;
        }
        fe = &s->files[s->nfiles];
        fe->len = (size_t)st.st_size;
        fe->data = malloc(fe->len ? fe->len : 1);
        fe->name = strdup(de->d_name);
        fe->ctype = ctype_of(de->d_name);
        f = fopen(path, "rb");
        if (f == NULL || fe->data == NULL || fe->name == NULL || fread(fe->data, 1, fe->len, f) != fe->len) {
            if (f)
                fclose(f);
            free(fe->data);
            free(fe->name);
            closedir(d);
            snprintf(err, errlen, "cannot read '%s'", path);
            return -1;
        }
        fclose(f);
        s->nfiles++;
    }
    closedir(d);
    if (s->nfiles == 0) {
        snprintf(err, errlen, "--files directory '%s' has no regular files", dir);
        return -1;
    }
    return 0;
}

/* --- start and stop --- */

static int parse_listen(const char *spec, struct net_addr *a, char *err, size_t errlen)
{
    char host[256];
    const char *colon, *hs = spec, *he;
    uint64_t port;

    if (strncmp(spec, "unix:", 5) == 0)
        return net_unix(spec + 5, a, err, errlen);
    if (spec[0] == '[') {
        he = strchr(spec, ']');
        if (he == NULL || he[1] != ':')
            goto bad;
        hs = spec + 1;
        colon = he + 1;
    } else {
        colon = strrchr(spec, ':');
        if (colon == NULL)
            goto bad;
        he = colon;
    }
    if ((size_t)(he - hs) >= sizeof(host) || lex_number(colon + 1, strlen(colon + 1), 65535, &port) != 0)
        goto bad;
    memcpy(host, hs, (size_t)(he - hs));
    host[he - hs] = '\0';
    if (host[0] == '\0')
        strcpy(host, "0.0.0.0");
    return net_resolve(host, (uint16_t)port, a, err, errlen);
bad:
    snprintf(err, errlen, "--listen wants ADDR:PORT such as 127.0.0.1:8080 or [::1]:0, not '%s'", spec);
    return -1;
}

static void set_port(struct net_addr *a, uint16_t port)
{
    if (a->ss.ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
    else
        ((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
}

static void serve_free(struct serve *s)
{
    uint32_t i;
    for (i = 0; i < s->nthreads; i++) {
        struct sthread *t = &s->threads[i];
        struct sconn *c;
        if (t->lfd >= 0 && !t->lfd_shared)
            close(t->lfd);
        while ((c = t->all) != NULL) {
            t->all = c->next_all;
            if (c->fd >= 0)
                c->ops->close(c->io_ctx, c->fd);
            sh2_free(c->h2);
            buf_free(&c->in);
            buf_free(&c->out);
            free(c);
        }
        loop_fini(&t->loop);
        free(t->rbuf);
        buf_free(&t->wb);
        buf_free(&t->hello);
    }
    for (i = 0; i < s->nfiles; i++) {
        free(s->files[i].data);
        free(s->files[i].name);
    }
    free(s->files);
    /* Our socket file goes with us. */
    if (s->addr.ss.ss_family == AF_UNIX && s->nthreads && s->threads[0].lfd >= 0)
        unlink(((const struct sockaddr_un *)&s->addr.ss)->sun_path);
    free(s->threads);
    if (s->log && s->log_owned)
        fclose(s->log);
    tls_server_free(s->tls);
    free(s);
}

int serve_start(const struct serve_config *sc, struct serve **out, char *err, size_t errlen)
{
    struct serve *s = calloc(1, sizeof(*s));
    uint32_t i;

    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->cfg = *sc;
    if (parse_listen(sc->listen, &s->addr, err, errlen) != 0)
        goto fail;
    if (sc->files_dir && load_files(s, sc->files_dir, err, errlen) != 0)
        goto fail;
    if (sc->tls_cert && tls_server_new(sc->tls_cert, sc->tls_key, 1, &s->tls, err, errlen) != 0)
        goto fail;
    if (sc->access_log) {
        if (strcmp(sc->access_log, "-") == 0) {
            s->log = stdout;
        } else if ((s->log = fopen(sc->access_log, "a")) == NULL) {
            snprintf(err, errlen, "cannot open access log '%s': %s", sc->access_log, strerror(errno));
            goto fail;
        } else {
            s->log_owned = 1;
        }
    }
    s->threads = calloc(sc->threads, sizeof(*s->threads));
    if (s->threads == NULL) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    for (i = 0; i < sc->threads; i++) {
        struct sthread *t = &s->threads[i];
        t->lfd = -1;
        t->loop.epfd = -1;
        s->nthreads++;
        t->s = s;
        t->rng = 2463534242u + i * 7919u;
        if (loop_init(&t->loop, 512) != 0 || (t->rbuf = malloc(IO_RBUF_SIZE)) == NULL) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        /* A Unix socket has no SO_REUSEPORT: its threads share one listener. */
        if (i > 0 && s->addr.ss.ss_family == AF_UNIX) {
            t->lfd = s->threads[0].lfd;
            t->lfd_shared = 1;
        } else {
            t->lfd = net_listen(&s->addr, 4096, err, errlen);
            if (t->lfd < 0)
                goto fail;
        }
        if (i == 0 && s->addr.ss.ss_family != AF_UNIX)
            set_port(&s->addr, net_local_port(t->lfd)); /* port 0: the others join the one picked */
        t->lio.fn = on_accept;
        t->tick.fn = on_tick;
        if (loop_add(&t->loop, t->lfd, LOOP_IN, &t->lio) != 0) {
            snprintf(err, errlen, "epoll: %s", strerror(errno));
            goto fail;
        }
        on_tick(&t->tick, clock_ns());
    }
    net_addr_str(&s->addr, s->addr_str, sizeof(s->addr_str));
    *out = s;
    return 0;
fail:
    serve_free(s);
    return -1;
}

const char *serve_address(const struct serve *s)
{
    return s->addr_str;
}

int serve_wait(struct serve *s, const atomic_int *stop, struct serve_counts *counts, char *err, size_t errlen)
{
    uint32_t i, started = 0;
    int rc = 0;

    memset(counts, 0, sizeof(*counts));
    for (i = 0; i < s->nthreads; i++) {
        s->threads[i].stop = stop;
        if (pthread_create(&s->threads[i].th, NULL, sthread_main, &s->threads[i]) != 0) {
            snprintf(err, errlen, "cannot start thread: %s", strerror(errno));
            rc = -1;
            break;
        }
        started++;
    }
    if (rc != 0) {
        /* Threads already running only stop with the flag: wait for it. */
        while (!atomic_load(stop))
            usleep(100000);
    }
    for (i = 0; i < started; i++) {
        pthread_join(s->threads[i].th, NULL);
        counts->connections += s->threads[i].accepted;
        counts->requests += s->threads[i].requests;
    }
    if (s->log)
        fflush(s->log);
    serve_free(s);
    return rc;
}
