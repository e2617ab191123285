/* proto.c - the protocols' rows. */
#include "proto.h"

#include <stddef.h>
#include <string.h>

#ifdef RAFALE_HTTP3
#define H3_MISSING NULL
#else
#define H3_MISSING "it needs libngtcp2-dev, libngtcp2-crypto-gnutls-dev and libnghttp3-dev at build time: make deps, then make"
#endif

const struct proto proto_rows[PROTO__COUNT] = {
    [PROTO_HTTP1] = { .name = "http/1.1", .alpn = "http/1.1", .label = "HTTP/1.1", .title = "HTTP/1.1",
                      .advice = "try --http2", .in_flight = "pipelined",
                      /* its results have always carried an "http2" object, empty */
                      .figures = COUNTERS_IN_HTTP2,
                      .takes = TAKES_PIPELINE | TAKES_FOLLOW | TAKES_UNIX_SOCKET | TAKES_TLS12 | TAKES_CIPHERS },
    [PROTO_HTTP2] = { .name = "h2", .alpn = "h2", .label = "HTTP/2", .title = "HTTP/2", .option = "--http2",
                      .advice = "drop --http2", .fields = 1,
                      .in_flight = "streams", .figures = COUNTERS_IN_HTTP2, .codec = "HPACK",
                      .takes = TAKES_STREAMS | TAKES_UNIX_SOCKET | TAKES_TLS12 | TAKES_CIPHERS },
    /* QUIC runs over UDP to the URL's address, with TLS 1.3's own AEADs
     * (RFC 9001 section 4.2): TCP's and OpenSSL's settings cannot apply. */
    [PROTO_HTTP3] = { .name = "h3", .alpn = "h3", .label = "HTTP/3", .title = "HTTP/3 over QUIC", .option = "--http3",
                      .advice = "drop --http3", .missing = H3_MISSING, .quic = 1, .fields = 1,
                      .in_flight = "streams", .figures = COUNTERS_IN_HTTP3, .codec = "QPACK",
                      /* http3_quic.c's reset is the ICMP error a datagram met */
                      .reset = "the connection was lost while the request was in flight: an ICMP port unreachable "
                               "came back (nothing listens on the server's UDP port any more), or the socket failed "
                               "otherwise",
                      .takes = TAKES_STREAMS | TAKES_0RTT },
};

const struct proto *proto_named(const char *name)
{
    int i;
    for (i = 0; i < PROTO__COUNT; i++)
        if (strcmp(proto_rows[i].name, name) == 0)
            return &proto_rows[i];
    return NULL;
}
