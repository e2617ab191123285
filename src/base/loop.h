/* loop.h - the event loop: epoll readiness plus a timer heap.
 *
 * Handlers are small structs embedded in their owners (a connection, a
 * listener), so dispatch is one indirect call with no lookup. Timers use a
 * binary min-heap with lazy re-arming: pushing a deadline later (as every
 * new request on a keep-alive connection does) costs nothing until the old
 * deadline comes up, so the hot path does no heap work per request. */
#ifndef RAFALE_LOOP_H
#define RAFALE_LOOP_H

#include <stddef.h>
#include <stdint.h>

#define LOOP_IN   0x01u
#define LOOP_OUT  0x02u
#define LOOP_ERR  0x04u  /* error or hang-up on the socket */

/* The struct of type T whose member m is at p: handlers are embedded in
 * their owners, and get back to them with this. */
#define container_of(p, T, m) ((T *)(void *)((char *)(p) - offsetof(T, m)))

struct loop_io;
typedef void (*loop_io_fn)(struct loop_io *io, uint32_t events);
struct loop_io {
    loop_io_fn fn;
};

struct timer;
typedef void (*timer_fn)(struct timer *t, uint64_t now);
struct timer {
    uint64_t when;   /* key in the heap */
    uint64_t want;   /* requested deadline; when < want means re-arm lazily */
    uint32_t idx;    /* position in the heap + 1, 0 when not armed */
    timer_fn fn;
};

struct loop {
    int epfd;
    int nevents;
    void *events;       /* struct epoll_event[nevents] */
    struct timer **heap;
    uint32_t nheap, capheap;
    int no_pwait2;      /* the kernel lacks epoll_pwait2: millisecond timeouts */
};

/* Returns 0, or an errno value. */
int loop_init(struct loop *l, int max_events);
void loop_fini(struct loop *l);

/* Watches fd for LOOP_IN and/or LOOP_OUT, edge-triggered: a handler must
 * consume what it was told about or it will not be told again. Returns 0 or
 * an errno value. Closing fd removes it. */
int loop_add(struct loop *l, int fd, uint32_t events, struct loop_io *io);

/* Arms t to fire at time `when` (ns, clock_ns()). Returns 0 or ENOMEM. */
int loop_timer_set(struct loop *l, struct timer *t, uint64_t when);
void loop_timer_cancel(struct loop *l, struct timer *t);

/* Waits up to max_wait_ns for events, dispatches them, then fires due
 * timers. Returns the number of I/O events handled, or -1 with errno set. */
int loop_poll(struct loop *l, uint64_t max_wait_ns);

/* Asks the kernel to wake this thread without timer slack. */
void loop_precise_timers(void);

/* Earliest armed deadline, or UINT64_MAX. */
uint64_t loop_next_deadline(const struct loop *l);

#endif
