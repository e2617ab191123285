/* rxstamp.c - kernel software receive timestamps: asked for per socket,
 * read from recvmsg's control data, converted to the monotonic clock. */
#include "rxstamp.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
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

int rxstamp_hold(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    /* Bound and connected to itself: rxstamp_live's datagrams. */
    if (rxstamp_enable(fd) != 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0 || connect(fd, (struct sockaddr *)&a, len) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int rxstamp_live(int fd)
{
    struct pollfd p = { fd, POLLIN, 0 };
    uint64_t stamp = 0;
    char b;
    if (send(fd, "", 1, 0) != 1 || poll(&p, 1, 10) != 1 || rxstamp_recv(fd, &b, 1, &stamp) != 1)
        return 0;
    return stamp != 0;
}
