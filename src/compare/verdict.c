/* verdict.c - paired log-ratio intervals over interleaved rounds, and the
 * decision same / slower / faster / undecided. See verdict.h for the method
 * and why. */
#include "verdict.h"
#include "compare_settings.h"
#include "interval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define VERDICT_MAX_ROUNDS 1024

/* Mean, sd and 95% t half-width of the n logs in l. */
static void log_stats(const double *l, int n, double *mean, double *sd, double *half)
{
    double s = 0, ss = 0;
    int i;
    *mean = 0;
    *sd = *half = NAN;
    if (n == 0)
        return;
    for (i = 0; i < n; i++)
        s += l[i];
    *mean = s / n;
    if (n < 2)
        return;
    for (i = 0; i < n; i++)
        ss += (l[i] - *mean) * (l[i] - *mean);
    *sd = sqrt(ss / (n - 1));
    *half = interval_t975(n - 1) * *sd / sqrt((double)n);
}

double verdict_log_ci(const double *x, int n, double ci[2])
{
    double l[VERDICT_MAX_ROUNDS], mean, sd, half;
    int i, k = 0;
    for (i = 0; i < n && k < VERDICT_MAX_ROUNDS; i++)
        if (x[i] > 0 && isfinite(x[i]))
            l[k++] = log(x[i]);
    ci[0] = ci[1] = NAN;
    if (k == 0)
        return 0;
    log_stats(l, k, &mean, &sd, &half);
    if (k >= 2 && isfinite(exp(mean + half)) && exp(mean - half) > 0) {
        ci[0] = exp(mean - half);
        ci[1] = exp(mean + half);
    }
    return exp(mean);
}

int verdict_decide(const double ci[2], double within)
{
    double band = 1 + within;
    if (isnan(ci[0]) || isnan(ci[1]))
        return VERDICT_UNDECIDED;
    /* Inside the band wins: a difference surely there but under w is the
     * same for the user's purpose. */
    if (ci[0] >= 1 / band && ci[1] <= band)
        return VERDICT_SAME;
    if (ci[0] > 1)
        return VERDICT_SLOWER;
    if (ci[1] < 1)
        return VERDICT_FASTER;
    return VERDICT_UNDECIDED;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The order-statistic interval of the median of the k sorted logs: the
 * innermost [l[j], l[k-1-j]] that still holds it with 95% (the sign test:
 * 1 - 2 P(Binomial(k, 1/2) <= j)); [min, max] when even that falls short. */
static void order_interval(const double *sorted, int k, double *lo, double *hi)
{
    double p = pow(0.5, k), cdf = p;
    int j = 0;
    /* cdf = P(B <= j); the next step's term is C(k, j+1) / 2^k. */
    while (j + 1 < k - 1 - (j + 1) + 1) {
        double next = cdf + p * (k - j) / (j + 1);
        if (1 - 2 * next < 0.95)
            break;
        p = p * (k - j) / (j + 1);
        cdf = next;
        j++;
    }
    *lo = sorted[j];
    *hi = sorted[k - 1 - j];
}

/* The smallest number of rounds whose t half-width, for logs of this sd,
 * fits in h; 0 when none up to 1000 would. */
static int rounds_for(double sd, double h)
{
    int n;
    if (!(h > 0))
        return 0;
    if (!(sd > 0))
        return VERDICT_MIN_ROUNDS;
    for (n = VERDICT_MIN_ROUNDS; n <= 1000; n++)
        if (interval_t975(n - 1) * sd / sqrt((double)n) <= h)
            return n;
    return 0;
}

int verdict_own_short(double own_ci, double within)
{
    return own_ci > 0 && log1p(own_ci) > log1p(within) / 2;
}

void verdict_pair(const struct verdict_cell *a, const struct verdict_cell *b, double within, struct verdict_pair *out)
{
    double l[VERDICT_MAX_ROUNDS], sorted[VERDICT_MAX_ROUNDS], mean, sd, half, olo, ohi, lo, hi, r, band, raw[2], h;
    int i, k = 0, nb = 0, n = a->nrounds < b->nrounds ? a->nrounds : b->nrounds;

    out->ratio = 0;
    out->ci[0] = out->ci[1] = NAN;
    out->why = VWHY_NONE;
    out->duration_auto = 0; /* the caller's to say, after (compare_result.c) */
    out->spread = NAN;
    out->resolution = a->resolution + b->resolution;
    out->own_ci = hypot(a->own_ci, b->own_ci);
    out->rounds_needed = 0;
    out->busy = 0;
    /* The quiet rounds first, the busy ones after them (l[k..k+nb)): the
     * ratio is told over every round when too few are quiet. */
    for (i = 0; i < n && k + nb < VERDICT_MAX_ROUNDS; i++)
        if (a->rps[i] > 0 && b->rps[i] > 0 && isfinite(a->rps[i]) && isfinite(b->rps[i])) {
            if ((a->busy && a->busy[i]) || (b->busy && b->busy[i])) {
                sorted[nb++] = log(b->rps[i] / a->rps[i]);
                continue;
            }
            l[k++] = log(b->rps[i] / a->rps[i]);
        }
    out->n = k;
    out->busy = nb;
    if (k < VERDICT_MIN_ROUNDS && nb) {
        /* Too few quiet rounds: no interval, the machine as why. */
        for (i = 0; i < nb; i++)
            l[k + i] = sorted[i];
        log_stats(l, k + nb, &mean, &sd, &half);
        out->ratio = exp(mean);
        out->spread = sd;
        out->verdict = VERDICT_UNDECIDED;
        out->why = VWHY_BUSY;
        return;
    }
    if (k == 0) {
        out->verdict = VERDICT_UNDECIDED;
        out->why = VWHY_FEW_ROUNDS;
        return;
    }
    log_stats(l, k, &mean, &sd, &half);
    out->ratio = exp(mean);
    out->spread = sd;
    if (k < VERDICT_MIN_ROUNDS) {
        /* Two rounds' t-interval (t = 12.7) is a formality, one round has
         * none: no claim either way. */
        out->verdict = VERDICT_UNDECIDED;
        out->why = VWHY_FEW_ROUNDS;
        out->rounds_needed = VERDICT_MIN_ROUNDS;
        return;
    }
    for (i = 0; i < k; i++)
        sorted[i] = l[i];
    qsort(sorted, (size_t)k, sizeof(double), cmp_dbl);
    order_interval(sorted, k, &olo, &ohi);
    lo = fmin(mean - half, olo);
    hi = fmax(mean + half, ohi);
    r = log1p(out->resolution);
    raw[0] = exp(lo);
    raw[1] = exp(hi);
    out->ci[0] = exp(lo - r);
    out->ci[1] = exp(hi + r);
    if (!isfinite(out->ci[1]) || !(out->ci[0] > 0)) {
        out->ci[0] = out->ci[1] = NAN;
        out->verdict = VERDICT_UNDECIDED;
        out->why = VWHY_NOISY;
        return;
    }
    out->verdict = verdict_decide(out->ci, within);
    if (out->verdict != VERDICT_UNDECIDED)
        return;
    if (verdict_decide(raw, within) != VERDICT_UNDECIDED) {
        out->why = VWHY_COARSE; /* the rounds agree; their counts are too coarse to say so */
        return;
    }
    band = log1p(within);
    if (verdict_own_short(out->own_ci, within)) {
        out->why = VWHY_COARSE; /* each round alone is too short to tell half the band */
        return;
    }
    out->why = VWHY_NOISY;
    /* The half-width that would decide it, the easier way: inside the
     * band around the mean, or clear of 1. */
    h = fmax(band - fabs(mean), fabs(mean)) - r;
    out->rounds_needed = rounds_for(sd, h);
    if (out->rounds_needed && out->rounds_needed <= k)
        out->rounds_needed = k + 1; /* the order statistics still disagree: one more at least */
}

/* "longer rounds (...)": what the compare file would change for longer
 * rounds. Under duration = auto its probing rounds fit, these did not. */
static const char *longer_rounds(const struct verdict_pair *v)
{
    if (v->duration_auto == 2)
        return "longer rounds (max-duration: duration = auto reached it)";
    if (v->duration_auto)
        return "longer rounds (duration: these rounds are wider than duration = auto's probing rounds were)";
    return "longer rounds (duration)";
}

/* "more rounds (...)": what the compare file would change to run about need
 * rounds. A fixed repeat is raised; repeat = auto runs COMPARE_AUTO_LEAST
 * at least and stops at max-repeat, so it is raised only when it held the
 * rounds back. */
static void more_rounds(char *b, size_t n, int need, const struct compare_settings *set)
{
    if (!set->repeat_auto)
        snprintf(b, n, "more rounds (repeat = %d)", need);
    else if ((need = need > COMPARE_AUTO_LEAST ? need : COMPARE_AUTO_LEAST) > set->max_repeat)
        snprintf(b, n, "more rounds (max-repeat = %d)", need);
    else
        snprintf(b, n, "more rounds (about %d, which max-repeat = %d allows: run it again)", need, set->max_repeat);
}

const char *verdict_why_text(char *b, size_t n, const struct verdict_pair *v, const struct compare_settings *set)
{
    int u;
    switch (v->why) {
    case VWHY_FEW_ROUNDS:
        if (!set->repeat_auto)
            snprintf(b, n, "too few rounds (%d; an interval needs %d): repeat = %d or more, or auto", v->n,
                     VERDICT_MIN_ROUNDS, COMPARE_AUTO_LEAST);
        else if (set->max_repeat < COMPARE_AUTO_LEAST)
            snprintf(b, n, "too few rounds (%d; an interval needs %d): max-repeat = %d or more", v->n,
                     VERDICT_MIN_ROUNDS, COMPARE_AUTO_LEAST);
        else
            snprintf(b, n, "too few rounds (%d; an interval needs %d): run it again (repeat = auto runs %d at least)",
                     v->n, VERDICT_MIN_ROUNDS, COMPARE_AUTO_LEAST);
        break;
    case VWHY_COARSE:
        if (verdict_own_short(v->own_ci, set->same_within))
            snprintf(b, n, "rounds too short: a round's own throughput interval is \xc2\xb1%.1f%% (both servers'), "
                           "wider than half the \xc2\xb1%g%% band: %s",
                     v->own_ci * 100, set->same_within * 100, longer_rounds(v));
        else
            snprintf(b, n, "rounds too short: their request counts move in steps of %.1f%%, the band is %g%%: %s",
                     v->resolution * 100, set->same_within * 100, longer_rounds(v));
        break;
    case VWHY_NOISY:
        u = snprintf(b, n, "too noisy: the rounds' ratios spread %.1f%% (sd over %d rounds), the interval "
                           "%.2f\xe2\x80\x93%.2f is wider than \xc2\xb1%g%%: ",
                     (exp(isnan(v->spread) ? 0 : v->spread) - 1) * 100, v->n, v->ci[0], v->ci[1],
                     set->same_within * 100);
        if (u < 0 || (size_t)u >= n)
            break;
        if (v->rounds_needed)
            more_rounds(b + u, n - (size_t)u, v->rounds_needed, set);
        else
            snprintf(b + u, n - (size_t)u, "more rounds would not do; a quieter machine (pinned CPUs, no other load) "
                                           "or longer rounds");
        break;
    case VWHY_BUSY:
        snprintf(b, n, "the machine was busy: other processes took its CPUs in %d of %d rounds (noisy_neighbour), "
                       "which can slow one server and not the other; %d quiet rounds are too few for an interval "
                       "(%d): a quieter machine (pinned CPUs, no other load)%s",
                 v->busy, v->busy + v->n, v->n, VERDICT_MIN_ROUNDS, set->repeat_auto ? ", or a higher max-repeat" : "");
        break;
    default:
        snprintf(b, n, "decided");
    }
    return b;
}

int verdict_rank(struct verdict_cell *c, int n, double within)
{
    double top = 0, ci[2];
    int best = -1, i, j, *order, m = 0;
    for (i = 0; i < n; i++) {
        double g = c[i].valid ? verdict_log_ci(c[i].rps, c[i].nrounds, ci) : 0;
        if (g > top) {
            top = g;
            best = i;
        }
    }
    for (i = 0; i < n; i++) {
        c[i].ratio = 0;
        c[i].ratio_ci[0] = c[i].ratio_ci[1] = NAN;
        c[i].rank = 0;
        c[i].vs_best.verdict = VERDICT_INVALID;
        c[i].vs_best.why = VWHY_NONE;
        if (!c[i].valid || best < 0) {
            c[i].verdict = VERDICT_INVALID;
            continue;
        }
        if (i == best) {
            c[i].ratio = 1;
            c[i].verdict = VERDICT_BEST;
            continue;
        }
        verdict_pair(&c[i], &c[best], within, &c[i].vs_best);
        c[i].ratio = c[i].vs_best.ratio;
        c[i].ratio_ci[0] = c[i].vs_best.ci[0];
        c[i].ratio_ci[1] = c[i].vs_best.ci[1];
        c[i].verdict = c[i].vs_best.verdict;
    }
    if (best < 0 || (order = malloc((size_t)n * sizeof(int))) == NULL)
        return best;
    /* Ranks: fastest first (geometric mean over the rounds); a server
     * shares the rank of the first of the group before it only when it is
     * the same as that one, so undecided ones get ranks of their own, in
     * the order of their figures. */
    for (i = 0; i < n; i++)
        if (c[i].valid) {
            double gi = verdict_log_ci(c[i].rps, c[i].nrounds, ci);
            for (j = m; j > 0 && verdict_log_ci(c[order[j - 1]].rps, c[order[j - 1]].nrounds, ci) < gi; j--)
                order[j] = order[j - 1];
            order[j] = i;
            m++;
        }
    for (i = 0, j = -1; i < m; i++) {
        struct verdict_pair v;
        if (j >= 0) {
            verdict_pair(&c[order[i]], &c[order[j]], within, &v);
            if (v.verdict == VERDICT_SAME) {
                c[order[i]].rank = c[order[j]].rank;
                continue;
            }
        }
        c[order[i]].rank = i + 1;
        j = i;
    }
    free(order);
    return best;
}

const char *verdict_name(int v)
{
    static const char *const names[] = { "best", "same", "slower", "not valid", "undecided", "faster" };
    return v >= 0 && v <= VERDICT_FASTER ? names[v] : "undecided";
}
