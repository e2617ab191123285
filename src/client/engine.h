/* engine.h - runs a load test: worker threads, each with its own event loop
 * and connections, and the merge of their results. */
#ifndef RAFALE_ENGINE_H
#define RAFALE_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "config.h"
#include "interval.h"
#include "engine_figs.h"
#include "fairness.h"
#include "check.h"
#include "machine.h"
#include "stats.h"
#include "tcpinfo.h"
#include "timeline.h"

struct engine_progress {
    double elapsed_s;           /* since the measured phase began; negative during warm-up */
    uint64_t completed, errors;
    uint32_t open;              /* connections open now */
    double p50_ns, p99_ns;      /* over the last complete second, all threads */
    const struct engine_live *live; /* --metrics-listen: the figures so far (NULL without) */
};

typedef void (*engine_progress_fn)(const struct engine_progress *p, void *arg);

/* One shard of a run spread over several processes (--shard I/N): who and
 * when, and (in a merged result) its own figures for the per-shard table. */
struct shard_info {
    uint32_t index, count;      /* count 0: not a shard */
    char host[64];
    double start_unix_s;        /* wall clock when its measured phase began */
    double late_s;              /* --start-at: how late it began (0 when on time) */
    uint32_t threads;
    /* Filled by the merge. */
    uint64_t completed, errors;
    double elapsed_s, p99_ns, client_cpu_s;
};

/* A check (# check:, --check) on one target, over the run. */
struct engine_check {
    uint32_t target;
    char text[CHECK_TEXT_MAX + 1];
    uint64_t passed, failed;
    char first_failure[CHECK_SEEN_MAX + 1]; /* what the first failing response had */
};

/* The 95% intervals of a run's figures from its own batches of time
 * (interval.h), the percentiles in the reports' order (report.h): filled
 * after the run (report_ci), read back from a saved result. A bound NaN:
 * the run cannot say (too few batches, too few samples past a percentile). */
#define RUN_CI_NPCTS 6
struct run_ci {
    uint32_t batches;           /* batches they rest on (before merging neighbours), 0: none */
    double batch_s;             /* the length of one */
    struct interval rps;        /* answers per second */
    struct interval mean;       /* latency (total, corrected), ns */
    struct interval pct[RUN_CI_NPCTS];
};

struct engine_result {
    struct stats total;
    struct engine_check *checks; /* every target's, in target order */
    uint32_t nchecks;
    char (*var_names)[64];      /* # extract: the variables, and the requests skipped for each (not set) */
    uint64_t *skipped_var;
    uint32_t nvars;
    uint32_t parked;            /* connections that took no more work: nothing they could send was sendable */
    uint64_t log_written, log_dropped; /* --log: lines written, and dropped (the writer behind, or stopped) */
    int log_failed;             /* --log: the errno that stopped the writing (a full disk), 0 none */
    struct stats *per_target;      /* ntargets entries: engine_nfigs(config's ntargets) */
    uint64_t *target_in_flight;    /* ntargets entries */
    uint32_t ntargets;
    uint64_t in_flight;         /* started but neither completed nor failed at the end */
    double in_flight_oldest_s;  /* the age then of the oldest of them (or of a due, unsent one) */
    struct fairness_conns conns;
    struct tcpinfo_sum tcp;     /* TCP_INFO of rafale's connections as they closed */
    struct machine env;         /* where it ran (filled by the caller, cpus_online 0: unknown) */
    struct machine_ref ref;     /* --calibrate yes: this machine's reference (filled by the caller) */
    int aborted;                /* --abort-on-fail: stopped when the SLO was lost */
    double aborted_at_s;        /* when, into the measured phase */
    char aborted_why[120];      /* which threshold, and its value then */
    double gave_up_s;           /* a run bounded by -n alone: no connection could be opened for that long
                                 * (--timeout), its connects failing: it stopped; 0 when not */
    char gave_up_why[200];      /* the address and how its last connect failed */
    struct machine_noise noise; /* what else ran there meanwhile (filled by the caller) */
    double all_connected_s;     /* from the start until all -c connections had been open at once
                                 * or in turn; -1 when some never connected */
    double elapsed_s;           /* measured phase: from its start to the end of the last request */
    struct hist ends;           /* when each request ended (answered or failed), from that start; empty in a
                                 * result read back or merged (its timeline says it by the second) */
    int interrupted;            /* stopped by a signal */
    /* Rate mode only. */
    uint64_t queued;            /* due by the schedule but never sent: no free connection */
    uint32_t extra_connections; /* brought in by --max-connections when the schedule fell behind */
    double target_rate;         /* requests per second asked for */
    double client_cpu_s;        /* user+sys CPU rafale used during the run */
    struct tl_second *timeline; /* one entry per second of the measured phase */
    uint32_t nseconds;
    struct stats *per_stage;    /* --stages: nstages entries, by the stage each request was due in */
    uint32_t nstages;
    double start_unix_s;        /* wall clock when the measured phase began */
    struct shard_info shard;    /* --shard: this process's place (shard.count 0 otherwise) */
    struct hist *tl_hist;       /* --shard: each second's latency histogram (nseconds), for an exact merge */
    struct batches batches;     /* the run in batches of time, for its intervals (none in a result read back) */
    struct run_ci ci;
    double precise_at_s;        /* --precision: when its goal was met and the run stopped, 0: it was not */
    struct shard_info *shards;  /* a merged result: one per shard */
    uint32_t nshards;
};

/* Runs the test described by cfg, this process's share of the run
 * (shard_apply's: the caller computes it once). `stop` is polled; setting it ends the run
 * early with a correct partial result. progress, when not NULL, is called
 * from the calling thread about four times a second. Returns 0, or -1 with a one-line
 * reason in err, or ENGINE_EPLAN (the plan could not be built: a bad
 * templated value, an unknown host; nothing was sent, the user's mistake),
 * ENGINE_ESTOPPED, or ENGINE_EDOWN (the run's first connects all failed,
 * none was up: err says where and why, in one line; the run stopped at
 * once). On success free the result with engine_result_free(). */
#define ENGINE_EPLAN (-2)
/* Stopped while waiting for --start-at: nothing was sent, no result (err
 * says so). */
#define ENGINE_ESTOPPED (-3)
#define ENGINE_EDOWN (-4)
int engine_run(const struct config *cfg, const atomic_int *stop, engine_progress_fn progress, void *arg,
               struct engine_result *res, char *err, size_t errlen);

void engine_result_free(struct engine_result *res);

/* What engine_run would refuse of cfg (a share, as engine_run's) before
 * sending anything (options that do not go together, names that do not
 * resolve), without running; with
 * connect, also one connection to each address (closed at once). Returns
 * 0, or -1 with a one-line reason in err. */
int engine_preflight(const struct config *cfg, int connect, char *err, size_t errlen);

#endif
