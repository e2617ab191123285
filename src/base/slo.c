/* slo.c - pass/fail goals on a run. Latency goals use the reported
 * latency (corrected for coordinated omission in rate mode). */
#include "slo.h"
#include "err.h"
#include "stats.h"
#include "units.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int parse_one(const char *t, struct slo_goal *g, char *err, size_t errlen)
{
    const char *op = strpbrk(t, "<>");
    char name[24];
    const char *val, *end;
    size_t nlen;

    memset(g, 0, sizeof(*g));
    snprintf(g->text, sizeof(g->text), "%s", t);
    if (op == NULL || op == t)
        goto bad;
    nlen = (size_t)(op - t);
    if (nlen >= sizeof(name))
        goto bad;
    memcpy(name, t, nlen);
    name[nlen] = '\0';
    g->less = *op == '<';
    val = op + 1;
    if (*val == '=') {
        g->or_equal = 1;
        val++;
    }
    if (*val == '\0')
        goto bad;

    if (name[0] == 'p' && (isdigit((unsigned char)name[1]))) {
        g->metric = SLO_PCT;
        if (units_parse_decimal(name + 1, &g->pct, &end) != 0 || *end || g->pct <= 0 || g->pct > 100)
            goto bad;
    } else if (strcmp(name, "mean") == 0) {
        g->metric = SLO_MEAN;
    } else if (strcmp(name, "max") == 0) {
        g->metric = SLO_MAX_LAT;
    } else if (strcmp(name, "errors") == 0 || strcmp(name, "bad_status") == 0) {
        /* A count, or a share of the requests ended (errors) or of the
         * responses (bad_status: statuses outside --expect). */
        size_t vl = strlen(val);
        int pct = val[vl - 1] == '%';
        if (name[0] == 'e')
            g->metric = pct ? SLO_ERRORS_PCT : SLO_ERRORS;
        else
            g->metric = pct ? SLO_BAD_PCT : SLO_BAD;
        if (units_parse_decimal(val, &g->threshold, &end) != 0 || (pct ? *end != '%' || end[1] : *end != '\0'))
            goto bad;
        return 0;
    } else if (strcmp(name, "checks") == 0) {
        size_t vl = strlen(val);
        g->metric = SLO_CHECKS_PCT;
        if (units_parse_decimal(val, &g->threshold, &end) != 0 || val[vl - 1] != '%' || *end != '%' || end[1] ||
            g->threshold > 100) {
            err_set(err, errlen, NULL, "--slo: '%s': checks takes a percentage of responses, such as checks>99.9%%", t);
            return -1;
        }
        return 0;
    } else if (strcmp(name, "rps") == 0) {
        g->metric = SLO_RPS;
        if (units_parse_decimal(val, &g->threshold, &end) != 0 || *end)
            goto bad;
        return 0;
    } else {
        err_set(err, errlen, NULL,
                "--slo: unknown measure '%s' (use p50, p99, p99.9, mean, max, errors, bad_status, rps, checks)", name);
        return -1;
    }
    /* Latency: a unit is required, "p99<50" is too easy to misread. */
    {
        uint64_t ns;
        if (!isalpha((unsigned char)val[strlen(val) - 1]) || units_parse_duration(val, &ns) != 0) {
            err_set(err, errlen, NULL, "--slo: '%s' needs a duration with a unit, such as 50ms", t);
            return -1;
        }
        g->threshold = (double)ns;
    }
    return 0;
bad:
    err_set(err, errlen, NULL, "--slo: cannot read '%s' (expected e.g. p99<50ms, errors<0.1%%, rps>10000)", t);
    return -1;
}

int slo_parse(const char *spec, struct slo *s, char *err, size_t errlen)
{
    char buf[512], *tok, *save = NULL;
    memset(s, 0, sizeof(*s));
    if (strlen(spec) >= sizeof(buf)) {
        err_set(err, errlen, NULL, "--slo: too long");
        return -1;
    }
    strcpy(buf, spec);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *a = tok, *r, *wp;
        /* Spaces are allowed anywhere: "p99 < 50ms". */
        for (r = wp = a; *r; r++)
            if (!isspace((unsigned char)*r))
                *wp++ = *r;
        *wp = '\0';
        if (*a == '\0')
            continue;
        if (s->n == SLO_MAX) {
            err_set(err, errlen, NULL, "--slo: at most %d goals", SLO_MAX);
            return -1;
        }
        if (parse_one(a, &s->goal[s->n], err, errlen) != 0)
            return -1;
        s->n++;
    }
    if (s->n == 0) {
        err_set(err, errlen, NULL, "--slo: no goal given (e.g. 'p99<50ms,errors<0.1%%')");
        return -1;
    }
    return 0;
}

int slo_eval(struct slo *s, const struct stats *t, double elapsed_s)
{
    uint64_t errs = stats_errors(t), ended = t->completed + errs;
    int i, failed = 0;

    for (i = 0; i < s->n; i++) {
        struct slo_goal *g = &s->goal[i];
        switch (g->metric) {
        case SLO_PCT:
            g->value = hist_percentile(&t->h[H_LATENCY], g->pct);
            break;
        case SLO_MEAN:
            g->value = hist_mean(&t->h[H_LATENCY]);
            break;
        case SLO_MAX_LAT:
            g->value = (double)t->h[H_LATENCY].max;
            break;
        case SLO_ERRORS_PCT:
            g->value = ended ? 100.0 * (double)errs / (double)ended : 0;
            break;
        case SLO_ERRORS:
            g->value = (double)errs;
            break;
        case SLO_RPS:
            g->value = elapsed_s > 0 ? (double)t->completed / elapsed_s : 0;
            break;
        case SLO_BAD_PCT:
            g->value = t->completed ? 100.0 * (double)t->bad_status / (double)t->completed : 0;
            break;
        case SLO_BAD:
            g->value = (double)t->bad_status;
            break;
        case SLO_CHECKS_PCT:
            /* Of the responses that had checks; none checked proves nothing. */
            g->value = t->checked ? 100.0 * (double)(t->checked - t->checks_failed) / (double)t->checked : 0;
            break;
        }
        if (g->less)
            g->pass = g->or_equal ? g->value <= g->threshold : g->value < g->threshold;
        else
            g->pass = g->or_equal ? g->value >= g->threshold : g->value > g->threshold;
        /* A latency goal on a run with no sample proves nothing. */
        if ((g->metric == SLO_PCT || g->metric == SLO_MEAN || g->metric == SLO_MAX_LAT) && t->h[H_LATENCY].total == 0)
            g->pass = 0;
        if (g->metric == SLO_CHECKS_PCT && t->checked == 0)
            g->pass = 0;
        failed += !g->pass;
    }
    return failed;
}

char *slo_value_str(const struct slo_goal *g, double v, char *buf, size_t len)
{
    switch (g->metric) {
    case SLO_ERRORS_PCT:
    case SLO_BAD_PCT:
        snprintf(buf, len, "%.3g%%", v);
        break;
    case SLO_CHECKS_PCT:
        snprintf(buf, len, "%.4g%% passed", v);
        break;
    case SLO_ERRORS:
    case SLO_BAD:
        snprintf(buf, len, "%.0f", v);
        break;
    case SLO_RPS:
        snprintf(buf, len, "%.1f req/s", v);
        break;
    default:
        units_fmt_ns(buf, len, v);
    }
    return buf;
}

void slo_print(FILE *f, const struct slo *s)
{
    int i;
    fprintf(f, "\nSLO\n");
    for (i = 0; i < s->n; i++) {
        char v[32];
        fprintf(f, "  %-24s %s  (measured %s)\n", s->goal[i].text, s->goal[i].pass ? "pass" : "FAIL",
                slo_value_str(&s->goal[i], s->goal[i].value, v, sizeof(v)));
    }
}
