/* The backlog of due requests (src/client/backlog.c): a FIFO of due
 * times that grows while its ring is wrapped round and keeps their order. */
#include "schedule.h"
#include "../t.h"

#include <stdint.h>

static void fifo_across_growth(void)
{
    struct backlog b = { 0 };
    uint64_t next = 0, want = 0;
    int i, ok = 1;
    for (i = 0; i < 1000; i++)
        CHECK(backlog_push(&b, next++) == 0);
    CHECK(b.len == 1000 && b.cap == 1024);
    /* Half taken: the ring's start moves on, then wraps past its end. */
    for (i = 0; i < 600; i++, want++) {
        ok &= backlog_peek(&b) == want;
        backlog_pop(&b);
    }
    for (i = 0; i < 500; i++)
        CHECK(backlog_push(&b, next++) == 0);
    CHECK(b.len == 900 && b.cap == 1024 && b.head == 600);
    /* Grown while wrapped: 2048, in order from index 0. */
    for (i = 0; i < 1000; i++)
        CHECK(backlog_push(&b, next++) == 0);
    CHECK(b.len == 1900 && b.cap == 2048 && b.head == 0);
    while (b.len > 0) {
        ok &= backlog_peek(&b) == want++;
        backlog_pop(&b);
    }
    CHECK(ok && want == next && next == 2500);
    backlog_free(&b);
    CHECK(b.t == NULL && b.len == 0 && b.cap == 0 && b.head == 0);
    /* Usable again after its free. */
    CHECK(backlog_push(&b, 7) == 0 && backlog_peek(&b) == 7 && b.len == 1);
    backlog_free(&b);
}

int main(void)
{
    T_RUN(fifo_across_growth);
    T_END("test_backlog");
}
