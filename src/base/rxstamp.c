/* rxstamp.c - kernel software receive timestamps: asked for per socket,
 * read from recvmsg's control data, converted to the monotonic clock. */
#include "rxstamp.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/errqueue.h>
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

ssize_t rxstamp_recv(int fd, void *buf, size_t len, uint64_t *stamp)
{
    /* Room for one scm_timestamping (three timespecs), aligned as cmsg. */
    union {
        char b[CMSG_SPACE(sizeof(struct scm_timestamping))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = { buf, len };
    struct msghdr m;
    struct cmsghdr *cm;
    ssize_t n;

    memset(&m, 0, sizeof(m));
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl.b;
    m.msg_controllen = sizeof(ctl.b);
    n = recvmsg(fd, &m, 0);
    if (n <= 0)
        return n;
    *stamp = 0;
    for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_TIMESTAMPING &&
            cm->cmsg_len >= CMSG_LEN(sizeof(struct scm_timestamping))) {
            struct scm_timestamping ts;
            memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
            /* ts[0] is the software stamp; [2] the hardware one. */
            *stamp = (uint64_t)ts.ts[0].tv_sec * 1000000000ULL + (uint64_t)ts.ts[0].tv_nsec;
        }
    }
    return n;
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
