/* http3.h - what the two halves of the HTTP/3 client share, private to
 * src/client/: http3.c (the session: requests as streams, nghttp3) and
 * http3_quic.c (its transport: a connected UDP socket, ngtcp2 with GnuTLS,
 * the packets and their timer). Only these files name ngtcp2, nghttp3 or
 * GnuTLS, so that their 1.x API touches them alone. */
#ifndef RAFALE_HTTP3_H
#define RAFALE_HTTP3_H

#include "client.h"

#include <gnutls/gnutls.h>
#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

#define H3_BATCH 16           /* datagrams per sendmmsg and recvmmsg */
#define H3_SLOT 1500          /* room for a datagram we send (ngtcp2 0.12's PMTUD stops at 1452) */
#define H3_RSLICE 4096        /* room for one we receive: our max_udp_payload_size */
#define H3_WBUF (64 * 1024)   /* the worker's wbuf: a batch of datagrams, then a request's cookie field */

/* What the plan's connections share (plan.h3). */
struct h3_plan {
    gnutls_certificate_credentials_t cred;
    ngtcp2_callbacks qcb;
    nghttp3_callbacks hcb;
    int verify;               /* check the server's certificate (not --insecure) */
};

struct h3_body;

/* Where a response stream's frames stand (http3_frames.c). */
struct h3_frames {
    uint64_t value, type, left;
    uint8_t phase;            /* 0: its type, 1: its length, 2: its payload */
    uint8_t vlen, vneed;      /* bytes of the integer read, and its length */
};

/* A connection's HTTP/3 state, kept across its reconnects. */
struct h3 {
    struct conn *c;
    struct loop_io io;        /* its UDP socket's events (not conn.c's) */
    struct timer qtimer;      /* ngtcp2's expiry: loss detection, ACK delay, pacing, idle */
    ngtcp2_conn *qc;
    nghttp3_conn *hc;
    gnutls_session_t tls;
    gnutls_datum_t ticket;    /* the last session ticket, to resume with (TLS 1.3 tickets are for one use) */
    ngtcp2_transport_params early_params; /* the last server's, for 0-RTT (http3_early.c) */
    uint8_t have_params;
    uint8_t early;            /* 0-RTT: 1 its key is there, 2 requests went early, 3 refused */
    ngtcp2_crypto_conn_ref ref;
    ngtcp2_path_storage ps;
    uint64_t now;             /* when the packets being processed arrived */
    /* recvmmsg's room for each datagram's SO_TIMESTAMPING (rxstamp.h),
     * used when c->stamping: the kernel's arrival of each datagram. */
    union {
        char b[CMSG_SPACE(sizeof(struct scm_timestamping))];
        struct cmsghdr align;
    } ctl[H3_BATCH];
    int64_t goaway_id;        /* the server's GOAWAY: streams from this one were not processed; -1 before */
    int done;                 /* responses ended while reading */
    uint32_t completed;       /* responses ended on this connection */
    uint8_t handshaken;       /* 1: ngtcp2 said the handshake completed; 2: the connection is up */
    uint8_t more_streams;     /* the server raised its stream limit: unsent requests may go */
    uint64_t sent, recv, lost; /* this connection's datagrams, and packets declared lost */
    /* Datagrams the socket did not take yet (sendmmsg said EAGAIN). */
    uint8_t *pend;
    uint16_t pend_len[H3_BATCH];
    uint32_t npend, pend_first;
    /* Templated bodies ngtcp2 may still send (http3_body.c); body[i] is
     * slot i's while its stream is the slot's. */
    struct h3_body *held, *spare;
    const char **body;
    struct h3_frames *frames; /* slot i's response stream, to count its field sections' bytes */
    nghttp3_nv *nv;           /* a request's fields: room for the most any target has, and a cookie */
};

/* c's HTTP/3 state (conn.ctx). */
static inline struct h3 *h3_of(const struct conn *c)
{
    return c->ctx;
}

/* http3_quic.c */
/* Fills the transport's callbacks (the crypto ones from ngtcp2_crypto). */
void http3_quic_callbacks(ngtcp2_callbacks *cb);
/* Opens c's UDP socket and QUIC connection, sends its first flight. Returns
 * 0, or -1 when it failed the connection. */
int http3_quic_open(struct conn *c, uint64_t now);
/* Writes what ngtcp2 and nghttp3 have to send, then sets the timer.
 * Returns 0, or -1 when the connection failed (and was closed). */
int http3_quic_flush(struct conn *c);
/* Reads every datagram waiting. Returns 0, or -1 when it failed. */
int http3_quic_input(struct conn *c);
/* ngtcp2 said liberr: the connection is over; its requests fail, named. */
void http3_quic_lost(struct conn *c, int liberr, uint64_t now);
/* The handshake is done: did the server choose h3 (ALPN)? Returns 0, or
 * -1 when it did not: the run ends (the worker's error says why). */
int http3_quic_alpn(struct conn *c);
/* Closes it with H3_NO_ERROR (RFC 9114 section 5.2), then the socket. */
void http3_quic_goodbye(struct conn *c);
/* Frees the QUIC connection and its TLS session (the socket is conn.c's). */
void http3_quic_free(struct h3 *h, uint64_t now);
/* "H3_REQUEST_REJECTED (0x10b)": an HTTP/3 or QUIC error code's name. */
const char *http3_quic_code_name(int app, uint64_t code);

/* http3_early.c (0-RTT) */
/* Its ngtcp2 callbacks: the 0-RTT key, the server's refusal. */
void http3_early_callbacks(ngtcp2_callbacks *cb);
/* A new QUIC connection: the last server's parameters, when 0-RTT may go. */
void http3_early_setup(struct conn *c);
/* The handshake is done: its parameters remembered, the early data's fate
 * told and counted. */
void http3_early_done(struct conn *c, uint64_t now);

/* http3_frames.c */
/* n more bytes of a response stream: how many of them are HEADERS frames'
 * payloads (QPACK's encoded field sections). */
uint64_t http3_frames_headers(struct h3_frames *f, const uint8_t *p, size_t n);

/* http3_body.c */
/* A copy of a templated body (len bytes of src, room at most) for stream
 * id, kept until http3_body_done(id). NULL when out of memory. */
const char *http3_body_take(struct h3 *h, int64_t id, const char *src, size_t len, size_t room);
/* ngtcp2 closed stream id: its body, if any, may be reused. */
void http3_body_done(struct h3 *h, int64_t id);
/* The QUIC connection is gone: every body may be reused. */
void http3_body_all_done(struct h3 *h);
/* Frees them all (the connection goes away for good). */
void http3_body_free(struct h3 *h);

/* (Calls go one way, http3.c -> http3_quic.c: the session sets the
 * socket's handler, h3.io, and ngtcp2's callbacks that reach HTTP/3.) */

#endif
