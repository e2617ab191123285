/* fairness.c - after join: did every connection get its share of answers?
 * The -c connections' answer counts (min, median, max), the ones that
 * waited far longer than the answers took while another was answered
 * (starved), and how many answers the server let a keep-alive connection
 * carry before it ended it. */
#include "client.h"
#include "figures.h"

#include <stdlib.h>

/* A wait counts as starvation from max(1 s, 10 x p99 of the answers) and
 * past the slowest answer: far past what a slow answer takes, and past one
 * SYN retry. */
#define STARVE_MIN_NS 1000000000ULL
#define STARVE_P99_TIMES 10

struct fair_conn {
    uint64_t answered, wait_max, wait_end, first, last;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Did connection j answer within [from, to]? Sure when its answers span at
 * least limit of that window and it never went limit without one. */
static int answered_within(const struct fair_conn *j, uint64_t from, uint64_t to, uint64_t limit)
{
    uint64_t a = j->first > from ? j->first : from, b = j->last < to ? j->last : to;
    return j->answered && j->wait_max < limit && b > a && b - a >= limit;
}

int fairness_collect(const struct worker *ws, uint32_t nt, double p99_ns, double max_ns, int closed,
                   struct fairness_conns *out)
{
    struct fair_conn *fc;
    uint64_t *counts, limit, n = 0, i, j, steps = 0;
    uint32_t t, k;

    for (t = 0; t < nt; t++)
        n += ws[t].nconns;
    fc = calloc(n ? n : 1, sizeof(*fc));
    counts = calloc(n ? n : 1, sizeof(*counts));
    if (fc == NULL || counts == NULL) {
        free(fc);
        free(counts);
        return -1;
    }
    n = 0;
    for (t = 0; t < nt; t++)
        for (k = 0; k < ws[t].nconns; k++) {
            const struct conn *c = &ws[t].conns[k];
            if (!c->used)
                continue;
            fc[n].answered = c->answered;
            fc[n].wait_max = c->wait_max;
            fc[n].wait_end = c->wait_end;
            fc[n].first = c->t_ans_first;
            fc[n].last = c->t_ans_last;
            counts[n] = c->answered;
            n++;
        }
    out->clients = (uint32_t)n;
    limit = (uint64_t)(p99_ns * STARVE_P99_TIMES);
    if (limit < STARVE_MIN_NS)
        limit = STARVE_MIN_NS;
    out->wait_limit_s = (double)limit / 1e9;
    for (i = 0; i < n; i++) {
        double w = (double)fc[i].wait_max / 1e9;
        if (w > out->longest_wait_s)
            out->longest_wait_s = w;
        /* A wait no longer than some answer took is that answer's own
         * latency, in the figures already: a slow request, not a starved
         * connection. In rate mode a connection between requests is idle,
         * and another's idleness proves nothing: closed loop only. */
        if (!closed || fc[i].wait_max < limit || (double)fc[i].wait_max <= max_ns)
            continue;
        /* Starved only while another was answered: a server that stalls
         * for everyone is not unfair. The search is bounded so a run of
         * 100 000 connections ends in well under a second. */
        for (j = 0; j < n && steps < 50000000; j++, steps++)
            if (j != i && answered_within(&fc[j], fc[i].wait_end - fc[i].wait_max, fc[i].wait_end, limit)) {
                out->starved++;
                if (w > out->starved_wait_s)
                    out->starved_wait_s = w;
                break;
            }
    }
    if (n) {
        qsort(counts, n, sizeof(*counts), cmp_u64);
        out->req_min = counts[0];
        out->req_max = counts[n - 1];
        out->req_median = counts[n / 2];
    }
    for (i = 0; i <= KA_MAX; i++) {
        uint64_t sum = 0;
        for (t = 0; t < nt; t++)
            sum += ws[t].ka_ended[i];
        out->server_ended += sum;
        if (sum > out->ended_mode_count) {
            out->ended_mode_count = sum;
            out->ended_mode = i;
        }
    }
    free(fc);
    free(counts);
    return 0;
}
