/* request.c - the bytes of a request, built once per URL before the run, so
 * the hot path only ever writes a ready buffer. */
#include "request.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct buf {
    char *p;
    size_t len, cap;
};

static int put(struct buf *b, const char *s, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *p;
        while (cap < b->len + n)
            cap *= 2;
        p = realloc(b->p, cap);
        if (p == NULL)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

static int puts_(struct buf *b, const char *s)
{
    return put(b, s, strlen(s));
}

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

    rc |= puts_(&b, cfg->method);
    rc |= puts_(&b, " ");
    rc |= puts_(&b, u->target);
    rc |= puts_(&b, " HTTP/1.1\r\n");
    if (!user_has(cfg, "Host")) {
        rc |= puts_(&b, "Host: ");
        rc |= puts_(&b, url_host_header(u, host, sizeof(host)));
        rc |= puts_(&b, "\r\n");
    }
    if (!user_has(cfg, "User-Agent"))
        rc |= puts_(&b, "User-Agent: rafale\r\n");
    if (!user_has(cfg, "Accept"))
        rc |= puts_(&b, "Accept: */*\r\n");
    /* With --close say so, so the server does not keep state for nothing. */
    if (!cfg->keepalive && !user_has(cfg, "Connection"))
        rc |= puts_(&b, "Connection: close\r\n");
    for (i = 0; i < cfg->nheaders; i++) {
        rc |= puts_(&b, cfg->headers[i]);
        rc |= puts_(&b, "\r\n");
    }
    if (cfg->has_body) {
        if (cfg->content_type && !user_has(cfg, "Content-Type")) {
            rc |= puts_(&b, "Content-Type: ");
            rc |= puts_(&b, cfg->content_type);
            rc |= puts_(&b, "\r\n");
        }
        if (!user_has(cfg, "Content-Length")) {
            snprintf(num, sizeof(num), "Content-Length: %zu\r\n", cfg->body_len);
            rc |= puts_(&b, num);
        }
    }
    rc |= puts_(&b, "\r\n");
    if (cfg->has_body)
        rc |= put(&b, cfg->body, cfg->body_len);
    if (rc != 0) {
        free(b.p);
        snprintf(err, errlen, "out of memory building the request");
        return -1;
    }
    *out = b.p;
    *len = b.len;
    return 0;
}
