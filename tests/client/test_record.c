/* record.c, the one place a request's figures are added: only the measured
 * window counts (a warm-up connection is said apart), each figure goes to
 * the totals and to its target's row (targets past FIGURES_TARGETS share
 * the "other" row), and the last of a worker's connections up is when all
 * were. */
#include "client.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

#define NTARGETS 300
#define T_MEASURE 1000000000ULL

struct fixture {
    struct plan pl;
    struct worker w;
    uint64_t skipped_var[2];
};

static void setup(struct fixture *f)
{
    uint32_t i, rows = figures_rows(NTARGETS);
    memset(f, 0, sizeof(*f));
    f->pl.t_measure = T_MEASURE;
    f->w.plan = &f->pl;
    f->w.nconns = 2;
    f->w.skipped_var = f->skipped_var;
    CHECK(stats_init(&f->w.st) == 0);
    f->w.per_target = calloc(rows, sizeof(*f->w.per_target));
    CHECK(f->w.per_target != NULL);
    for (i = 0; i < rows; i++)
        CHECK(stats_init(&f->w.per_target[i]) == 0);
}

static void teardown(struct fixture *f)
{
    uint32_t i;
    for (i = 0; i < figures_rows(NTARGETS); i++)
        stats_fini(&f->w.per_target[i]);
    free(f->w.per_target);
    stats_fini(&f->w.st);
}

static void connections_counted_in_the_window(void)
{
    struct fixture f;
    struct slot warm = { 0 }, hot = { 0 };
    setup(&f);
    warm.target = 3;
    hot.target = 3;
    hot.measured = 1;
    hot.t_sent = T_MEASURE + 1000;
    record_connect(&f.w, &warm, T_MEASURE - 5);
    CHECK(f.w.st.conns_warmup == 1 && f.w.st.conns_opened == 0 && f.w.per_target[3].conns_warmup == 1);
    CHECK(f.w.connected == 1 && f.w.t_all_connected == 0);
    record_connect(&f.w, &hot, T_MEASURE + 251000);
    CHECK(f.w.st.conns_opened == 1 && f.w.per_target[3].conns_opened == 1);
    /* The second of 2: all were up then; a third (a reconnect) moves nothing. */
    CHECK(f.w.connected == 2 && f.w.t_all_connected == T_MEASURE + 251000);
    record_connect(&f.w, &hot, T_MEASURE + 999000);
    CHECK(f.w.connected == 2 && f.w.t_all_connected == T_MEASURE + 251000 && f.w.st.conns_opened == 2);
    /* The connect time: from its start to up, in its target's histogram. */
    CHECK(f.w.per_target[3].h[H_CONNECT].total == 2 && f.w.per_target[3].h[H_CONNECT].max >= 998000 &&
          f.w.per_target[3].h[H_CONNECT].min <= 250000);
    teardown(&f);
}

static void bytes_and_tls_per_target(void)
{
    struct fixture f;
    struct slot s = { 0 }, other = { 0 };
    setup(&f);
    s.target = 7;
    record_sent(&f.w, &s, 100); /* not measured: not counted */
    CHECK(f.w.st.bytes_sent == 0 && f.w.per_target[7].bytes_sent == 0);
    s.measured = 1;
    record_sent(&f.w, &s, 100);
    record_received(&f.w, &s, 40, T_MEASURE - 1); /* before the window */
    record_received(&f.w, &s, 60, T_MEASURE);
    record_received(&f.w, NULL, 5, T_MEASURE + 1); /* the connection's, no request's */
    CHECK(f.w.st.bytes_sent == 100 && f.w.per_target[7].bytes_sent == 100);
    CHECK(f.w.st.bytes_received == 65 && f.w.per_target[7].bytes_received == 60);
    record_tls(&f.w, &s, 2000000, 0);
    record_tls(&f.w, &s, 500000, 1);
    CHECK(f.w.st.tls_full == 1 && f.w.st.tls_resumed == 1 && f.w.per_target[7].tls_resumed == 1 &&
          f.w.per_target[7].h[H_TLS].total == 2);
    /* Targets past FIGURES_TARGETS: the shared "other" row. */
    other.target = 250;
    other.measured = 1;
    record_sent(&f.w, &other, 9);
    CHECK(f.w.per_target[FIGURES_TARGETS].bytes_sent == 9 && f.w.st.bytes_sent == 109);
    record_sent_conn(&f.w, 11, T_MEASURE - 1);
    record_sent_conn(&f.w, 11, T_MEASURE);
    CHECK(f.w.st.bytes_sent == 120);
    record_quic(&f.w, 10, 20, 1, T_MEASURE - 1);
    record_quic(&f.w, 10, 20, 1, T_MEASURE + 1);
    CHECK(f.w.st.quic_sent == 10 && f.w.st.quic_recv == 20 && f.w.st.quic_lost == 1);
    teardown(&f);
}

static void skips_by_variable(void)
{
    struct fixture f;
    setup(&f);
    record_skip(&f.w, 4, 1, T_MEASURE - 1); /* in the warm-up */
    record_skip(&f.w, 4, 1, T_MEASURE);
    record_skip(&f.w, 4, 1, T_MEASURE + 5);
    record_skip(&f.w, 260, 0, T_MEASURE + 5);
    CHECK(f.w.st.skipped == 3 && f.w.per_target[4].skipped == 2 && f.w.per_target[FIGURES_TARGETS].skipped == 1);
    CHECK(f.skipped_var[0] == 1 && f.skipped_var[1] == 2);
    teardown(&f);
}

int main(void)
{
    T_RUN(connections_counted_in_the_window);
    T_RUN(bytes_and_tls_per_target);
    T_RUN(skips_by_variable);
    T_END("test_record");
}
