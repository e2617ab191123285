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
    /* Set (a label, such as "latency (ms, log scale)"): the axis turns to
     * log10, so labelled, when its positive values span more than
     * SVG_LOG_SPAN times (two decades), where a linear one would lay the
     * small ones on its zero line. Values <= 0 are drawn at its foot. */
    const char *log_label;
};

#define SVG_LOG_SPAN 100.0

/* Whether the positive values among the n span more than SVG_LOG_SPAN
 * times (NaN and values <= 0 left out). */
int svg_log_wanted(const double *v, int n);

/* Writes an <svg> line chart; every point has a tooltip (<title>) with its
 * series and both values. */
void svg_line_chart(FILE *f, const char *title, const struct svg_axis *x, const struct svg_axis *y,
                    const struct svg_series *s, int ns);

/* How a bar chart draws beyond its values; NULL: bars coloured by
 * series, a linear axis. */
struct svg_bar_style {
    const char *log_label;       /* as svg_axis's: a log axis past two decades, so labelled */
    /* A colour per group (one series: a status code's class), its tooltip
     * naming the group, and the legend's keys for the colours. */
    const char *const *fill;
    const char *const *keys, *const *key_fill;
    int nkeys;
};

/* Writes an <svg> bar chart: ngroups groups of nseries bars;
 * values[g * nseries + s]; NAN draws "not valid" instead of a bar. lo and
 * hi (NULL: none; NAN where unknown) draw each bar's 95% interval as a
 * whisker; the axis is scaled to the bars (svg_bar_top), so a whisker that
 * runs past it is clipped, ending in an arrowhead (data-clipped="1"). Every
 * bar has a tooltip with its value (and interval). */
void svg_bar_chart(FILE *f, const char *title, const char *ylabel, const char *const *groups, int ngroups,
                   const char *const *series, int nseries, const double *values, const double *lo,
                   const double *hi, const struct svg_bar_style *style);

/* The top of a bar chart's axis: the tallest bar, raised for the whiskers
 * that end within twice it (one above that is drawn clipped), with
 * headroom for the labels; 1 when there is nothing to draw. */
double svg_bar_top(const double *values, const double *hi, int n);

#endif
