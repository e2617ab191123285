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

/* A CLOCK_REALTIME stamp on the monotonic clock latency is read from,
 * given now_mono (clock_ns(), taken just before): the REALTIME - MONOTONIC
 * offset is sampled afresh here, at every read, so a step of the wall
 * clock (settimeofday, an NTP step) bends only data that arrived before
 * the step and was read after it. Never later than now_mono. */
uint64_t rxstamp_mono(uint64_t stamp, uint64_t now_mono);

#endif
