/* A worker's work queue and its requests to send again
 * (src/client/workq.c): connections queued once each, in order, not while
 * they wait to connect again; whether another request may start; the
 * refused requests' ring, grown while wrapped, taken oldest first, each
 * slot keeping its own capture. */
#include "client.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static void queue_fifo(void)
{
    struct worker w;
    struct conn cs[3];
    uint32_t q[3];
    int k;
    memset(&w, 0, sizeof(w));
    memset(cs, 0, sizeof(cs));
    w.conns = cs;
    w.nconns = 3;
    w.q = q;
    for (k = 0; k < 3; k++)
        cs[k].w = &w;
    CHECK(workq_dequeue(&w) == NULL);
    workq_enqueue(&cs[0]);
    workq_enqueue(&cs[2]);
    workq_enqueue(&cs[0]); /* queued already */
    cs[1].waiting = 1;     /* its timer brings it back */
    workq_enqueue(&cs[1]);
    CHECK(w.qlen == 2 && cs[0].queued && !cs[1].queued);
    CHECK(workq_dequeue(&w) == &cs[0] && !cs[0].queued);
    cs[1].waiting = 0;
    workq_enqueue(&cs[1]);
    workq_enqueue(&cs[0]); /* round the ring */
    CHECK(w.qlen == 3);
    CHECK(workq_dequeue(&w) == &cs[2] && workq_dequeue(&w) == &cs[1] && workq_dequeue(&w) == &cs[0]);
    CHECK(workq_dequeue(&w) == NULL && w.qlen == 0);
}

static void may_start(void)
{
    struct worker w;
    memset(&w, 0, sizeof(w));
    w.budget = 5;
    w.st.started = 3;
    w.st.skipped = 1;
    CHECK(workq_may_start(&w));
    w.st.skipped = 2; /* skips spend the budget too */
    CHECK(!workq_may_start(&w));
    w.st.skipped = 0;
    w.stopping = 1;
    CHECK(!workq_may_start(&w));
}

static void retries_in_order(void)
{
    struct worker w;
    struct slot s, out;
    struct capture mine;
    uint32_t k, want = 0;
    int ok = 1;
    memset(&w, 0, sizeof(w));
    memset(&s, 0, sizeof(s));
    s.capt = &mine; /* stays with the refused slot, never copied */
    for (k = 0; k < 10; k++) {
        s.target = k;
        CHECK(workq_retry(&w, &s) == 0);
    }
    CHECK(w.rcap == 16 && w.rlen == 10 && w.retry[3].capt == NULL);
    memset(&out, 0, sizeof(out));
    out.capt = &mine;
    for (k = 0; k < 8; k++) {
        workq_retry_take(&w, &out);
        ok &= out.target == want++ && out.capt == &mine;
    }
    /* The ring wraps (head 8), then grows: 2 + 20 in order. */
    for (k = 10; k < 30; k++) {
        s.target = k;
        CHECK(workq_retry(&w, &s) == 0);
    }
    CHECK(w.rcap == 32 && w.rlen == 22 && w.rhead == 0);
    while (w.rlen) {
        workq_retry_take(&w, &out);
        ok &= out.target == want++;
    }
    CHECK(ok && want == 30);
    free(w.retry);
}

int main(void)
{
    T_RUN(queue_fifo);
    T_RUN(may_start);
    T_RUN(retries_in_order);
    T_END("test_workq");
}
