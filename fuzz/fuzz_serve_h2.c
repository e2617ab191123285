/* fuzz/fuzz_serve_h2.c - libFuzzer entry point for `rafale serve`'s HTTP/2
 * side (serve_h2.c on nghttp2's server session): `make fuzz` (clang). The
 * input is what a client sends after the preface, cut in two at a point
 * taken from its last byte; between the parts and after them, the output is
 * drained, the clock moves on and /delay answers fall due. Nothing may crash,
 * leak (ASan) or loop; the output must stay bounded. */
#include "serve_h2.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* Drains what the session has to send; returns -1 when it is over. */
static int drain(struct sh2 *h)
{
    const uint8_t *p;
    ssize_t k;
    size_t total = 0;
    while ((k = serve_h2_send(h, &p)) > 0) {
        total += (size_t)k;
        /* Bodies are produced only as asked; 64 MiB bodies asked for in a
         * small input are fine, endless output is not. */
        if (total > (size_t)200 << 20)
            abort();
    }
    return k < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static struct serve s;
    static uint32_t rng = 1;
    static uint64_t requests;
    struct sh2_env env = { &s, "Mon, 30 Nov 2026 00:00:00 GMT", &rng, &requests, NULL, "-", "-" };
    struct sh2 *h;
    size_t len, cut;
    uint64_t now = 1000000000;

    s.cfg.redirect_to = "http://example.com";
    if (size < 1)
        return 0;
    len = size - 1;
    cut = (size_t)data[len] * len / 256;
    h = serve_h2_new(&env, 16);
    if (h == NULL)
        return 0;
    if (serve_h2_recv(h, (const uint8_t *)SH2_PREFACE, SH2_PREFACE_LEN, now) == 0 && drain(h) == 0 &&
        serve_h2_recv(h, data, cut, now) == 0 && drain(h) == 0) {
        now += 5000000;
        serve_h2_tick(h, now);
        if (drain(h) == 0 && serve_h2_recv(h, data + cut, len - cut, now) == 0 && drain(h) == 0) {
            /* Every /delay answer, however long (600 s at most). */
            now += 601ull * 1000000000;
            serve_h2_tick(h, now);
            drain(h);
            if (serve_h2_deadline(h) <= now)
                abort();
        }
    }
    serve_h2_free(h);
    return 0;
}
