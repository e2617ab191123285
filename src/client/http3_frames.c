/* http3_frames.c - QPACK's saving, as HPACK's is shown over HTTP/2: the
 * bytes of each response's field sections as they came (the payloads of its
 * HEADERS frames, RFC 9114 section 7.2.2), read from the request stream's
 * bytes as ngtcp2 hands them over, in order, beside nghttp3, which does not
 * tell them. A frame is a type and a length, two variable-length integers
 * (RFC 9000 section 16), then its payload; any of them may be split between
 * two deliveries. */
#include "http3.h"

/* Bytes of the variable-length integer whose first byte is b. */
static unsigned varint_len(uint8_t b)
{
    return 1u << (b >> 6);
}

uint64_t http3_frames_headers(struct h3_frames *f, const uint8_t *p, size_t n)
{
    uint64_t headers = 0;
    while (n > 0) {
        if (f->phase == 2) {
            size_t k = f->left < n ? (size_t)f->left : n;
            if (f->type == 0x01)
                headers += k;
            f->left -= k;
            p += k;
            n -= k;
            if (f->left == 0)
                f->phase = 0;
            continue;
        }
        /* A type (phase 0) or a length (phase 1), byte by byte. */
        if (f->vlen == 0) {
            f->vneed = (uint8_t)varint_len(*p);
            f->value = *p & 0x3f;
        } else {
            f->value = (f->value << 8) | *p;
        }
        f->vlen++;
        p++;
        n--;
        if (f->vlen < f->vneed)
            continue;
        f->vlen = 0;
        if (f->phase == 0) {
            f->type = f->value;
            f->phase = 1;
        } else {
            f->left = f->value;
            f->phase = f->left ? 2 : 0;
        }
    }
    return headers;
}
