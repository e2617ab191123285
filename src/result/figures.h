/* figures.h - what the engine measured of a run: its counters and
 * histograms, in total, per target, per stage, per second, its checks,
 * its connections' fairness, its shard. The engine (src/client/) fills
 * them; a result read back (report_load.c) or merged (merge.c) holds them
 * as a run's; a run's result (result.h) holds them with what was observed
 * around it. Nothing here knows the server's monitor. */
#ifndef RAFALE_FIGURES_H
#define RAFALE_FIGURES_H

#include <stdint.h>

#include "batch.h"
#include "check.h"
#include "hist.h"
#include "interval.h"
#include "stats.h"
#include "tcpinfo.h"

/* Per-target figures are kept for the first FIGURES_TARGETS targets; the
 * others (a targets file of 100 000 paths) share one more row, "other",
 * so the figures stay within a few MiB a thread. */
#define FIGURES_TARGETS 200

/* The row of target i's figures, and the rows for ntargets targets. */
static inline uint32_t figures_row(uint32_t i)
{
    return i < FIGURES_TARGETS ? i : FIGURES_TARGETS;
}

static inline uint32_t figures_rows(uint32_t ntargets)
{
    return ntargets > FIGURES_TARGETS ? FIGURES_TARGETS + 1 : ntargets;
}

/* One second of the measured phase (the timeline, timeline.h's). */
struct tl_second {
    uint64_t completed;         /* completed in that second */
    uint64_t errors;            /* failed in that second */
    double p50_ns, p99_ns, max_ns;
};

/* The precision of the per-second histograms (tl_hist): within 3%. */
#define TL_SUB_BITS 5

/* Fairness over the -c connections (each kept across its reconnects), and
 * how the server ended keep-alive connections (fairness.c's, after join). */
struct fairness_conns {
    uint32_t clients;           /* connections that started a measured request */
    uint64_t req_min, req_median, req_max; /* answers each got */
    uint32_t starved;           /* waited wait_limit_s or more for an answer while another was answered */
    double starved_wait_s;      /* the longest wait of a starved one */
    double longest_wait_s;      /* the longest any connection waited for an answer */
    double wait_limit_s;        /* max(1 s, 10 x p99 of the answers), 0 when nothing was answered */
    /* TCP connections the server ended right after a response (keep-alive),
     * and the most common number of answers such a connection had carried. */
    uint64_t server_ended;
    uint64_t ended_mode, ended_mode_count;
};

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
struct run_check {
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

struct run_figures {
    struct stats total;
    struct run_check *checks;   /* every target's, in target order */
    uint32_t nchecks;
    char (*var_names)[64];      /* # extract: the variables, and the requests skipped for each (not set) */
    uint64_t *skipped_var;
    uint32_t nvars;
    uint32_t parked;            /* connections that took no more work: nothing they could send was sendable */
    uint64_t log_written, log_dropped; /* --log: lines written, and dropped (the writer behind, or stopped) */
    int log_failed;             /* --log: the errno that stopped the writing (a full disk), 0 none */
    struct stats *per_target;      /* ntargets entries: figures_rows(config's ntargets) */
    uint64_t *target_in_flight;    /* ntargets entries */
    uint32_t ntargets;
    uint64_t in_flight;         /* started but neither completed nor failed at the end */
    double in_flight_oldest_s;  /* the age then of the oldest of them (or of a due, unsent one) */
    struct fairness_conns conns;
    struct tcpinfo_sum tcp;     /* TCP_INFO of rafale's connections as they closed */
    int aborted;                /* --abort-on-fail: stopped when the SLO was lost */
    double aborted_at_s;        /* when, into the measured phase */
    char aborted_why[120];      /* which threshold, and its value then */
    double gave_up_s;           /* a run bounded by -n alone: no connection could be opened for that long
                                 * (--timeout), its connects failing: it stopped; 0 when not */
    char gave_up_why[200];      /* the address and how its last connect failed */
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
    double workers_cpu_s;       /* of it, its load's threads' own (not the monitor's or a reader's); 0: not
                                 * known (a result read back or merged) */
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

/* The idle probe (client/probe.c): before the load, a few of the run's own
 * requests on one connection, one at a time, each target's unloaded
 * latency; never in the run's figures. ntargets 0: none was made. */
#define PROBE_TARGETS 4
struct probe_target {
    uint64_t answered;          /* answers (any status) */
    double p50_ns, min_ns;      /* latency of its requests, 0 when none ended */
};

struct run_probe {
    uint32_t ntargets;          /* targets probed, the run's first ones (all of them), 0: no probe */
    uint64_t sent;              /* requests sent (answered, failed, or cut off by its time limit) */
    uint64_t answered, failed, bad; /* answers, failures, answers of a status outside --expect or a failed check */
    double elapsed_s;           /* its wall time, from its start to its end */
    double p50_ns, min_ns;      /* latency of its requests, all targets */
    struct probe_target target[PROBE_TARGETS];
};

/* Frees what f holds (NULL pointers and empty arrays are fine) and zeroes it. */
void figures_free(struct run_figures *f);

#endif
