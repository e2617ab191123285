/* The protocols' rows: each one's names and ALPN token, what its requests
 * in flight on a connection are, the options it takes and refuses, and a
 * row found by its name. */
#include "proto.h"
#include "../t.h"

#include <string.h>

static int eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static void http1_row(void)
{
    const struct proto *p = &proto_rows[PROTO_HTTP1];
    CHECK(eq(p->name, "http/1.1") && eq(p->alpn, "http/1.1") && eq(p->label, "HTTP/1.1"));
    /* The default: no option asks for it, and it is always built. */
    CHECK(p->option == NULL && p->missing == NULL && eq(p->advice, "try --http2"));
    CHECK(eq(p->in_flight, "pipelined") && p->codec == NULL && p->reset == NULL);
    CHECK(!p->quic && !p->fields && p->figures == COUNTERS_IN_HTTP2);
    CHECK((p->takes & TAKES_PIPELINE) && (p->takes & TAKES_FOLLOW) && (p->takes & TAKES_UNIX_SOCKET) &&
          (p->takes & TAKES_TLS12) && (p->takes & TAKES_CIPHERS));
    CHECK(!(p->takes & TAKES_STREAMS) && !(p->takes & TAKES_0RTT));
}

static void http2_row(void)
{
    const struct proto *p = &proto_rows[PROTO_HTTP2];
    CHECK(eq(p->name, "h2") && eq(p->alpn, "h2") && eq(p->label, "HTTP/2") && eq(p->option, "--http2"));
    CHECK(eq(p->advice, "drop --http2") && p->missing == NULL);
    CHECK(eq(p->in_flight, "streams") && eq(p->codec, "HPACK") && p->fields && !p->quic);
    CHECK((p->takes & TAKES_STREAMS) && (p->takes & TAKES_UNIX_SOCKET) && (p->takes & TAKES_TLS12) &&
          (p->takes & TAKES_CIPHERS));
    /* Multiplexed, not pipelined; no redirects followed on the connection. */
    CHECK(!(p->takes & TAKES_PIPELINE) && !(p->takes & TAKES_FOLLOW) && !(p->takes & TAKES_0RTT));
}

static void http3_row(void)
{
    const struct proto *p = &proto_rows[PROTO_HTTP3];
    CHECK(eq(p->name, "h3") && eq(p->alpn, "h3") && eq(p->label, "HTTP/3") && eq(p->title, "HTTP/3 over QUIC"));
    CHECK(eq(p->option, "--http3") && eq(p->advice, "drop --http3"));
    CHECK(eq(p->in_flight, "streams") && eq(p->codec, "QPACK") && p->fields && p->quic);
    CHECK(p->figures == COUNTERS_IN_HTTP3 && p->reset && strstr(p->reset, "ICMP port unreachable"));
    /* Over UDP with QUIC's own TLS 1.3: none of TCP's or OpenSSL's options. */
    CHECK(p->takes == (TAKES_STREAMS | TAKES_0RTT));
#ifdef RAFALE_HTTP3
    CHECK(p->missing == NULL);
#else
    CHECK(p->missing && strstr(p->missing, "libngtcp2-dev"));
#endif
}

static void every_row_is_whole_and_its_own(void)
{
    int i, j;
    for (i = 0; i < PROTO__COUNT; i++) {
        const struct proto *p = &proto_rows[i];
        CHECKF(p->name && p->alpn && p->label && p->title && p->advice && p->in_flight, "row %d", i);
        /* Only the default goes without an option. */
        CHECKF((p->option == NULL) == (i == 0), "row %d", i);
        for (j = 0; j < i; j++)
            CHECKF(!eq(p->name, proto_rows[j].name) && !eq(p->alpn, proto_rows[j].alpn), "rows %d and %d", j, i);
        /* A row that carries requests as fields compresses them. */
        CHECKF(!p->fields == !p->codec, "row %d", i);
    }
}

static void found_by_name(void)
{
    CHECK(proto_named("http/1.1") == &proto_rows[PROTO_HTTP1]);
    CHECK(proto_named("h2") == &proto_rows[PROTO_HTTP2]);
    CHECK(proto_named("h3") == &proto_rows[PROTO_HTTP3]);
    /* The result's name, not the label nor the option. */
    CHECK(proto_named("HTTP/2") == NULL && proto_named("--http2") == NULL && proto_named("") == NULL &&
          proto_named("h2c") == NULL && proto_named("H2") == NULL);
}

int main(void)
{
    T_RUN(http1_row);
    T_RUN(http2_row);
    T_RUN(http3_row);
    T_RUN(every_row_is_whole_and_its_own);
    T_RUN(found_by_name);
    T_END("proto");
}
