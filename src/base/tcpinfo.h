/* tcpinfo.h - what the kernel knows of a TCP connection (Linux TCP_INFO):
 * segments sent and retransmitted, the smoothed and the lowest RTT. Read
 * once per connection as it closes, summed over a run for packet_loss. */
#ifndef RAFALE_TCPINFO_H
#define RAFALE_TCPINFO_H

#include <stdint.h>

struct tcpinfo_sum {
    uint64_t sampled;       /* connections read */
    uint64_t segs_out;      /* segments sent, retransmissions included */
    uint64_t retrans;       /* segments retransmitted */
    double rtt_sum_us;      /* smoothed RTT at close, summed: / sampled is the mean */
    uint32_t min_rtt_us;    /* lowest RTT seen on any of them (UINT32_MAX: none) */
};

void tcpinfo_sum_init(struct tcpinfo_sum *s);
/* Reads fd's counters into s. Returns 0, or -1 when the kernel does not
 * say (not TCP, or an older kernel without segs_out). */
int tcpinfo_add(struct tcpinfo_sum *s, int fd);
void tcpinfo_merge(struct tcpinfo_sum *d, const struct tcpinfo_sum *s);

#endif
