/* fuzz/fuzz_serve_h3.c - libFuzzer entry point for `rafale serve`'s HTTP/3
 * side (serve_h3.c on nghttp3's server session), without a socket or a
 * handshake: its QUIC connection is ngtcp2's, made but never connected, so
 * what serve_h3.c asks of it about streams is refused as for a stream it
 * does not know. The input is a list of stream chunks, each [selector]
 * [length] [bytes]: the selector's low 3 bits name the client's control
 * stream (0), QPACK encoder (1) and decoder (2) streams, or request streams
 * 0, 4, 8, 12 and 16 (3-7); its high bit ends the stream. After each chunk
 * what the server has to send is drained and acknowledged (bodies read
 * byte by byte), and time moves on for /delay. Nothing may crash, leak
 * (ASan) or loop; the output must stay bounded. */
#include "serve_h3_offline.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* What the session has to send, taken and acknowledged. Returns -1 when
 * the session failed. */
static int drain(struct sh3_conn *c)
{
    size_t total = 0;
    for (;;) {
        nghttp3_vec v[16];
        int64_t sid = -1;
        int fin = 0;
        nghttp3_ssize n = nghttp3_conn_writev_stream(c->hc, &sid, &fin, v, 16), i;
        size_t len = 0, k;
        unsigned sum = 0;
        if (n < 0)
            return -1;
        if (sid < 0)
            return 0;
        for (i = 0; i < n; i++) {
            for (k = 0; k < v[i].len; k++)
                sum += v[i].base[k]; /* every byte readable (ASan) */
            len += v[i].len;
        }
        (void)sum;
        total += len;
        if (total > (size_t)200 << 20)
            abort(); /* 64 MiB bodies asked for in a small input are fine, endless output is not */
        if (n == 0 && !fin)
            return 0;
        if (nghttp3_conn_add_write_offset(c->hc, sid, len) != 0 || nghttp3_conn_add_ack_offset(c->hc, sid, len) != 0)
            return -1;
    }
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static struct serve s;
    static struct sthread t;
    static struct sh3_ep ep;
    static uint8_t *gen;
    static const int64_t ids[8] = { 2, 6, 10, 0, 4, 8, 12, 16 };
    struct sh3_conn c;
    uint64_t now = 1000000000;
    size_t at = 0;
    int used = 0, k;

    if (gen == NULL) {
        size_t half = 63000 + 64 * 1024, i;
        if ((gen = malloc(2 * half)) == NULL)
            return 0;
        for (i = 0; i < half; i++) {
            gen[i] = (uint8_t)SERVE_PATTERN[i % SERVE_PATTERN_LEN];
            gen[half + i] = (uint8_t)SERVE_PATTERN[(i % 1000) % SERVE_PATTERN_LEN];
        }
        s.cfg.redirect_to = "http://example.com";
        s.cfg.h2_streams = 16;
        t.s = &s;
        t.rng = 1;
        strcpy(t.date, "Mon, 30 Nov 2026 00:00:00 GMT");
        ep.t = &t;
        ep.gen = gen;
        offline_callbacks(&ep);
    }
    if (offline_session(&ep, &c, now) != 0)
        goto done;
    while (at + 2 <= size) {
        int sel = data[at] & 7, fin = (data[at] & 0x80) != 0;
        size_t len = data[at + 1];
        nghttp3_ssize r;
        at += 2;
        if (len > size - at)
            len = size - at;
        if (sel >= 3)
            used |= 1 << sel;
        c.now = now;
        r = nghttp3_conn_read_stream(c.hc, ids[sel], data + at, len, fin);
        at += len;
        if (r < 0 || drain(&c) != 0)
            goto done;
        now += 5000000;
        serve_h3_tick(&c, now);
        if (drain(&c) != 0)
            goto done;
    }
    /* Every /delay answer, however long (600 s at most). */
    now += 601ull * 1000000000;
    serve_h3_tick(&c, now);
    if (drain(&c) == 0 && serve_h3_deadline(&c) <= now)
        abort();
    /* The streams close, as ngtcp2 says once both sides are done. */
    for (k = 3; k < 8; k++)
        if (used & (1 << k))
            nghttp3_conn_close_stream(c.hc, ids[k], NGHTTP3_H3_NO_ERROR);
done:
    offline_free(&c);
    return 0;
}
