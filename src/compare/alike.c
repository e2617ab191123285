/* alike.c - do the servers of a compare do the same work? One request of
 * each workload to each server before the load, its answer reduced to what
 * should match: status, Location, Content-Type, framing, body length and a
 * hash of the body (FNV-1a 64, of the decoded body). One HTTP/1.1 exchange
 * with Connection: close, over TLS for https:// with the workload's TLS
 * settings (as its runs connect), read by the runs' own parser until the
 * answer is whole by its framing (only the head when no body field is
 * asked), within one deadline for all of it and 8 MiB: an answer cut by
 * either is said to be so, and compared with nothing; one the parser
 * refuses, or that the server closes before its end, is no answer. */
#include "alike.h"
#include "compare_settings.h"

#include "check.h"
#include "clock.h"
#include "http_parse.h"
#include "io.h"
#include "net.h"
#include "request.h"
#include "text.h"
#include "tls.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define ALIKE_MAX (8u << 20)   /* read at most 8 MiB of an answer */

#define FNV_BASIS 0xcbf29ce484222325ULL /* 14695981039346656037 */

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    while (n--) {
        h ^= *p++;
        h *= 1099511628211ULL;
    }
    return h;
}

/* Where the reading of an answer stands: the parser, and what its spans
 * said so far: the final head's field lines (kept for Location and
 * Content-Type), the body's length and hash. */
struct reading {
    struct hp hp;
    char *head;
    size_t head_len, head_cap;
    int nomem;
    uint64_t body_len, body_hash;
};

static void reading_span(void *ctx, enum hp_span kind, const char *at, size_t n)
{
    struct reading *rd = ctx;
    if (kind == HP_SPAN_BODY) {
        rd->body_hash = fnv(rd->body_hash, (const unsigned char *)at, n);
        rd->body_len += n;
        return;
    }
    if (rd->head_len + n > rd->head_cap) {
        /* (the parser bounds a head: HP_MAX_HEADERS lines of HP_MAX_LINE) */
        size_t cap = rd->head_cap ? rd->head_cap : 4096;
        char *p;
        while (cap < rd->head_len + n)
            cap *= 2;
        if ((p = realloc(rd->head, cap)) == NULL) {
            rd->nomem = 1;
            return;
        }
        rd->head = p;
        rd->head_cap = cap;
    }
    memcpy(rd->head + rd->head_len, at, n);
    rd->head_len += n;
}

/* The value of field name in the answer's head, trimmed, into out ("" when
 * absent). */
static void field(const struct reading *rd, const char *name, char *out, size_t n)
{
    size_t vlen = 0;
    const char *v = rd->head ? check_header(rd->head, rd->head_len, name, strlen(name), &vlen) : NULL;
    snprintf(out, n, "%.*s", (int)vlen, v ? v : "");
}

/* How the body was framed (RFC 9112 §6.3): none may follow (a HEAD, a 204,
 * a 304), by chunks (Transfer-Encoding ending in chunked), by length, or
 * by the close (another Transfer-Encoding, or neither header). */
static const char *framing(const struct hp *p)
{
    if (p->flags & HP_F_NO_BODY)
        return "none";
    if (p->flags & HP_F_CHUNKED)
        return "chunked";
    if (!(p->flags & HP_F_HAS_TE) && (p->flags & HP_F_HAS_CL))
        return "length";
    return "close";
}

/* Waits until fd is ready for events or the deadline passes: 1 ready, 0
 * the time is up, -1 an error. A signal does not end the wait. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
    for (;;) {
        struct pollfd pf = { fd, events, 0 };
        uint64_t now = clock_ns();
        int r;
        if (now >= deadline)
            return 0;
        r = poll(&pf, 1, (int)((deadline - now + 999999) / 1000000));
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

/* Why a read or write failed: TLS's own words, or errno's. */
static const char *io_why(const struct io_ops *io, void *ctx)
{
    const char *e = errno == EPROTO && ctx ? io->error(ctx) : NULL;
    return e ? e : strerror(errno);
}

/* https://: TLS on connected fd with wl's settings (its CA, client
 * certificate, version, ciphers), ALPN http/1.1 whatever the workload
 * speaks, within the deadline. *ssl is the connection for io_tls as soon as
 * there is one (io_tls.close then closes fd too). Returns 0, or -1 with
 * a->why (a->cut when the time is up). */
static int tls_start(const struct config *wl, const struct url *u, int fd, uint64_t deadline, struct tls_client **tc,
                     void **ssl, struct alike_answer *a)
{
    struct tls_options o = wl->tls;
    const char *why = NULL;
    int r;
    o.alpn = NULL;
    o.no_resume = 1;
    if (tls_client_new(&o, tc, a->why, sizeof(a->why)) != 0)
        return -1;
    if ((*ssl = tls_client_conn(*tc, fd, u->host, NULL, &a->peer, &why)) == NULL) {
        snprintf(a->why, sizeof(a->why), "TLS: %s", why);
        return -1;
    }
    while ((r = io_tls.handshake(*ssl, fd)) != IO_OK) {
        int w = r == IO_ERROR ? -1 : wait_fd(fd, r == IO_WANT_WRITE ? POLLOUT : POLLIN, deadline);
        if (w > 0)
            continue;
        if (w == 0) {
            snprintf(a->why, sizeof(a->why), "TLS handshake not done in time");
            a->cut = 1;
        } else {
            snprintf(a->why, sizeof(a->why), "TLS: %s",
                     r == IO_ERROR && io_tls.error(*ssl) ? io_tls.error(*ssl) : strerror(errno));
        }
        return -1;
    }
    return 0;
}

int alike_fetch(const struct config *wl, const struct url *u, unsigned fields, uint64_t timeout_ns,
                struct alike_answer *a)
{
    struct req_spec rs;
    struct net_addr addr;
    struct reading rd;
    uint64_t deadline = clock_ns() + timeout_ns;
    char err[256], *req = NULL, *buf = NULL;
    size_t len, sent = 0, got = 0, cap = 65536;
    int fd = -1, rc = -1, e = 0, r = 0, want_body = (fields & ALIKE_BODY) != 0;
    socklen_t elen = sizeof(e);
    const struct io_ops *io = &io_plain;
    struct tls_client *tc = NULL;
    void *ctx = NULL;

    memset(a, 0, sizeof(*a));
    memset(&rd, 0, sizeof(rd));
    rd.body_hash = FNV_BASIS;
    rd.hp.span = reading_span;
    rd.hp.span_ctx = &rd;
    config_request(wl, 0, &rs);
    rs.keepalive = 0;
    if (rs.head_only || request_build(&rs, u, &req, &len, err, sizeof(err)) != 0) {
        snprintf(a->why, sizeof(a->why), "%s", rs.head_only ? "a templated request: not checked" : err);
        free(req);
        return -1;
    }
    if (config_resolve(wl, u->host, (uint16_t)u->port, &addr, err, sizeof(err)) != 0) {
        snprintf(a->why, sizeof(a->why), "%s", err);
        goto out;
    }
    /* Non-blocking, every wait against the one deadline: a server that
     * trickles its answer a byte at a time (an event stream) cannot hold
     * the compare. */
    if ((fd = socket(addr.ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0 ||
        (connect(fd, (struct sockaddr *)&addr.ss, addr.len) != 0 && errno != EINPROGRESS)) {
        snprintf(a->why, sizeof(a->why), "%s", strerror(errno));
        goto out;
    }
    if ((r = wait_fd(fd, POLLOUT, deadline)) <= 0)
        goto cut;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) != 0 || e != 0) {
        snprintf(a->why, sizeof(a->why), "%s", strerror(e ? e : errno));
        goto out;
    }
    if (u->tls) {
        io = &io_tls;
        if (tls_start(wl, u, fd, deadline, &tc, &ctx, a) != 0)
            goto out;
    }
    while (sent < len) {
        ssize_t n = io->write(ctx, fd, req + sent, len - sent);
        if (n > 0) {
            sent += (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if ((r = wait_fd(fd, POLLOUT, deadline)) <= 0)
                goto cut;
        } else {
            snprintf(a->why, sizeof(a->why), "%s", io_why(io, ctx));
            goto out;
        }
    }
    if ((buf = malloc(cap)) == NULL)
        goto out;
    http_parse_reset(&rd.hp, strcmp(rs.method, "HEAD") == 0);
    for (;;) {
        ssize_t n = io->read(ctx, fd, buf, cap), whole;
        if (n > 0) {
            got += (size_t)n;
            if ((whole = http_parse_feed(&rd.hp, buf, (size_t)n)) == -1) {
                snprintf(a->why, sizeof(a->why), "a malformed answer: %s", rd.hp.error);
                goto out;
            }
            if (whole >= 0 || (!want_body && (rd.hp.flags & HP_F_HEAD_DONE)))
                break;
            if (got >= ALIKE_MAX) {
                snprintf(a->why, sizeof(a->why), "answer not read whole: more than %u MiB", ALIKE_MAX >> 20);
                a->cut = 1;
                goto out;
            }
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if ((r = wait_fd(fd, POLLIN, deadline)) <= 0)
                goto cut;
        } else if (n == 0 && http_parse_eof(&rd.hp)) {
            break; /* closed: a body that ends with the connection ends here */
        } else {
            snprintf(a->why, sizeof(a->why), "%s", n < 0 ? io_why(io, ctx) : got == 0 ? "no answer"
                     : "the answer was cut short: the connection closed before its end");
            goto out;
        }
    }
    if (rd.nomem)
        goto out;
    a->status = rd.hp.status;
    field(&rd, "Location", a->location, sizeof(a->location));
    field(&rd, "Content-Type", a->type, sizeof(a->type));
    snprintf(a->framing, sizeof(a->framing), "%s", framing(&rd.hp));
    a->body_len = rd.body_len;
    a->body_hash = rd.body_hash;
    a->ok = 1;
    rc = 0;
    goto out;
cut:
    if (r < 0)
        snprintf(a->why, sizeof(a->why), "%s", strerror(errno));
    else {
        snprintf(a->why, sizeof(a->why), "answer not read whole in %g s", (double)timeout_ns / 1e9);
        a->cut = 1;
    }
out:
    if (ctx)
        io->close(ctx, fd);
    else if (fd >= 0)
        close(fd);
    tls_client_free(tc);
    free(req);
    free(buf);
    free(rd.head);
    return rc;
}

int alike_same(const struct alike_answer *a, const struct alike_answer *b, unsigned fields, char *what, size_t n)
{
    if ((fields & ALIKE_STATUS) && a->status != b->status)
        snprintf(what, n, "status");
    else if ((fields & ALIKE_LOCATION) && strcmp(a->location, b->location) != 0)
        snprintf(what, n, "location");
    else if ((fields & ALIKE_TYPE) && strcasecmp(a->type, b->type) != 0)
        snprintf(what, n, "type");
    else if ((fields & ALIKE_BODY) && strcmp(a->framing, b->framing) != 0)
        snprintf(what, n, "framing");
    else if ((fields & ALIKE_BODY) && (a->body_len != b->body_len || a->body_hash != b->body_hash))
        snprintf(what, n, "body");
    else
        return 1;
    return 0;
}

void alike_value(const struct alike_answer *a, const char *field, char *out, size_t n)
{
    if (!a->ok)
        snprintf(out, n, "(%s)", a->why);
    else if (strcmp(field, "status") == 0)
        snprintf(out, n, "%d", a->status);
    else if (strcmp(field, "location") == 0)
        snprintf(out, n, "%s", a->location[0] ? a->location : "(none)");
    else if (strcmp(field, "type") == 0)
        snprintf(out, n, "%s", a->type[0] ? a->type : "(none)");
    else if (strcmp(field, "framing") == 0)
        snprintf(out, n, "%s", a->framing);
    else
        snprintf(out, n, "%llu bytes, hash %016llx", (unsigned long long)a->body_len,
                 (unsigned long long)a->body_hash);
    /* A server's bytes (its Location, its Content-Type), bound for a table. */
    text_scrub(out, strlen(out), 1);
}
