/* test_http3_frames.c - QPACK's side of the saving (http3_frames.c): the
 * HEADERS payloads of a response stream are counted whole, whatever the
 * points the stream is cut at, and nothing else is: DATA, an unknown frame
 * type, one-, two- and four-byte integers, an empty frame. */
#include "../t.h"
#include "http3.h"

#include <string.h>

static const uint8_t stream[] = {
    0x01, 0x05, 'a', 'b', 'c', 'd', 'e',           /* HEADERS, 5 bytes */
    0x00, 0x40, 0x03, 'x', 'y', 'z',               /* DATA, its length in two bytes */
    0x21, 0x00,                                    /* a reserved type (0x21), empty */
    0x40, 0x01, 0x80, 0x00, 0x00, 0x02, 'q', 'r',  /* HEADERS again: a two-byte type, a four-byte length */
    0x00, 0x01, '!',                               /* DATA */
    0x01, 0x03, 'f', 'o', 'o',                     /* trailers: HEADERS, 3 bytes */
};

static uint64_t count(size_t cut1, size_t cut2)
{
    struct h3_frames f;
    uint64_t n;
    memset(&f, 0, sizeof(f));
    n = http3_frames_headers(&f, stream, cut1);
    n += http3_frames_headers(&f, stream + cut1, cut2 - cut1);
    n += http3_frames_headers(&f, stream + cut2, sizeof(stream) - cut2);
    return n;
}

static void split_anywhere(void)
{
    size_t i, j, wrong = 0;
    struct h3_frames f;
    uint64_t n = 0;
    for (i = 0; i <= sizeof(stream); i++)
        for (j = i; j <= sizeof(stream); j++)
            wrong += count(i, j) != 5 + 2 + 3;
    CHECKF(wrong == 0, "%zu cuts counted wrong", wrong);
    memset(&f, 0, sizeof(f));
    for (i = 0; i < sizeof(stream); i++)
        n += http3_frames_headers(&f, stream + i, 1);
    CHECK(n == 10 && f.phase == 0 && f.vlen == 0); /* byte by byte, and at a frame's end after */
}

int main(void)
{
    T_RUN(split_anywhere);
    T_END("http3_frames");
}
