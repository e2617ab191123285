/* serve_h2.h - `rafale serve` speaking HTTP/2 on one connection, through
 * libnghttp2's server session. No socket here: bytes go in with serve_h2_recv()
 * and come out with serve_h2_send(), so the connection code (serve.c) keeps its
 * transport, timers and backpressure, and the fuzzer drives it directly.
 * Private to src/serve/. */
#ifndef RAFALE_SERVE_H2_H
#define RAFALE_SERVE_H2_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "serve_int.h"

/* The client's connection preface (RFC 9113 §3.4): how serve tells an h2c
 * client from an HTTP/1.1 one on the same port. */
#define SH2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define SH2_PREFACE_LEN 24

/* What a connection's session needs from its thread. */
struct sh2_env {
    const struct serve *s;
    const char *date;        /* the Date header's value, kept current by the thread */
    uint32_t *rng;
    uint64_t *requests;      /* the thread's count of answered requests */
    FILE *log;               /* access log, or NULL */
    const char *peer;        /* for the access log */
    const char *logdate;
};

struct sh2;

/* A session for a new connection, its SETTINGS queued (max_streams:
 * SETTINGS_MAX_CONCURRENT_STREAMS). Returns NULL when out of memory. */
struct sh2 *serve_h2_new(const struct sh2_env *env, uint32_t max_streams);
void serve_h2_free(struct sh2 *h);

/* Takes bytes from the client at time now. Returns 0, or -1 when the
 * connection must end at once (the client broke the protocol beyond a
 * GOAWAY, or out of memory). */
int serve_h2_recv(struct sh2 *h, const uint8_t *p, size_t n, uint64_t now);
/* The next bytes to send: their length (0 when nothing is waiting), *out
 * valid until the next call; -1 when the connection must end. Response
 * bodies are produced here, as they are asked for. */
ssize_t serve_h2_send(struct sh2 *h, const uint8_t **out);
/* Is the session over (both sides said GOAWAY, or an error)? */
int serve_h2_done(const struct sh2 *h);
/* Streams open, answered or not. */
uint32_t serve_h2_streams(const struct sh2 *h);
/* Streams whose request has not all arrived yet. */
uint32_t serve_h2_waiting(const struct sh2 *h);
/* When the next /delay answer is due, or UINT64_MAX. */
uint64_t serve_h2_deadline(const struct sh2 *h);
/* Answers the /delay requests due at now. */
void serve_h2_tick(struct sh2 *h, uint64_t now);
/* Ends the connection politely: GOAWAY, streams in progress finish. */
void serve_h2_goaway(struct sh2 *h);

#endif
