/* observed.h - one observed run: the server monitor and the host's TCP
 * counters started around engine_run, the machine read after it, the
 * findings on it all, into one run's result (result.h). A plain run, each
 * rank of rafale-mpi, each round of a compare and each step of a sweep
 * make their run through it. */
#ifndef RAFALE_OBSERVED_H
#define RAFALE_OBSERVED_H

#include <stdatomic.h>
#include <stdint.h>

#include "config.h"
#include "engine.h"
#include "monitor.h"
#include "result.h"

struct observed_in {
    const struct config *cfg;      /* the whole run: the findings' and the host counters' */
    const struct config *share;    /* this process's share of it (shard_apply, computed once by the
                                    * caller): what the engine runs; NULL: cfg */
    const atomic_int *stop;
    engine_progress_fn progress;   /* as engine_run's, or NULL */
    void *arg;
    int monitor_pid;               /* the server to watch: a pid, */
    const char *monitor_cgroup;    /* or a cgroup; neither: none */
    int monitor_required;          /* a monitor that cannot start fails the run (--monitor); else it goes without */
    int no_netstat;                /* leave the host's TCP counters out (rafale-mpi's ranks: the merged result has none) */
    int no_noise;                  /* leave the host's noise out of the result (a sweep's steps) */
    const char *server_log;        /* the file the server writes its output to (compare), or NULL */
    int findings;                  /* the findings said on it (else none: --findings no, or made later) */
    struct monitor **watching;     /* set to the monitor while the engine runs (a progress callback's), NULL
                                    * after; or NULL */
};

/* Runs in->share (or in->cfg) through the engine, watched, into out: its
 * cfg in->cfg (the caller's), the figures, the server's (when watched),
 * the host's counters, the findings (in->findings). Returns 0 (free out
 * with result_free), or -1 with a one-line reason in err, or ENGINE_EPLAN
 * (the plan could not be built, or the monitor required could not start:
 * nothing was sent, the user's mistake). out holds nothing to free on
 * failure. */
int observed_run(const struct observed_in *in, struct run_result *out, char *err, size_t errlen);

#endif
