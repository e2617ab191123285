/* The kernel's receive stamps: read from a control message built here (and
 * only from SO_TIMESTAMPING's), read from a datagram on 127.0.0.1 when the
 * socket asked (and not when it did not), and put on the monotonic clock,
 * never later than the read that returned them. */
#include "rxstamp.h"
#include "../t.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_of(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* A control buffer holding one message of level/type with three
 * timespecs, the first {sec, nsec}; len: its cmsg_len. */
union ctl {
    char b[CMSG_SPACE(sizeof(struct scm_timestamping))];
    struct cmsghdr align;
};

static struct cmsghdr *build(union ctl *u, int level, int type, size_t len, time_t sec, long nsec)
{
    struct cmsghdr *cm = &u->align;
    struct scm_timestamping ts;
    memset(u, 0, sizeof(*u));
    memset(&ts, 0, sizeof(ts));
    ts.ts[0].tv_sec = sec;
    ts.ts[0].tv_nsec = nsec;
    ts.ts[2].tv_sec = 99; /* a hardware stamp: never the one read */
    cm->cmsg_level = level;
    cm->cmsg_type = type;
    cm->cmsg_len = len;
    memcpy(CMSG_DATA(cm), &ts, sizeof(ts));
    return cm;
}

static void stamp_of_a_built_message(void)
{
    union ctl u;
    size_t full = CMSG_LEN(sizeof(struct scm_timestamping));
    CHECK(rxstamp_of(build(&u, SOL_SOCKET, SO_TIMESTAMPING, full, 12, 345)) == 12000000345ULL);
    CHECK(rxstamp_of(build(&u, SOL_SOCKET, SO_TIMESTAMPING, full, 1700000000, 999999999)) == 1700000000999999999ULL);
    /* Another level or type, or one too short to hold the stamps: none. */
    CHECK(rxstamp_of(build(&u, IPPROTO_IP, SO_TIMESTAMPING, full, 12, 345)) == 0);
    CHECK(rxstamp_of(build(&u, SOL_SOCKET, SO_TIMESTAMPNS, full, 12, 345)) == 0);
    CHECK(rxstamp_of(build(&u, SOL_SOCKET, SO_TIMESTAMPING, CMSG_LEN(sizeof(struct timespec)), 12, 345)) == 0);
}

/* A UDP socket on 127.0.0.1 connected to to (or to itself), non-blocking. */
static int udp(const struct sockaddr_in *to, struct sockaddr_in *self)
{
    socklen_t len = sizeof(*self);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    memset(self, 0, sizeof(*self));
    self->sin_family = AF_INET;
    self->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)self, sizeof(*self)) != 0 ||
        getsockname(fd, (struct sockaddr *)self, &len) != 0 ||
        connect(fd, (const struct sockaddr *)(to ? to : self), sizeof(*self)) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static void a_datagram_stamped_on_arrival(void)
{
    struct rxstamp_msg rm;
    struct sockaddr_in a, b;
    uint64_t stamp = 42, before, after;
    char buf[16];
    int hold = rxstamp_hold(), i, live = 0, fa, fb;
    CHECK(hold >= 0);
    /* The kernel's switch comes on by deferred work: wait for it, as the
     * engine does, a try a millisecond (here up to 2 s: a loaded machine
     * runs that work late). */
    for (i = 0; i < 2000 && !(live = rxstamp_live(hold)); i++)
        usleep(1000);
    CHECKF(live, "not live after %d tries", i);
    /* Nothing to read: as read(2), and the stamp left as it was. */
    errno = 0;
    CHECK(rxstamp_recv(hold, buf, sizeof(buf), &stamp) == -1 && errno == EAGAIN && stamp == 42);

    fa = udp(NULL, &a);
    fb = udp(&a, &b);
    CHECK(fa >= 0 && fb >= 0 && connect(fa, (struct sockaddr *)&b, sizeof(b)) == 0);
    CHECK(rxstamp_enable(fa) == 0);
    before = now_of(CLOCK_REALTIME);
    CHECK(send(fb, "hello", 5, 0) == 5);
    rxstamp_msg_init(&rm, buf, sizeof(buf));
    for (i = 0; i < 1000 && (rxstamp_read(fa, &rm, &stamp)) < 0 && errno == EAGAIN; i++)
        usleep(1000);
    after = now_of(CLOCK_REALTIME);
    CHECK(memcmp(buf, "hello", 5) == 0);
    CHECKF(stamp >= before && stamp <= after, "stamp %llu not in [%llu, %llu]", (unsigned long long)stamp,
           (unsigned long long)before, (unsigned long long)after);

    /* A socket that did not ask: its data comes with no stamp (0). */
    stamp = 42;
    CHECK(send(fa, "back", 4, 0) == 4);
    for (i = 0; i < 1000 && rxstamp_recv(fb, buf, sizeof(buf), &stamp) < 0 && errno == EAGAIN; i++)
        usleep(1000);
    CHECK(memcmp(buf, "back", 4) == 0 && stamp == 0);
    /* Not a socket: the error said. */
    i = open("/dev/null", O_RDONLY | O_CLOEXEC);
    CHECK(i >= 0 && rxstamp_enable(i) == ENOTSOCK);
    close(i);
    close(fa);
    close(fb);
    close(hold);
}

static void realtime_put_on_the_monotonic_clock(void)
{
    struct rxstamp_clock k = { 1000, 5000 };
    uint64_t mono, real, t;
    /* Before its next sampling the offset is kept: exact. */
    CHECK(rxstamp_mono(&k, 3500, 4000) == 2500 && k.off == 1000 && k.next == 5000);
    CHECK(rxstamp_mono(&k, 5000, 4000) == 4000); /* at the read itself: kept */
    /* A stamp after the read: the offset sampled again (the real one, about
     * the epoch's age) and the stamp never later than the read. */
    CHECK(rxstamp_mono(&k, 6000, 4000) == 0);
    CHECK(k.off > 1000000000ULL * 1000000000ULL && k.next == 4000 + 1000000000ULL);

    /* A fresh clock samples at its first use: a stamp of 1 ms ago comes out
     * 1 ms before now on the monotonic clock (give or take how long the
     * calls took: a second is far more than that, and far less than a
     * wrong offset, the epoch's age), and never after the read. */
    memset(&k, 0, sizeof(k));
    real = now_of(CLOCK_REALTIME) - 1000000;
    mono = now_of(CLOCK_MONOTONIC);
    t = rxstamp_mono(&k, real, mono);
    CHECK(k.next == mono + 1000000000ULL && k.off != 0);
    CHECKF(t + 500000 <= mono && t + 1000000 + 1000000000ULL >= mono, "t %llu mono %llu", (unsigned long long)t,
           (unsigned long long)mono);
    /* The wall clock stepped forward since: clamped to the read. */
    CHECK(rxstamp_mono(&k, real + 3600 * 1000000000ULL, mono) == mono);
    /* A stamp far in the past (or 0): 0, not a wrapped huge time. */
    CHECK(rxstamp_mono(&k, 0, mono) == 0);
}

int main(void)
{
    T_RUN(stamp_of_a_built_message);
    T_RUN(a_datagram_stamped_on_arrival);
    T_RUN(realtime_put_on_the_monotonic_clock);
    T_END("rxstamp");
}
