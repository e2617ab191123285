/* svg.c - small inline SVG charts for the HTML report. */
#include "svg.h"
#include "html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 720
#define H 360
#define L 70   /* left margin: y tick labels and axis label */
#define R 20
#define T 40   /* top: the title */
#define B 60   /* bottom: x tick labels and axis label */

/* Ten colours told apart also by most colour-blind readers (Tableau 10);
 * past ten, curves repeat them dashed. */
#define NCOLORS 10
static const char *const palette[NCOLORS] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                              "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

static double tr(const struct svg_axis *a, double v)
{
    return a->log ? log10(v > 1e-12 ? v : 1e-12) : v;
}

int svg_log_wanted(const double *v, int n)
{
    double lo = INFINITY, hi = 0;
    int i;
    for (i = 0; i < n; i++)
        if (v[i] > 0 && isfinite(v[i])) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
    return hi > SVG_LOG_SPAN * lo;
}

/* A line chart's y axis as drawn: log when its label for it is set and the
 * values span more than two decades. */
static struct svg_axis y_axis(const struct svg_axis *y, const struct svg_series *s, int ns)
{
    struct svg_axis a = *y;
    double lo = INFINITY, hi = 0;
    int i, j;
    if (y->log_label == NULL || y->log)
        return a;
    for (i = 0; i < ns; i++)
        for (j = 0; j < s[i].n; j++)
            if (s[i].y[j] > 0 && isfinite(s[i].y[j])) {
                lo = s[i].y[j] < lo ? s[i].y[j] : lo;
                hi = s[i].y[j] > hi ? s[i].y[j] : hi;
            }
    if (hi > SVG_LOG_SPAN * lo) {
        a.log = 1;
        a.label = y->log_label;
    }
    return a;
}

/* Round-number ticks between lo and hi (in axis units). */
static int nice_ticks(double lo, double hi, double *out, int max)
{
    double span = hi - lo, step, mag;
    int n = 0;
    if (span <= 0)
        span = fabs(hi) > 0 ? fabs(hi) : 1;
    mag = pow(10, floor(log10(span / 5)));
    step = mag;
    if (span / step > 10)
        step = 2 * mag;
    if (span / step > 10)
        step = 5 * mag;
    if (span / step > 10)
        step = 10 * mag;
    for (double v = ceil(lo / step) * step; v <= hi + step * 1e-9 && n < max; v += step)
        out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

/* Three significant digits, for the value over a bar; whole numbers from
 * 100 to 9999 (%.3g would write 6000 as "6e+03"). */
static void fmt_short(char *b, size_t n, double v)
{
    double a = fabs(v);
    if (a >= 1e6)
        snprintf(b, n, "%.3gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(b, n, "%.3gk", v / 1e3);
    else if (a >= 100)
        snprintf(b, n, "%.0f", v);
    else
        snprintf(b, n, "%.3g", v);
}

static void fmt_num(char *b, size_t n, double v)
{
    double a = fabs(v);
    if (a >= 1e6)
        snprintf(b, n, "%.3gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(b, n, "%.3gk", v / 1e3);
    else
        snprintf(b, n, "%.4g", v);
}

/* Names are cut to this many characters in legends and under bars; the
 * whole name stays in a tooltip. */
#define NAME_MAX_CHARS 36
#define CHAR_W 7        /* average width of a 12 px sans-serif character */
#define LEG_ROW 18
#define SVG_TIPS_MAX 1000

/* UTF-8 characters of s, up to max; *bytes receives their length. */
static size_t chars_of(const char *s, size_t max, size_t *bytes)
{
    size_t n = 0, i = 0;
    while (s[i] && n < max) {
        i++;
        while ((s[i] & 0xC0) == 0x80)
            i++;
        n++;
    }
    *bytes = i;
    return n;
}

/* Writes s cut to max characters, with an ellipsis when cut. */
static void short_text(FILE *f, const char *s, size_t max)
{
    size_t bytes;
    char *cut;
    chars_of(s, max, &bytes);
    if (s[bytes] == '\0') {
        html_text(f, s);
        return;
    }
    chars_of(s, max > 1 ? max - 1 : 1, &bytes);
    cut = strndup(s, bytes);
    if (cut) {
        html_text(f, cut);
        free(cut);
    }
    html_printf(f, "\xe2\x80\xa6"); /* U+2026 HORIZONTAL ELLIPSIS */
}

static int item_width(const char *name)
{
    size_t bytes, n = chars_of(name, NAME_MAX_CHARS, &bytes);
    return 22 + (int)n * CHAR_W + 14;
}

/* Rows the legend needs below the plot: items flow left to right. */
static int legend_rows(int n, const char *const *names)
{
    int i, rows = n ? 1 : 0, x = 0;
    for (i = 0; i < n; i++) {
        int w = item_width(names[i]);
        if (x > 0 && x + w > W - L - R) {
            rows++;
            x = 0;
        }
        x += w;
    }
    return rows;
}

static int legend_height(int n, const char *const *names)
{
    return n ? legend_rows(n, names) * LEG_ROW + 10 : 0;
}

/* The legend, below the plot area and its axis label, so it never covers a
 * bar or a curve. */
static void legend(FILE *f, int n, const char *const *names, const char *const *fills)
{
    int i, x = 0, row = 0, top = H + 2;
    if (n == 0)
        return;
    html_printf(f, "<g class=\"legend\">\n");
    for (i = 0; i < n; i++) {
        int w = item_width(names[i]), y;
        if (x > 0 && x + w > W - L - R) {
            row++;
            x = 0;
        }
        y = top + row * LEG_ROW;
        html_printf(f, "<g><title>");
        html_text(f, names[i]);
        html_printf(f, "</title><rect class=\"legend-key\" x=\"%d\" y=\"%d\" width=\"14\" height=\"10\" fill=\"%s\"/>",
                L + x, y + 3, fills ? fills[i] : palette[i % NCOLORS]);
        html_printf(f, "<text x=\"%d\" y=\"%d\">", L + x + 20, y + 12);
        short_text(f, names[i], NAME_MAX_CHARS);
        html_printf(f, "</text></g>\n");
        x += w;
    }
    html_printf(f, "</g>\n");
}

static void frame(FILE *f, const char *title, int extra)
{
    html_printf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n", W, H + extra, W, H + extra);
    html_printf(f, "<title>");
    html_text(f, title);
    html_printf(f, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H + extra);
    html_printf(f, "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">", W / 2);
    html_text(f, title);
    html_printf(f, "</text>\n");
}

static void axis_labels(FILE *f, const char *xl, const char *yl)
{
    html_printf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", L + (W - L - R) / 2, H - 12);
    html_text(f, xl);
    html_printf(f, "</text>\n<text x=\"16\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">",
            T + (H - T - B) / 2, T + (H - T - B) / 2);
    html_text(f, yl);
    html_printf(f, "</text>\n");
}

void svg_line_chart(FILE *f, const char *title, const struct svg_axis *x, const struct svg_axis *yin,
                    const struct svg_series *s, int ns)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, ticks[32];
    const char **names = calloc((size_t)(ns > 0 ? ns : 1), sizeof(char *));
    struct svg_axis ya = y_axis(yin, s, ns);
    const struct svg_axis *y = &ya;
    int i, j, nt;
    char b[32];

    if (names == NULL)
        return;
    for (i = 0; i < ns; i++)
        names[i] = s[i].name;
    frame(f, title, legend_height(ns, names));
    for (i = 0; i < ns; i++)
        for (j = 0; j < s[i].n; j++) {
            double xv = tr(x, s[i].x[j]), yv = tr(y, s[i].y[j]);
            if (xv < x0) x0 = xv;
            if (xv > x1) x1 = xv;
            if (y->log && !(s[i].y[j] > 0))
                continue; /* no place on a log axis: drawn at its foot */
            if (yv < y0) y0 = yv;
            if (yv > y1) y1 = yv;
        }
    if (!(x0 < x1)) {
        x0 = isfinite(x0) ? x0 - 1 : 0;
        x1 = x0 + 2;
    }
    if (!y->log && y0 > 0)
        y0 = 0;
    if (!(y0 < y1)) {
        y0 = isfinite(y0) ? y0 - 1 : 0;
        y1 = y0 + 2;
    }
    if (y->log) {
        y0 = floor(y0);
        y1 = ceil(y1);
    } else {
        y1 += (y1 - y0) * 0.05;
    }
    if (x->ticks) {
        for (i = 0; i < x->nticks; i++)
            if (tr(x, x->ticks[i]) > x1)
                x1 = tr(x, x->ticks[i]);
    }
#define PX(v) (L + ((v) - x0) / (x1 - x0) * (W - L - R))
#define PY(v) (H - B - ((v) - y0) / (y1 - y0) * (H - T - B))
#define PV(v) PY(y->log && !((v) > 0) ? y0 : tr(y, (v)))
    html_printf(f, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
            L, T, W - L - R, H - T - B);
    /* y ticks and grid */
    nt = y->log ? 0 : nice_ticks(y0, y1, ticks, 32);
    if (y->log)
        for (double v = y0; v <= y1 && nt < 32; v += 1)
            ticks[nt++] = v;
    for (i = 0; i < nt; i++) {
        double py = PY(ticks[i]);
        fmt_num(b, sizeof(b), y->log ? pow(10, ticks[i]) : ticks[i]);
        html_printf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", L, py, W - R, py, L - 6, py + 4, b);
    }
    /* x ticks */
    if (x->ticks) {
        for (i = 0; i < x->nticks; i++) {
            double px = PX(tr(x, x->ticks[i]));
            html_printf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                       "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", px, T, px, H - B, px, H - B + 16);
            html_text(f, x->tick_labels[i]);
            html_printf(f, "</text>\n");
        }
    } else {
        nt = nice_ticks(x0, x1, ticks, 32);
        for (i = 0; i < nt; i++) {
            double px = PX(ticks[i]);
            fmt_num(b, sizeof(b), x->log ? pow(10, ticks[i]) : ticks[i]);
            html_printf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                       "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", px, T, px, H - B, px,
                    H - B + 16, b);
        }
    }
    axis_labels(f, x->label, y->label);
    for (i = 0; i < ns; i++) {
        if (s[i].n == 0)
            continue;
        html_printf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"%s\" "
                       "points=\"", palette[i % NCOLORS], i >= NCOLORS ? "6 3" : "none");
        for (j = 0; j < s[i].n; j++)
            html_printf(f, "%.1f,%.1f ", PX(tr(x, s[i].x[j])), PV(s[i].y[j]));
        html_printf(f, "\"/>\n");
        /* A tooltip on every point: a dot where points are few, an unseen
         * target to hover where a dot would crowd the curve; past
         * SVG_TIPS_MAX points, on every k-th, so a day of seconds stays a
         * page a browser opens. */
        for (j = 0; j < s[i].n; j += s[i].n > SVG_TIPS_MAX ? (s[i].n + SVG_TIPS_MAX - 1) / SVG_TIPS_MAX : 1) {
            char xb[32], yb[32];
            if (x->nines)
                snprintf(xb, sizeof(xb), "%.4g%%", 100.0 * (1 - 1 / s[i].x[j]));
            else
                fmt_num(xb, sizeof(xb), s[i].x[j]);
            fmt_num(yb, sizeof(yb), s[i].y[j]);
            /* (html_printf escapes %s: the opacity is a format of its own) */
            html_printf(f, s[i].n <= 60 ? "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>"
                                        : "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
                                          "fill-opacity=\"0\"><title>",
                        PX(tr(x, s[i].x[j])), PV(s[i].y[j]), palette[i % NCOLORS]);
            html_text(f, s[i].name);
            html_printf(f, ": ");
            html_text(f, x->label);
            html_printf(f, " %s, ", xb);
            html_text(f, y->label);
            html_printf(f, " %s</title></circle>\n", yb);
        }
    }
#undef PX
#undef PY
#undef PV
    legend(f, ns, names, NULL);
    html_printf(f, "</svg>\n");
    free(names);
}

/* A whisker may lift the axis up to SVG_WHISKER_ROOM times the tallest
 * bar, no further: an interval a thousand times its bar (three noisy
 * rounds) would flatten every bar to a line. One past that does not lift
 * it at all: it is clipped, and says so. */
#define SVG_WHISKER_ROOM 2.0

double svg_bar_top(const double *values, const double *hi, int n)
{
    double bars = 0, top;
    int i;
    for (i = 0; i < n; i++)
        if (!isnan(values[i]) && values[i] > bars)
            bars = values[i];
    top = bars;
    for (i = 0; hi && i < n; i++)
        if (!isnan(values[i]) && isfinite(hi[i]) && hi[i] > top && (bars <= 0 || hi[i] <= SVG_WHISKER_ROOM * bars))
            top = hi[i];
    /* Headroom over the top for a value's label. */
    return top > 0 ? top * 1.1 : 1;
}

/* A bar chart's value axis: linear from 0 to top, or log10 from decade d0
 * to d1. */
struct bar_axis {
    int log;
    double top, d0, d1;
};

/* The pixel row of value v on it; v at or under its foot: the foot. */
static double bar_y(const struct bar_axis *a, double v)
{
    double u;
    if (a->log)
        u = v > 0 ? (log10(v) - a->d0) / (a->d1 - a->d0) : 0;
    else
        u = v / a->top;
    return H - B - (u > 0 ? u : 0) * (H - T - B);
}

/* Scales it to the bars: svg_bar_top's rule, on a log axis from the decade
 * under the smallest bar to the one over the top. */
static void bar_scale(struct bar_axis *a, const double *values, const double *hi, int n)
{
    double least = INFINITY;
    int i;
    a->top = svg_bar_top(values, hi, n);
    if (!a->log)
        return;
    for (i = 0; i < n; i++)
        if (values[i] > 0 && values[i] < least)
            least = values[i];
    /* The foot at half the smallest bar or lower: it stands. */
    a->d0 = floor(log10(isfinite(least) ? least / 2 : 1));
    a->d1 = ceil(log10(a->top));
    if (a->d1 <= a->d0)
        a->d1 = a->d0 + 1;
    a->top = pow(10, a->d1);
}

void svg_bar_chart(FILE *f, const char *title, const char *ylabel, const char *const *groups, int ngroups,
                   const char *const *series, int nseries, const double *values, const double *lo,
                   const double *hi, const struct svg_bar_style *style)
{
    double ticks[32];
    int g, s, nt, i, nkeys = style && style->fill ? style->nkeys : nseries > 1 ? nseries : 0;
    const char *const *keys = style && style->fill ? style->keys : series;
    struct bar_axis ax = { 0, 0, 0, 0 };
    double gw, bw;
    char b[32];

    if (style && style->log_label && svg_log_wanted(values, ngroups * nseries)) {
        ax.log = 1;
        ylabel = style->log_label;
    }
    frame(f, title, legend_height(nkeys, keys));
    bar_scale(&ax, values, hi, ngroups * nseries);
    html_printf(f, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
            L, T, W - L - R, H - T - B);
    if (ax.log) {
        for (nt = 0; nt < 32 && ax.d0 + nt <= ax.d1; nt++)
            ticks[nt] = pow(10, ax.d0 + nt);
    } else {
        nt = nice_ticks(0, ax.top, ticks, 32);
    }
    for (i = 0; i < nt; i++) {
        double py = bar_y(&ax, ticks[i]);
        if (ax.log && i == 0)
            py = H - B; /* the foot */
        fmt_num(b, sizeof(b), ticks[i]);
        html_printf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", L, py, W - R, py, L - 6, py + 4, b);
    }
    gw = (double)(W - L - R) / (ngroups > 0 ? ngroups : 1);
    bw = gw * 0.8 / (nseries > 0 ? nseries : 1);
    for (g = 0; g < ngroups; g++) {
        for (s = 0; s < nseries; s++) {
            double v = values[g * nseries + s], top_y = isnan(v) ? H - B : bar_y(&ax, v), h = H - B - top_y;
            double x = L + g * gw + gw * 0.1 + s * bw;
            const char *fill = style && style->fill ? style->fill[g] : palette[s % NCOLORS];
            if (isnan(v)) {
                /* No value to draw: say so where the bar would stand. */
                html_printf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\" fill=\"#b00\" "
                           "transform=\"rotate(-90 %.1f %d)\">not valid</text>\n", x + bw / 2 + 3, H - B - 4, x + bw / 2 + 3,
                        H - B - 4);
                continue;
            }
            int k = g * nseries + s, whisker = lo && hi && !isnan(lo[k]) && !isnan(hi[k]) && hi[k] >= lo[k];
            double label_y = top_y - 3;
            char ci[112] = "";
            fmt_short(b, sizeof(b), v);
            if (whisker) {
                char l[32], u[32];
                fmt_short(l, sizeof(l), lo[k]);
                fmt_short(u, sizeof(u), hi[k]);
                snprintf(ci, sizeof(ci), " (95%% interval %s\xe2\x80\x93%s)", l, u);
            }
            html_printf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                    x, top_y, bw * 0.95, h, fill);
            /* Coloured by group: the tooltip names the group, else the series. */
            html_text(f, style && style->fill ? groups[g] : series[s]);
            html_printf(f, ": %s%s</title></rect>\n", b, ci);
            if (whisker) {
                /* The interval as a whisker with caps, over the bar; one
                 * that runs off the axis ends in an open arrowhead at the
                 * plot's top instead of a cap, its true bound in the
                 * tooltip. */
                int clipped = hi[k] > ax.top;
                double cx = x + bw * 0.95 / 2, l0 = lo[k] > 0 ? (lo[k] < ax.top ? lo[k] : ax.top) : 0,
                       y0 = bar_y(&ax, l0), y1 = clipped ? T : bar_y(&ax, hi[k]),
                       cap = bw * 0.2 < 8 ? bw * 0.2 : 8;
                if (clipped)
                    html_printf(f, "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fL%.1f %.1fL%.1f %.1f\" "
                                   "data-clipped=\"1\" stroke=\"#222\" stroke-width=\"1.2\" fill=\"none\"><title>",
                                cx, y0, y1, cx - cap, y0, cx + cap, cx - 4, y1 + 6, cx, y1, cx + 4, y1 + 6);
                else
                    html_printf(f, "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" "
                                   "stroke=\"#222\" stroke-width=\"1.2\" fill=\"none\"><title>",
                                cx, y0, y1, cx - cap, y0, cx + cap, cx - cap, y1, cx + cap);
                html_text(f, series[s]);
                html_printf(f, ":%s%s</title></path>\n", ci, clipped ? ", clipped: it runs off the axis" : "");
                /* The value stays over its bar, beside a clipped whisker
                 * rather than out of the plot. */
                if (!clipped && y1 - 3 < label_y)
                    label_y = y1 - 3;
            }
            /* A value over its bar when there is room for it; the tooltip
             * has it always. */
            if (bw * 0.95 >= 6.0 * (double)strlen(b))
                html_printf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" stroke=\"#fff\" "
                               "stroke-width=\"3\" paint-order=\"stroke\">%s</text>\n", x + bw / 2,
                        label_y, b);
        }
        html_printf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\"><title>", L + g * gw + gw / 2, H - B + 16);
        html_text(f, groups[g]);
        html_printf(f, "</title>");
        /* The group's name fits its slot. */
        short_text(f, groups[g], gw / CHAR_W > 4 ? (size_t)(gw / CHAR_W) : 4);
        html_printf(f, "</text>\n");
    }
    axis_labels(f, "", ylabel);
    legend(f, nkeys, keys, style && style->fill ? style->key_fill : NULL);
    html_printf(f, "</svg>\n");
}
