/* serve_reply.c - what `rafale serve` answers, whatever the protocol: the
 * routes (/, /json, /bytes/N, /chunked/N, /delay/MS, /status/N, /redirect,
 * /close, /random) decided as a struct reply, which serve.c writes as
 * HTTP/1.1 and serve_h2.c as HTTP/2. */
#include "serve_int.h"
#include "http_lex.h"
#include "status.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int path_is(const char *p, size_t plen, const char *want)
{
    size_t n = strlen(want);
    return plen == n && memcmp(p, want, n) == 0;
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

static uint32_t xorshift(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

int serve_reply(const struct serve *s, uint32_t *rng, const char *target, size_t tlen, struct reply *rp)
{
    const char *path = target, *q = memchr(target, '?', tlen), *rest;
    size_t plen = q ? (size_t)(q - path) : tlen, rlen;
    uint64_t n;

    memset(rp, 0, sizeof(*rp));
    rp->status = 200;
    rp->ctype = "text/plain";
    rp->kind = B_MEM;
    if (path_is(path, plen, "/") || path_is(path, plen, "/close")) {
        rp->body = SERVE_HELLO;
        rp->blen = sizeof(SERVE_HELLO) - 1;
        rp->close = plen == 6; /* "/close"; "/" has no second byte to look at */
        return 0;
    }
    if (path_is(path, plen, "/redirect")) {
        const char *to = s->cfg.redirect_to;
        size_t tolen = strlen(to);
        if (q) {
            const char *qs = q + 1, *end = target + tlen;
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
        rp->status = 302;
        rp->ctype = NULL;
        rp->location = to;
        rp->loclen = tolen > 2048 ? 2048 : tolen;
        rp->body = "";
        return 0;
    }
    if (prefix(path, plen, "/bytes/", &rest, &rlen) || prefix(path, plen, "/chunked/", &rest, &rlen)) {
        if (lex_number(rest, rlen, SERVE_MAX_BODY, &n) != 0)
            return reply_text(rp, 400, "bad size (0..67108864)\n");
        rp->ctype = "application/octet-stream";
        rp->kind = path[1] == 'c' ? B_GEN_CHUNKED : B_GEN_BYTES;
        rp->gen_len = n;
        return 0;
    }
    if (prefix(path, plen, "/delay/exp/", &rest, &rlen)) {
        /* A known law for a known truth: exponential with that mean, so a
         * run's percentiles can be held against -mean ln(1 - q) (the
         * intervals' coverage test). Drawn from the thread's generator, in
         * us, cut at the longest delay. */
        double u, d;
        if (lex_number(rest, rlen, SERVE_MAX_DELAY_MS, &n) != 0)
            return reply_text(rp, 400, "bad mean delay (0..600000 ms)\n");
        u = ((double)xorshift(rng) + 0.5) / 4294967296.0;
        d = -(double)n * 1000.0 * log(u);
        rp->kind = B_DELAY;
        rp->delay_us = d < SERVE_MAX_DELAY_MS * 1000.0 ? (uint32_t)d : SERVE_MAX_DELAY_MS * 1000u;
        return 0;
    }
    if (prefix(path, plen, "/delay/", &rest, &rlen)) {
        if (lex_number(rest, rlen, SERVE_MAX_DELAY_MS, &n) != 0)
            return reply_text(rp, 400, "bad delay (0..600000 ms)\n");
        rp->kind = B_DELAY;
        rp->delay_us = (uint32_t)n * 1000u;
        return 0;
    }
    if (prefix(path, plen, "/status/", &rest, &rlen)) {
        if (lex_number(rest, rlen, 599, &n) != 0 || n < 200)
            return reply_text(rp, 400, "bad status (200..599)\n");
        rp->status = (int)n;
        rp->kind = B_TEXT;
        rp->blen = (size_t)snprintf(rp->text, sizeof(rp->text), "%d %s\n", (int)n, status_reason((int)n));
        return 0;
    }
    if (path_is(path, plen, "/json")) {
        static const char J[] = "{\"message\":\"Hello, world\",\"server\":\"rafale\",\"items\":[1,2,3]}\n";
        rp->ctype = "application/json";
        rp->body = J;
        rp->blen = sizeof(J) - 1;
        return 0;
    }
    if (path_is(path, plen, "/random") && s->nfiles > 0) {
        const struct file_ent *f = &s->files[xorshift(rng) % s->nfiles];
        rp->ctype = f->ctype;
        rp->body = f->data;
        rp->blen = f->len;
        return 0;
    }
    return reply_text(rp, 404, "Not Found\n");
}

void serve_reply_delayed(struct reply *rp, uint32_t us)
{
    memset(rp, 0, sizeof(*rp));
    rp->status = 200;
    rp->ctype = "text/plain";
    rp->kind = B_TEXT;
    if (us % 1000 == 0)
        rp->blen = (size_t)snprintf(rp->text, sizeof(rp->text), "delayed %u ms\n", us / 1000);
    else
        rp->blen = (size_t)snprintf(rp->text, sizeof(rp->text), "delayed %u us\n", us);
}
