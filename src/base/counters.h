/* counters.h - the table of a run's counters: a row each, and from the
 * rows struct stats' fields (stats.h), the merge of threads after join and
 * of shards in rafale merge (stats_merge), the result JSON's keys as it is
 * written (report_json.c) and read back (report_load.c), and the live
 * OpenMetrics figures of --metrics-listen (metrics.c). The workers count
 * into the fields as before (record.c): the table is for merging and
 * printing, never on the hot path.
 *
 * Adding a counter is a row here, and the places that count it.
 *
 * COUNTERS_TABLE(C, D) lists, in the order the JSON writes them:
 *
 *   C(field, in, key, merge, metric, help)
 *     field   a uint64_t of struct stats: the code's one name for the
 *             counter (the key and the metric, contracts, keep theirs:
 *             completed is "requests", bad_status "unexpected_status")
 *     in      the JSON object holding it, within the totals and each URL:
 *             SUMMARY, LATENCY, TLS, HTTP2 (written unless an HTTP/3 run
 *             left it empty), HTTP3 (when HTTP/3 ran, or it counted
 *             something) or QUIC (written when QUIC ran)
 *     key     its JSON key (a contract: add keys, never rename one)
 *     merge   how threads and shards put theirs together: SUM, MAX or MIN
 *     metric  its OpenMetrics counter, rafale_<metric>_total, or NULL when
 *             not counted live (set after the run)
 *     help    what it counts: the metric's HELP, and the field's doc
 *
 *   D(in, name, key)
 *     a figure the JSON writer works out from others at this place
 *     (report_json.c, COUNTERS_D_name), under key, so that the rows keep
 *     each object's key order and the reader finds it by the same key. */
#ifndef RAFALE_COUNTERS_H
#define RAFALE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#define COUNTERS_TABLE(C, D)                                                                                          \
    D(SUMMARY, protocol, "protocol")                                                                                  \
    C(completed, SUMMARY, "requests", SUM, NULL, "Full responses received, whatever the status.")                     \
    D(SUMMARY, errors, "errors")                                                                                      \
    D(SUMMARY, in_flight, "in_flight")                                                                                \
    C(started, SUMMARY, "started", SUM, "requests_started",                                                           \
      "Requests begun in the measured window (a connect attempt for one counts).")                                    \
    C(carried_in, SUMMARY, "carried_in", SUM, "requests_carried_in",                                                  \
      "Requests begun in the warm-up and still outstanding when the measured window opened; they count where they "   \
      "end.")                                                                                                         \
    D(SUMMARY, elapsed_s, "elapsed_s")                                                                                \
    D(SUMMARY, rps, "rps")                                                                                            \
    C(bad_status, SUMMARY, "unexpected_status", SUM, NULL,                                                            \
      "Responses with a status outside --expect (counted after the run).")                                            \
    C(conns_opened, SUMMARY, "connections_opened", SUM, "connections_opened",                                         \
      "Connections that completed the TCP handshake.")                                                                \
    C(conns_warmup, SUMMARY, "connections_opened_warmup", SUM, NULL,                                                  \
      "Connections that completed the TCP handshake during the warm-up (not in connections_opened).")                 \
    D(SUMMARY, connections_per_request, "connections_per_request")                                                    \
    D(SUMMARY, server_closes, "server_closes")                                                                        \
    C(bytes_received, SUMMARY, "bytes_received", SUM, "received_bytes", "Bytes received.")                            \
    C(bytes_sent, SUMMARY, "bytes_sent", SUM, "sent_bytes", "Bytes sent.")                                            \
    C(redirects, SUMMARY, "redirects_followed", SUM, "redirects_followed", "Redirects followed (--follow).")          \
    C(redirects_away, SUMMARY, "redirects_to_other_origin", SUM, "redirects_to_other_origin",                         \
      "Redirects to another origin, which ended their request instead (--follow).")                                   \
    C(checked, SUMMARY, "checked", SUM, "responses_checked", "Responses that had checks (# check:, --check).")        \
    C(checks_failed, SUMMARY, "checks_failed", SUM, "responses_failing_checks",                                       \
      "Checked responses that failed one (they stay completed, in the latency figures).")                             \
    C(skipped, SUMMARY, "skipped", SUM, "requests_skipped",                                                           \
      "Requests not sent because a variable they need was not set.")                                                  \
    C(reconnects_delayed, SUMMARY, "reconnects_delayed", SUM, "reconnects_delayed",                                   \
      "Connects that failed and made their connection wait before the next (4 ms doubling up to 1 s, from 4 ms "      \
      "again once it is up).")                                                                                        \
    C(failed_waiting, SUMMARY, "failed_waiting", SUM, "requests_failed_waiting",                                      \
      "Rate mode: requests due while every connection waited to connect again, ended at once with the error of the "  \
      "last connect (never sent: among the errors, in no latency figure).")                                          \
    D(SUMMARY, in_flight_oldest_s, "in_flight_oldest_s")                                                              \
    D(LATENCY, covers, "covers")                                                                                      \
    C(censored, LATENCY, "censored", SUM, NULL,                                                                       \
      "Requests still outstanding when the run stopped (or, in the totals of a rate-mode run, due and never sent), "  \
      "in the latency histogram at their age then.")                                                                  \
    C(censored_unsent, LATENCY, "censored_unsent", SUM, NULL, "Of the censored, those never sent.")                   \
    C(stamped_kernel, LATENCY, "stamped_kernel", SUM, NULL,                                                           \
      "Answers whose times are the kernel's receive timestamps (counted after the run).")                             \
    C(stamped_user, LATENCY, "stamped_user", SUM, NULL,                                                               \
      "Answers stamped as rafale read them (--timestamps user, or no kernel stamp came; counted after the run).")     \
    C(tls_full, TLS, "full", SUM, "tls_handshakes_full", "Full TLS handshakes.")                                      \
    C(tls_resumed, TLS, "resumed", SUM, "tls_handshakes_resumed", "Resumed TLS handshakes.")                          \
    C(h2_hdr_wire, HTTP2, "header_bytes_wire", SUM, "http2_header_wire_bytes",                                        \
      "HTTP/2: response header blocks as they came on the wire (HEADERS and CONTINUATION payloads).")                 \
    C(h2_hdr_decoded, HTTP2, "header_bytes_decoded", SUM, "http2_header_decoded_bytes",                               \
      "HTTP/2: response header blocks decoded (names and values).")                                                   \
    D(HTTP2, header_space_savings, "header_space_savings")                                                            \
    C(h2_retried, HTTP2, "retried", SUM, "http2_retried",                                                             \
      "HTTP/2: requests refused unprocessed (GOAWAY, REFUSED_STREAM) and sent again.")                                \
    C(h3_hdr_wire, HTTP3, "header_bytes_wire", SUM, "http3_header_wire_bytes",                                        \
      "HTTP/3: response field sections as they came on the wire, QPACK-encoded (HEADERS frames' payloads).")          \
    C(h3_hdr_decoded, HTTP3, "header_bytes_decoded", SUM, "http3_header_decoded_bytes",                               \
      "HTTP/3: response field sections decoded (names and values).")                                                  \
    D(HTTP3, qpack_space_savings, "header_space_savings")                                                             \
    C(h3_retried, HTTP3, "retried", SUM, "http3_retried",                                                             \
      "HTTP/3: requests refused unprocessed (GOAWAY, H3_REQUEST_REJECTED) and sent again.")                           \
    C(quic_sent, QUIC, "packets_sent", SUM, NULL, "HTTP/3: QUIC datagrams sent.")                                     \
    C(quic_recv, QUIC, "packets_received", SUM, NULL, "HTTP/3: QUIC datagrams received.")                             \
    C(quic_lost, QUIC, "packets_lost", SUM, NULL,                                                                     \
      "HTTP/3: packets declared lost (ngtcp2 0.12 counts them per stream: a packet of several streams counts for "    \
      "each).")                                                                                                       \
    C(quic_conns, QUIC, "connections", SUM, NULL, "HTTP/3: QUIC connections closed, whose RTT estimates are summed.") \
    C(quic_srtt_sum_ns, QUIC, "smoothed_rtt_sum_ns", SUM, NULL,                                                       \
      "HTTP/3: each closed connection's smoothed RTT, summed (over connections).")                                    \
    D(QUIC, smoothed_rtt_s, "smoothed_rtt_s")                                                                         \
    C(quic_min_rtt_ns, QUIC, "min_rtt_ns", MIN, NULL, "HTTP/3: the least minimum RTT of the connections.")            \
    D(QUIC, min_rtt_s, "min_rtt_s")                                                                                   \
    C(quic_early, QUIC, "early_data_accepted", SUM, NULL,                                                             \
      "HTTP/3: connections whose requests went in 0-RTT and were taken (--http3-0rtt).")                              \
    C(quic_early_rejected, QUIC, "early_data_rejected", SUM, NULL,                                                    \
      "HTTP/3: connections whose 0-RTT requests the server refused (sent again after the handshake).")

/* Where a row's key goes, and how two counts of it become one. */
enum counters_in {
    COUNTERS_IN_SUMMARY,
    COUNTERS_IN_LATENCY,
    COUNTERS_IN_TLS,
    COUNTERS_IN_HTTP2,
    COUNTERS_IN_HTTP3,
    COUNTERS_IN_QUIC
};
enum counters_merge { COUNTERS_SUM, COUNTERS_MAX, COUNTERS_MIN };

/* A row's index in the table, COUNTERS_NROWS of them (the D rows too). */
#define COUNTERS_ROW_C(field, in, key, merge, metric, help) COUNTERS_ROW_##field,
#define COUNTERS_ROW_D(in, name, key) COUNTERS_ROWD_##name,
enum { COUNTERS_TABLE(COUNTERS_ROW_C, COUNTERS_ROW_D) COUNTERS_NROWS };

/* The D rows' figures, 0 for a counter. */
#define COUNTERS_NO_C(field, in, key, merge, metric, help)
#define COUNTERS_D_ENUM(in, name, key) COUNTERS_D_##name,
enum counters_derived { COUNTERS_D_NONE, COUNTERS_TABLE(COUNTERS_NO_C, COUNTERS_D_ENUM) COUNTERS_D__COUNT };

/* A row as data (stats.c holds them, stats_counters[]): the D rows have
 * derived set, and no field. */
struct counters_row {
    const char *key, *metric, *help;
    size_t off;                  /* of the field in struct stats */
    uint8_t in, merge, derived;  /* enum counters_in, counters_merge, counters_derived */
};

/* Two counts of a row merged: MIN keeps the least of those that counted
 * something (0 is "none yet", as a fresh result holds). */
static inline uint64_t counters_merged(enum counters_merge m, uint64_t a, uint64_t b)
{
    if (m == COUNTERS_MAX)
        return a > b ? a : b;
    if (m == COUNTERS_MIN)
        return a == 0 ? b : b == 0 ? a : a < b ? a : b;
    return a + b;
}

#endif
