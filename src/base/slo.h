/* slo.h - pass/fail goals on a run (k6's thresholds), e.g.
 * "p99<50ms,errors<0.1%,bad_status<1%,rps>10000,checks>99.9%" (checks: the
 * share of checked responses that passed all their checks). */
#ifndef RAFALE_SLO_H
#define RAFALE_SLO_H

#include <stddef.h>
#include <stdio.h>

#define SLO_MAX 16

struct stats;

enum slo_metric { SLO_PCT, SLO_MEAN, SLO_MAX_LAT, SLO_ERRORS_PCT, SLO_ERRORS, SLO_RPS, SLO_BAD_PCT, SLO_BAD,
                  SLO_CHECKS_PCT };

struct slo_goal {
    char text[48];         /* as the user wrote it */
    enum slo_metric metric;
    double pct;            /* for SLO_PCT */
    int less;              /* 1: value must be below (or equal with or_equal) */
    int or_equal;
    double threshold;      /* ns for latencies, percent for errors %, count, req/s */
    double value;          /* after slo_eval, in the same unit */
    int pass;
};

struct slo {
    struct slo_goal goal[SLO_MAX];
    int n;
};

/* Parses spec. Returns 0, or -1 with a one-line reason in err. */
int slo_parse(const char *spec, struct slo *s, char *err, size_t errlen);
/* Measures each goal against a run's totals and its elapsed time.
 * Returns the number of goals missed. */
int slo_eval(struct slo *s, const struct stats *t, double elapsed_s);
/* Prints "SLO" and a pass/fail line per goal. */
void slo_print(FILE *f, const struct slo *s);
/* The value of a goal's measure in words ("12.3ms", "0.35%", "9876 req/s"). */
char *slo_value_str(const struct slo_goal *g, double v, char *buf, size_t len);

#endif
