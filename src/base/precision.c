/* precision.c - --precision's goals (precision.h). */
#include "precision.h"
#include "err.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The figures a goal may name: those the reports give an interval for. */
static const struct {
    const char *name;
    enum interval_fig fig;
    double pct;
} figs[] = { { "rps", INTERVAL_RPS, 0 },   { "mean", INTERVAL_MEAN, 0 }, { "p50", INTERVAL_PCT, 50 },
             { "p75", INTERVAL_PCT, 75 },  { "p90", INTERVAL_PCT, 90 },  { "p95", INTERVAL_PCT, 95 },
             { "p99", INTERVAL_PCT, 99 },  { "p99.9", INTERVAL_PCT, 99.9 } };

/* "5%" into *rel (0 < rel < 1). */
static int percent(const char *s, size_t n, double *rel)
{
    char b[32];
    const char *end;
    double v;
    if (n == 0 || n >= sizeof(b))
        return -1;
    memcpy(b, s, n);
    b[n] = '\0';
    if (units_parse_decimal(b, &v, &end) != 0 || strcmp(end, "%") != 0 || !(v > 0 && v < 100))
        return -1;
    *rel = v / 100;
    return 0;
}

static int add(struct precision *p, int k, double rel)
{
    int i;
    for (i = 0; i < p->n; i++)
        if (strcmp(p->g[i].name, figs[k].name) == 0) {
            p->g[i].rel = rel; /* named twice: the last says */
            return 0;
        }
    if (p->n == PRECISION_MAX)
        return -1;
    snprintf(p->g[p->n].name, sizeof(p->g[p->n].name), "%s", figs[k].name);
    p->g[p->n].fig = figs[k].fig;
    p->g[p->n].pct = figs[k].pct;
    p->g[p->n].rel = rel;
    p->n++;
    return 0;
}

int precision_parse(const char *spec, struct precision *p, char *err, size_t errlen)
{
    const char *s = spec;
    double rel;
    memset(p, 0, sizeof(*p));
    /* One share for the headline figures. */
    if (strchr(spec, ':') == NULL) {
        if (percent(spec, strlen(spec), &rel) != 0)
            return err_set(err, errlen, NULL, "--precision wants a percentage such as 5%% (or 'p99:5%%,rps:2%%'), "
                                             "not '%s'", spec);
        add(p, 0, rel);
        add(p, 2, rel);
        add(p, 6, rel);
        return 0;
    }
    while (*s) {
        const char *comma = strchr(s, ','), *colon = strchr(s, ':');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        size_t k;
        if (colon == NULL || colon > s + len)
            return err_set(err, errlen, NULL, "--precision: '%.*s' wants FIGURE:P%% (p99:5%%)", (int)len, s);
        for (k = 0; k < sizeof(figs) / sizeof(figs[0]); k++)
            if (strlen(figs[k].name) == (size_t)(colon - s) && strncmp(figs[k].name, s, (size_t)(colon - s)) == 0)
                break;
        if (k == sizeof(figs) / sizeof(figs[0]))
            return err_set(err, errlen, NULL, "--precision: '%.*s' is not a figure with an interval (rps, mean, p50, "
                                              "p75, p90, p95, p99, p99.9)", (int)(colon - s), s);
        if (percent(colon + 1, (size_t)(s + len - colon - 1), &rel) != 0)
            return err_set(err, errlen, NULL, "--precision: '%.*s' wants a percentage after ':' (p99:5%%)", (int)len, s);
        if (add(p, (int)k, rel) != 0)
            return err_set(err, errlen, NULL, "--precision: %d figures at most", PRECISION_MAX);
        s += len + (comma != NULL);
        if (comma && *s == '\0')
            return err_set(err, errlen, NULL, "--precision: '%s' ends with a comma", spec);
    }
    if (p->n == 0)
        return err_set(err, errlen, NULL, "--precision wants a goal, such as 5%%");
    return 0;
}

double precision_width(const struct interval *iv)
{
    double w;
    if (isnan(iv->lo) || isnan(iv->hi) || !(iv->est > 0))
        return INFINITY;
    w = iv->est - iv->lo > iv->hi - iv->est ? iv->est - iv->lo : iv->hi - iv->est;
    return w / iv->est;
}
