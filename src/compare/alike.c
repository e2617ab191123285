/* alike.c - do the servers of a compare do the same work? One request of
 * each workload to each server before the load, its answer reduced to what
 * should match: status, Location, Content-Type, framing, body length and a
 * hash of the body (FNV-1a 64, of the decoded body). One HTTP/1.1 exchange
 * with Connection: close, over TLS for https:// with the workload's TLS
 * settings (as its runs connect), read until the answer is whole by its framing
 * (only the head when no body field is asked) or the server closes, within
 * one deadline for all of it and 8 MiB: an answer cut by either is said to
 * be so, and compared with nothing. */
#include "alike.h"
#include "compare_settings.h"

#include "clock.h"
#include "io.h"
#include "net.h"
#include "request.h"
#include "text.h"
#include "tls.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define ALIKE_MAX (8u << 20)   /* read at most 8 MiB of an answer */

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    while (n--) {
        h ^= *p++;
        h *= 1099511628211ULL;
    }
    return h;
}

/* The value of header name in head (lines after the status line), trimmed
 * into out; 0 when absent. */
static int header(const char *head, const char *name, char *out, size_t n)
{
    size_t len = strlen(name);
    const char *l = strstr(head, "\r\n");
    out[0] = '\0';
    while (l && l[2] != '\r' && l[2] != '\0') {
        const char *s = l + 2, *e = strstr(s, "\r\n");
        if (e == NULL)
            break;
        if ((size_t)(e - s) > len && strncasecmp(s, name, len) == 0 && s[len] == ':') {
            const char *v = s + len + 1;
            while (v < e && (*v == ' ' || *v == '\t'))
                v++;
            while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
            snprintf(out, n, "%.*s", (int)(e - v), v);
            return 1;
        }
        l = e;
    }
    return 0;
}

/* The body after the head: by length, chunked, or to the close. */
static void body(struct alike_answer *a, const char *b, size_t n, const char *te, const char *cl)
{
    const unsigned char *p = (const unsigned char *)b;
    a->body_hash = 1469598103934665603ULL;
    a->body_len = 0;
    if (strcasestr(te, "chunked")) {
        size_t at = 0;
        snprintf(a->framing, sizeof(a->framing), "chunked");
        while (at < n) {
            char *end;
            unsigned long long sz = strtoull(b + at, &end, 16);
            const char *crlf = memmem(b + at, n - at, "\r\n", 2);
            if (crlf == NULL || end == b + at)
                break;
            at = (size_t)(crlf - b) + 2;
            if (sz == 0 || sz > n - at)
                break;
            a->body_hash = fnv(a->body_hash, p + at, (size_t)sz);
            a->body_len += sz;
            at += (size_t)sz + 2;
        }
        return;
    }
    if (cl[0]) {
        unsigned long long len = strtoull(cl, NULL, 10);
        snprintf(a->framing, sizeof(a->framing), "length");
        if (len < n)
            n = (size_t)len;
    } else {
        snprintf(a->framing, sizeof(a->framing), "close");
    }
    a->body_hash = fnv(a->body_hash, p, n);
    a->body_len = n;
}

/* Where the reading of an answer stands. */
struct reading {
    size_t body;               /* where the body starts; 0 while the head is incomplete */
    int chunked;
    unsigned long long length; /* Content-Length, when given */
    int has_length, no_body;
    size_t chunk;              /* chunked: the next chunk's size line */
    int done;                  /* the answer is whole by its framing */
};

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

/* After more bytes came: is the answer whole by its framing (RFC 9112
 * §6.3)? buf[got] is a NUL. want_body 0: the head is enough. */
static void advance(struct reading *rd, char *buf, size_t got, int want_body, int head_req)
{
    if (rd->body == 0) {
        char *eoh = memmem(buf, got, "\r\n\r\n", 4), te[64], cl[32], keep;
        int status = 0;
        if (eoh == NULL)
            return;
        rd->body = (size_t)(eoh - buf) + 4;
        keep = eoh[2];
        eoh[2] = '\0';
        header(buf, "Transfer-Encoding", te, sizeof(te));
        rd->has_length = header(buf, "Content-Length", cl, sizeof(cl));
        eoh[2] = keep;
        rd->chunked = strcasestr(te, "chunked") != NULL;
        rd->length = strtoull(cl, NULL, 10);
        rd->chunk = rd->body;
        sscanf(buf, "HTTP/%*d.%*d %d", &status);
        /* No body: to a HEAD, a 204 or a 304 (RFC 9112 §6.3 rule 1). */
        rd->no_body = head_req || status == 204 || status == 304;
    }
    if (!want_body || rd->no_body) {
        rd->done = 1;
    } else if (rd->chunked) {
        for (;;) {
            const char *crlf = memmem(buf + rd->chunk, got - rd->chunk, "\r\n", 2);
            size_t data;
            unsigned long long sz;
            if (crlf == NULL)
                return;
            sz = strtoull(buf + rd->chunk, NULL, 16);
            data = (size_t)(crlf - buf) + 2;
            if (sz == 0) {
                /* The last chunk, then trailer fields up to a blank line
                 * (RFC 9112 §7.1). */
                rd->done = memmem(crlf, got - (size_t)(crlf - buf), "\r\n\r\n", 4) != NULL;
                return;
            }
            if (sz > got - data || got - data - (size_t)sz < 2)
                return;
            rd->chunk = data + (size_t)sz + 2;
        }
    } else if (rd->has_length) {
        rd->done = got - rd->body >= rd->length;
    }
    /* Without either, the answer ends when the server closes. */
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
    char err[256], te[64], cl[32], *req = NULL, *buf = NULL, *eoh;
    size_t len, sent = 0, got = 0, cap = 65536;
    int fd = -1, rc = -1, e = 0, r = 0;
    socklen_t elen = sizeof(e);
    const struct io_ops *io = &io_plain;
    struct tls_client *tc = NULL;
    void *ctx = NULL;

    memset(a, 0, sizeof(*a));
    memset(&rd, 0, sizeof(rd));
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
            snprintf(a->why, sizeof(a->why), "%s", errno == EPROTO && ctx ? io->error(ctx) : strerror(errno));
            goto out;
        }
    }
    if ((buf = malloc(cap + 1)) == NULL)
        goto out;
    while (!rd.done) {
        ssize_t n;
        if (got == cap) {
            char *nb;
            if (cap >= ALIKE_MAX) {
                snprintf(a->why, sizeof(a->why), "answer not read whole: more than %u MiB", ALIKE_MAX >> 20);
                a->cut = 1;
                goto out;
            }
            if ((nb = realloc(buf, cap * 2 + 1)) == NULL)
                goto out;
            buf = nb;
            cap *= 2;
        }
        n = io->read(ctx, fd, buf + got, cap - got);
        if (n > 0) {
            got += (size_t)n;
            buf[got] = '\0';
            advance(&rd, buf, got, (fields & ALIKE_BODY) != 0, strcmp(rs.method, "HEAD") == 0);
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if ((r = wait_fd(fd, POLLIN, deadline)) <= 0)
                goto cut;
        } else {
            break; /* closed: the answer ends here */
        }
    }
    buf[got] = '\0';
    if ((eoh = strstr(buf, "\r\n\r\n")) == NULL || sscanf(buf, "HTTP/%*d.%*d %d", &a->status) != 1) {
        snprintf(a->why, sizeof(a->why), "%s", got ? "not an HTTP/1.x answer" : "no answer");
        goto out;
    }
    eoh[2] = '\0'; /* the head, its last line's CRLF kept */
    header(buf, "Location", a->location, sizeof(a->location));
    header(buf, "Content-Type", a->type, sizeof(a->type));
    header(buf, "Transfer-Encoding", te, sizeof(te));
    header(buf, "Content-Length", cl, sizeof(cl));
    body(a, eoh + 4, got - (size_t)(eoh + 4 - buf), te, cl);
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
