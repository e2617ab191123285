/* live.h - the engine's watch while its workers run (live.c); private to
 * src/client/. */
#ifndef RAFALE_LIVE_H
#define RAFALE_LIVE_H

#include "client.h"
#include "engine.h"

/* Until every worker has finished: progress (when not NULL) four times a
 * second, with the live figures under --metrics-listen; --abort-on-fail's
 * SLO judged once a second (pl->aborted set, and why in res, when lost). */
void live_watch(struct plan *pl, struct worker *ws, uint32_t nt, engine_progress_fn progress, void *arg,
                struct run_figures *res);

#endif
