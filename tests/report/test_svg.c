/* SVG charts stay well-formed whatever the data: no series, one point,
 * a huge series, zero and not-a-number values, long names. */
#include "svg.h"
#include "../t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *capture_line(const struct svg_series *s, int ns, int ylog)
{
    static const double ticks[] = { 1, 10, 100 };
    static const char *const labels[] = { "0%", "90%", "99%" };
    struct svg_axis ax = { "percentile", 1, ticks, labels, 3, 1, NULL };
    struct svg_axis ay = { "latency (ms)", ylog, NULL, NULL, 0, 0, NULL };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    svg_line_chart(f, "A <chart> & more", &ax, &ay, s, ns);
    fclose(f);
    return text;
}

/* Balanced tags, no NaN or infinity in coordinates, nothing unescaped. */
static int well_formed(const char *t)
{
    const char *p;
    int open = 0;
    if (strncmp(t, "<svg", 4) != 0 || strstr(t, "</svg>") == NULL)
        return 0;
    if (strstr(t, "nan") || strstr(t, "inf") || strstr(t, "<chart>"))
        return 0;
    for (p = t; (p = strchr(p, '<')) != NULL; p++) {
        const char *e = strchr(p, '>');
        if (e == NULL)
            return 0;
        if (p[1] == '/')
            open--;
        else if (e[-1] != '/' && p[1] != '?' && p[1] != '!')
            open++;
    }
    return open == 0;
}

static void line_charts(void)
{
    double x[1] = { 1 }, y[1] = { 5 }, *bx = malloc(20000 * sizeof(double)), *by = malloc(20000 * sizeof(double));
    struct svg_series one = { "one point", x, y, 1 }, big = { "a name much longer than any legend should show in full",
                                                            bx, by, 20000 };
    char *t;
    int i;
    for (i = 0; i < 20000; i++) {
        bx[i] = 1 + i / 200.0;
        by[i] = i % 7 == 0 ? 0 : 1e-3 * i;
    }
    t = capture_line(NULL, 0, 0);
    CHECKF(well_formed(t), "no series:\n%s", t);
    free(t);
    t = capture_line(&one, 1, 0);
    CHECKF(well_formed(t) && strstr(t, "one point"), "one point:\n%.400s", t);
    free(t);
    t = capture_line(&big, 1, 1); /* zeros on a log axis */
    CHECKF(well_formed(t) && strstr(t, "\xe2\x80\xa6") && strstr(t, "<title>a name much longer"), "huge, log:\n%.400s",
           t);
    free(t);
    free(bx);
    free(by);
}

static int count(const char *t, const char *what)
{
    int n = 0;
    for (; (t = strstr(t, what)) != NULL; t++)
        n++;
    return n;
}

/* Every point has its tooltip, with the series, the percentile it stands
 * for (a nines axis) and its value; a huge series every k-th point. */
static void point_tooltips(void)
{
    double x[3] = { 1, 10, 100 }, y[3] = { 1.5, 2, 40 }, *bx = malloc(20000 * sizeof(double)),
           *by = malloc(20000 * sizeof(double));
    struct svg_series s[2] = { { "srv a", x, y, 3 }, { "b", x, y, 2 } }, big = { "big", bx, by, 20000 };
    char *t;
    int i;
    for (i = 0; i < 20000; i++) {
        bx[i] = 1 + i;
        by[i] = 1;
    }
    t = capture_line(s, 2, 0);
    CHECKF(count(t, "<circle class=\"pt\"") == 5, "%d circles", count(t, "<circle class=\"pt\""));
    CHECKF(strstr(t, "<title>srv a: percentile 99%, latency (ms) 40</title>") &&
           strstr(t, "<title>srv a: percentile 0%, latency (ms) 1.5</title>"), "%.2000s", t);
    free(t);
    t = capture_line(&big, 1, 0);
    CHECKF(count(t, "<circle class=\"pt\"") == 1000 && strstr(t, "fill-opacity=\"0\""), "%d circles",
           count(t, "<circle class=\"pt\""));
    free(t);
    free(bx);
    free(by);
}

/* Whiskers: one per bar with an interval, from lo to hi on the bar's
 * scale (the scale reaches the highest hi), none where it is unknown. */
static void whiskers(void)
{
    const char *groups[1] = { "w" }, *series[3] = { "a", "b", "c" };
    double v[3] = { 100, 50, 80 }, lo[3] = { 90, 45, __builtin_nan("") }, hi[3] = { 200, 55, __builtin_nan("") };
    double px, y0, y1, bx, by, bw, bh;
    char *text = NULL, *w;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    svg_bar_chart(f, "Bars", "req/s", groups, 1, series, 3, v, lo, hi, NULL);
    fclose(f);
    CHECKF(well_formed(text) && count(text, "class=\"whisker\"") == 2, "%.3000s", text);
    CHECK(strstr(text, "<title>a: 100 (95% interval 90\xe2\x80\x93" "200)</title>") != NULL);
    /* Bar a: its top at 100, its whisker from 90 to 200 on the same scale. */
    w = strstr(text, "class=\"bar\"");
    CHECK(w && sscanf(w, "class=\"bar\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &bx, &by, &bw, &bh) == 4);
    w = strstr(text, "class=\"whisker\" d=\"M");
    CHECK(w && sscanf(w, "class=\"whisker\" d=\"M%lf %lfV%lf", &px, &y0, &y1) == 3);
    /* Bottom of the plot: by + bh; 100 spans bh; 90 and 200 in proportion. */
    CHECKF(px > bx && px < bx + bw && y0 > by && y1 < by && fabs((by + bh - y0) / bh - 0.9) < 0.02 &&
           fabs((by + bh - y1) / bh - 2.0) < 0.02, "bar %g %g %g %g whisker %g %g %g", bx, by, bw, bh, px, y0, y1);
    free(text);
}

/* One whisker a thousand times its bar (three noisy rounds): the axis
 * stays near the tallest bar, so the bars keep their height; that whisker
 * is clipped at the plot's top, marked, its true bound in its tooltip;
 * a whisker within reach is drawn whole. */
static void clipped_whiskers(void)
{
    const char *groups[2] = { "w1", "w2" }, *series[2] = { "a", "b" };
    double v[4] = { 5000, 4000, 6000, 3000 }, lo[4] = { 4500, 3500, 1000, 2900 },
           hi[4] = { 5500, 4400, 6e6, 3100 };
    double bx, by, bw, bh, px, y0, y1, top = svg_bar_top(v, hi, 4);
    char *text = NULL, *w;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECKF(top >= 6000 && top <= 6000 * 1.25, "axis top %g for a tallest bar of 6000", top);
    CHECKF(svg_bar_top(v, NULL, 4) >= 6000 && svg_bar_top(v, NULL, 4) <= 6000 * 1.25, "no whiskers: %g",
           svg_bar_top(v, NULL, 4));
    /* Whiskers within twice the tallest bar are drawn whole: the axis reaches them. */
    hi[2] = 9000;
    CHECKF(svg_bar_top(v, hi, 4) >= 9000 && svg_bar_top(v, hi, 4) < 9000 * 1.2, "within reach: %g",
           svg_bar_top(v, hi, 4));
    hi[2] = 6e6;
    svg_bar_chart(f, "Bars", "req/s", groups, 2, series, 2, v, lo, hi, NULL);
    fclose(f);
    CHECKF(well_formed(text) && count(text, "class=\"whisker\"") == 4 && count(text, "data-clipped=\"1\"") == 1,
           "%.3000s", text);
    /* The tallest bar (w2, a) fills most of the plot, 240 px high. */
    w = strstr(text, "class=\"bar\"");
    w = w ? strstr(w + 1, "class=\"bar\"") : NULL;
    w = w ? strstr(w + 1, "class=\"bar\"") : NULL;
    CHECK(w && sscanf(w, "class=\"bar\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &bx, &by, &bw, &bh) == 4);
    CHECKF(bh > 0.8 * 260, "the tallest bar is %g px high", bh);
    /* Its whisker: from 1000 up to the plot's top (y 40), an arrowhead, the true bound in its tooltip. */
    w = strstr(text, "data-clipped");
    while (w && w > text && strncmp(w, "class=\"whisker\"", 15) != 0)
        w--;
    CHECK(w && sscanf(w, "class=\"whisker\" d=\"M%lf %lfV%lf", &px, &y0, &y1) == 3);
    CHECKF(px > bx && px < bx + bw && fabs(y1 - 40) < 0.5 && fabs((by + bh - y0) / bh - 1000.0 / 6000) < 0.02,
           "whisker %g %g-%g, bar %g %g %g %g", px, y0, y1, bx, by, bw, bh);
    CHECKF(strstr(text, "<title>a: (95% interval 1000\xe2\x80\x93" "6M), clipped: it runs off the axis</title>") &&
           strstr(text, "<title>a: 6000 (95% interval 1000\xe2\x80\x93" "6M)</title></rect>"), "%.3000s", text);
    /* A value from 1000 to 9999 over its bar as a whole number, not "6e+03". */
    CHECKF(strstr(text, ">6000</text>") && !strstr(text, "e+03"), "%.3000s", text);
    free(text);
}

static void bar_charts(void)
{
    const char *groups[2] = { "g1", "<g2>" }, *series[3] = { "a", "b", "c" };
    double v[6] = { 1, 0, 3e6, 0.5, __builtin_nan(""), 2 }, zero[6] = { 0 };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    svg_bar_chart(f, "Bars", "req/s", groups, 2, series, 3, v, NULL, NULL, NULL);
    fclose(f);
    CHECKF(well_formed(text) && strstr(text, "not valid") && strstr(text, "&lt;g2&gt;"), "bars:\n%.600s", text);
    free(text);
    f = open_memstream(&text, &len);
    svg_bar_chart(f, "Zeros", "req/s", groups, 2, series, 3, zero, zero, zero, NULL);
    fclose(f);
    CHECK(well_formed(text));
    free(text);
    f = open_memstream(&text, &len);
    svg_bar_chart(f, "Nothing", "req/s", groups, 0, series, 0, zero, NULL, NULL, NULL);
    fclose(f);
    CHECK(well_formed(text));
    free(text);
}

/* Past two decades a latency axis is logarithmic: a bar 230 times shorter
 * than the tallest stays visible, whiskers and all inside the plot; within
 * two decades the axis stays linear. Zeros on a log axis sit at its foot. */
static void log_axes(void)
{
    const char *groups[2] = { "p50", "p99" }, *series[2] = { "fast", "slow" };
    double v[4] = { 0.1, 23, 0.3, 69 }, lo[4] = { 0.09, 20, 0, 60 }, hi[4] = { 0.11, 26, 0.4, 80 }, by[4], bh[4];
    const struct svg_bar_style style = { "latency (ms, log scale)", NULL, NULL, NULL, 0 };
    double t[3] = { 0.5, 1.5, 2.5 }, p50[3] = { 0.1, 0, 0.12 }, mx[3] = { 33, 20, 30 };
    struct svg_series ser[2] = { { "p50", t, p50, 3 }, { "max", t, mx, 3 } };
    struct svg_axis ax = { "time (s)", 0, NULL, NULL, 0, 0, NULL };
    struct svg_axis ay = { "latency (ms)", 0, NULL, NULL, 0, 0, "latency (ms, log scale)" };
    char *text = NULL, *w;
    size_t len = 0;
    int i;
    FILE *f;
    CHECK(svg_log_wanted(v, 4) && !svg_log_wanted(v + 1, 1));
    CHECK(!svg_log_wanted((double[]){ 1, 100, 0, __builtin_nan("") }, 4) &&
          svg_log_wanted((double[]){ 1, 100.5 }, 2));
    f = open_memstream(&text, &len);
    svg_bar_chart(f, "Latency", "latency (ms)", groups, 2, series, 2, v, lo, hi, &style);
    fclose(f);
    CHECKF(well_formed(text) && strstr(text, ">latency (ms, log scale)<") && count(text, "data-clipped") == 0,
           "%.3000s", text);
    for (i = 0, w = text; i < 4 && (w = strstr(w, "class=\"bar\"")) != NULL; i++, w++)
        CHECK(sscanf(w, "class=\"bar\" x=\"%*f\" y=\"%lf\" width=\"%*f\" height=\"%lf\"", &by[i], &bh[i]) == 2);
    /* Decades 0.01 to 100 over 260 px: 0.1 stands a quarter of it, 69 near its top. */
    CHECKF(i == 4 && bh[0] > 0.2 * 260 && bh[3] > 0.9 * 260 && bh[3] <= 260 && by[3] >= 40 && bh[0] < bh[2] &&
           bh[2] < bh[1] && bh[1] < bh[3], "%g %g %g %g", bh[0], bh[1], bh[2], bh[3]);
    free(text);
    /* Within two decades: linear, so labelled. */
    f = open_memstream(&text, &len);
    svg_bar_chart(f, "Latency", "latency (ms)", groups, 2, series, 2, (double[]){ 1, 23, 3, 69 }, NULL, NULL, &style);
    fclose(f);
    CHECK(well_formed(text) && strstr(text, ">latency (ms)<") && !strstr(text, "log scale"));
    free(text);
    /* A line chart: p50 under 0.12 ms beside a 33 ms max, on a log axis; the second with no p50 at its foot. */
    f = open_memstream(&text, &len);
    svg_line_chart(f, "Latency over time", &ax, &ay, ser, 2);
    fclose(f);
    CHECKF(well_formed(text) && strstr(text, ">latency (ms, log scale)<") && strstr(text, ">0.1<") &&
           strstr(text, ">100<"), "%.3000s", text);
    CHECKF((w = strstr(text, "class=\"series\"")) && (w = strstr(w, "points=\"")) && strstr(w, " 385.0,300.0 "),
           "%.2000s", w ? w : text);
    free(text);
    mx[0] = 9;
    mx[1] = mx[2] = 1;
    p50[1] = 0.2;
    f = open_memstream(&text, &len);
    svg_line_chart(f, "Latency over time", &ax, &ay, ser, 2);
    fclose(f);
    CHECK(well_formed(text) && strstr(text, ">latency (ms)<") && !strstr(text, "log scale"));
    free(text);
}

/* Bars coloured by group (a status code's class), named in their tooltips
 * and keyed in the legend. */
static void group_fills(void)
{
    const char *groups[3] = { "200", "404", "timeout" }, *series[1] = { "requests" };
    const char *fills[3] = { "#1f77b4", "#ff7f0e", "#8c564b" }, *keys[3] = { "2xx", "4xx", "errors" };
    const struct svg_bar_style style = { NULL, fills, keys, fills, 3 };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    svg_bar_chart(f, "Status codes and errors", "requests", groups, 3, series, 1, (double[]){ 8653, 4326, 3 }, NULL,
                  NULL, &style);
    fclose(f);
    CHECKF(well_formed(text) && strstr(text, "fill=\"#1f77b4\"><title>200: 8653</title>") &&
           strstr(text, "fill=\"#ff7f0e\"><title>404: 4326</title>") && count(text, "class=\"legend-key\"") == 3 &&
           strstr(text, ">4xx</text>"), "%.3000s", text);
    free(text);
}

int main(void)
{
    T_RUN(log_axes);
    T_RUN(group_fills);
    T_RUN(line_charts);
    T_RUN(bar_charts);
    T_RUN(point_tooltips);
    T_RUN(whiskers);
    T_RUN(clipped_whiskers);
    T_END("test_svg");
}
