/* TCP_INFO summed over connections: a real connection on 127.0.0.1 read
 * (segments sent, an RTT), what is not TCP refused and left out, sums
 * merged with the lowest RTT kept. */
#include "tcpinfo.h"
#include "../t.h"

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A connected pair over 127.0.0.1 with a few bytes each way. Returns 0. */
static int pair(int fd[2])
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    char b[8];
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fd[0] = fd[1] = -1;
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 1) != 0 ||
        getsockname(l, (struct sockaddr *)&a, &len) != 0 || (fd[0] = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
        connect(fd[0], (struct sockaddr *)&a, sizeof(a)) != 0 || (fd[1] = accept(l, NULL, NULL)) < 0 ||
        send(fd[0], "ping", 4, 0) != 4 || recv(fd[1], b, 4, MSG_WAITALL) != 4 || send(fd[1], "pong", 4, 0) != 4 ||
        recv(fd[0], b, 4, MSG_WAITALL) != 4) {
        if (l >= 0)
            close(l);
        return -1;
    }
    close(l);
    return 0;
}

static void a_connection_read(void)
{
    struct tcpinfo_sum s;
    int fd[2];
    tcpinfo_sum_init(&s);
    CHECK(s.sampled == 0 && s.segs_out == 0 && s.min_rtt_us == UINT32_MAX && s.rtt_sum_us == 0);
    CHECK(pair(fd) == 0);
    CHECK(tcpinfo_add(&s, fd[0]) == 0);
    /* The client sent its SYN, its ACK and "ping" at least; loopback loses
     * nothing; an RTT was measured, so the lowest is known. */
    CHECKF(s.sampled == 1 && s.segs_out >= 3 && s.retrans == 0, "segs_out %llu retrans %llu",
           (unsigned long long)s.segs_out, (unsigned long long)s.retrans);
    CHECK(s.min_rtt_us > 0 && s.min_rtt_us < UINT32_MAX && s.rtt_sum_us > 0);
    CHECK(tcpinfo_add(&s, fd[1]) == 0);
    CHECK(s.sampled == 2 && s.segs_out >= 5);
    close(fd[0]);
    close(fd[1]);
}

static void not_tcp_left_out(void)
{
    struct tcpinfo_sum s;
    int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), p[2];
    tcpinfo_sum_init(&s);
    CHECK(u >= 0 && tcpinfo_add(&s, u) == -1);
    CHECK(pipe(p) == 0 && tcpinfo_add(&s, p[0]) == -1);
    CHECK(tcpinfo_add(&s, -1) == -1);
    CHECK(s.sampled == 0 && s.segs_out == 0 && s.min_rtt_us == UINT32_MAX);
    close(u);
    close(p[0]);
    close(p[1]);
}

static void sums_merged(void)
{
    struct tcpinfo_sum a, b, none;
    tcpinfo_sum_init(&a);
    tcpinfo_sum_init(&b);
    tcpinfo_sum_init(&none);
    a.sampled = 2, a.segs_out = 100, a.retrans = 3, a.rtt_sum_us = 80, a.min_rtt_us = 30;
    b.sampled = 1, b.segs_out = 50, b.retrans = 1, b.rtt_sum_us = 20, b.min_rtt_us = 12;
    tcpinfo_merge(&a, &b);
    CHECK(a.sampled == 3 && a.segs_out == 150 && a.retrans == 4 && a.rtt_sum_us == 100 && a.min_rtt_us == 12);
    /* One with none sampled changes nothing; into an empty one, all of it. */
    tcpinfo_merge(&a, &none);
    CHECK(a.sampled == 3 && a.min_rtt_us == 12);
    tcpinfo_merge(&none, &a);
    CHECK(none.sampled == 3 && none.segs_out == 150 && none.min_rtt_us == 12);
}

int main(void)
{
    T_RUN(a_connection_read);
    T_RUN(not_tcp_left_out);
    T_RUN(sums_merged);
    T_END("tcpinfo");
}
