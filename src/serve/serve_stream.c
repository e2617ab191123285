/* serve_stream.c - the request streams HTTP/2 and HTTP/3 share in `rafale
 * serve` (serve_stream.h). */
#include "serve_stream.h"
#include "http_req.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PATH 8192 /* a longer :path is answered 414 */

struct serve_stream *serve_stream_new(struct serve_streams *l, int64_t id)
{
    struct serve_stream *st = l->free;
    if (st)
        l->free = st->next;
    else if ((st = calloc(1, sizeof(*st))) == NULL)
        return NULL;
    st->id = id;
    st->head = st->delayed = st->path_too_long = st->answered = st->too_large = st->own = 0;
    st->fields = 0;
    st->list_size = 0;
    st->off = 0;
    st->method[0] = '\0';
    st->path.len = 0;
    st->prev = NULL;
    st->next = l->active;
    if (l->active)
        l->active->prev = st;
    l->active = st;
    l->n++;
    return st;
}

void serve_stream_end(struct serve_streams *l, struct serve_stream *st)
{
    if (st->prev)
        st->prev->next = st->next;
    else
        l->active = st->next;
    if (st->next)
        st->next->prev = st->prev;
    st->next = l->free;
    st->prev = NULL;
    l->free = st;
    l->n--;
}

static void free_list(struct serve_stream *st)
{
    while (st) {
        struct serve_stream *next = st->next;
        buf_free(&st->path);
        free(st);
        st = next;
    }
}

void serve_stream_free_all(struct serve_streams *l)
{
    free_list(l->active);
    free_list(l->free);
    l->active = l->free = NULL;
    l->n = 0;
}

int serve_stream_field(struct serve_stream *st, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen)
{
    /* The limits of HTTP/1.1's side (http_req.h), which are also the
     * SETTINGS_MAX_HEADER_LIST_SIZE HTTP/2 advertises: nghttp2 does not
     * enforce the setting on what it receives; past it the request is
     * answered 431, as over HTTP/1.1. The pseudo-fields stand for the
     * request line, not fields. */
    st->list_size += nlen + vlen + 32;
    if ((nlen && name[0] != ':' && ++st->fields > HR_MAX_FIELDS) || st->list_size > HR_MAX_HEAD)
        st->too_large = 1;
    if (nlen == 7 && memcmp(name, ":method", 7) == 0) {
        size_t k = vlen < sizeof(st->method) - 1 ? vlen : sizeof(st->method) - 1;
        memcpy(st->method, value, k);
        st->method[k] = '\0';
        st->head = vlen == 4 && memcmp(value, "HEAD", 4) == 0;
    } else if (nlen == 5 && memcmp(name, ":path", 5) == 0) {
        st->path.len = 0;
        if (vlen > MAX_PATH)
            st->path_too_long = 1;
        else if (buf_put(&st->path, value, vlen) != 0)
            return -1;
    }
    return 0;
}

int serve_stream_reply(struct serve_stream *st, const struct serve *s, uint32_t *rng, uint64_t now)
{
    if (st->too_large)
        reply_text(&st->rp, 431, "request header fields too large\n");
    else if (st->path_too_long || st->path.len == 0)
        reply_text(&st->rp, st->path_too_long ? 414 : 400, st->path_too_long ? "path too long\n" : "no :path\n");
    else
        serve_reply(s, rng, st->path.p, st->path.len, &st->rp);
    if (st->rp.kind != B_DELAY)
        return 0;
    st->delayed = 1;
    st->due = now + (uint64_t)st->rp.delay_us * 1000u;
    return 1;
}

uint32_t serve_stream_waiting(const struct serve_streams *l)
{
    const struct serve_stream *st;
    uint32_t n = 0;
    for (st = l->active; st; st = st->next)
        n += !st->answered && !st->delayed;
    return n;
}

uint64_t serve_stream_deadline(const struct serve_streams *l)
{
    const struct serve_stream *st;
    uint64_t d = UINT64_MAX;
    for (st = l->active; st; st = st->next)
        if (st->delayed && st->due < d)
            d = st->due;
    return d;
}

void serve_stream_tick(struct serve_streams *l, uint64_t now, void (*submit)(void *ctx, struct serve_stream *st),
                       void *ctx)
{
    struct serve_stream *st;
    for (st = l->active; st; st = st->next)
        if (st->delayed && st->due <= now) {
            uint32_t us = st->rp.delay_us;
            int close = st->rp.close;
            st->delayed = 0;
            serve_reply_delayed(&st->rp, us);
            st->rp.close = (uint8_t)close;
            submit(ctx, st);
        }
}
