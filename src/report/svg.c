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
static void legend(FILE *f, int n, const char *const *names)
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
                L + x, y + 3, palette[i % NCOLORS]);
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

void svg_line_chart(FILE *f, const char *title, const struct svg_axis *x, const struct svg_axis *y,
                    const struct svg_series *s, int ns)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, ticks[32];
    const char **names = calloc((size_t)(ns > 0 ? ns : 1), sizeof(char *));
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
            html_printf(f, "%.1f,%.1f ", PX(tr(x, s[i].x[j])), PY(tr(y, s[i].y[j])));
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
                        PX(tr(x, s[i].x[j])), PY(tr(y, s[i].y[j])), palette[i % NCOLORS]);
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
    legend(f, ns, names);
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

void svg_bar_chart(FILE *f, const char *title, const char *ylabel, const char *const *groups, int ngroups,
                   const char *const *series, int nseries, const double *values, const double *lo,
                   const double *hi)
{
    double top = 0, ticks[32];
    int g, s, nt, i;
    double gw, bw;
    char b[32];

    frame(f, title, nseries > 1 ? legend_height(nseries, series) : 0);
    top = svg_bar_top(values, hi, ngroups * nseries);
    html_printf(f, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
            L, T, W - L - R, H - T - B);
    nt = nice_ticks(0, top, ticks, 32);
    for (i = 0; i < nt; i++) {
        double py = H - B - ticks[i] / top * (H - T - B);
        fmt_num(b, sizeof(b), ticks[i]);
        html_printf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", L, py, W - R, py, L - 6, py + 4, b);
    }
    gw = (double)(W - L - R) / (ngroups > 0 ? ngroups : 1);
    bw = gw * 0.8 / (nseries > 0 ? nseries : 1);
    for (g = 0; g < ngroups; g++) {
        for (s = 0; s < nseries; s++) {
            double v = values[g * nseries + s], h = isnan(v) ? 0 : v / top * (H - T - B);
            double x = L + g * gw + gw * 0.1 + s * bw;
            if (isnan(v)) {
                /* No value to draw: say so where the bar would stand. */
                html_printf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\" fill=\"#b00\" "
                           "transform=\"rotate(-90 %.1f %d)\">not valid</text>\n", x + bw / 2 + 3, H - B - 4, x + bw / 2 + 3,
                        H - B - 4);
                continue;
            }
            int k = g * nseries + s, whisker = lo && hi && !isnan(lo[k]) && !isnan(hi[k]) && hi[k] >= lo[k];
            double label_y = H - B - h - 3;
            char ci[112] = "";
            fmt_short(b, sizeof(b), v);
            if (whisker) {
                char l[32], u[32];
                fmt_short(l, sizeof(l), lo[k]);
                fmt_short(u, sizeof(u), hi[k]);
                snprintf(ci, sizeof(ci), " (95%% interval %s\xe2\x80\x93%s)", l, u);
            }
            html_printf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
                    x, H - B - h, bw * 0.95, h, palette[s % NCOLORS]);
            html_text(f, series[s]);
            html_printf(f, ": %s%s</title></rect>\n", b, ci);
            if (whisker) {
                /* The interval as a whisker with caps, over the bar; one
                 * that runs off the axis ends in an open arrowhead at the
                 * plot's top instead of a cap, its true bound in the
                 * tooltip. */
                int clipped = hi[k] > top;
                double cx = x + bw * 0.95 / 2, l0 = lo[k] > 0 ? (lo[k] < top ? lo[k] : top) : 0,
                       y0 = H - B - l0 / top * (H - T - B), y1 = clipped ? T : H - B - hi[k] / top * (H - T - B),
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
    legend(f, nseries > 1 ? nseries : 0, series);
    html_printf(f, "</svg>\n");
}
