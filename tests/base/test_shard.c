/* Shards: --shard I/N and auto, --start-at times, the exact split of the
 * totals, and shards' schedules (of 2 threads each) that together make one
 * evenly spaced stream, a ramp's too. */
#include "config.h"
#include "schedule.h"
#include "shard.h"
#include "../t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void parse_shards(void)
{
    uint32_t i = 9, n = 9;
    const char *from = "x";
    CHECK(shard_parse("0/3", &i, &n, &from) == 0 && i == 0 && n == 3 && from == NULL);
    CHECK(shard_parse("99/100", &i, &n, &from) == 0 && i == 99 && n == 100);
    CHECK(shard_parse("3/3", &i, &n, &from) == -1);
    CHECK(shard_parse("1/0", &i, &n, &from) == -1);
    CHECK(shard_parse("-1/3", &i, &n, &from) == -1);
    CHECK(shard_parse("1/3x", &i, &n, &from) == -1);
    CHECK(shard_parse("/3", &i, &n, &from) == -1);
    CHECK(shard_parse("1", &i, &n, &from) == -1);
    CHECK(shard_parse("99999999999/3", &i, &n, &from) == -1);
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("PMI_RANK");
    unsetenv("SLURM_PROCID");
    unsetenv("JOB_COMPLETION_INDEX");
    CHECK(shard_parse("auto", &i, &n, &from) == -1);
    setenv("SLURM_PROCID", "4", 1);
    setenv("SLURM_NTASKS", "4", 1);
    CHECK(shard_parse("auto", &i, &n, &from) == -1); /* rank not below size */
    setenv("SLURM_NTASKS", "8", 1);
    CHECK(shard_parse("auto", &i, &n, &from) == 0 && i == 4 && n == 8 && strcmp(from, "SLURM_PROCID") == 0);
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", "2", 1);
    CHECK(shard_parse("auto", &i, &n, &from) == 0 && i == 1 && n == 2 && strcmp(from, "PMI_RANK") == 0);
    unsetenv("PMI_RANK");
    unsetenv("SLURM_PROCID");
    setenv("JOB_COMPLETION_INDEX", "2", 1);
    unsetenv("RAFALE_SHARDS");
    CHECK(shard_parse("auto", &i, &n, &from) == -1); /* an Indexed Job's size is ours to give */
    setenv("RAFALE_SHARDS", "3", 1);
    CHECK(shard_parse("auto", &i, &n, &from) == 0 && i == 2 && n == 3);
    unsetenv("JOB_COMPLETION_INDEX");
}

static void parse_times(void)
{
    CHECK(shard_parse_time("1764583200") == 1764583200.0);
    CHECK(fabs(shard_parse_time("1764583200.25") - 1764583200.25) < 1e-6);
    CHECK(shard_parse_time("2025-12-01T10:00:00Z") == 1764583200.0);
    CHECK(fabs(shard_parse_time("2025-12-01T10:00:00.5Z") - 1764583200.5) < 1e-6);
    CHECK(shard_parse_time("2025-12-01T10:00:00+00:00") == 1764583200.0);
    CHECK(shard_parse_time("2025-12-01T10:00:00") < 0);      /* no zone: refused, not guessed */
    CHECK(shard_parse_time("2025-12-01T10:00:00+01:00") < 0);
    CHECK(shard_parse_time("2025-13-01T10:00:00Z") < 0);
    CHECK(shard_parse_time("tomorrow") < 0);
    CHECK(shard_parse_time("-5") < 0);
    CHECK(shard_parse_time("") < 0);
}

static void shares_add_up(void)
{
    uint32_t n, i;
    uint64_t totals[] = { 0, 1, 2, 7, 100, 3001, 1000000007ULL };
    size_t k;
    for (k = 0; k < sizeof(totals) / sizeof(totals[0]); k++)
        for (n = 1; n <= 9; n++) {
            uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
            for (i = 0; i < n; i++) {
                uint64_t s = shard_share(totals[k], i, n);
                sum += s;
                lo = s < lo ? s : lo;
                hi = s > hi ? s : hi;
            }
            CHECKF(sum == totals[k] && hi - lo <= 1, "total %llu over %u", (unsigned long long)totals[k], n);
        }
    CHECK(shard_share(7, 0, 3) == 3 && shard_share(7, 1, 3) == 2 && shard_share(7, 2, 3) == 2);
}

static void apply_splits_the_totals(void)
{
    struct config c, s;
    char err[256];
    memset(&c, 0, sizeof(c));
    c.connections = 7;
    c.max_connections = 20;
    c.requests = 3001;
    c.rate = 300;
    c.shard_index = 1;
    c.shard_count = 3;
    CHECK(shard_apply(&c, &s, err, sizeof(err)) == 0);
    CHECK(s.connections == 2 && s.max_connections == 7 && s.requests == 1000 && fabs(s.rate - 100) < 1e-9);
    CHECK(c.connections == 7 && c.requests == 3001); /* the totals stay */
    c.connections = 2;
    c.shard_index = 2;
    CHECK(shard_apply(&c, &s, err, sizeof(err)) == -1 && strstr(err, "-c 2 cannot be split over 3 shards"));
    c.connections = 9;
    c.requests = 2;
    CHECK(shard_apply(&c, &s, err, sizeof(err)) == -1 && strstr(err, "-n 2"));
    c.requests = 0;
    c.nstages = 2;
    c.stage_start = 30;
    c.stage_val[0] = 300;
    c.stage_val[1] = 0;
    CHECK(shard_apply(&c, &s, err, sizeof(err)) == 0 && fabs(s.stage_start - 10) < 1e-9 &&
          fabs(s.stage_val[0] - 100) < 1e-9 && s.stage_val[1] == 0);
    c.stages_conns = 1; /* stages of connections keep the totals: the engine takes its share of the ramp */
    CHECK(shard_apply(&c, &s, err, sizeof(err)) == 0 && s.stage_val[0] == 300);
    c.shard_count = 0;
    CHECK(shard_apply(&c, &s, err, sizeof(err)) == 0 && s.connections == 9 && s.rate == 300);
}

/* 3 shards of 2 threads each at 300 req/s in total: one stream, 3.33 ms apart. */
static void shards_interleave(void)
{
    enum { NS = 3, NT = 2, PER = 100 };
    struct sched s[NS][NT];
    uint64_t due[NS * NT * PER], t0 = 1000000000ULL;
    int a, b, k, n = 0, ok = 1;
    for (a = 0; a < NS; a++)
        for (b = 0; b < NT; b++) {
            sched_init(&s[a][b], t0, (uint32_t)b, NT, 300.0 / NS, 0, NULL);
            sched_shift(&s[a][b], (double)a / NS, (uint64_t)a);
            for (k = 0; k < PER; k++)
                due[n++] = sched_next(&s[a][b]);
        }
    qsort(due, (size_t)n, sizeof(due[0]), cmp_u64);
    CHECK(due[0] == t0);
    for (k = 1; k < n; k++)
        if (llabs((long long)(due[k] - due[k - 1]) - 3333333LL) > 2)
            ok = 0;
    CHECKF(ok, "gaps of 3.333 ms between all %d requests", n);
}

/* The same over a ramp from 0 to 300 req/s in 2 s: the union is the ramp's own sequence. */
static void shards_follow_a_ramp(void)
{
    enum { NS = 3 };
    struct ramp whole, part;
    uint64_t dur[1] = { 2000000000ULL };
    double v_whole[1] = { 300 }, v_part[1] = { 100 };
    struct sched s[NS], one;
    uint64_t mine[400], ref[400];
    int a, k, n = 0, ok = 1;
    ramp_init(&whole, 0, dur, v_whole, 1);
    ramp_init(&part, 0, dur, v_part, 1);
    for (a = 0; a < NS; a++) {
        uint64_t d;
        sched_init(&s[a], 0, 0, 1, 100, 0, &part);
        sched_shift(&s[a], (double)a / NS, (uint64_t)a);
        while ((d = sched_next(&s[a])) != UINT64_MAX && n < 400)
            mine[n++] = d;
    }
    qsort(mine, (size_t)n, sizeof(mine[0]), cmp_u64);
    sched_init(&one, 0, 0, 1, 300, 0, &whole);
    for (k = 0; k < n; k++)
        ref[k] = sched_next(&one);
    CHECKF(n >= 298 && n <= 301, "%d requests over the ramp (300 expected)", n);
    for (k = 0; k < n; k++)
        if (llabs((long long)(mine[k] - ref[k])) > 1000)
            ok = 0;
    CHECK(ok);
}

int main(void)
{
    T_RUN(parse_shards);
    T_RUN(parse_times);
    T_RUN(shares_add_up);
    T_RUN(apply_splits_the_totals);
    T_RUN(shards_interleave);
    T_RUN(shards_follow_a_ramp);
    T_END("shard");
}
