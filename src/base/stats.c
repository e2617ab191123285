/* stats.c - per-thread counters and their merge. */
#include "stats.h"

#include "proto.h"

#include <string.h>

static const char *const names[ERR__COUNT] = {
    [ERR_CONNECT_REFUSED] = "connect_refused",
    [ERR_TIMEOUT_CONNECT] = "timeout_connect",
    [ERR_CONNECT_OTHER] = "connect_other",
    [ERR_RESET] = "reset",
    [ERR_TIMEOUT_ANSWER] = "timeout_answer",
    [ERR_WRITE] = "write",
    [ERR_MALFORMED] = "malformed",
    [ERR_CLOSED_EARLY] = "closed_early",
    [ERR_ADDR_UNAVAILABLE] = "addr_unavailable",
    [ERR_TLS] = "tls",
    [ERR_H2_RST_STREAM] = "h2_rst_stream",
    [ERR_H2_GOAWAY] = "h2_goaway",
    [ERR_H2_PROTOCOL] = "h2_protocol",
    [ERR_BAD_VALUE] = "bad_value",
    [ERR_QUIC_HANDSHAKE] = "quic_handshake",
    [ERR_QUIC_IDLE] = "quic_idle_timeout",
    [ERR_QUIC_CLOSE] = "quic_connection_close",
    [ERR_H3_RESET] = "h3_stream_reset",
    [ERR_H3_GOAWAY] = "h3_goaway",
};

static const char *const explain[ERR__COUNT] = {
    [ERR_CONNECT_REFUSED] = "nothing accepted the connection (server down, wrong port, or its listen backlog overflowed)",
    [ERR_TIMEOUT_CONNECT] = "the connection was not up in time: the TCP handshake within --connect-timeout (or --timeout "
                            "when shorter), then a TLS one within --timeout; a full accept queue drops SYNs, and a SYN "
                            "retry waits 1 s",
    [ERR_CONNECT_OTHER] = "the connection could not be opened",
    [ERR_RESET] = "the connection was reset (a TCP RST) while the request was in flight: the server hung up "
                  "abruptly (it crashed or was killed, closed with bytes unread, or speaks TLS and was sent plain "
                  "HTTP)",
    [ERR_TIMEOUT_ANSWER] = "connected, and no complete response within --timeout (counted from the request's start, "
                           "its connect included); counted in the latency percentiles at the time it gave up",
    [ERR_WRITE] = "sending the request failed (the server closed or reset the connection before reading it)",
    [ERR_MALFORMED] = "the response was not valid HTTP/1.x; the connection was replaced",
    [ERR_CLOSED_EARLY] = "the server closed the connection before sending a complete response",
    [ERR_ADDR_UNAVAILABLE] = "this machine ran out of local ports (too many connections in TIME_WAIT): use keep-alive, "
                             "fewer connections, spread them with --source 127.0.0.2-127.0.0.9, or widen "
                             "net.ipv4.ip_local_port_range",
    [ERR_TLS] = "TLS failed (certificate not trusted, handshake failure, protocol mismatch, or an alert or "
                "truncated record mid-response)",
    [ERR_H2_RST_STREAM] = "the server reset the stream (RST_STREAM) before a complete response; the code it gave is shown",
    [ERR_H2_GOAWAY] = "the server's GOAWAY ended the request: refused unprocessed again and again by a server that "
                      "processed nothing, or the connection closed after the GOAWAY before the response was complete",
    [ERR_H2_PROTOCOL] = "an HTTP/2 connection error (a bad frame, a flow-control violation, no SETTINGS from the "
                        "server): every request on the connection failed, and it was replaced",
    [ERR_BAD_VALUE] = "a value for the next request (a redirect's Location, a # extract: variable) holds a space, CR, LF or another control "
                      "byte that would rewrite the request line or start a second request; nothing was sent",
    [ERR_QUIC_HANDSHAKE] = "the QUIC handshake failed, or the server did not answer it within --connect-timeout (or "
                           "--timeout when shorter): nothing listens on that UDP port, or a firewall drops it",
    [ERR_QUIC_IDLE] = "QUIC's idle timeout ended the connection: nothing came from the server for that long while "
                      "requests were outstanding",
    [ERR_QUIC_CLOSE] = "the connection was closed with a QUIC CONNECTION_CLOSE (the server's, or ours after a protocol "
                       "error it made); the transport or application error code is shown",
    [ERR_H3_RESET] = "the server reset the request's stream (RESET_STREAM) before a complete response; the HTTP/3 "
                     "error code it gave is shown",
    [ERR_H3_GOAWAY] = "the server's GOAWAY ended the request: its stream was above the last one the server said it "
                      "would process",
};

const char *stats_err_name(enum err_kind k)
{
    return names[k];
}

/* Results saved before timeouts were split by phase: "connect_timeout"
 * was always the handshake's and "timeout" always a connected request's
 * (a TLS handshake aside), so each reads back as its phase exactly. */
const char *stats_err_old_name(enum err_kind k)
{
    return k == ERR_TIMEOUT_CONNECT ? "connect_timeout" : k == ERR_TIMEOUT_ANSWER ? "timeout" : NULL;
}

const char *stats_err_explain(enum err_kind k, const struct proto *p)
{
    if (k == ERR_RESET && p->reset)
        return p->reset;
    return explain[k];
}

const char *stats_err_first(const struct stats *s, enum err_kind k)
{
    return s->err_detail[k] ? s->err_detail[k] : s->err_errno[k] ? strerror(s->err_errno[k]) : NULL;
}

static const char *const hist_names[H__COUNT] = {
    [H_LATENCY] = "latency",
    [H_CONNECT] = "connect",
    [H_TTFB] = "ttfb",
    [H_LATENCY_UNC] = "latency_uncorrected",
    [H_LAG] = "send_lag",
    [H_TLS] = "tls_handshake",
    [H_TRANSFER] = "transfer",
    [H_LATENCY_USER] = "latency_user",
    [H_CLIENT_DELAY] = "client_delay",
};

const char *stats_hist_name(enum hist_kind k)
{
    return hist_names[k];
}

int stats_init(struct stats *s)
{
    int k;
    memset(s, 0, sizeof(*s));
    for (k = 0; k < H__COUNT; k++)
        hist_init(&s->h[k]);
    return 0;
}

void stats_fini(struct stats *s)
{
    int k;
    for (k = 0; k < H__COUNT; k++)
        hist_fini(&s->h[k]);
}

#define STATS_ROW_C(field, in, key, merge, metric, help)                                                             \
    { key, metric, help, offsetof(struct stats, field), COUNTERS_IN_##in, COUNTERS_##merge, COUNTERS_D_NONE },
#define STATS_ROW_D(in, name, key) { key, NULL, NULL, 0, COUNTERS_IN_##in, COUNTERS_SUM, COUNTERS_D_##name },
const struct counters_row stats_counters[COUNTERS_NROWS] = { COUNTERS_TABLE(STATS_ROW_C, STATS_ROW_D) };
/* In enum counters_in's order ("latency" is the latency histogram's object). */
const char *const stats_counters_in[] = { "summary", "latency", "tls", "http2", "http3", "quic" };

void stats_merge(struct stats *d, const struct stats *s)
{
    int i;
    for (i = 0; i < COUNTERS_NROWS; i++) {
        const struct counters_row *r = &stats_counters[i];
        if (r->derived == COUNTERS_D_NONE)
            *stats_counter(d, r) = counters_merged((enum counters_merge)r->merge, *stats_counter(d, r),
                                                   stats_counter_get(s, r));
    }
    for (i = 0; i < ERR__COUNT; i++) {
        d->errors[i] += s->errors[i];
        if (d->err_errno[i] == 0)
            d->err_errno[i] = s->err_errno[i];
        if (d->err_detail[i] == NULL)
            d->err_detail[i] = s->err_detail[i];
    }
    for (i = 0; i < STATUS_MAX; i++)
        d->status[i] += s->status[i];
    for (i = 0; i < CLOSE__COUNT; i++)
        d->closes[i] += s->closes[i];
    for (i = 0; i < H__COUNT; i++)
        hist_merge(&d->h[i], &s->h[i]);
}

uint64_t stats_sent(const struct stats *s)
{
    return s->started - s->carried_in - s->failed_waiting;
}

uint64_t stats_errors(const struct stats *s)
{
    uint64_t n = 0;
    int i;
    for (i = 0; i < ERR__COUNT; i++)
        n += s->errors[i];
    return n;
}

uint64_t stats_server_closes(const struct stats *s)
{
    return s->closes[CLOSE_HEADER] + s->closes[CLOSE_HTTP10] + s->closes[CLOSE_BODY_EOF] + s->closes[CLOSE_FRAMING];
}

void stats_count_bad(struct stats *s, const struct status_set *expect)
{
    unsigned i;
    s->bad_status = 0;
    for (i = 0; i < STATUS_MAX; i++)
        if (s->status[i] && !status_set_has(expect, i))
            s->bad_status += s->status[i];
}

void stats_count_stamped(struct stats *s)
{
    /* An answer has a client delay exactly when the kernel stamped it
     * (record.c), so the two counts are not kept per answer. */
    s->stamped_kernel = s->h[H_CLIENT_DELAY].total;
    s->stamped_user = s->completed - s->stamped_kernel;
}

static const char *const close_names[CLOSE__COUNT] = {
    [CLOSE_HEADER] = "connection_close",
    [CLOSE_HTTP10] = "http10",
    [CLOSE_BODY_EOF] = "body_until_close",
    [CLOSE_FRAMING] = "faulty_framing",
    [CLOSE_IDLE] = "idle",
    [CLOSE_IDLE_408] = "idle_408",
    [CLOSE_UNSOLICITED] = "unsolicited",
};

static const char *const close_explain[CLOSE__COUNT] = {
    [CLOSE_HEADER] = "'Connection: close' header",
    [CLOSE_HTTP10] = "HTTP/1.0 without keep-alive",
    [CLOSE_BODY_EOF] = "body delimited by the close",
    [CLOSE_FRAMING] = "Transfer-Encoding with Content-Length, or in HTTP/1.0: faulty framing, not reused",
    [CLOSE_IDLE] = "closed while idle, without a word",
    [CLOSE_IDLE_408] = "closed while idle, after a 408 Request Timeout",
    [CLOSE_UNSOLICITED] = "sent an answer no request asked for (a second answer, or one before the request)",
};

const char *stats_close_name(enum close_kind k)
{
    return close_names[k];
}

const char *stats_close_explain(enum close_kind k)
{
    return close_explain[k];
}
