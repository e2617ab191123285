/* serve_conn.h - rafale serve's threads and connections, shared by
 * serve.c (threads, accept, start and stop), serve_conn.c (a connection's
 * I/O and timers) and serve_h1.c (HTTP/1.1 answers): private to src/serve/. */
#ifndef RAFALE_SERVE_CONN_H
#define RAFALE_SERVE_CONN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "serve_int.h"
#include "buf.h"
#include "http_req.h"
#include "io.h"
#include "loop.h"

#define MAX_REQ_BODY (1u << 20)    /* largest request body accepted (skipped, never kept) */
#define DRAIN_NS (2 * NS_PER_S)    /* lingering close: how long to wait for the client's FIN */
#define OUT_HIGH (256 * 1024)      /* no more pipelined requests taken while this much output waits */
#define GEN_BLOCK (64 * 1024)      /* a generated body goes out this much at a time */
#define INLINE_BODY (64 * 1024)    /* larger bodies are generated as they are sent */
#define KEEP_CAP (256 * 1024)      /* a buffer grown past this is freed once empty */

/* A response body produced as the socket takes it. */
enum gen_kind { GEN_NONE, GEN_BYTES, GEN_CHUNKED, GEN_MEM };

struct sthread;
struct sh3_ep;

struct sconn {
    struct loop_io io;
    struct timer timer;
    struct sthread *t;
    int fd;
    uint8_t closing;     /* close once the queued output is sent */
    uint8_t draining;    /* output sent and write side shut: wait for the client's FIN */
    uint8_t waiting;     /* a /delay response is pending */
    uint8_t d_head, d_keep, d_minor;
    uint8_t handshaking; /* TLS handshake under way (2: before its first bytes were looked at) */
    uint8_t fresh;       /* no request yet: the header timeout applies while idle */
    uint8_t gen;         /* enum gen_kind */
    struct sh2 *h2;      /* HTTP/2 (h2c preface, or ALPN h2), or NULL */
    const struct io_ops *ops;
    void *io_ctx;
    uint32_t d_us;
    uint64_t skip;       /* bytes of a request body still to discard */
    uint64_t gen_left;   /* bytes of the generated body still to produce */
    uint64_t gen_off;    /* produced so far */
    const char *gen_mem; /* GEN_MEM: the bytes */
    uint64_t t_req;      /* when the head being read began */
    uint64_t t_idle;     /* when the connection last became idle (or was accepted) */
    uint64_t t_out;      /* when output last made progress */
    struct http_req req; /* parser state of a partial head */
    struct buf in;      /* unparsed input, only when a head is split */
    struct buf out;     /* unsent output */
    size_t out_off;
    struct sconn *next_free;
    struct sconn *next_all;  /* every connection ever allocated, for shutdown */
    char peer[48];
};

struct sthread {
    struct serve *s;
    struct loop loop;
    int lfd;
    int lfd_shared;          /* another thread's listener (a Unix socket) */
    struct loop_io lio;
    struct timer tick;
    pthread_t th;
    uint64_t accepted, requests;
    char *rbuf;
    struct buf wb;          /* responses being built, flushed once per read */
    int last_status;         /* of the response just queued, for the access log */
    char date[40];           /* Date header value */
    char logdate[40];        /* access log time */
    struct buf hello;       /* ready-made keep-alive answer to GET / */
    struct sconn *free;
    struct sconn *all;
    struct sh3_ep *h3;       /* --http3: its UDP socket and QUIC connections (serve_h3_quic.c), or NULL */
    uint32_t rng;
    const atomic_int *stop;
};

/* What a response needs to know of its request. */
struct req {
    int minor;
    int keep;
    int head;
};

/* serve_h1.c */
/* Refreshes the thread's ready-made answer to GET / (its Date changes). */
void serve_h1_hello(struct sthread *t);
/* Answers the whole request heads in data (len bytes) into the thread's
 * buffer, skipping bodies; returns the bytes used (a partial head is kept
 * by the caller). */
size_t serve_h1_handle(struct sconn *c, const char *data, size_t len);
/* Writes the answer rp to request r. Returns 0, or -1. */
int serve_h1_emit(struct sconn *c, struct req *r, const struct reply *rp);
/* The next block of a generated body into out. Returns 0, or -1. */
int serve_h1_gen_fill(struct sconn *c, struct buf *out);
/* A whole answer with its body (extra: more header lines, or NULL). */
int serve_h1_respond(struct sthread *t, const struct req *r, int status, const char *ctype, const char *extra,
                     const char *body, size_t blen);
/* May another pipelined request be taken up (little output waiting)? */
int serve_h1_may_take(const struct sconn *c);

/* serve_conn.c */
void serve_conn_on_io(struct loop_io *io, uint32_t ev);
void serve_conn_on_timer(struct timer *tm, uint64_t now);
/* Closes c and puts it on the thread's free list. */
void serve_conn_free(struct sconn *c);
/* Sets c's timer to its next deadline. */
void serve_conn_arm(struct sconn *c);

/* serve_files.c */
/* Reads dir's regular files into s->files. Returns 0, or -1 with why. */
int serve_files_load(struct serve *s, const char *dir, char *err, size_t errlen);

#endif
