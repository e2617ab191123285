/* compare_replay.h - a compare workload that replays an access log
 * (replay = FILE): its keys checked, its config made on each server's url
 * (compare_replay.c). Private to src/compare/. */
#ifndef RAFALE_COMPARE_REPLAY_H
#define RAFALE_COMPARE_REPLAY_H

#include <stddef.h>

#include "config.h"

/* A workload's key at odds with the workload replaying a log (replay 1)
 * or not (replay 0): why, in a sentence, or NULL when it fits. */
const char *compare_replay_misfit(const char *key, int replay);

/* A replay workload's config checked once its keys are read (finished;
 * duration_auto: it said duration = auto): what cannot go with a log
 * refused, the log read for its patterns, so a mistake stops the compare
 * before any server starts. Returns 0, or -1 with why. */
int compare_replay_check(struct config *cfg, int duration_auto, char *why, size_t whylen);

/* own: a copy of a replay workload's config replaying its log on url, its
 * targets the log's patterns (free it with config_free). Returns 0, or -1
 * with why. */
int compare_replay_config(const struct config *cfg, const char *url, struct config *own, char *why, size_t whylen);

#endif
