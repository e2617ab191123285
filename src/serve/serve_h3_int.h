/* serve_h3_int.h - what serve_h3.c (HTTP/3 on nghttp3: streams and
 * answers), serve_h3_quic.c (QUIC on ngtcp2: the UDP socket, connections,
 * packets, timers, TLS) and serve_h3_cid.c (connection IDs to connections)
 * share: private to src/serve/. */
#ifndef RAFALE_SERVE_H3_INT_H
#define RAFALE_SERVE_H3_INT_H

#include "serve_conn.h"
#include "serve_h3.h"
#include "serve_stream.h"

#include <gnutls/gnutls.h>
#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>

#define SH3_CIDLEN 18          /* our connection IDs' length */
#define SH3_BATCH 16           /* datagrams per recvmmsg and sendmmsg */
#define SH3_SLOT 1500          /* room for a datagram we send */
#define SH3_RSLICE 4096        /* room for one we receive: our max_udp_payload_size */
#define SH3_MAX_CONNS 10000    /* QUIC connections a thread holds; more Initials are dropped */
#define SH3_RETRY_ABOVE 256    /* handshakes under way a thread past which an Initial must come back with a Retry's token */
#define SH3_TOKEN_TTL (10 * NGTCP2_SECONDS) /* how long a Retry's token is good for */


/* One QUIC connection and its HTTP/3 session. */
struct sh3_conn {
    struct sh3_ep *ep;
    ngtcp2_conn *qc;
    nghttp3_conn *hc;             /* made once the handshake is done */
    gnutls_session_t tls;
    ngtcp2_crypto_conn_ref ref;
    ngtcp2_path_storage ps;       /* ours and the client's address */
    ngtcp2_cid odcid;             /* the client's first Destination CID, routed to us too */
    struct timer timer;           /* ngtcp2's expiry, or the next /delay answer */
    struct serve_streams streams; /* its request streams (serve_stream.h) */
    uint64_t now;
    int64_t max_sid;              /* the highest request stream seen, or -1 */
    int64_t goaway_id;            /* our GOAWAY's (after /close): streams from it are refused, or -1 */
    uint64_t h3_error;            /* the client broke HTTP/3: our CONNECTION_CLOSE's code, or 0 */
    uint64_t reset_t;             /* rapid reset's bucket (serve_h3.c): when it was last filled, 0 before */
    uint32_t resets_left;
    uint32_t nroutes;             /* connection IDs routed to it (serve_h3_cid.c) */
    uint8_t dead;                 /* freed once the batch of datagrams is done */
    uint8_t handshaking;          /* counted in its endpoint's nhandshakes */
    uint8_t dirty;                /* on the batch's list: write after it */
    struct sh3_conn *next_dirty;
    char peer[48];                /* for the access log */
};

/* A route from a connection ID to its connection. */
struct sh3_route {
    uint8_t len;
    uint8_t id[NGTCP2_MAX_CIDLEN];
    struct sh3_conn *conn;        /* NULL: empty */
};

/* A thread's QUIC endpoint. */
struct sh3_ep {
    struct sthread *t;
    int fd;
    struct loop_io io;
    struct sockaddr_storage local;
    socklen_t local_len;
    ngtcp2_callbacks qcb;
    nghttp3_callbacks hcb;
    struct sh3_route *routes;     /* open addressing, a power of two */
    uint32_t nroutes, caproutes;
    uint32_t nconns;
    uint32_t nhandshakes;         /* connections whose handshake is not done */
    uint8_t *sbuf;                /* SH3_BATCH datagrams being sent */
    uint8_t *gen;                 /* pattern bytes for /bytes and /chunked (read-only once made) */
    struct sh3_conn *dirty;
};

/* The server's TLS credentials (struct serve's h3tls). */
struct sh3_tls {
    gnutls_certificate_credentials_t cred;
    gnutls_datum_t ticket_key;    /* session tickets' key, made at start: clients resume (not across restarts) */
    uint8_t token_key[32];        /* Retry tokens' key, made at start */
};

/* serve_h3_cid.c */
/* Routes cid to c. Returns 0, or -1 when out of memory. */
int serve_h3_cid_add(struct sh3_ep *ep, const uint8_t *cid, size_t len, struct sh3_conn *c);
/* The connection cid routes to, or NULL. */
struct sh3_conn *serve_h3_cid_find(const struct sh3_ep *ep, const uint8_t *cid, size_t len);
/* Forgets cid's route (none: nothing happens). */
void serve_h3_cid_del(struct sh3_ep *ep, const uint8_t *cid, size_t len);

/* serve_h3.c */
/* Sets ngtcp2's crypto and stream callbacks, and nghttp3's. */
void serve_h3_callbacks(ngtcp2_callbacks *qcb, nghttp3_callbacks *hcb);
/* The HTTP/3 session of c, once QUIC's handshake is done: its control and
 * QPACK streams. Returns 0, or -1. */
int serve_h3_session(struct sh3_conn *c);
/* Only nghttp3's server session of c, with serve's settings (the fuzzer
 * binds its streams itself). Returns 0, or -1. */
int serve_h3_session_new(struct sh3_conn *c);
/* Frees c's streams and session. */
void serve_h3_session_free(struct sh3_conn *c);
/* When c's next /delay answer is due, or UINT64_MAX. */
uint64_t serve_h3_deadline(const struct sh3_conn *c);
/* Answers c's /delay requests due at now. */
void serve_h3_tick(struct sh3_conn *c, uint64_t now);
/* One packet of what c has to send into dest (nghttp3's stream data
 * first). Returns its length, 0 when nothing waits, or ngtcp2's error. */
ngtcp2_ssize serve_h3_quic_write(struct sh3_conn *c, uint8_t *dest, size_t room, uint64_t now);

#endif
