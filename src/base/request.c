/* request.c - the bytes of a request, built once per URL before the run, so
 * the hot path only ever writes a ready buffer. */
#include "request.h"
#include "buf.h"
#include "err.h"
#include "http_lex.h"
#include "http_parse.h"
#include "template.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int request_user_has(const struct req_spec *rs, const char *name)
{
    size_t n = strlen(name);
    uint32_t i;
    for (i = 0; i < rs->nheaders; i++)
        if (strncasecmp(rs->headers[i], name, n) == 0 && rs->headers[i][n] == ':')
            return 1;
    return 0;
}

/* The value of header h when its name is name (lower case), OWS trimmed
 * (its length in *n), or NULL. */
static const char *framing_value(const char *h, const char *name, size_t *n)
{
    size_t k = strlen(name), e;
    if (!lex_prefix_ci(h, k, name) || h[k] != ':')
        return NULL;
    h += k + 1;
    while (lex_ows(*h))
        h++;
    e = strlen(h);
    while (e && lex_ows(h[e - 1]))
        e--;
    *n = e;
    return h;
}

/* Does body hold exactly one chunked message (RFC 9112 §7.1), its last
 * chunk and trailers included? Read as a response's body would be. */
static int whole_chunked(const char *body, size_t len)
{
    static const char head[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    struct hp p;
    memset(&p, 0, sizeof(p));
    http_parse_reset(&p, 0);
    return http_parse_feed(&p, head, sizeof(head) - 1) == -2 && len > 0 &&
           http_parse_feed(&p, body, len) == (ssize_t)len;
}

int request_framing(const struct req_spec *rs, uint32_t *bad, char *err, size_t errlen)
{
    int templated = rs->has_body && template_has(rs->body, rs->body_len), cl = -1, te = -1, chunked = 0, last = 0;
    size_t blen = rs->has_body ? rs->body_len : 0, n;
    uint32_t k;

    for (k = 0; k < rs->nheaders; k++) {
        const char *v = framing_value(rs->headers[k], "content-length", &n), *name = "Content-Length";
        if (v == NULL && (v = framing_value(rs->headers[k], "transfer-encoding", &n)) != NULL)
            name = "Transfer-Encoding";
        if (v == NULL)
            continue;
        *bad = k;
        /* A value chosen per request (an extracted one may be a server's
         * choice) could end the body early and start a request of its own. */
        if (templated)
            return err_set(err, errlen, NULL, "%s beside a templated body: rafale sets each request's length itself; "
                           "remove this header", name);
        if (template_has(v, n))
            return err_set(err, errlen, NULL, "a templated %s: rafale sets each request's length itself; remove this "
                           "header", name);
        if (name[0] == 'C') {
            uint64_t want;
            if (cl >= 0)
                return err_set(err, errlen, NULL, "a second Content-Length: remove this header");
            if (lex_number(v, n, UINT64_MAX, &want) != 0)
                return err_set(err, errlen, NULL, "Content-Length wants a number of bytes (RFC 9110 section 8.6), not "
                               "'%.*s'", (int)(n > 40 ? 40 : n), v);
            if (want != blen)
                return err_set(err, errlen, NULL, "Content-Length: %llu but the body is %zu bytes: the server would "
                               "read the difference from the next request; write %zu, or remove this header (rafale "
                               "then sets it)", (unsigned long long)want, blen, blen);
            cl = (int)k;
        } else {
            /* Its codings, a comma list: chunked once, and last. */
            const char *a = v, *end = v + n;
            while (a < end) {
                const char *b = memchr(a, ',', (size_t)(end - a)), *e;
                if (b == NULL)
                    b = end;
                for (e = b; e > a && lex_ows(e[-1]); e--)
                    ;
                while (a < e && lex_ows(*a))
                    a++;
                if (a < e) {
                    last = lex_eq_ci(a, (size_t)(e - a), "chunked");
                    chunked += last;
                }
                a = b + 1;
            }
            te = (int)k;
        }
        if (cl >= 0 && te >= 0)
            return err_set(err, errlen, NULL, "Content-Length beside Transfer-Encoding (RFC 9112 section 6.1): a "
                           "server could read either; remove one");
    }
    if (te < 0)
        return 0;
    *bad = (uint32_t)te;
    /* RFC 9112 §6.3: a request whose last coding is not chunked has no
     * length a server can find. */
    if (chunked != 1 || !last)
        return err_set(err, errlen, NULL, "Transfer-Encoding must end in chunked, once (RFC 9112 section 6.3): else "
                       "a server cannot tell where the body ends; remove this header");
    if (!rs->has_body)
        return err_set(err, errlen, NULL, "Transfer-Encoding without a body: the server would read the next request "
                       "as this one's chunks; add the body, chunked, or remove this header");
    if (!whole_chunked(rs->body, rs->body_len))
        return err_set(err, errlen, NULL, "the body is not one whole chunked message (RFC 9112 section 7.1), as "
                       "Transfer-Encoding says: the server would read what is left as the next request; write it "
                       "chunked, or remove this header (rafale then sets Content-Length)");
    return 0;
}

int request_build(const struct req_spec *rs, const struct url *u, char **out, size_t *len, char *err, size_t errlen)
{
    struct buf b = { 0 };
    char host[URL_HOST_MAX + 16], num[32];
    uint32_t i;
    int rc = 0;

    rc |= buf_puts(&b, rs->method);
    rc |= buf_puts(&b, " ");
    rc |= buf_puts(&b, u->target);
    rc |= buf_puts(&b, " HTTP/1.1\r\n");
    if (!request_user_has(rs, "Host")) {
        rc |= buf_puts(&b, "Host: ");
        rc |= buf_puts(&b, url_host_header(u, host, sizeof(host)));
        rc |= buf_puts(&b, "\r\n");
    }
    if (!request_user_has(rs, "User-Agent"))
        rc |= buf_puts(&b, "User-Agent: rafale\r\n");
    if (!request_user_has(rs, "Accept"))
        rc |= buf_puts(&b, "Accept: */*\r\n");
    /* With --close say so, so the server does not keep state for nothing. */
    if (!rs->keepalive && !request_user_has(rs, "Connection"))
        rc |= buf_puts(&b, "Connection: close\r\n");
    for (i = 0; i < rs->nheaders; i++) {
        rc |= buf_puts(&b, rs->headers[i]);
        rc |= buf_puts(&b, "\r\n");
    }
    if (rs->has_body) {
        if (rs->content_type && !request_user_has(rs, "Content-Type")) {
            rc |= buf_puts(&b, "Content-Type: ");
            rc |= buf_puts(&b, rs->content_type);
            rc |= buf_puts(&b, "\r\n");
        }
        /* RFC 9112 §6.2: never a Content-Length beside a Transfer-Encoding. */
        if (!rs->head_only && !request_user_has(rs, "Content-Length") && !request_user_has(rs, "Transfer-Encoding")) {
            snprintf(num, sizeof(num), "Content-Length: %zu\r\n", rs->body_len);
            rc |= buf_puts(&b, num);
        }
    }
    if (!rs->head_only) {
        rc |= buf_puts(&b, "\r\n");
        if (rs->has_body)
            rc |= buf_put(&b, rs->body, rs->body_len);
    }
    if (rc != 0) {
        free(b.p);
        err_set(err, errlen, NULL, "out of memory building the request");
        return -1;
    }
    /* Kept for the whole run, once per target: no spare room (100 000
     * targets would hold 16 MB of it). */
    *out = b.len + 64 < b.cap ? realloc(b.p, b.len) : b.p;
    if (*out == NULL)
        *out = b.p;
    *len = b.len;
    return 0;
}

/* Connection-specific fields, which HTTP/2 forbids (RFC 9113 §8.2.2). */
static int h2_forbidden(const char *name, size_t n, const char *value, size_t vlen)
{
    static const char *const bad[] = { "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade" };
    size_t i;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (strlen(bad[i]) == n && strncasecmp(name, bad[i], n) == 0)
            return 1;
    /* TE is allowed only as "trailers". */
    return n == 2 && strncasecmp(name, "te", 2) == 0 && !(vlen == 8 && strncasecmp(value, "trailers", 8) == 0);
}

struct fspan {
    size_t name, nlen, value, vlen; /* offsets into the text */
    int header;
};

/* Appends a field whose text goes into t; lower-cases the name. header:
 * the spec's header it came from, or -1. */
static int field_add(struct buf *t, struct fspan *f, uint32_t *n, int header, const char *name, size_t nlen,
                     const char *value, size_t vlen)
{
    size_t i;
    f[*n].header = header;
    f[*n].name = t->len;
    f[*n].nlen = nlen;
    if (buf_put(t, name, nlen) != 0)
        return -1;
    for (i = 0; i < nlen; i++)
        t->p[f[*n].name + i] = (char)tolower((unsigned char)t->p[f[*n].name + i]);
    f[*n].value = t->len;
    f[*n].vlen = vlen;
    if (buf_put(t, value, vlen) != 0)
        return -1;
    (*n)++;
    return 0;
}

int request_fields(const struct req_spec *rs, const struct url *u, struct req_field **out, char *err, size_t errlen)
{
    struct buf t = { 0 };
    struct fspan *f = calloc(rs->nheaders + 8, sizeof(*f));
    struct req_field *rf;
    char host[URL_HOST_MAX + 16], num[32];
    const char *authority = url_host_header(u, host, sizeof(host));
    size_t alen = strlen(authority), i;
    uint32_t n = 0, k;
    int rc = 0, user_host = -1;

    if (f == NULL)
        goto oom;
    /* A user Host header names the authority (RFC 9113 §8.3.1). */
    for (k = 0; k < rs->nheaders; k++)
        if (strncasecmp(rs->headers[k], "Host:", 5) == 0) {
            authority = rs->headers[k] + 5;
            while (*authority == ' ' || *authority == '\t')
                authority++;
            alen = strlen(authority);
            user_host = (int)k;
        }
    rc |= field_add(&t, f, &n, -1, ":method", 7, rs->method, strlen(rs->method));
    rc |= field_add(&t, f, &n, -1, ":scheme", 7, u->tls ? "https" : "http", u->tls ? 5 : 4);
    rc |= field_add(&t, f, &n, user_host, ":authority", 10, authority, alen);
    rc |= field_add(&t, f, &n, -1, ":path", 5, u->target, strlen(u->target));
    if (!request_user_has(rs, "User-Agent"))
        rc |= field_add(&t, f, &n, -1, "user-agent", 10, "rafale", 6);
    if (!request_user_has(rs, "Accept"))
        rc |= field_add(&t, f, &n, -1, "accept", 6, "*/*", 3);
    for (k = 0; k < rs->nheaders && rc == 0; k++) {
        const char *h = rs->headers[k], *colon = strchr(h, ':'), *v;
        size_t nl;
        if (colon == NULL || colon == h)
            continue;
        nl = (size_t)(colon - h);
        v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if ((nl == 4 && strncasecmp(h, "Host", 4) == 0) || h2_forbidden(h, nl, v, strlen(v)))
            continue;
        rc |= field_add(&t, f, &n, (int)k, h, nl, v, strlen(v));
    }
    if (rs->has_body) {
        if (rs->content_type && !request_user_has(rs, "Content-Type"))
            rc |= field_add(&t, f, &n, -1, "content-type", 12, rs->content_type, strlen(rs->content_type));
        if (!rs->head_only && !request_user_has(rs, "Content-Length")) {
            int nl = snprintf(num, sizeof(num), "%zu", rs->body_len);
            rc |= field_add(&t, f, &n, -1, "content-length", 14, num, (size_t)nl);
        }
    }
    if (rc != 0)
        goto oom;
    /* One block: the fields, then their text. */
    rf = malloc(n * sizeof(*rf) + t.len + 1);
    if (rf == NULL)
        goto oom;
    memcpy((char *)(rf + n), t.p, t.len);
    for (i = 0; i < n; i++) {
        rf[i].name = (char *)(rf + n) + f[i].name;
        rf[i].nlen = f[i].nlen;
        rf[i].value = (char *)(rf + n) + f[i].value;
        rf[i].vlen = f[i].vlen;
        rf[i].header = f[i].header;
    }
    free(t.p);
    free(f);
    *out = rf;
    return (int)n;
oom:
    free(t.p);
    free(f);
    err_set(err, errlen, NULL, "out of memory building the request");
    return -1;
}
