/* rxstamp.h - the kernel's software receive timestamps (SO_TIMESTAMPING):
 * when the data a read returns reached the host, not when the thread got
 * round to reading it. */
#ifndef RAFALE_RXSTAMP_H
#define RAFALE_RXSTAMP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <linux/errqueue.h>

/* Asks the kernel to stamp what fd receives. Returns 0, or an errno value
 * (the socket then reads as before, without stamps). */
int rxstamp_enable(int fd);

/* The kernel stamps only while some socket asks: a switch it turns on
 * when the first asks and off when the last closes, each time by deferred
 * work that runs later. A run whose connections close and reopen (--close)
 * had moments when none of its sockets asked, and answers on the next
 * connections came unstamped until the switch was back (9 of 200 at -c 2,
 * up to 136 on a loaded machine). rxstamp_hold opens a socket that asks,
 * for a run to hold until its end: a UDP socket on loopback, or -1.
 * rxstamp_live tells whether the switch is on yet: a datagram to itself,
 * read back with its stamp or without. */
int rxstamp_hold(void);
int rxstamp_live(int fd);

/* A read's recvmsg header: the buffer's iovec and room for one
 * scm_timestamping (three timespecs), aligned as cmsg. A worker builds one
 * around its read buffer, once; it must not move after. */
struct rxstamp_msg {
    struct msghdr m;
    struct iovec iov;
    union {
        char b[CMSG_SPACE(sizeof(struct scm_timestamping))];
        struct cmsghdr align;
    } ctl;
};

static inline void rxstamp_msg_init(struct rxstamp_msg *rm, void *buf, size_t len)
{
    memset(&rm->m, 0, sizeof(rm->m));
    rm->iov.iov_base = buf;
    rm->iov.iov_len = len;
    rm->m.msg_iov = &rm->iov;
    rm->m.msg_iovlen = 1;
    rm->m.msg_control = rm->ctl.b;
}

/* The software stamp of a SO_TIMESTAMPING message (REALTIME ns), 0 for
 * any other message. */
static inline uint64_t rxstamp_of(const struct cmsghdr *cm)
{
    struct timespec t;
    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SO_TIMESTAMPING ||
        cm->cmsg_len < CMSG_LEN(sizeof(struct scm_timestamping)))
        return 0;
    /* scm_timestamping's ts[0] is the software stamp ([2] the hardware). */
    memcpy(&t, CMSG_DATA(cm), sizeof(t));
    return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* recv(2) of fd into rm's buffer that also takes the SCM_TIMESTAMPING of
 * the data read (for TCP: the arrival of the latest segment read). When
 * data came, *stamp is its arrival in CLOCK_REALTIME ns, or 0 when it came
 * without one; left as it was otherwise. Returns as read(2) does. Inline:
 * it is on every read. */
static inline ssize_t rxstamp_read(int fd, struct rxstamp_msg *rm, uint64_t *stamp)
{
    struct cmsghdr *cm;
    ssize_t n;

    rm->m.msg_controllen = sizeof(rm->ctl.b); /* recvmsg sets it to what it used */
    n = recvmsg(fd, &rm->m, 0);
    if (n <= 0)
        return n;
    /* Only SO_TIMESTAMPING was asked for, so its message comes first (and
     * alone): the others are walked only if it does not. */
    cm = CMSG_FIRSTHDR(&rm->m);
    *stamp = cm ? rxstamp_of(cm) : 0;
    if (__builtin_expect(cm && *stamp == 0, 0))
        while ((cm = CMSG_NXTHDR(&rm->m, cm)) != NULL && (*stamp = rxstamp_of(cm)) == 0)
            ;
    return n;
}

/* The same into buf, with a header of its own (TLS's BIO reads into
 * OpenSSL's buffers). */
static inline ssize_t rxstamp_recv(int fd, void *buf, size_t len, uint64_t *stamp)
{
    struct rxstamp_msg rm;
    rxstamp_msg_init(&rm, buf, len);
    return rxstamp_read(fd, &rm, stamp);
}

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
/* rxstamp_mono's rare path: a stamp after now_mono. The offset sampled
 * again, the stamp converted with it, and never later than now_mono. */
uint64_t rxstamp_late(struct rxstamp_clock *k, uint64_t stamp, uint64_t now_mono);

/* A CLOCK_REALTIME stamp on the monotonic clock, given now_mono
 * (clock_ns(), taken after the read): never later than now_mono. */
static inline uint64_t rxstamp_mono(struct rxstamp_clock *k, uint64_t stamp, uint64_t now_mono)
{
    uint64_t t;
    if (now_mono >= k->next)
        rxstamp_sample(k, now_mono);
    t = stamp - k->off;
    /* Later than the read (or wrapped round below zero): the wall clock
     * was stepped since the offset was taken. */
    return t <= now_mono ? t : rxstamp_late(k, stamp, now_mono);
}

#endif
