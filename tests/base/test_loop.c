/* The timer heap of the event loop: due timers fire in deadline order,
 * a deadline pushed later is re-armed lazily (it fires at the new time,
 * not the old), a cancelled timer never fires, an earlier deadline moves up,
 * one set again in the past runs once a poll. Deadlines are in the past or
 * an hour away: nothing waits on the clock. */
#include "clock.h"
#include "loop.h"
#include "../t.h"

#include <string.h>

static char fired[16];
static int nfired;

struct named {
    struct timer t;
    char name;
};

static void on_fire(struct timer *t, uint64_t now)
{
    struct named *n = container_of(t, struct named, t);
    (void)now;
    if (nfired < (int)sizeof(fired) - 1)
        fired[nfired++] = n->name;
}

static struct named mk(char name)
{
    struct named n;
    memset(&n, 0, sizeof(n));
    n.t.fn = on_fire;
    n.name = name;
    return n;
}

static void fire_in_deadline_order(void)
{
    struct loop l;
    struct named a = mk('a'), b = mk('b'), c = mk('c'), d = mk('d');
    uint64_t now = clock_ns();
    CHECK(loop_init(&l, 16) == 0);
    nfired = 0;
    memset(fired, 0, sizeof(fired));
    CHECK(loop_timer_set(&l, &a.t, now - 3000) == 0);
    CHECK(loop_timer_set(&l, &b.t, now - 1000) == 0);
    CHECK(loop_timer_set(&l, &c.t, now - 2000) == 0);
    CHECK(loop_timer_set(&l, &d.t, now + 3600 * NS_PER_S) == 0);
    CHECK(loop_next_deadline(&l) == now - 3000);
    loop_poll(&l, 0);
    CHECKF(strcmp(fired, "acb") == 0, "fired %s", fired);
    CHECK(loop_next_deadline(&l) == now + 3600 * NS_PER_S);
    loop_timer_cancel(&l, &d.t);
    CHECK(loop_next_deadline(&l) == UINT64_MAX);
    loop_fini(&l);
}

static void later_is_lazy_earlier_moves_up_cancel_never_fires(void)
{
    struct loop l;
    struct named x = mk('x'), y = mk('y'), z = mk('z');
    uint64_t now = clock_ns();
    CHECK(loop_init(&l, 16) == 0);
    nfired = 0;
    memset(fired, 0, sizeof(fired));
    /* x was due; a request was answered and its deadline pushed an hour away. */
    loop_timer_set(&l, &x.t, now - 5000);
    loop_timer_set(&l, &x.t, now + 3600 * NS_PER_S);
    /* y was an hour away; now it is due. */
    loop_timer_set(&l, &y.t, now + 3600 * NS_PER_S);
    loop_timer_set(&l, &y.t, now - 1);
    /* z was due, then cancelled. */
    loop_timer_set(&l, &z.t, now - 10);
    loop_timer_cancel(&l, &z.t);
    loop_poll(&l, 0);
    CHECKF(strcmp(fired, "y") == 0, "fired %s", fired);
    /* x is still armed, for its new deadline. */
    CHECK(loop_next_deadline(&l) == now + 3600 * NS_PER_S);
    loop_fini(&l);
}

static void many_timers(void)
{
    struct loop l;
    static struct named t[1000];
    uint64_t now = clock_ns();
    int i;
    CHECK(loop_init(&l, 16) == 0);
    nfired = 0;
    for (i = 0; i < 1000; i++) {
        t[i] = mk('m');
        CHECK(loop_timer_set(&l, &t[i].t, now - (uint64_t)(i % 97) - 1) == 0);
    }
    loop_poll(&l, 0);
    CHECK(nfired == (int)sizeof(fired) - 1 && loop_next_deadline(&l) == UINT64_MAX);
    loop_fini(&l);
}

/* A timer its callback sets again for a time already past: once a pass,
 * the rest at the next poll. It spun in one poll before (rate mode's
 * schedule, stopping, set itself again at its past due time: a hang). */
struct again {
    struct timer t;
    struct loop *l;
    int n;
};

static void again_in_the_past(struct timer *t, uint64_t now)
{
    struct again *a = container_of(t, struct again, t);
    if (++a->n < 1000)
        loop_timer_set(a->l, t, now - 1);
}

static void set_again_in_the_past_once_a_pass(void)
{
    struct loop l;
    struct again g;
    struct named a = mk('a');
    uint64_t now = clock_ns();
    memset(&g, 0, sizeof(g));
    g.t.fn = again_in_the_past;
    g.l = &l;
    CHECK(loop_init(&l, 16) == 0);
    nfired = 0;
    memset(fired, 0, sizeof(fired));
    CHECK(loop_timer_set(&l, &g.t, now - 10) == 0 && loop_timer_set(&l, &a.t, now - 5) == 0);
    loop_poll(&l, 0);
    /* Two armed, two fired: itself and a, or itself twice and a next time. */
    CHECKF(g.n <= 2 && g.n + nfired == 2, "%d times in one poll, a %d", g.n, nfired);
    loop_poll(&l, 0);
    CHECKF(g.n <= 4 && strcmp(fired, "a") == 0, "%d times in two polls, a fired %s", g.n, fired);
    loop_timer_cancel(&l, &g.t);
    loop_fini(&l);
}

int main(void)
{
    T_RUN(fire_in_deadline_order);
    T_RUN(later_is_lazy_earlier_moves_up_cancel_never_fires);
    T_RUN(many_timers);
    T_RUN(set_again_in_the_past_once_a_pass);
    T_END("test_loop");
}
