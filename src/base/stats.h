/* stats.h - what a run counts: requests, status codes, bytes, errors by
 * kind, and three latency histograms. Each worker thread owns its own and
 * they are merged after join, so nothing is shared on the hot path. */
#ifndef RAFALE_STATS_H
#define RAFALE_STATS_H

#include <stdint.h>

#include "counters.h"
#include "hist.h"
#include "status.h"

enum err_kind {
    ERR_CONNECT_REFUSED,
    ERR_TIMEOUT_CONNECT, /* the connection was not up (TCP or TLS handshake) within its limit */
    ERR_CONNECT_OTHER,
    ERR_RESET,
    ERR_TIMEOUT_ANSWER,  /* connected, and no whole answer within --timeout */
    ERR_WRITE,
    ERR_MALFORMED,
    ERR_CLOSED_EARLY,
    ERR_ADDR_UNAVAILABLE,
    ERR_TLS,
    ERR_H2_RST_STREAM,  /* HTTP/2: the server reset the stream */
    ERR_H2_GOAWAY,      /* HTTP/2: ended by the server's GOAWAY */
    ERR_H2_PROTOCOL,    /* HTTP/2: a connection error (bad frame, flow control, no SETTINGS) */
    ERR_BAD_VALUE,      /* a value bound for the request line or a header could smuggle bytes: nothing sent */
    ERR_QUIC_HANDSHAKE, /* HTTP/3: the QUIC handshake failed or was not answered in time */
    ERR_QUIC_IDLE,      /* HTTP/3: QUIC's idle timeout ended the connection with requests outstanding */
    ERR_QUIC_CLOSE,     /* HTTP/3: a CONNECTION_CLOSE (the peer's, or ours on its protocol error) */
    ERR_H3_RESET,       /* HTTP/3: the server reset the request's stream */
    ERR_H3_GOAWAY,      /* HTTP/3: ended by the server's GOAWAY */
    ERR__COUNT
};

/* The latency histograms of a run, in the order reports list them. */
enum hist_kind {
    H_LATENCY,      /* total: from when the request was due (its intended send time in rate
                     * mode, coordinated omission corrected; its start otherwise) */
    H_CONNECT,      /* TCP handshake */
    H_TTFB,         /* time to the first byte of the response */
    H_LATENCY_UNC,  /* total from when the request was actually sent */
    H_LAG,          /* rate mode: how late a request was sent against the schedule */
    H_TLS,          /* TLS handshake, after the TCP connect */
    H_TRANSFER,     /* from the first byte of a response to its last (ab's Processing - Waiting) */
    H_LATENCY_USER, /* H_LATENCY to the moment rafale read the last byte, not the kernel's arrival */
    H_CLIENT_DELAY, /* per answer: from the kernel's arrival of its last byte to rafale's read of it */
    H__COUNT
};

/* How the server ended a keep-alive connection (it is told in the report,
 * so a server that refuses keep-alive cannot pass for one that keeps it),
 * or made rafale end it (CLOSE_UNSOLICITED). */
enum close_kind {
    CLOSE_HEADER,        /* after a response with "Connection: close" */
    CLOSE_HTTP10,        /* after an HTTP/1.0 response without keep-alive */
    CLOSE_BODY_EOF,      /* after a response whose body ran until the close */
    CLOSE_FRAMING,       /* by rafale, after a response framed faultily (Transfer-Encoding with
                          * Content-Length, or in HTTP/1.0): not reused, RFC 9112 §6.1 and §6.3 */
    CLOSE_IDLE,          /* an idle connection, between requests, without a word */
    CLOSE_IDLE_408,      /* an idle connection, after a 408 (Request Timeout) that answered nothing */
    CLOSE_UNSOLICITED,   /* closed by rafale: bytes came with no request left to answer (a second
                          * answer, an answer before the request): credited to no request */
    CLOSE__COUNT
};

/* One field per row of the counters' table (counters.h), and what the
 * table does not hold: counts by kind, by status, by how the server
 * closed, the first errno and detail of each error kind, the histograms. */
#define STATS_FIELD(field, in, key, merge, metric, help) uint64_t field;
#define STATS_NO_D(in, name, key)
struct stats {
    COUNTERS_TABLE(STATS_FIELD, STATS_NO_D)
    uint64_t errors[ERR__COUNT];
    uint64_t status[STATUS_MAX];
    uint64_t closes[CLOSE__COUNT]; /* keep-alive connections the server ended, by how */
    /* A worker's answers read whole at once, whose transfer (0) it counts
     * here and adds to h[H_TRANSFER] at its end (record.c): an add in place
     * of a histogram record per answer. 0 in a run's results, not a row of
     * the counters' table. */
    uint64_t transfer_zero;
    int err_errno[ERR__COUNT]; /* first errno seen per kind, for the explanation */
    const char *err_detail[ERR__COUNT]; /* first static detail (parser reason) */
    struct hist h[H__COUNT];   /* see enum hist_kind */
};

/* The counters' table as rows, COUNTERS_NROWS of them, and a row's field
 * in s (not for a D row). */
extern const struct counters_row stats_counters[COUNTERS_NROWS];
/* The key of D row name (counters.h), for the JSON reader. */
#define STATS_DKEY(name) (stats_counters[COUNTERS_ROWD_##name].key)
/* The key of the JSON object each enum counters_in is. */
extern const char *const stats_counters_in[];
static inline uint64_t *stats_counter(struct stats *s, const struct counters_row *r)
{
    return (uint64_t *)(void *)((char *)s + r->off);
}
static inline uint64_t stats_counter_get(const struct stats *s, const struct counters_row *r)
{
    return *(const uint64_t *)(const void *)((const char *)s + r->off);
}

/* Returns 0 or an errno value. */
int stats_init(struct stats *s);
void stats_fini(struct stats *s);
void stats_merge(struct stats *dst, const struct stats *src);
uint64_t stats_errors(const struct stats *s);
/* Requests sent in the measured window: started, less those carried in
 * from the warm-up and those that failed unsent (rate mode's "sent",
 * against its target). */
uint64_t stats_sent(const struct stats *s);
/* Keep-alive connections the server ended after a response (not idle ones). */
uint64_t stats_server_closes(const struct stats *s);
/* Sets s->bad_status: the responses whose status is not in expect. */
void stats_count_bad(struct stats *s, const struct status_set *expect);
/* Sets stamped_kernel and stamped_user from the histograms, after a run. */
void stats_count_stamped(struct stats *s);
/* JSON key and plain words of a close kind. */
const char *stats_close_name(enum close_kind k);
const char *stats_close_explain(enum close_kind k);

/* JSON key of a histogram ("latency", "connect", "ttfb", "latency_uncorrected",
 * "send_lag", "tls_handshake", "transfer", "latency_user", "client_delay"). */
const char *stats_hist_name(enum hist_kind k);
/* JSON key of an error kind ("connect_refused", ...). */
const char *stats_err_name(enum err_kind k);
/* The key results saved before a kind was renamed hold it under
 * ("timeout", "connect_timeout"), or NULL. */
const char *stats_err_old_name(enum err_kind k);
/* One plain-English line saying what the error kind means over protocol
 * p (proto.h): a reset over QUIC is not TCP's. */
struct proto;
const char *stats_err_explain(enum err_kind k, const struct proto *p);
struct stats;
/* What the first error of kind k was, in words (the detail it was given,
 * or its errno's), or NULL when it had neither. */
const char *stats_err_first(const struct stats *s, enum err_kind k);

#endif
