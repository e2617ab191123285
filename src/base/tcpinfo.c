/* tcpinfo.c - TCP_INFO, from linux/tcp.h: glibc's struct tcp_info stops
 * before tcpi_segs_out. Kept apart because the two headers clash. */
#include "tcpinfo.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

void tcpinfo_sum_init(struct tcpinfo_sum *s)
{
    memset(s, 0, sizeof(*s));
    s->min_rtt_us = UINT32_MAX;
}

int tcpinfo_add(struct tcpinfo_sum *s, int fd)
{
    struct tcp_info ti;
    socklen_t len = sizeof(ti);
    memset(&ti, 0, sizeof(ti));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
        len < offsetof(struct tcp_info, tcpi_min_rtt) + sizeof(ti.tcpi_min_rtt))
        return -1;
    s->sampled++;
    s->segs_out += ti.tcpi_segs_out;
    s->retrans += ti.tcpi_total_retrans;
    s->rtt_sum_us += ti.tcpi_rtt;
    if (ti.tcpi_min_rtt && ti.tcpi_min_rtt < s->min_rtt_us)
        s->min_rtt_us = ti.tcpi_min_rtt;
    return 0;
}

void tcpinfo_merge(struct tcpinfo_sum *d, const struct tcpinfo_sum *s)
{
    d->sampled += s->sampled;
    d->segs_out += s->segs_out;
    d->retrans += s->retrans;
    d->rtt_sum_us += s->rtt_sum_us;
    if (s->min_rtt_us < d->min_rtt_us)
        d->min_rtt_us = s->min_rtt_us;
}
