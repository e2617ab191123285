/* sweep.h - `rafale sweep`: the highest constant rate a server sustains
 * within an SLO, found by ramping then bisecting. Private to
 * src/cli/. */
#ifndef RAFALE_SWEEP_H
#define RAFALE_SWEEP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"

struct sweep_step {
    double target;          /* req/s asked */
    double sent;            /* req/s sent */
    double p50_ns, p99_ns, max_ns;
    double err_pct;
    int pass;
    char why[96];           /* the first failed check, or the rate shortfall */
    char found[160];        /* the ids of its findings, comma-separated ("" none): its warnings, */
    char found_info[160];   /* and the rest */
};

struct sweep_result {
    struct sweep_step steps[64];
    int n;
    double knee;            /* highest passing rate, 0 when none passed */
    int interrupted;
    int unreached;          /* a step's first connects all failed (sweep_run's error says where and why) */
};

typedef void (*sweep_step_fn)(const struct sweep_step *s, void *arg);

/* Runs one step at rate req/s and fills st (target, sent, latencies,
 * pass, why). Returns 0, or -1 with a reason in err. */
typedef int (*sweep_runner_fn)(double rate, struct sweep_step *st, void *ctx, char *err, size_t errlen);

/* The search alone, whatever runs the steps: doubles the rate from start
 * (up to max) until a step fails, then bisects between the last pass and
 * the first failure to within 5%. Returns 0, or -1 when a step could not
 * be run (the reason in err). */
int sweep_search(double start, double max, const atomic_int *stop, sweep_runner_fn run, void *ctx,
                 sweep_step_fn on_step, void *arg, struct sweep_result *out, char *err, size_t errlen);

/* Runs the sweep described by cfg (cfg->sweep_start, cfg->sweep_max,
 * cfg->slo, per-step warm-up and duration). on_step is called after each
 * step. Returns 0, or -1 with a reason in err. */
int sweep_run(const struct config *cfg, const atomic_int *stop, sweep_step_fn on_step, void *arg,
              struct sweep_result *out, char *err, size_t errlen);

void sweep_print_header(FILE *f, const struct config *cfg);
void sweep_print_step(FILE *f, const struct sweep_step *s);
void sweep_print_summary(FILE *f, const struct sweep_result *r);
int sweep_json(FILE *f, const struct config *cfg, const struct sweep_result *r);

#endif
