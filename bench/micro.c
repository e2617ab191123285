/* bench/micro.c - make bench-micro: ns per parsed response and per
 * histogram record, the two things rafale does for every request. */
#include "clock.h"
#include "hist.h"
#include "http_parse.h"

#include <stdio.h>
#include <string.h>

static double per_op(uint64_t t0, uint64_t t1, uint64_t n)
{
    return (double)(t1 - t0) / (double)n;
}

int main(void)
{
    static const char *const resp[] = {
        "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Mon, 30 Nov 2026 14:00:00 GMT\r\n"
        "Content-Type: text/plain\r\nContent-Length: 13\r\nConnection: keep-alive\r\n\r\nHello, world\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
        "1a\r\nabcdefghijklmnopqrstuvwxyz\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n",
    };
    static const char *const name[] = { "typical keep-alive response (nginx headers)", "chunked response" };
    const uint64_t n = 2000000;
    struct hist h;
    uint64_t i, t0, t1, sink = 0, x = 88172645463325252ULL;
    size_t k;

    for (k = 0; k < 2; k++) {
        size_t len = strlen(resp[k]);
        struct hp p = { 0 }; /* (sink, loc, span: none) */
        t0 = clock_ns();
        for (i = 0; i < n; i++) {
            http_parse_reset(&p, 0);
            sink += (uint64_t)http_parse_feed(&p, resp[k], len);
        }
        t1 = clock_ns();
        printf("parse %-45s %6.1f ns/response (%zu bytes, %.2f ns/byte)\n", name[k], per_op(t0, t1, n), len,
               per_op(t0, t1, n) / (double)len);
    }
    hist_init(&h);
    t0 = clock_ns();
    for (i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        hist_record(&h, 20000 + (x & 0xfffff));
    }
    t1 = clock_ns();
    printf("hist_record                                        %6.1f ns/record\n", per_op(t0, t1, n));
    t0 = clock_ns();
    for (i = 0; i < 1000; i++)
        sink += (uint64_t)hist_percentile(&h, 99.9);
    t1 = clock_ns();
    printf("hist_percentile (p99.9 of %llu samples)           %6.0f ns\n", (unsigned long long)h.total,
           per_op(t0, t1, 1000));
    hist_fini(&h);
    return sink == 42; /* keeps the loops from being optimized away */
}
