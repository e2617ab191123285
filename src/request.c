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
