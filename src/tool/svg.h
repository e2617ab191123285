/* svg.h - small inline SVG charts for the HTML report: line charts (with a
 * log or "nines" axis) and grouped bars. Titles, axis labels with units and
 * legends are always drawn, so a chart reads on its own, printed too. */
#ifndef RAFALE_SVG_H
#define RAFALE_SVG_H

#include <stdio.h>

struct svg_series {
    const char *name;
    const double *x, *y;
    int n;
};

struct svg_axis {
    const char *label;          /* with its unit, e.g. "latency (ms)" */
    int log;                    /* log10 scale (values must be > 0) */
    const double *ticks;        /* fixed ticks, or NULL for automatic ones */
    const char *const *tick_labels;
    int nticks;
    int nines;                  /* x is 1 / (1 - p): a point's tooltip shows the percentile p */
};

/* Writes an <svg> line chart; every point has a tooltip (<title>) with its
 * series and both values. */
void svg_line_chart(FILE *f, const char *title, const struct svg_axis *x, const struct svg_axis *y,
                    const struct svg_series *s, int ns);

/* Writes an <svg> bar chart: ngroups groups of nseries bars;
 * values[g * nseries + s]; NAN draws "not valid" instead of a bar. lo and
 * hi (NULL: none; NAN where unknown) draw each bar's 95% interval as a
 * whisker. Every bar has a tooltip with its value (and interval). */
void svg_bar_chart(FILE *f, const char *title, const char *ylabel, const char *const *groups, int ngroups,
                   const char *const *series, int nseries, const double *values, const double *lo,
                   const double *hi);

#endif
