/* A run's counters: threads' figures merged by each counter's rule (sum,
 * max, min), errors and statuses summed, the first error's detail kept;
 * unexpected statuses counted against --expect; every kind named. */
#include "proto.h"
#include "stats.h"
#include "../t.h"

#include <string.h>

static void merged_by_rule(void)
{
    struct stats a, b;
    CHECK(stats_init(&a) == 0 && stats_init(&b) == 0);
    a.completed = 5;
    b.completed = 7;
    a.started = 9;
    b.started = 1;
    a.quic_min_rtt_ns = 300;
    b.quic_min_rtt_ns = 200;
    a.errors[ERR_TIMEOUT_CONNECT] = 2;
    b.errors[ERR_TIMEOUT_CONNECT] = 3;
    b.err_detail[ERR_TIMEOUT_CONNECT] = "the second's";
    a.status[200] = 4;
    b.status[200] = 6;
    b.status[503] = 1;
    b.closes[CLOSE_IDLE_408] = 2;
    hist_record(&a.h[H_LATENCY], 1000);
    hist_record(&b.h[H_LATENCY], 2000);
    stats_merge(&a, &b);
    CHECK(a.completed == 12 && a.started == 10);
    CHECK(a.quic_min_rtt_ns == 200); /* MIN */
    CHECK(a.errors[ERR_TIMEOUT_CONNECT] == 5 && stats_errors(&a) == 5);
    CHECK(a.err_detail[ERR_TIMEOUT_CONNECT] && strcmp(a.err_detail[ERR_TIMEOUT_CONNECT], "the second's") == 0);
    CHECK(a.status[200] == 10 && a.status[503] == 1 && a.closes[CLOSE_IDLE_408] == 2);
    CHECK(a.h[H_LATENCY].total == 2);
    /* Sent: begun, less those carried in from the warm-up and those that failed waiting. */
    a.carried_in = 3;
    a.failed_waiting = 2;
    CHECK(stats_sent(&a) == 5);
    stats_fini(&a);
    stats_fini(&b);
}

static void unexpected_statuses(void)
{
    struct stats s;
    struct status_set expect;
    char err[64];
    CHECK(stats_init(&s) == 0);
    s.status[200] = 10;
    s.status[302] = 2;
    s.status[404] = 3;
    s.status[503] = 4;
    status_set_default(&expect);
    stats_count_bad(&s, &expect);
    CHECK(s.bad_status == 7);
    CHECK(status_set_parse("200,404", &expect, err, sizeof(err)) == 0);
    stats_count_bad(&s, &expect);
    CHECK(s.bad_status == 6); /* 302 and 503: counted again, not added to */
    stats_fini(&s);
}

static void every_kind_named(void)
{
    int k;
    for (k = 0; k < ERR__COUNT; k++)
        CHECKF(stats_err_name(k) && stats_err_name(k)[0] && stats_err_explain(k, &proto_rows[PROTO_HTTP1]) &&
                   stats_err_explain(k, &proto_rows[PROTO_HTTP1])[0], "error kind %d", k);
    for (k = 0; k < CLOSE__COUNT; k++)
        CHECKF(stats_close_name(k) && stats_close_name(k)[0] && stats_close_explain(k), "close kind %d", k);
    for (k = 0; k < H__COUNT; k++)
        CHECKF(stats_hist_name(k) && stats_hist_name(k)[0], "histogram %d", k);
    CHECK(strcmp(stats_err_name(ERR_TIMEOUT_CONNECT), "timeout_connect") == 0);
    CHECK(strcmp(stats_err_old_name(ERR_TIMEOUT_CONNECT), "connect_timeout") == 0);
    CHECK(strcmp(stats_close_name(CLOSE_IDLE_408), "idle_408") == 0);
}

int main(void)
{
    T_RUN(merged_by_rule);
    T_RUN(unexpected_statuses);
    T_RUN(every_kind_named);
    T_END("test_stats");
}
