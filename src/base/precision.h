/* precision.h - --precision: the figures whose 95% intervals (interval.h)
 * must narrow before the run may end, and how far: "5%" (throughput, p50
 * and p99 each within +-5%) or "p99:5%,rps:2%". */
#ifndef RAFALE_PRECISION_H
#define RAFALE_PRECISION_H

#include <stddef.h>

#include "interval.h"

#define PRECISION_MAX 8

struct precision_goal {
    char name[8];               /* "rps", "mean", "p99", ... as reports name them */
    enum interval_fig fig;
    double pct;                 /* the percentile, for INTERVAL_PCT */
    double rel;                 /* the half-width asked for, relative to the figure (0.05) */
};

struct precision {
    struct precision_goal g[PRECISION_MAX];
    int n;                      /* 0: none asked */
};

/* Parses spec. Returns 0, or -1 with a one-line reason in err. */
int precision_parse(const char *spec, struct precision *p, char *err, size_t errlen);
/* How far iv reaches from its figure: its wider side over the figure
 * (INFINITY when a side is open or there is none). */
double precision_width(const struct interval *iv);

#endif
