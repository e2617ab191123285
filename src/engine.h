/* engine.h - runs a load test: worker threads, each with its own event loop
 * and connections, and the merge of their results. */
#ifndef RAFALE_ENGINE_H
#define RAFALE_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "stats.h"

struct engine_result {
    struct stats total;
    struct stats *per_url;      /* nurls entries */
    uint64_t *url_in_flight;    /* nurls entries */
    uint32_t nurls;
    uint64_t in_flight;         /* started but neither completed nor failed at the end */
    double elapsed_s;           /* measured phase: from its start to the end of the last request */
    int interrupted;            /* stopped by a signal */
    /* Rate mode only. */
    uint64_t queued;            /* due by the schedule but never sent: no free connection */
    double target_rate;         /* requests per second asked for */
    double client_cpu_s;        /* user+sys CPU rafale used during the run */
};

/* Runs the test described by cfg. `stop` is polled; setting it ends the run
 * early with a correct partial result. Returns 0, or -1 with a one-line
 * reason in err. On success free the result with engine_result_free(). */
int engine_run(const struct config *cfg, const atomic_int *stop, struct engine_result *res,
               char *err, size_t errlen);

void engine_result_free(struct engine_result *res);

#endif
