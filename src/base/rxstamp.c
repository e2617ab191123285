/* rxstamp.c - kernel software receive timestamps: asked for per socket,
 * read from recvmsg's control data, converted to the monotonic clock. */
#include "rxstamp.h"

#include <errno.h>
#include <time.h>
#include <linux/net_tstamp.h>

int rxstamp_enable(int fd)
{
    /* Software stamps taken as the packet enters the stack (RX_SOFTWARE),
     * reported to us (SOFTWARE). No hardware stamps: a NIC that has them
     * is rare on the machines rafale runs from, and lo has none. */
    int v = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &v, sizeof(v)) != 0)
        return errno;
    return 0;
}

static uint64_t ns_of(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

void rxstamp_sample(struct rxstamp_clock *k, uint64_t now_mono)
{
    /* The wall clock read between two monotonic reads: the offset is
     * within half their gap (tens of ns through the vDSO). */
    uint64_t a = ns_of(CLOCK_MONOTONIC), real = ns_of(CLOCK_REALTIME), b = ns_of(CLOCK_MONOTONIC);
    k->off = real - (a + (b - a) / 2);
    k->next = now_mono + 1000000000ULL;
}

uint64_t rxstamp_late(struct rxstamp_clock *k, uint64_t stamp, uint64_t now_mono)
{
    uint64_t t;
    rxstamp_sample(k, now_mono);
    t = stamp > k->off ? stamp - k->off : 0;
    return t < now_mono ? t : now_mono;
}
