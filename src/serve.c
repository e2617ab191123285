/* serve.c - `rafale serve`: a small, fast HTTP/1.1 target server.
 *
 * One thread per core, each with its own SO_REUSEPORT listener and event
 * loop, sharing nothing but read-only files. Requests are parsed straight
 * from a per-thread read buffer; only a partial request or unsent output is
 * copied into the connection, so idle keep-alive connections cost ~200 bytes.
 * Responses to pipelined requests are batched into one write. */
#include "serve.h"
#include "clock.h"
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
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#define RBUF_SIZE (64 * 1024)
#define MAX_HEAD 16384
#define MAX_IN (1u << 20)
#define MAX_BODY (64u << 20)       /* largest /bytes/N */
#define MAX_DELAY_MS 600000
#define DRAIN_NS (2 * NS_PER_S)    /* lingering close: how long to wait for the client's FIN */
#define container_of(p, T, m) ((T *)(void *)((char *)(p) - offsetof(T, m)))

struct sbuf {
    char *p;
    size_t len, cap;
};

struct file_ent {
    char *name;
    char *data;
    size_t len;
    const char *ctype;
};

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
    const struct io_ops *ops;
    void *io_ctx;
    uint32_t d_ms;
    struct sbuf in;      /* unparsed input, only when a request is split */
    struct sbuf out;     /* unsent output */
    size_t out_off;
    struct sconn *next_free;
    struct sconn *next_all;  /* every connection ever allocated, for shutdown */
    char peer[48];
};

struct sthread {
    struct serve *s;
    struct loop loop;
    int lfd;
    struct loop_io lio;
    struct timer tick;
    pthread_t th;
    uint64_t accepted, requests;
    char *rbuf;
    struct sbuf wb;          /* responses being built, flushed once per read */
    char date[40];           /* Date header value */
    char logdate[40];        /* access log time */
    struct sbuf hello;       /* ready-made keep-alive answer to GET / */
    struct sconn *free;
    struct sconn *all;
    uint32_t rng;
    const atomic_int *stop;
};

struct serve {
    struct serve_config cfg;
    struct net_addr addr;
    char addr_str[96];
    struct sthread *threads;
    uint32_t nthreads;
    struct file_ent *files;
    uint32_t nfiles;
    FILE *log;
    int log_owned;
    struct tls_server *tls;
};

struct req {
    const char *method, *target;
    size_t mlen, tlen;
    int minor;
    int keep;
    int head;
};

/* --- small buffers --- */

static int sbuf_reserve(struct sbuf *b, size_t more)
{
    if (b->len + more > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        char *p;
        while (cap < b->len + more)
            cap *= 2;
        p = realloc(b->p, cap);
        if (p == NULL)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    return 0;
}

static int sbuf_put(struct sbuf *b, const void *s, size_t n)
{
    if (sbuf_reserve(b, n) != 0)
        return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

static int sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (sbuf_reserve(b, 512) != 0)
        return -1;
    va_start(ap, fmt);
    n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    if ((size_t)n >= b->cap - b->len) {
        if (sbuf_reserve(b, (size_t)n + 1) != 0)
            return -1;
        va_start(ap, fmt);
        vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
    return 0;
}

static void sbuf_free(struct sbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* --- responses --- */

static const char *reason(int code)
{
    switch (code) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Status";
    }
}

static void head_common(struct sthread *t, const struct req *r, int status, const char *ctype)
{
    sbuf_printf(&t->wb, "HTTP/1.1 %d %s\r\nServer: rafale\r\nDate: %s\r\n", status, reason(status), t->date);
    if (ctype)
        sbuf_printf(&t->wb, "Content-Type: %s\r\n", ctype);
    if (!r->keep)
        sbuf_put(&t->wb, "Connection: close\r\n", 19);
    else if (r->minor == 0)
        sbuf_put(&t->wb, "Connection: keep-alive\r\n", 24);
}

/* A complete response with a body from memory. */
static void respond(struct sthread *t, const struct req *r, int status, const char *ctype, const char *extra,
                    const char *body, size_t blen)
{
    head_common(t, r, status, ctype);
    if (extra)
        sbuf_put(&t->wb, extra, strlen(extra));
    if (status == 204 || status == 304) {
        sbuf_put(&t->wb, "\r\n", 2);
        return;
    }
    sbuf_printf(&t->wb, "Content-Length: %zu\r\n\r\n", blen);
    if (!r->head)
        sbuf_put(&t->wb, body, blen);
}

static const char HELLO[] = "Hello, world\n";

static void build_hello(struct sthread *t)
{
    struct sbuf saved = t->wb;
    struct req r = { .minor = 1, .keep = 1 };
    t->wb = t->hello;
    t->wb.len = 0;
    respond(t, &r, 200, "text/plain", NULL, HELLO, sizeof(HELLO) - 1);
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

static int path_is(const struct req *r, const char *p, size_t plen, const char *want)
{
    size_t n = strlen(want);
    (void)r;
    return plen == n && memcmp(p, want, n) == 0;
}

/* Parses a decimal number that must fill [s, s+n). */
static int parse_num(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;
    if (n == 0 || n > 12)
        return -1;
    for (i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

static int prefix(const char *p, size_t plen, const char *pre, const char **rest, size_t *rlen)
{
    size_t n = strlen(pre);
    if (plen < n || memcmp(p, pre, n) != 0)
        return 0;
    *rest = p + n;
    *rlen = plen - n;
    return 1;
}

static void respond_bytes(struct sthread *t, const struct req *r, uint64_t n, int chunked)
{
    static const char pattern[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\n";
    uint64_t left = n;

    if (!chunked || r->minor == 0) {
        head_common(t, r, 200, "application/octet-stream");
        sbuf_printf(&t->wb, "Content-Length: %llu\r\n\r\n", (unsigned long long)n);
        if (r->head)
            return;
        if (sbuf_reserve(&t->wb, n) != 0)
            return;
        while (left > 0) {
            size_t k = left < sizeof(pattern) - 1 ? (size_t)left : sizeof(pattern) - 1;
            memcpy(t->wb.p + t->wb.len, pattern, k);
            t->wb.len += k;
            left -= k;
        }
        return;
    }
    head_common(t, r, 200, "application/octet-stream");
    sbuf_put(&t->wb, "Transfer-Encoding: chunked\r\n\r\n", 30);
    if (r->head)
        return;
    /* Chunks of up to 1000 bytes, so the client's chunk parser is exercised. */
    while (left > 0) {
        size_t k = left < 1000 ? (size_t)left : 1000, i;
        sbuf_printf(&t->wb, "%zx\r\n", k);
        if (sbuf_reserve(&t->wb, k + 2) != 0)
            return;
        for (i = 0; i < k; i++)
            t->wb.p[t->wb.len + i] = pattern[i % (sizeof(pattern) - 1)];
        t->wb.len += k;
        sbuf_put(&t->wb, "\r\n", 2);
        left -= k;
    }
    sbuf_put(&t->wb, "0\r\n\r\n", 5);
}

static uint32_t xorshift(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

/* Routes one request. Returns 1 when the response is deferred (/delay). */
static int route(struct sconn *c, struct req *r)
{
    struct sthread *t = c->t;
    const struct serve *s = t->s;
    const char *path = r->target, *q = memchr(r->target, '?', r->tlen), *rest;
    size_t plen = q ? (size_t)(q - path) : r->tlen, rlen;
    uint64_t n;

    if (path_is(r, path, plen, "/")) {
        if (r->keep && r->minor == 1 && !r->head) {
            sbuf_put(&t->wb, t->hello.p, t->hello.len);
            return 0;
        }
        respond(t, r, 200, "text/plain", NULL, HELLO, sizeof(HELLO) - 1);
    } else if (path_is(r, path, plen, "/redirect")) {
        char loc[2300];
        const char *to = s->cfg.redirect_to;
        size_t tolen = strlen(to);
        if (q) {
            const char *qs = q + 1, *end = r->target + r->tlen;
            while (qs < end) {
                const char *amp = memchr(qs, '&', (size_t)(end - qs));
                const char *e = amp ? amp : end;
                if (e - qs > 3 && memcmp(qs, "to=", 3) == 0) {
                    to = qs + 3;
                    tolen = (size_t)(e - to);
                }
                qs = e + 1;
            }
        }
        if (tolen > 2048)
            tolen = 2048;
        snprintf(loc, sizeof(loc), "Location: %.*s\r\n", (int)tolen, to);
        respond(t, r, 302, NULL, loc, "", 0);
    } else if (prefix(path, plen, "/bytes/", &rest, &rlen)) {
        if (parse_num(rest, rlen, MAX_BODY, &n) != 0)
            respond(t, r, 400, "text/plain", NULL, "bad size (0..67108864)\n", 23);
        else
            respond_bytes(t, r, n, 0);
    } else if (prefix(path, plen, "/chunked/", &rest, &rlen)) {
        if (parse_num(rest, rlen, MAX_BODY, &n) != 0)
            respond(t, r, 400, "text/plain", NULL, "bad size (0..67108864)\n", 23);
        else
            respond_bytes(t, r, n, 1);
    } else if (prefix(path, plen, "/delay/", &rest, &rlen)) {
        if (parse_num(rest, rlen, MAX_DELAY_MS, &n) != 0) {
            respond(t, r, 400, "text/plain", NULL, "bad delay (0..600000 ms)\n", 25);
        } else {
            c->waiting = 1;
            c->d_head = (uint8_t)r->head;
            c->d_keep = (uint8_t)r->keep;
            c->d_minor = (uint8_t)r->minor;
            c->d_ms = (uint32_t)n;
            timer_set(&t->loop, &c->timer, clock_ns() + n * NS_PER_MS);
            return 1;
        }
    } else if (prefix(path, plen, "/status/", &rest, &rlen)) {
        if (parse_num(rest, rlen, 599, &n) != 0 || n < 200) {
            respond(t, r, 400, "text/plain", NULL, "bad status (200..599)\n", 22);
        } else {
            char body[64];
            int bl = snprintf(body, sizeof(body), "%d %s\n", (int)n, reason((int)n));
            respond(t, r, (int)n, "text/plain", NULL, body, (size_t)bl);
        }
    } else if (path_is(r, path, plen, "/close")) {
        r->keep = 0;
        respond(t, r, 200, "text/plain", NULL, HELLO, sizeof(HELLO) - 1);
    } else if (path_is(r, path, plen, "/json")) {
        static const char J[] = "{\"message\":\"Hello, world\",\"server\":\"rafale\",\"items\":[1,2,3]}\n";
        respond(t, r, 200, "application/json", NULL, J, sizeof(J) - 1);
    } else if (path_is(r, path, plen, "/random") && s->nfiles > 0) {
        const struct file_ent *f = &s->files[xorshift(&t->rng) % s->nfiles];
        respond(t, r, 200, f->ctype, NULL, f->data, f->len);
    } else {
        respond(t, r, 404, "text/plain", NULL, "Not Found\n", 10);
    }
    return 0;
}

static void access_log(struct sconn *c, const struct req *r, size_t before)
{
    struct sthread *t = c->t;
    int status = 0;
    /* The status is the second field of what was just appended. */
    if (t->wb.len >= before + 12)
        status = atoi(t->wb.p + before + 9);
    fprintf(t->s->log, "%s - - [%s] \"%.*s %.*s HTTP/1.%d\" %d %zu\n", c->peer, t->logdate, (int)r->mlen, r->method,
            (int)r->tlen, r->target, r->minor, status, t->wb.len - before);
}

static int tok_eq(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && strncasecmp(s, w, n) == 0;
}

/* Parses and answers one request at the start of data. Returns the bytes it
 * took, 0 when the request is not complete yet, or -1 when the request was
 * bad (an error response is queued and the connection will close). */
static ssize_t handle_one(struct sconn *c, const char *data, size_t len)
{
    struct sthread *t = c->t;
    const char *end, *p, *line_end, *sp1, *sp2;
    size_t head_len, skip = 0, before;
    uint64_t clen = 0;
    int conn_close = 0, conn_keep = 0;
    struct req r;

    /* RFC 9112 2.2: ignore empty lines before a request. */
    while (skip + 1 < len && data[skip] == '\r' && data[skip + 1] == '\n')
        skip += 2;
    data += skip;
    len -= skip;
    end = memmem(data, len < MAX_HEAD ? len : MAX_HEAD, "\r\n\r\n", 4);
    memset(&r, 0, sizeof(r));
    r.keep = 0;
    if (end == NULL) {
        if (len < MAX_HEAD)
            return 0;
        respond(t, &r, 431, "text/plain", NULL, "request head too large\n", 23);
        c->closing = 1;
        return -1;
    }
    head_len = (size_t)(end - data) + 4;

    line_end = memchr(data, '\r', head_len);
    sp1 = memchr(data, ' ', (size_t)(line_end - data));
    sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1)) : NULL;
    if (sp1 == NULL || sp2 == NULL || sp1 == data || sp2 == sp1 + 1 || line_end - sp2 != 9 ||
        memcmp(sp2 + 1, "HTTP/1.", 7) != 0 || (sp2[8] != '0' && sp2[8] != '1') || line_end[1] != '\n')
        goto bad;
    r.method = data;
    r.mlen = (size_t)(sp1 - data);
    r.target = sp1 + 1;
    r.tlen = (size_t)(sp2 - sp1 - 1);
    r.minor = sp2[8] - '0';
    for (p = r.method; p < sp1; p++)
        if (!isupper((unsigned char)*p) && *p != '-' && *p != '_')
            goto bad;
    for (p = r.target; p < sp2; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f)
            goto bad;
    r.head = r.mlen == 4 && memcmp(r.method, "HEAD", 4) == 0;

    /* Header fields: only the ones that frame the request matter here. */
    p = line_end + 2;
    while (p < end + 2) {
        const char *le = memchr(p, '\r', (size_t)(end + 2 - p)), *colon, *v, *ve;
        if (le == NULL || le[1] != '\n')
            goto bad;
        colon = memchr(p, ':', (size_t)(le - p));
        if (colon == NULL || colon == p)
            goto bad;
        v = colon + 1;
        while (v < le && (*v == ' ' || *v == '\t'))
            v++;
        ve = le;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        if (tok_eq(p, (size_t)(colon - p), "content-length")) {
            if (parse_num(v, (size_t)(ve - v), UINT64_MAX / 16, &clen) != 0)
                goto bad;
        } else if (tok_eq(p, (size_t)(colon - p), "transfer-encoding")) {
            respond(t, &r, 501, "text/plain", NULL, "chunked request bodies are not supported\n", 41);
            c->closing = 1;
            return -1;
        } else if (tok_eq(p, (size_t)(colon - p), "connection")) {
            const char *a = v;
            while (a < ve) {
                const char *b = memchr(a, ',', (size_t)(ve - a)), *e2;
                if (b == NULL)
                    b = ve;
                e2 = b;
                while (a < e2 && (*a == ' ' || *a == '\t'))
                    a++;
                while (e2 > a && (e2[-1] == ' ' || e2[-1] == '\t'))
                    e2--;
                if (tok_eq(a, (size_t)(e2 - a), "close"))
                    conn_close = 1;
                else if (tok_eq(a, (size_t)(e2 - a), "keep-alive"))
                    conn_keep = 1;
                a = b + 1;
            }
        }
        p = le + 2;
    }
    if (clen > MAX_IN) {
        respond(t, &r, 413, "text/plain", NULL, "request body too large\n", 23);
        c->closing = 1;
        return -1;
    }
    if (len < head_len + clen)
        return 0;
    r.keep = conn_close ? 0 : (r.minor == 1 ? 1 : conn_keep);

    t->requests++;
    before = t->wb.len;
    if (route(c, &r) == 0) {
        if (!r.keep)
            c->closing = 1;
        if (t->s->log)
            access_log(c, &r, before);
    }
    return (ssize_t)(skip + head_len + clen);

bad:
    respond(t, &r, 400, "text/plain", NULL, "bad request\n", 12);
    c->closing = 1;
    return -1;
}

/* Answers every complete request in data, stopping at a deferred one. */
static size_t handle_all(struct sconn *c, const char *data, size_t len)
{
    size_t used = 0;
    while (used < len && !c->closing && !c->waiting) {
        ssize_t r = handle_one(c, data + used, len - used);
        if (r <= 0)
            break;
        used += (size_t)r;
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
    sbuf_free(&c->in);
    sbuf_free(&c->out);
    c->next_free = t->free;
    t->free = c;
}

static void sc_drain_start(struct sconn *c)
{
    /* Nothing unread: a plain close sends FIN, not RST; no need to linger. */
    if (c->in.len == 0 && c->ops == &io_plain) {
        sc_free(c);
        return;
    }
    /* Lingering close: send our FIN, then wait for the client's, so unread
     * request bytes cannot turn our close into a reset that eats the response. */
    if (c->ops == &io_tls)
        tls_notify_close(c->io_ctx);
    shutdown(c->fd, SHUT_WR);
    c->draining = 1;
    timer_set(&c->t->loop, &c->timer, clock_ns() + DRAIN_NS);
}

/* Sends what the thread buffered for c, keeping what the socket refuses. */
static int sc_flush(struct sconn *c)
{
    struct sthread *t = c->t;
    const char *p = t->wb.p;
    size_t n = t->wb.len;

    if (n == 0)
        return 0;
    t->wb.len = 0;
    if (c->out.len > c->out_off)
        return sbuf_put(&c->out, p, n);
    while (n > 0) {
        ssize_t w = c->ops->write(c->io_ctx, c->fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            c->out.len = c->out_off = 0;
            return sbuf_put(&c->out, p, n);
        }
        return -1;
    }
    return 0;
}

static int sc_pending_out(const struct sconn *c)
{
    return c->out.len > c->out_off;
}

static void sc_read(struct sconn *c, int hup);

/* Output drained or a delay ended: take up buffered requests, then read. */
static void sc_resume(struct sconn *c)
{
    if (c->in.len && !c->waiting && !c->closing) {
        size_t used = handle_all(c, c->in.p, c->in.len);
        memmove(c->in.p, c->in.p + used, c->in.len - used);
        c->in.len -= used;
    }
    if (sc_flush(c) != 0) {
        sc_free(c);
        return;
    }
    if (sc_pending_out(c) || c->waiting)
        return;
    if (c->closing) {
        sc_drain_start(c);
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
        if (c->waiting || sc_pending_out(c) || c->closing)
            return;
        n = c->ops->read(c->io_ctx, c->fd, t->rbuf, RBUF_SIZE);
        if (n == 0) {
            sc_free(c);
            return;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                sc_free(c);
            return;
        }
        if (c->in.len) {
            if (c->in.len + (size_t)n > MAX_IN || sbuf_put(&c->in, t->rbuf, (size_t)n) != 0) {
                sc_free(c);
                return;
            }
            used = handle_all(c, c->in.p, c->in.len);
            memmove(c->in.p, c->in.p + used, c->in.len - used);
            c->in.len -= used;
        } else {
            used = handle_all(c, t->rbuf, (size_t)n);
            if (used < (size_t)n && sbuf_put(&c->in, t->rbuf + used, (size_t)n - used) != 0) {
                sc_free(c);
                return;
            }
        }
        if (sc_flush(c) != 0) {
            sc_free(c);
            return;
        }
        if (c->closing && !sc_pending_out(c)) {
            sc_drain_start(c);
            return;
        }
        if (n < RBUF_SIZE && !hup)
            return;
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
    if ((ev & LOOP_OUT) && sc_pending_out(c)) {
        while (sc_pending_out(c)) {
            ssize_t w = c->ops->write(c->io_ctx, c->fd, c->out.p + c->out_off, c->out.len - c->out_off);
            if (w > 0) {
                c->out_off += (size_t)w;
                continue;
            }
            if (w < 0 && (errno == EAGAIN || errno == EINTR))
                break;
            sc_free(c);
            return;
        }
        if (sc_pending_out(c))
            return;
        c->out.len = c->out_off = 0;
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
    (void)now;
    if (c->draining) {
        sc_free(c);
        return;
    }
    if (c->waiting) {
        struct req r = { .minor = c->d_minor, .keep = c->d_keep, .head = c->d_head };
        char body[48];
        int bl = snprintf(body, sizeof(body), "delayed %u ms\n", c->d_ms);
        c->waiting = 0;
        respond(t, &r, 200, "text/plain", NULL, body, (size_t)bl);
        if (!r.keep)
            c->closing = 1;
        sc_resume(c);
    }
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
    if ((size_t)(he - hs) >= sizeof(host) || parse_num(colon + 1, strlen(colon + 1), 65535, &port) != 0)
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
        if (t->lfd >= 0)
            close(t->lfd);
        while ((c = t->all) != NULL) {
            t->all = c->next_all;
            if (c->fd >= 0)
                c->ops->close(c->io_ctx, c->fd);
            sbuf_free(&c->in);
            sbuf_free(&c->out);
            free(c);
        }
        loop_fini(&t->loop);
        free(t->rbuf);
        sbuf_free(&t->wb);
        sbuf_free(&t->hello);
    }
    for (i = 0; i < s->nfiles; i++) {
        free(s->files[i].data);
        free(s->files[i].name);
    }
    free(s->files);
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
    if (sc->tls_cert && tls_server_new(sc->tls_cert, sc->tls_key, &s->tls, err, errlen) != 0)
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
        if (loop_init(&t->loop, 512) != 0 || (t->rbuf = malloc(RBUF_SIZE)) == NULL) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        t->lfd = net_listen(&s->addr, 4096, err, errlen);
        if (t->lfd < 0)
            goto fail;
        if (i == 0)
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
