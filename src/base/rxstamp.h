/* rxstamp.h - the kernel's software receive timestamps (SO_TIMESTAMPING):
 * when the data a read returns reached the host, not when the thread got
 * round to reading it. */
#ifndef RAFALE_RXSTAMP_H
#define RAFALE_RXSTAMP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Asks the kernel to stamp what fd receives. Returns 0, or an errno value
 * (the socket then reads as before, without stamps). */
int rxstamp_enable(int fd);

/* recv(2) of fd into buf that also takes the SCM_TIMESTAMPING of the data
 * read (for TCP: the arrival of the latest segment read). When data came,
 * *stamp is its arrival in CLOCK_REALTIME ns, or 0 when it came without
 * one; left as it was otherwise. Returns as read(2) does. */
ssize_t rxstamp_recv(int fd, void *buf, size_t len, uint64_t *stamp);

/* The kernel stamps in CLOCK_REALTIME; latency is read from the monotonic
 * clock. The offset between them is sampled at a thread's first read, again
 * once a second, and at once when a stamp would land after the read that
 * returned it (the wall clock was stepped forward): a step (settimeofday,
 * an NTP step; NTP's slewing moves both clocks alike) bends the figures
 * for a second at most, and never later than the read. One per thread. */
struct rxstamp_clock {
    uint64_t off;        /* REALTIME - MONOTONIC, ns */
    uint64_t next;       /* monotonic ns of the next sampling */
};

/* Samples the offset now (now_mono: clock_ns()). */
void rxstamp_sample(struct rxstamp_clock *k, uint64_t now_mono);

/* A CLOCK_REALTIME stamp on the monotonic clock, given now_mono
 * (clock_ns(), taken after the read): never later than now_mono. */
static inline uint64_t rxstamp_mono(struct rxstamp_clock *k, uint64_t stamp, uint64_t now_mono)
{
    uint64_t t;
    if (now_mono >= k->next)
        rxstamp_sample(k, now_mono);
    t = stamp > k->off ? stamp - k->off : 0;
    if (t > now_mono) {
        rxstamp_sample(k, now_mono);
        t = stamp > k->off ? stamp - k->off : 0;
    }
    return t < now_mono ? t : now_mono;
}

#endif
