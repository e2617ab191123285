/* engine.h - runs a load test: worker threads, each with its own event loop
 * and connections, and the merge of their results. */
#ifndef RAFALE_ENGINE_H
#define RAFALE_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "engine_figs.h"
#include "figures.h"

struct engine_progress {
    double elapsed_s;           /* since the measured phase began; negative during warm-up */
    uint64_t completed, errors;
    uint32_t open;              /* connections open now */
    double p50_ns, p99_ns;      /* over the last complete second, all threads; negative: not known yet
                                 * (no second closed, or none answered in it) */
    double p90_ns;              /* the same, with the live figures (--tui, --metrics-listen) only */
    const struct engine_live *live; /* --metrics-listen: the figures so far (NULL without) */
};

typedef void (*engine_progress_fn)(const struct engine_progress *p, void *arg);

/* Runs the test described by cfg, this process's share of the run
 * (shard_apply's: the caller computes it once). `stop` is polled; setting it ends the run
 * early with a correct partial result. progress, when not NULL, is called
 * from the calling thread about four times a second. Returns 0, or -1 with a one-line
 * reason in err, or ENGINE_EPLAN (the plan could not be built: a bad
 * templated value, an unknown host; nothing was sent, the user's mistake),
 * ENGINE_ESTOPPED, or ENGINE_EDOWN (the run's first connects all failed,
 * none was up: err says where and why, in one line; the run stopped at
 * once). On success free the figures with figures_free(). */
#define ENGINE_EPLAN (-2)
/* Stopped while waiting for --start-at: nothing was sent, no result (err
 * says so). */
#define ENGINE_ESTOPPED (-3)
#define ENGINE_EDOWN (-4)
int engine_run(const struct config *cfg, const atomic_int *stop, engine_progress_fn progress, void *arg,
               struct run_figures *res, char *err, size_t errlen);

/* What engine_run would refuse of cfg (a share, as engine_run's) before
 * sending anything (options that do not go together, names that do not
 * resolve), without running; with
 * connect, also one connection to each address (closed at once). Returns
 * 0, or -1 with a one-line reason in err. */
int engine_preflight(const struct config *cfg, int connect, char *err, size_t errlen);

/* The idle probe (probe.c): whether cfg's run gets one (the whole run's
 * config), and the probe itself: a few of the run's requests, one at a
 * time on one connection, into out (out->ntargets 0 when nothing was
 * measured: the server not reached, stopped). */
int probe_wanted(const struct config *cfg);
void probe_run(const struct config *cfg, const atomic_int *stop, struct run_probe *out);

#endif
