/* verdict.h - is server A faster than server B, or the same within noise?
 * From the repetitions of a compare: rounds are interleaved (every server
 * once per round), so the machine's drift hits all servers of a round
 * alike, and pairing by round takes it out.
 *
 * The method: for two servers, each round's ratio of time per request
 * (throughput of the other over this one's) is taken as a log, and a
 * Student t-interval at 95% is drawn around the mean log-ratio: exp()
 * of it is a geometric-mean ratio and its interval. Logs, because a ratio
 * is multiplicative (1.5x slower and 1.5x faster are symmetric there); a
 * paired t rather than a bootstrap, because a compare has 3 to 10 rounds,
 * too few for a bootstrap to mean much, and the per-round figure is a mean
 * over tens of thousands of requests, close enough to normal. A server's
 * own interval (throughput, p50, p99) is the same t-interval over its
 * rounds' logs, unpaired. A server is the same as the best when its
 * interval holds 1, or lies wholly within 2% of it. */
#ifndef RAFALE_VERDICT_H
#define RAFALE_VERDICT_H

enum verdict_kind { VERDICT_BEST, VERDICT_SAME, VERDICT_SLOWER, VERDICT_INVALID, VERDICT_UNKNOWN };

struct verdict_cell {
    /* In: one server's figure per round (index = round; <= 0 when that
     * round has none), and whether its result counts at all. */
    const double *rps;
    int nrounds;
    int valid;
    /* Out. */
    double ratio;               /* time per request over the best's (>= 1 but for noise), 0 when invalid */
    double ratio_ci[2];         /* its 95% interval; NaN when fewer than 2 paired rounds */
    int verdict;                /* enum verdict_kind */
    int rank;                   /* 1 for the best and those the same as it; ties share a rank */
};

/* The 97.5% quantile of Student's t with df degrees of freedom. */
double verdict_t975(int df);

/* The geometric mean of the n values x > 0 (others skipped) and its 95%
 * interval into ci (NaN both when fewer than 2). Returns the mean, 0 when
 * there is no value. */
double verdict_log_ci(const double *x, int n, double ci[2]);

/* The best of the n cells (highest geometric-mean throughput among the
 * valid), each one's ratio to it with its paired interval, its verdict
 * and its rank. Returns the best's index, or -1 when none is valid. */
int verdict_rank(struct verdict_cell *c, int n);

/* "best", "same", "slower", "not valid", "unknown". */
const char *verdict_name(int v);

#endif
