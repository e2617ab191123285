/* shard.c - see shard.h. */
#include "shard.h"
#include "err.h"
#include "config.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int parse_u32(const char *s, const char *end, uint32_t *out)
{
    uint64_t v = 0;
    if (s == end)
        return -1;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9' || v > 100000)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = (uint32_t)v;
    return 0;
}

/* Rank and size from one engine's pair of variables. */
static int from_env(const char *rank, const char *size, uint32_t *index, uint32_t *count)
{
    const char *r = getenv(rank), *n = getenv(size);
    if (r == NULL || n == NULL)
        return -1;
    if (parse_u32(r, r + strlen(r), index) != 0 || parse_u32(n, n + strlen(n), count) != 0 || *count == 0 ||
        *index >= *count)
        return -1;
    return 0;
}

int shard_parse(const char *v, uint32_t *index, uint32_t *count, const char **from)
{
    const char *slash;
    /* Open MPI, MPICH's Hydra (PMI), Slurm's srun, a Kubernetes Indexed Job
     * (its index; the size is ours to give: RAFALE_SHARDS). */
    static const char *const env[][2] = { { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
                                          { "PMI_RANK", "PMI_SIZE" },
                                          { "SLURM_PROCID", "SLURM_NTASKS" },
                                          { "JOB_COMPLETION_INDEX", "RAFALE_SHARDS" } };
    size_t k;

    if (strcmp(v, "auto") == 0) {
        for (k = 0; k < sizeof(env) / sizeof(env[0]); k++)
            if (from_env(env[k][0], env[k][1], index, count) == 0) {
                *from = env[k][0];
                return 0;
            }
        return -1;
    }
    if ((slash = strchr(v, '/')) == NULL || parse_u32(v, slash, index) != 0 ||
        parse_u32(slash + 1, v + strlen(v), count) != 0 || *count == 0 || *index >= *count)
        return -1;
    *from = NULL;
    return 0;
}

double shard_parse_time(const char *v)
{
    struct tm tm;
    const char *after;
    double t, frac = 0;
    int n = 0;

    if (units_parse_decimal(v, &t, &after) == 0 && *after == '\0' && t > 0 && t < 1e11)
        return t;
    memset(&tm, 0, sizeof(tm));
    if (sscanf(v, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &n) != 6 || n != 19)
        return -1;
    v += n;
    if (*v == '.') {
        double scale = 0.1;
        for (v++; *v >= '0' && *v <= '9'; v++, scale /= 10)
            frac += (*v - '0') * scale;
    }
    if (strcmp(v, "Z") != 0 && strcmp(v, "+00:00") != 0)
        return -1;
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
        tm.tm_sec > 60 || tm.tm_year < 1970)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm) + frac;
}

uint64_t shard_share(uint64_t total, uint32_t i, uint32_t n)
{
    return total / n + (i < total % n);
}

int shard_apply(const struct config *cfg, struct config *out, char *err, size_t errlen)
{
    uint32_t i = cfg->shard_index, n = cfg->shard_count, k;

    *out = *cfg;
    if (n == 0)
        return 0;
    out->connections = (uint32_t)shard_share(cfg->connections, i, n);
    out->max_connections = (uint32_t)shard_share(cfg->max_connections, i, n);
    if (out->connections == 0) {
        err_set(err, errlen, NULL, "-c %u cannot be split over %u shards: each shard needs at least one connection",
                cfg->connections, n);
        return -1;
    }
    if (cfg->requests) {
        out->requests = shard_share(cfg->requests, i, n);
        if (out->requests == 0) {
            err_set(err, errlen, NULL, "-n %llu cannot be split over %u shards: each shard needs at least one request",
                    (unsigned long long)cfg->requests, n);
            return -1;
        }
    }
    /* A rate is split evenly; the schedule's offset (engine) interleaves the
     * shards' requests into one evenly spaced stream. */
    out->rate = cfg->rate / n;
    /* Stages of rates are split like the rate; stages of connections keep
     * the totals: the engine takes this shard's share of the ramp's count
     * at each moment, so the shards add up to it exactly. */
    if (cfg->nstages && !cfg->stages_conns) {
        out->stage_start = cfg->stage_start / n;
        for (k = 0; k < cfg->nstages; k++)
            out->stage_val[k] = cfg->stage_val[k] / n;
    }
    return 0;
}

double shard_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
