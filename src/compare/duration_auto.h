/* duration_auto.h - duration = auto in a compare workload: how long its
 * rounds are; private to src/compare/.
 *
 * Before the measured rounds, probing rounds (every server once, back to
 * back, all at the same length) start at COMPARE_AUTO_FIRST_NS and double,
 * up to max-duration, until the servers' own throughput intervals (each
 * run's 95% interval, from its batches of time) fit half the same-within
 * band as the verdict judges a pair's (verdict_own_short): the two widest
 * together, the root of the sum of their squares, so that no pair of
 * servers would be told "rounds too short" by the intervals the length was
 * chosen on. The probing rounds are then left out: they ran at other
 * lengths, and the last one was kept for being narrow, which would favour
 * a quiet round. */
#ifndef RAFALE_DURATION_AUTO_H
#define RAFALE_DURATION_AUTO_H

#include <stdint.h>

/* The two widest of n relative half-widths together (the root of the sum
 * of their squares); n == 1: that one. NaN when n < 1 or any is NaN or
 * negative (a run without an interval: it cannot say it fits). */
double duration_auto_widest(const double *own, int n);

/* The first round length to try: COMPARE_AUTO_FIRST_NS, or max_ns when
 * that is shorter. */
uint64_t duration_auto_first(uint64_t max_ns);

/* After rounds of cur_ns whose intervals were own (duration_auto_widest),
 * under the band +-within: 0 when they fit half the band (cur_ns is the
 * length), else the next length to try, twice cur_ns and at most max_ns;
 * cur_ns itself when it is max_ns already: the longest allowed, still too
 * wide. */
uint64_t duration_auto_next(uint64_t cur_ns, double own, double within, uint64_t max_ns);

#endif
