/* config_finish: every rule that refuses a combination of options, with its
 * exact words, and the same options in a combination that goes (silent);
 * what it settles (POST with a body, -c lowered to -n, the threads, the
 * default duration, the stages' duration and top); config_depth, the
 * requests a connection keeps in flight, per protocol. The options go
 * through the option table, as a command line's do. */
#include "config.h"
#include "opt.h"
#include "targets.h"
#include "../t.h"

#include <stdio.h>
#include <string.h>

/* cfg from a command line (options and URLs, space-separated). Returns 0,
 * or -1 when the line itself is refused (err says why). */
static int parse(const char *line, struct config *cfg, char *err, size_t errlen)
{
    char buf[512], *argv[40], *tok, *save = NULL;
    struct opt_dst d = { cfg, NULL, NULL, NULL };
    int argc = 0, first, i;
    config_defaults(cfg);
    snprintf(buf, sizeof(buf), "rafale %s", line);
    for (tok = strtok_r(buf, " ", &save); tok && argc < 39; tok = strtok_r(NULL, " ", &save))
        argv[argc++] = tok;
    argv[argc] = NULL;
    if (opt_parse_argv(argc, argv, OPT_RUN, &d, &first, err, errlen) != OPT_OK)
        return -1;
    for (i = first; i < argc; i++)
        if (targets_add_url(cfg, argv[i], err, errlen) != 0)
            return -1;
    return 0;
}

/* Each rule: a line it refuses, in its words; then a line with the same
 * option that it lets go. */
static void refused_in_its_words(void)
{
    static const struct {
        const char *line, *want;
    } cases[] = {
        { "-H Content-Length:3 -b abcd http://127.0.0.1:1/",
          "--header 'Content-Length:3': Content-Length: 3 but the body is 4 bytes: the server would read the difference "
          "from the next request; write 4, or remove this header (rafale then sets it)" },
        { "--stages 1s:10 -d 5s http://127.0.0.1:1/", "--stages sets the duration (their sum): drop -d" },
        { "--stages 1s:10 --warmup 1s http://127.0.0.1:1/",
          "--stages and --warmup do not go together: make the first stage the warm-up" },
        { "--stages 1s:10c -R 5 http://127.0.0.1:1/",
          "stages of connections ('30s:200c') are closed loop: drop -R, or give rates" },
        { "--stages 1s:0c http://127.0.0.1:1/", "--stages: at least one stage needs a connection" },
        { "--stages 1s:0 http://127.0.0.1:1/", "--stages: every rate is 0" },
        { "--think 1s -R 10 http://127.0.0.1:1/",
          "--think is for a closed loop: with -R the schedule decides when requests go" },
        { "--key /dev/null https://127.0.0.1:1/", "--key is the private key of a --cert: give --cert too" },
        { "--metrics-linger 1s http://127.0.0.1:1/",
          "--metrics-linger goes with --metrics-listen: it keeps that port answering" },
        { "--pass x https://127.0.0.1:1/",
          "--pass and --key-pass give the pass phrase of a --cert's key: give --cert too" },
        { "--insecure http://127.0.0.1:1/", "--insecure is for https:// URLs and every URL here is http://" },
        { "--abort-on-fail http://127.0.0.1:1/",
          "--abort-on-fail stops a run when its SLO is lost: give --slo too" },
        { "--max-connections 20 http://127.0.0.1:1/",
          "--max-connections goes with -R: a closed loop never falls behind a schedule" },
        { "--max-connections 5 -c 10 -R 100 http://127.0.0.1:1/", "--max-connections 5 is below -c 10" },
        { "--pipeline 4 --close http://127.0.0.1:1/", "--pipeline needs keep-alive: it cannot go with --close" },
        { "--http3-0rtt https://127.0.0.1:1/",
          "--http3-0rtt sends requests with a resumed QUIC handshake: it needs --http3, and not --no-tls-resume" },
        { "--http2 --http3-0rtt https://127.0.0.1:1/",
          "--http3-0rtt sends requests with a resumed QUIC handshake: it needs --http3, and not --no-tls-resume" },
        { "--http3 --http3-0rtt --no-tls-resume https://127.0.0.1:1/",
          "--http3-0rtt sends requests with a resumed QUIC handshake: it needs --http3, and not --no-tls-resume" },
        { "--http2 --http3 https://127.0.0.1:1/", "--http2 and --http3 both: choose one" },
        { "--http3 --unix-socket /tmp/s https://127.0.0.1:1/",
          "--unix-socket is for TCP: --http3 speaks QUIC over UDP to the URL's address" },
        { "--http3 --tls-version 1.2 https://127.0.0.1:1/", "--tls-version 1.2 with --http3: QUIC uses TLS 1.3 only" },
        { "--http3 --ciphers HIGH https://127.0.0.1:1/",
          "--ciphers is OpenSSL's list for TLS over TCP: --http3's QUIC uses TLS 1.3's AEADs, chosen with the server" },
        { "--http3 --follow 2 https://127.0.0.1:1/",
          "--follow works over HTTP/1.1 only so far: drop --http3 or --follow" },
        { "--http2 --follow 2 http://127.0.0.1:1/",
          "--follow works over HTTP/1.1 only so far: drop --http2 or --follow" },
        { "--follow 2 --pipeline 4 http://127.0.0.1:1/",
          "--follow waits for each answer: it does not go with --pipeline" },
        { "--http2 --pipeline 4 http://127.0.0.1:1/",
          "--pipeline is HTTP/1.1's: with --http2 or --http3, use --streams N (concurrent streams per connection)" },
        { "--http3 --pipeline 4 https://127.0.0.1:1/",
          "--pipeline is HTTP/1.1's: with --http2 or --http3, use --streams N (concurrent streams per connection)" },
        { "--streams 4 http://127.0.0.1:1/",
          "--streams goes with --http2 or --http3 (with HTTP/1.1, --pipeline N keeps N requests in flight)" },
        { "--http2 --streams 4 --close http://127.0.0.1:1/",
          "--streams 4 with --close: one request per connection leaves nothing to multiplex" },
        { "--source 127.0.0.1 --unix-socket /tmp/s http://127.0.0.1:1/",
          "--source picks local IP addresses: it does not go with --unix-socket" },
        { "--source 127.0.0.1 http://[::1]:1/", "--source takes IPv4 addresses; the URL is IPv6" },
    };
    static const char *const fine[] = {
        "-H Content-Length:4 -b abcd http://127.0.0.1:1/",
        "--stages 1s:10,1s:20 http://127.0.0.1:1/",
        "--stages 1s:10c http://127.0.0.1:1/",
        "--think 1s http://127.0.0.1:1/",
        "--cert /dev/null --key /dev/null --pass x https://127.0.0.1:1/",
        "--metrics-listen 127.0.0.1:0 --metrics-linger 1s http://127.0.0.1:1/",
        "--insecure http://127.0.0.1:1/ https://127.0.0.1:2/",
        "--json - --csv out.csv http://127.0.0.1:1/",
        "--abort-on-fail --slo p99<1s http://127.0.0.1:1/",
        "--max-connections 20 -c 10 -R 100 http://127.0.0.1:1/",
        "--pipeline 4 --follow 0 http://127.0.0.1:1/",
        "--http3 --http3-0rtt https://127.0.0.1:1/",
        "--http2 --unix-socket /tmp/s --tls-version 1.2 --ciphers HIGH https://127.0.0.1:1/",
        "--http3 --tls-version 1.3 https://127.0.0.1:1/",
        "--follow 2 http://127.0.0.1:1/",
        "--http2 --streams 4 http://127.0.0.1:1/",
        "--http3 --streams 4 https://127.0.0.1:1/",
        "--streams 1 --pipeline 4 http://127.0.0.1:1/",
        "--http2 --close http://127.0.0.1:1/",
        "--source 127.0.0.1 http://127.0.0.1:1/",
    };
    struct config c;
    char err[256], notes[256];
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECKF(parse(cases[i].line, &c, err, sizeof(err)) == 0, "%s: %s", cases[i].line, err);
        err[0] = '\0';
        CHECKF(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == -1 && strcmp(err, cases[i].want) == 0,
               "%s: '%s'", cases[i].line, err);
        config_free(&c);
    }
    for (i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
        CHECKF(parse(fine[i], &c, err, sizeof(err)) == 0, "%s: %s", fine[i], err);
        CHECKF(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0, "%s: refused: %s", fine[i], err);
        config_free(&c);
    }
}

/* A build without HTTP/3 says what it needs; this one takes --http3. */
static void http3_built_or_said(void)
{
    struct config c;
    char err[256], notes[256];
    CHECK(parse("--http3 https://127.0.0.1:1/", &c, err, sizeof(err)) == 0);
#ifdef RAFALE_HTTP3
    CHECKF(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0, "%s", err);
#else
    CHECKF(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == -1 &&
               strcmp(err, "--http3: this rafale was built without HTTP/3 (it needs libngtcp2-dev, "
                           "libngtcp2-crypto-gnutls-dev and libnghttp3-dev at build time: make deps, then make)") == 0,
           "%s", err);
#endif
    config_free(&c);
}

/* What config_finish settles beside its refusals. */
static void settled(void)
{
    struct config c;
    char err[256], notes[256];
    CHECK(parse("-b x http://127.0.0.1:1/", &c, err, sizeof(err)) == 0);
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && strcmp(c.method, "POST") == 0 &&
          c.duration_ns == 10000000000ULL && notes[0] == '\0');
    config_free(&c);
    CHECK(parse("-m PUT -b x http://127.0.0.1:1/", &c, err, sizeof(err)) == 0);
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && strcmp(c.method, "PUT") == 0);
    config_free(&c);
    CHECK(parse("-n 3 -c 10 -t 8 http://127.0.0.1:1/", &c, err, sizeof(err)) == 0);
    CHECKF(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && c.connections == 3 && c.threads == 3 &&
               c.duration_ns == 0 && strcmp(notes, "-n 3 is below -c 10: using 3 connections") == 0,
           "%s", notes);
    config_free(&c);
    CHECK(parse("--stages 1s:10,2s:30 -R 20 http://127.0.0.1:1/", &c, err, sizeof(err)) == 0);
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && c.duration_ns == 3000000000ULL &&
          c.rate == 30 && c.stage_start == 20);
    config_free(&c);
    CHECK(parse("--stages 1s:5c,1s:2c -c 8 http://127.0.0.1:1/", &c, err, sizeof(err)) == 0);
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && c.connections == 8 && c.stage_start == 8);
    config_free(&c);
    /* --order with URLs alone walks them as written; a targets file's
     * order is sequential unless told. */
    CHECK(parse("--order random http://127.0.0.1:1/a http://127.0.0.1:1/b", &c, err, sizeof(err)) == 0);
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && c.norder == 2 && c.order[0] == 0 &&
          c.order[1] == 1 && c.order_mode == ORDER_RANDOM);
    config_free(&c);
}

/* The requests a connection keeps in flight, and the protocol's ALPN for
 * TLS over TCP. */
static void depth_per_protocol(void)
{
    static const struct {
        const char *line;
        uint32_t depth;
    } cases[] = {
        { "http://127.0.0.1:1/", 1 },
        { "--pipeline 8 http://127.0.0.1:1/", 8 },
        { "--http2 http://127.0.0.1:1/", 1 },
        { "--http2 --streams 16 http://127.0.0.1:1/", 16 },
        { "--http3 --streams 32 https://127.0.0.1:1/", 32 },
        { "--http2 --streams 1 --close http://127.0.0.1:1/", 1 },
    };
    struct config c;
    char err[256], notes[256];
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK(parse(cases[i].line, &c, err, sizeof(err)) == 0);
        CHECKF(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && config_depth(&c) == cases[i].depth,
               "%s: %u", cases[i].line, config_depth(&c));
        config_free(&c);
    }
    CHECK(parse("--http2 https://127.0.0.1:1/", &c, err, sizeof(err)) == 0);
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && c.tls.alpn && strcmp(c.tls.alpn, "h2") == 0);
    config_free(&c);
    CHECK(parse("https://127.0.0.1:1/", &c, err, sizeof(err)) == 0);
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && strcmp(c.tls.alpn, "http/1.1") == 0);
    config_free(&c);
}

int main(void)
{
    T_RUN(refused_in_its_words);
    T_RUN(http3_built_or_said);
    T_RUN(settled);
    T_RUN(depth_per_protocol);
    T_END("test_config");
}
