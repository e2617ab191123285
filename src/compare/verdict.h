/* verdict.h - is server A faster than server B, the same, or can the data
 * not tell? From the repetitions of a compare: rounds are interleaved (every
 * server once per round), so the machine's drift hits all servers of a round
 * alike, and pairing by round takes it out.
 *
 * The interval: each round's ratio of time per request (throughput of the
 * other over this one's) is taken as a log (a ratio is multiplicative: 1.5x
 * slower and 1.5x faster are symmetric there). Two 95% intervals are drawn
 * over those paired logs and the union kept: a Student t-interval around
 * their mean, and the order-statistic (sign-test) interval of their median,
 * which holds whatever the rounds' distribution (skewed, an outlier round)
 * but reaches 95% only from 6 rounds ([min, max] before). Each alone fails
 * in a known way: t believes a tiny spread that 3 rounds show by chance, the
 * order statistics are too narrow at 3 to 5 rounds; a verdict needs both.
 * A bootstrap was left aside: over 3 to 15 rounds its percentiles are
 * known to be too narrow. The interval is then widened by what a round can
 * resolve at all: a duration-bound round counts whole requests, and with c
 * connections in step its count moves by c at once (c / requests, for each
 * server), so rounds that count the same integers never make a point.
 *
 * The decision, with an equivalence band of +-w (same-within, default 3%,
 * as a ratio 1/(1+w) to 1+w): the whole interval inside the band is
 * "same"; else an interval clear of 1 is "slower" or "faster"; else
 * "undecided", with why (too few rounds, too noisy, rounds too short) and
 * what would decide it. Rounds are too short when their counts are too
 * coarse (above), or when their own intervals (each run's, from its
 * batches of time) are wider than half the band: a round alone then cannot
 * tell a difference of half the band, and the rounds' ratios spread with
 * it; longer rounds narrow them. Fewer than 3 paired rounds: no interval, undecided.
 * A round in which other processes took the machine's CPUs (the
 * noisy_neighbour rule, for either server's run) is not paired: such a
 * neighbour can slow one server and not the other within a round, a bias
 * every round may repeat and that pairing does not take out (two identical
 * servers read 1.07x slower, 1.02-1.12, over 3 such rounds); with fewer
 * than 3 quiet rounds left, undecided, the machine named as why.
 * A server's own interval (throughput, p50, p99) is a t-interval over its
 * rounds' logs, unpaired. */
#ifndef RAFALE_VERDICT_H
#define RAFALE_VERDICT_H

#include <stddef.h>

enum verdict_kind {
    VERDICT_BEST,
    VERDICT_SAME,
    VERDICT_SLOWER,
    VERDICT_INVALID,
    VERDICT_UNDECIDED,
    VERDICT_FASTER,
};

/* Why a pair is undecided. */
enum verdict_why { VWHY_NONE, VWHY_FEW_ROUNDS, VWHY_NOISY, VWHY_COARSE, VWHY_BUSY };

/* Fewer paired rounds than this: no interval. */
#define VERDICT_MIN_ROUNDS 3

/* One server's time per request against another's. */
struct verdict_pair {
    double ratio;               /* geometric mean of the rounds' ratios (> 1: slower); 0 unknown */
    double ci[2];               /* its interval; NaN with fewer than VERDICT_MIN_ROUNDS */
    int n;                      /* paired rounds */
    int verdict;                /* VERDICT_SAME, _SLOWER, _FASTER or _UNDECIDED */
    int why;                    /* enum verdict_why, for undecided */
    double spread;              /* sd of the rounds' log-ratios (~ relative spread) */
    double resolution;          /* what a round can resolve, relative (both servers' c / requests) */
    double own_ci;              /* both servers' rounds' own throughput intervals, combined (root of the sum of
                                 * squares of their half-widths, relative); 0 unknown */
    int rounds_needed;          /* noisy: about how many rounds would decide it; 0: more would not */
    int busy;                   /* rounds left out: other processes took the machine's CPUs in them */
    int duration_auto;          /* set by compare, for the advice: duration = auto chose the rounds' length (1),
                                 * max-duration reached (2); 0 a length given */
};

struct verdict_cell {
    /* In: one server's figure per round (index = round; <= 0 when that
     * round has none), whether its result counts at all, and the relative
     * step of its rounds' counts (connections / requests, the mean over its
     * duration-bound rounds; 0 when rounds are count-bound). */
    const double *rps;
    int nrounds;
    int valid;
    double resolution;
    /* The mean over its rounds of each one's own throughput interval
     * (run_ci.rps, from the run's batches of time): its half-width,
     * relative; 0 when they have none. */
    double own_ci;
    const unsigned char *busy;  /* per round: 1 when other processes took the machine's CPUs (NULL: none) */
    /* Out. */
    double ratio;               /* time per request over the best's (>= 1 but for noise), 0 when invalid */
    double ratio_ci[2];         /* its 95% interval; NaN when fewer than 3 paired rounds */
    int verdict;                /* enum verdict_kind */
    struct verdict_pair vs_best;/* the pair behind it (why, when undecided) */
    int rank;                   /* 1 + the servers ahead; shared only with the same */
};


/* The geometric mean of the n values x > 0 (others skipped) and its 95%
 * interval into ci (NaN both when fewer than 2). Returns the mean, 0 when
 * there is no value. */
double verdict_log_ci(const double *x, int n, double ci[2]);

/* The decision over an interval of a ratio (> 1 worse) and a band +-within:
 * VERDICT_SAME, _SLOWER, _FASTER or _UNDECIDED (NaN bounds: undecided). */
int verdict_decide(const double ci[2], double within);

/* Are rounds whose own throughput intervals are own_ci (two servers'
 * together: the root of the sum of squares of their relative half-widths)
 * too short for the band +-within? When own_ci is wider than half of it
 * (on the log scale); 0 or NaN: unknown, not short. duration = auto sizes
 * its rounds by this same rule. */
int verdict_own_short(double own_ci, double within);

/* a against b, paired by round (time per request of a over b's). */
void verdict_pair(const struct verdict_cell *a, const struct verdict_cell *b, double within, struct verdict_pair *out);

/* Why a pair is undecided and what would decide it under the compare
 * file's settings (its band, a fixed repeat or repeat = auto), in words ("too
 * noisy: the rounds' ratios spread 4.1%, the interval 0.93-1.10 is wider
 * than +-3%: more rounds (max-repeat = 12)"). Returns b. */
struct compare_settings;
const char *verdict_why_text(char *b, size_t n, const struct verdict_pair *v, const struct compare_settings *set);

/* The best of the n cells (highest geometric-mean throughput among the
 * valid), each one's ratio to it with its paired interval, its verdict
 * and its rank. Returns the best's index, or -1 when none is valid. */
int verdict_rank(struct verdict_cell *c, int n, double within);

/* "best", "same", "slower", "not valid", "undecided", "faster". */
const char *verdict_name(int v);

#endif
