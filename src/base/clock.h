/* clock.h - monotonic time in nanoseconds; the only clock latency is read from. */
#ifndef RAFALE_CLOCK_H
#define RAFALE_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NS_PER_US 1000ULL
#define NS_PER_MS 1000000ULL
#define NS_PER_S 1000000000ULL

/* CLOCK_MONOTONIC goes through the vDSO: no syscall, about 20 ns. */
static inline uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

#endif
