/* fuzz/fuzz_http_parse.c - libFuzzer entry point for the response parser:
 * `make fuzz` (clang). The input's last byte is the control byte (HEAD or
 * not, and where to split), so the bytes parsed start like a response and
 * the corpus's well-formed responses are fuzzed in HEAD mode and at every
 * split point too. The rest is fed whole, then split in two; both must
 * agree, and the parser must never read past the buffer (ASan) or claim
 * more bytes than it was given. The split feed and a second whole one ask
 * for the spans of the head and body: they change no verdict, each lies in
 * the bytes fed, none is empty, no head's comes after a body's, and both
 * feeds report the same bytes. */
#include "http_parse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* What the spans said: each kind's length and hash (FNV-1a), and the bytes
 * being fed. */
struct seen {
    uint64_t len[2], hash[2];
    const char *lo, *hi;
};

static void on_span(void *ctx, enum hp_span kind, const char *at, size_t n)
{
    struct seen *s = ctx;
    size_t i;
    if (n == 0 || at < s->lo || at + n > s->hi || (kind == HP_SPAN_HEAD && s->len[HP_SPAN_BODY]))
        abort();
    for (i = 0; i < n; i++)
        s->hash[kind] = (s->hash[kind] ^ (unsigned char)at[i]) * 1099511628211ULL;
    s->len[kind] += n;
}

static ssize_t feed(struct hp *p, struct seen *s, const char *buf, size_t n)
{
    s->lo = buf;
    s->hi = buf + n;
    return http_parse_feed(p, buf, n);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct hp a = { 0 }, b = { 0 }, c = { 0 };
    struct seen sb, sc;
    ssize_t whole, r;
    size_t len, cut;
    unsigned char ctl;
    int head;
    char *copy;

    if (size < 2)
        return 0;
    len = size - 1;
    ctl = data[len];
    head = ctl & 1;
    cut = (size_t)(ctl >> 1) * len / 128;
    copy = malloc(len);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, len);
    http_parse_reset(&a, head);
    whole = http_parse_feed(&a, copy, len);
    if (whole > (ssize_t)len)
        abort();

    memset(&sb, 0, sizeof(sb));
    memset(&sc, 0, sizeof(sc));
    http_parse_reset(&b, head);
    b.span = on_span;
    b.span_ctx = &sb;
    r = cut ? feed(&b, &sb, copy, cut) : -2;
    if (r == -2)
        r = feed(&b, &sb, copy + cut, len - cut), r = r >= 0 ? r + (ssize_t)cut : r;
    /* Same verdict whatever the split: complete at the same byte, or partial, or malformed. */
    if ((whole >= 0) != (r >= 0) || (whole >= 0 && whole != r) || (whole == -1) != (r == -1))
        abort();
    if (whole >= 0 && (a.status != b.status || http_parse_keepalive(&a) != http_parse_keepalive(&b)))
        abort();
    if (whole != -1) {
        /* The same spans, fed whole; never more than the bytes fed. */
        http_parse_reset(&c, head);
        c.span = on_span;
        c.span_ctx = &sc;
        if (feed(&c, &sc, copy, len) != whole || memcmp(sb.len, sc.len, sizeof(sb.len)) != 0 ||
            memcmp(sb.hash, sc.hash, sizeof(sb.hash)) != 0 || sc.len[0] + sc.len[1] > len)
            abort();
    }
    free(copy);
    return 0;
}
