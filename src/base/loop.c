/* loop.c - epoll readiness plus a lazy timer heap. The only file that knows
 * about epoll; a kqueue or io_uring backend would replace this file alone. */
#include "loop.h"
#include "clock.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <unistd.h>

int loop_init(struct loop *l, int max_events)
{
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (l->epfd < 0)
        return errno;
    l->nevents = max_events;
    l->events = calloc((size_t)max_events, sizeof(struct epoll_event));
    l->nheap = l->capheap = 0;
    l->no_pwait2 = 0;
    l->heap = NULL;
    if (l->events == NULL) {
        close(l->epfd);
        l->epfd = -1;
        return ENOMEM;
    }
    return 0;
}

void loop_fini(struct loop *l)
{
    if (l->epfd >= 0)
        close(l->epfd);
    l->epfd = -1;
    free(l->events);
    free(l->heap);
    l->events = NULL;
    l->heap = NULL;
}

static uint32_t to_epoll(uint32_t ev)
{
    /* Edge-triggered: registered once per socket, never modified per request.
     * Linux only signals EPOLLOUT again after a write found the buffer full,
     * so IN|OUT together cause no spurious wake-ups. */
    uint32_t e = EPOLLET | EPOLLRDHUP;
    if (ev & LOOP_IN)
        e |= EPOLLIN;
    if (ev & LOOP_OUT)
        e |= EPOLLOUT;
    return e;
}

int loop_add(struct loop *l, int fd, uint32_t events, struct loop_io *io)
{
    struct epoll_event e = { .events = to_epoll(events), .data.ptr = io };
    return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &e) == 0 ? 0 : errno;
}



/* --- timer heap (1-based positions stored in idx) --- */

static void heap_swap(struct loop *l, uint32_t a, uint32_t b)
{
    struct timer *t = l->heap[a];
    l->heap[a] = l->heap[b];
    l->heap[b] = t;
    l->heap[a]->idx = a + 1;
    l->heap[b]->idx = b + 1;
}

static void sift_up(struct loop *l, uint32_t i)
{
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (l->heap[parent]->when <= l->heap[i]->when)
            break;
        heap_swap(l, i, parent);
        i = parent;
    }
}

static void sift_down(struct loop *l, uint32_t i)
{
    for (;;) {
        uint32_t c = 2 * i + 1, m = i;
        if (c < l->nheap && l->heap[c]->when < l->heap[m]->when)
            m = c;
        if (c + 1 < l->nheap && l->heap[c + 1]->when < l->heap[m]->when)
            m = c + 1;
        if (m == i)
            break;
        heap_swap(l, i, m);
        i = m;
    }
}

int loop_timer_set(struct loop *l, struct timer *t, uint64_t when)
{
    t->want = when;
    if (t->idx != 0) {
        if (when >= t->when)
            return 0; /* lazy: re-armed when the old deadline comes up */
        t->when = when;
        sift_up(l, t->idx - 1);
        return 0;
    }
    if (l->nheap == l->capheap) {
        uint32_t cap = l->capheap ? l->capheap * 2 : 64;
        struct timer **h = realloc(l->heap, cap * sizeof(*h));
        if (h == NULL)
            return ENOMEM;
        l->heap = h;
        l->capheap = cap;
    }
    t->when = when;
    l->heap[l->nheap] = t;
    t->idx = ++l->nheap;
    sift_up(l, l->nheap - 1);
    return 0;
}

void loop_timer_cancel(struct loop *l, struct timer *t)
{
    uint32_t i;
    if (t->idx == 0)
        return;
    i = t->idx - 1;
    t->idx = 0;
    l->nheap--;
    if (i != l->nheap) {
        l->heap[i] = l->heap[l->nheap];
        l->heap[i]->idx = i + 1;
        sift_down(l, i);
        sift_up(l, i);
    }
}

void loop_precise_timers(void)
{
    /* The default 50 us timer slack would blur a schedule of 20 000 req/s. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

uint64_t loop_next_deadline(const struct loop *l)
{
    return l->nheap ? l->heap[0]->when : UINT64_MAX;
}

/* The timers due by now, as many as were armed: one a callback sets again
 * for a time already past runs at the next poll, not in this pass, so the
 * caller's loop gets back to its own checks (a stop, a deadline) between. */
static void run_timers(struct loop *l, uint64_t now)
{
    uint32_t left = l->nheap;
    while (left && l->nheap && l->heap[0]->when <= now) {
        struct timer *t = l->heap[0];
        if (t->want > t->when) {
            t->when = t->want;
            sift_down(l, 0);
            continue;
        }
        loop_timer_cancel(l, t);
        left--;
        t->fn(t, now);
    }
}

int loop_poll(struct loop *l, uint64_t max_wait_ns)
{
    struct epoll_event *ev = l->events;
    uint64_t now = clock_ns(), next = loop_next_deadline(l), wait_ns = max_wait_ns;
    int timeout_ms, n, i;

    if (next <= now)
        wait_ns = 0;
    else if (next - now < wait_ns)
        wait_ns = next - now;
    /* Round up so a timer is never polled for just before it is due. */
    timeout_ms = (int)((wait_ns + NS_PER_MS - 1) / NS_PER_MS);

    if (!l->no_pwait2) {
        /* Nanosecond timeouts: a 1 ms tick would make a constant-rate
         * schedule send in bursts and every request up to 1 ms late. */
        struct timespec ts = { (time_t)(wait_ns / NS_PER_S), (long)(wait_ns % NS_PER_S) };
        n = epoll_pwait2(l->epfd, ev, l->nevents, &ts, NULL);
        if (n < 0 && errno == ENOSYS) {
            l->no_pwait2 = 1;
            n = epoll_wait(l->epfd, ev, l->nevents, timeout_ms);
        }
    } else {
        n = epoll_wait(l->epfd, ev, l->nevents, timeout_ms);
    }
    if (n < 0) {
        if (errno != EINTR)
            return -1;
        n = 0;
    }
    for (i = 0; i < n; i++) {
        struct loop_io *io = ev[i].data.ptr;
        uint32_t e = 0;
        if (ev[i].events & EPOLLIN)
            e |= LOOP_IN;
        if (ev[i].events & EPOLLOUT)
            e |= LOOP_OUT;
        if (ev[i].events & (EPOLLERR | EPOLLHUP | EPOLLRDHUP))
            e |= LOOP_ERR | LOOP_IN; /* read to find out what happened */
        io->fn(io, e);
    }
    if (l->nheap)
        run_timers(l, clock_ns());
    return n;
}
