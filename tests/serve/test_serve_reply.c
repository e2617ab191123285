/* What rafale serve answers, route by route (serve_reply.c), decided from
 * the target's bytes alone: never from a byte past them (an HTTP/2 :path
 * has no terminator, and the bytes after it are whatever the buffer held). */
#include "serve_int.h"
#include "../t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct reply answer_of(const char *target, size_t n)
{
    static struct serve s;
    static uint32_t rng = 1; /* one generator over the calls, as a thread has */
    struct reply rp;
    s.cfg.redirect_to = "http://example.com";
    serve_reply(&s, &rng, target, n, &rp);
    return rp;
}

static void routes(void)
{
    struct reply rp;
    /* "/" followed in memory by a 'c': not /close (it once was). */
    rp = answer_of("/close", 1);
    CHECK(rp.status == 200 && !rp.close && rp.blen == strlen("Hello, world\n"));
    rp = answer_of("/close", 6);
    CHECK(rp.status == 200 && rp.close);
    rp = answer_of("/closer", 7);
    CHECK(rp.status == 404 && !rp.close);
    rp = answer_of("/json?x", 5);
    CHECK(rp.status == 200 && strcmp(rp.ctype, "application/json") == 0);
    rp = answer_of("/bytes/1000", 11);
    CHECK(rp.kind == B_GEN_BYTES && rp.gen_len == 1000);
    rp = answer_of("/chunked/7", 10);
    CHECK(rp.kind == B_GEN_CHUNKED && rp.gen_len == 7);
    rp = answer_of("/bytes/99999999999", 18);
    CHECK(rp.status == 400);
    rp = answer_of("/status/503", 11);
    CHECK(rp.status == 503 && rp.kind == B_TEXT && strncmp(rp.text, "503 Service Unavailable", 23) == 0);
    /* One table of reason phrases (status.c), the metrics port's 414 in it. */
    rp = answer_of("/status/414", 11);
    CHECK(rp.status == 414 && strncmp(rp.text, "414 URI Too Long\n", 17) == 0);
    rp = answer_of("/status/299", 11);
    CHECK(rp.status == 299 && strncmp(rp.text, "299 Status\n", 11) == 0);
    rp = answer_of("/status/99", 10);
    CHECK(rp.status == 400);
    rp = answer_of("/delay/20", 9);
    CHECK(rp.kind == B_DELAY && rp.delay_us == 20000);
    {
        /* /delay/exp/5: exponential draws of mean 5 ms, in us. */
        double sum = 0;
        int i, below = 0;
        for (i = 0; i < 20000; i++) {
            rp = answer_of("/delay/exp/5", 12);
            sum += rp.delay_us;
            below += rp.delay_us < 3466; /* the law's median, 5 ms ln 2 */
        }
        CHECKF(fabs(sum / 20000 - 5000) < 150, "mean %.0f us", sum / 20000);
        CHECKF(abs(below - 10000) < 400, "%d of 20000 below the median", below);
    }
    rp = answer_of("/delay/exp/x", 12);
    CHECK(rp.status == 400);
    rp = answer_of("/redirect?to=/x&y=1", 19);
    CHECK(rp.status == 302 && rp.loclen == 2 && memcmp(rp.location, "/x", 2) == 0);
    rp = answer_of("/redirect", 9);
    CHECK(rp.status == 302 && rp.loclen == strlen("http://example.com"));
    rp = answer_of("/random", 7);
    CHECK(rp.status == 404); /* no --files */
}

int main(void)
{
    T_RUN(routes);
    T_END("test_serve_reply");
}
