/* proto.h - the protocols a run can speak, as data: a row each (haproxy's
 * mux_proto_list, its muxes known by their ALPN token), with its names and
 * what it can do. The options that tie to a protocol are columns of its
 * row (takes), checked in one loop (config.c); the reports name the
 * protocol from its row; the client finds the session that speaks it
 * (session_ops) by the row's name. A new protocol is a row here, its
 * option (its flag is config.proto_asked[its row], options/opt.c), and its
 * session (a file of src/client/, named in engine.c's sessions[] and
 * client.h). */
#ifndef RAFALE_PROTO_H
#define RAFALE_PROTO_H

#include "counters.h"

/* The rows; the first is the default. */
enum proto_id { PROTO_HTTP1, PROTO_HTTP2, PROTO_HTTP3, PROTO__COUNT };

/* The options that not every protocol takes, a bit each (proto.takes). */
enum proto_takes {
    TAKES_PIPELINE = 1 << 0,    /* --pipeline N: N requests in flight, answered in order */
    TAKES_STREAMS = 1 << 1,     /* --streams N: N requests in flight at once, in any order (multiplexed) */
    TAKES_FOLLOW = 1 << 2,      /* --follow N: redirects followed on the connection */
    TAKES_UNIX_SOCKET = 1 << 3, /* --unix-socket: it runs over a stream socket (TCP) */
    TAKES_TLS12 = 1 << 4,       /* --tls-version 1.2 */
    TAKES_CIPHERS = 1 << 5,     /* --ciphers: OpenSSL's TLS over TCP */
    TAKES_0RTT = 1 << 6,        /* --http3-0rtt: requests in the first flight of a resumed handshake */
};

struct proto {
    const char *name;        /* the result's "protocol", and the name of its session (session_ops.name) */
    const char *alpn;        /* the protocol TLS offers in ALPN (RFC 7301), and the one the server must choose */
    const char *label;       /* "HTTP/2": in compare's tables, the headers line, messages */
    const char *title;       /* "HTTP/3 over QUIC": the text report's setup line */
    const char *option;      /* the option that asks for it ("--http2"), NULL for the default */
    const char *advice;      /* to try when a server refuses its ALPN ("drop --http2") */
    const char *missing;     /* left out of this build: what it needs to be built; NULL when it is built */
    const char *codec;       /* its header compression ("HPACK"), NULL for none */
    const char *in_flight;   /* what its requests in flight on a connection are: "streams", "pipelined" */
    const char *reset;       /* what a lost connection (ERR_RESET) means over it; NULL: TCP's (stats.c) */
    unsigned takes;          /* enum proto_takes */
    unsigned char figures;   /* enum counters_in: the result's object of its own figures, written always */
    unsigned char quic;      /* over QUIC (UDP, its own TLS 1.3), not TCP and OpenSSL */
    unsigned char fields;    /* requests go as header fields (plan_h2.c), not as HTTP/1.1's bytes */
};

extern const struct proto proto_rows[PROTO__COUNT];

/* The row whose name (a result's "protocol") is name, or NULL. */
const struct proto *proto_named(const char *name);

#endif
