/* request.c - the bytes of a request, built once per URL before the run, so
 * the hot path only ever writes a ready buffer. */
#include "request.h"
#include "buf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Is a user header named `name` (case-insensitive)? */
static int user_has(const struct config *cfg, const char *name)
{
    size_t n = strlen(name);
    uint32_t i;
    for (i = 0; i < cfg->nheaders; i++)
        if (strncasecmp(cfg->headers[i], name, n) == 0 && cfg->headers[i][n] == ':')
            return 1;
    return 0;
}

int request_build(const struct config *cfg, const struct url *u, char **out, size_t *len,
                  char *err, size_t errlen)
{
    struct buf b = { 0 };
    char host[URL_HOST_MAX + 16], num[32];
    uint32_t i;
    int rc = 0;

    rc |= buf_puts(&b, cfg->method);
    rc |= buf_puts(&b, " ");
    rc |= buf_puts(&b, u->target);
    rc |= buf_puts(&b, " HTTP/1.1\r\n");
    if (!user_has(cfg, "Host")) {
        rc |= buf_puts(&b, "Host: ");
        rc |= buf_puts(&b, url_host_header(u, host, sizeof(host)));
        rc |= buf_puts(&b, "\r\n");
    }
    if (!user_has(cfg, "User-Agent"))
        rc |= buf_puts(&b, "User-Agent: rafale\r\n");
    if (!user_has(cfg, "Accept"))
        rc |= buf_puts(&b, "Accept: */*\r\n");
    /* With --close say so, so the server does not keep state for nothing. */
    if (!cfg->keepalive && !user_has(cfg, "Connection"))
        rc |= buf_puts(&b, "Connection: close\r\n");
    for (i = 0; i < cfg->nheaders; i++) {
        rc |= buf_puts(&b, cfg->headers[i]);
        rc |= buf_puts(&b, "\r\n");
    }
    if (cfg->has_body) {
        if (cfg->content_type && !user_has(cfg, "Content-Type")) {
            rc |= buf_puts(&b, "Content-Type: ");
            rc |= buf_puts(&b, cfg->content_type);
            rc |= buf_puts(&b, "\r\n");
        }
        if (!user_has(cfg, "Content-Length")) {
            snprintf(num, sizeof(num), "Content-Length: %zu\r\n", cfg->body_len);
            rc |= buf_puts(&b, num);
        }
    }
    rc |= buf_puts(&b, "\r\n");
    if (cfg->has_body)
        rc |= buf_put(&b, cfg->body, cfg->body_len);
    if (rc != 0) {
        free(b.p);
        snprintf(err, errlen, "out of memory building the request");
        return -1;
    }
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
};

/* Appends a field whose text goes into t; lower-cases the name. */
static int field_add(struct buf *t, struct fspan *f, uint32_t *n, const char *name, size_t nlen, const char *value,
                     size_t vlen)
{
    size_t i;
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

int request_fields(const struct config *cfg, const struct url *u, struct req_field **out, char *err, size_t errlen)
{
    struct buf t = { 0 };
    struct fspan *f = calloc(cfg->nheaders + 8, sizeof(*f));
    struct req_field *rf;
    char host[URL_HOST_MAX + 16], num[32];
    const char *authority = url_host_header(u, host, sizeof(host));
    size_t alen = strlen(authority), i;
    uint32_t n = 0, k;
    int rc = 0;

    if (f == NULL)
        goto oom;
    /* A user Host header names the authority (RFC 9113 §8.3.1). */
    for (k = 0; k < cfg->nheaders; k++)
        if (strncasecmp(cfg->headers[k], "Host:", 5) == 0) {
            authority = cfg->headers[k] + 5;
            while (*authority == ' ' || *authority == '\t')
                authority++;
            alen = strlen(authority);
        }
    rc |= field_add(&t, f, &n, ":method", 7, cfg->method, strlen(cfg->method));
    rc |= field_add(&t, f, &n, ":scheme", 7, u->tls ? "https" : "http", u->tls ? 5 : 4);
    rc |= field_add(&t, f, &n, ":authority", 10, authority, alen);
    rc |= field_add(&t, f, &n, ":path", 5, u->target, strlen(u->target));
    if (!user_has(cfg, "User-Agent"))
        rc |= field_add(&t, f, &n, "user-agent", 10, "rafale", 6);
    if (!user_has(cfg, "Accept"))
        rc |= field_add(&t, f, &n, "accept", 6, "*/*", 3);
    for (k = 0; k < cfg->nheaders && rc == 0; k++) {
        const char *h = cfg->headers[k], *colon = strchr(h, ':'), *v;
        size_t nl;
        if (colon == NULL || colon == h)
            continue;
        nl = (size_t)(colon - h);
        v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if ((nl == 4 && strncasecmp(h, "Host", 4) == 0) || h2_forbidden(h, nl, v, strlen(v)))
            continue;
        rc |= field_add(&t, f, &n, h, nl, v, strlen(v));
    }
    if (cfg->has_body) {
        if (cfg->content_type && !user_has(cfg, "Content-Type"))
            rc |= field_add(&t, f, &n, "content-type", 12, cfg->content_type, strlen(cfg->content_type));
        if (!user_has(cfg, "Content-Length")) {
            int nl = snprintf(num, sizeof(num), "%zu", cfg->body_len);
            rc |= field_add(&t, f, &n, "content-length", 14, num, (size_t)nl);
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
    }
    free(t.p);
    free(f);
    *out = rf;
    return (int)n;
oom:
    free(t.p);
    free(f);
    snprintf(err, errlen, "out of memory building the request");
    return -1;
}
