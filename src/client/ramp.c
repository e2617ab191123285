/* ramp.c - --stages: the rate moving linearly over each stage, the
 * requests due by a time (the ramp's integral) and its inverse, the time
 * the k-th request is due. See schedule.h. */
#include "schedule.h"

#include <math.h>
#include <string.h>

void ramp_init(struct ramp *rp, double r0, const uint64_t *dur, const double *rate, uint32_t n)
{
    uint32_t i;
    memset(rp, 0, sizeof(*rp));
    rp->n = n > RAMP_MAX ? RAMP_MAX : n;
    rp->r[0] = r0;
    for (i = 0; i < rp->n; i++) {
        rp->t[i + 1] = rp->t[i] + dur[i];
        rp->r[i + 1] = rate[i];
        /* The area under a straight line: the mean rate times the time. */
        rp->cum[i + 1] = rp->cum[i] + (rp->r[i] + rp->r[i + 1]) / 2 * (double)dur[i] / 1e9;
    }
}

double ramp_count(const struct ramp *rp, uint64_t t)
{
    uint32_t i;
    for (i = 0; i < rp->n; i++)
        if (t < rp->t[i + 1]) {
            double d = (double)(rp->t[i + 1] - rp->t[i]) / 1e9, tau = (double)(t - rp->t[i]) / 1e9;
            return rp->cum[i] + rp->r[i] * tau + (rp->r[i + 1] - rp->r[i]) * tau * tau / (2 * d);
        }
    return rp->cum[rp->n];
}

double ramp_rate(const struct ramp *rp, uint64_t t)
{
    uint32_t i;
    for (i = 0; i < rp->n; i++)
        if (t < rp->t[i + 1])
            return rp->r[i] + (rp->r[i + 1] - rp->r[i]) * (double)(t - rp->t[i]) / (double)(rp->t[i + 1] - rp->t[i]);
    return rp->n ? rp->r[rp->n] : 0;
}

uint64_t ramp_time(const struct ramp *rp, double u)
{
    uint32_t i;
    for (i = 0; i < rp->n; i++) {
        double a = rp->r[i], b = rp->r[i + 1], d, k, disc, tau;
        if (u >= rp->cum[i + 1])
            continue;
        /* Within stage i: a*tau + (b-a)*tau^2/(2d) = k; the root written so
         * that it stays exact when b is close to a. */
        d = (double)(rp->t[i + 1] - rp->t[i]) / 1e9;
        k = u - rp->cum[i];
        disc = a * a + 2 * (b - a) * k / d;
        tau = 2 * k / (a + sqrt(disc > 0 ? disc : 0));
        if (!(tau >= 0))
            tau = 0;
        if (tau > d)
            tau = d;
        return schedule_add(rp->t[i], schedule_ns(tau * 1e9));
    }
    return UINT64_MAX;
}
