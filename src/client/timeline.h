/* timeline.h - a run's per-second timeline in bounded memory.
 *
 * Each worker counts its current second in a histogram of its own and, as
 * the second ends, merges it here (one lock per thread per second, nothing
 * on the per-request path). A second stays open, with one merged histogram,
 * until every worker has closed it; then only its summary is kept: the
 * completed, errors, p50, p99 and max of that second over all threads, exact
 * percentiles of the union, never an average of per-thread ones. Memory:
 * 40 bytes a second (3.5 MB for a day) plus the few seconds still open. */
#ifndef RAFALE_TIMELINE_H
#define RAFALE_TIMELINE_H

#include <pthread.h>
#include <stdint.h>

#include "figures.h"
#include "hist.h"

struct tl_open;

struct timeline {
    pthread_mutex_t mu;
    uint32_t nthreads;
    struct tl_second *done;     /* seconds every thread has closed, in order */
    uint32_t ndone, capdone;
    struct tl_open *open;       /* seconds some thread has not closed yet */
    uint32_t nopen, capopen;
    int oom;                    /* a second could not be kept */
    /* --shard: each second's histogram is kept too (hists, parallel to
     * done), so the shards' timelines merge exactly (a few KiB a second). */
    int keep_hist;
    struct hist *hists;
    /* --abort-on-fail: every done second summed, to judge the SLO so far. */
    int keep_cum;
    struct hist cum;
    uint64_t cum_req, cum_err;
    double latest_p90_ns;       /* with cum (the live figures): the last done second's p90 */
};

/* Returns 0 or an errno value. */
int timeline_init(struct timeline *t, uint32_t nthreads);
void timeline_fini(struct timeline *t);

/* A worker closes second sec (0-based from the start of the measured
 * phase) with its counts and histogram (a TL_SUB_BITS one). Seconds are
 * closed in order by each worker, empty ones included. */
void timeline_close(struct timeline *t, uint32_t sec, uint64_t completed, uint64_t errors, const struct hist *h);

/* After the workers are done: closes what is still open (the last,
 * partial second). */
void timeline_finish(struct timeline *t);

/* The last complete second, for the live view, and its p90 (negative
 * unless the cumulative figures are kept); 0 when there is none yet. */
int timeline_latest(struct timeline *t, struct tl_second *out, double *p90_ns);
/* Sums the seconds done from now on (call before the run). */
void timeline_keep_cumulative(struct timeline *t);
/* The sum of the seconds done so far: their latency histogram (into out,
 * TL_SUB_BITS), requests and errors; the seconds done. */
uint32_t timeline_cumulative(struct timeline *t, struct hist *out, uint64_t *requests, uint64_t *errors);

#endif
