/* stats.h - what a run counts: requests, status codes, bytes, errors by
 * kind, and three latency histograms. Each worker thread owns its own and
 * they are merged after join, so nothing is shared on the hot path. */
#ifndef RAFALE_STATS_H
#define RAFALE_STATS_H

#include <stdint.h>

#include "hist.h"

enum err_kind {
    ERR_CONNECT_REFUSED,
    ERR_CONNECT_TIMEOUT,
    ERR_CONNECT_OTHER,
    ERR_RESET,
    ERR_TIMEOUT,
    ERR_WRITE,
    ERR_MALFORMED,
    ERR_CLOSED_EARLY,
    ERR_ADDR_UNAVAILABLE,
    ERR_TLS,
    ERR__COUNT
};

#define STATUS_MAX 600

struct stats {
    uint64_t started;          /* requests begun (a connect attempt for one counts) */
    uint64_t completed;        /* full responses received, whatever the status */
    uint64_t errors[ERR__COUNT];
    uint64_t status[STATUS_MAX];
    uint64_t bytes_sent, bytes_recv;
    uint64_t conns_opened;     /* connections that completed the TCP handshake */
    uint64_t server_closes;    /* keep-alive connections the server ended (Connection: close) */
    uint64_t tls_full, tls_resumed; /* TLS handshakes */
    int err_errno[ERR__COUNT]; /* first errno seen per kind, for the explanation */
    const char *err_detail[ERR__COUNT]; /* first static detail (parser reason) */
    /* latency runs from when the request was due: its intended send time in
     * rate mode (coordinated omission corrected), its start otherwise.
     * latency_unc runs from when it was actually sent; lag is the gap. */
    struct hist latency, ttfb, connect, latency_unc, lag;
    struct hist tls;           /* TLS handshake, after the TCP connect */
};

/* Returns 0 or an errno value. */
int stats_init(struct stats *s);
void stats_fini(struct stats *s);
void stats_merge(struct stats *dst, const struct stats *src);
uint64_t stats_errors(const struct stats *s);

/* JSON key of an error kind ("connect_refused", ...). */
const char *stats_err_name(enum err_kind k);
/* One plain-English line saying what the error kind means. */
const char *stats_err_explain(enum err_kind k);

#endif
