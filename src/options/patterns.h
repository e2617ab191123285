/* patterns.h - rafale replay's targets: its log's busiest endpoint
 * patterns (patterns.c). Private to src/options/. */
#ifndef RAFALE_PATTERNS_H
#define RAFALE_PATTERNS_H

#include <stddef.h>

#include "config.h"

#define PATTERNS_MAX 12        /* patterns with a row of their own */
#define PATTERNS_USER_MAX 64   /* --pattern REGEX=NAME, at most */
#define PATTERN_NAME_MAX 256
#define PATTERN_OTHER "other"  /* the target of every other pattern */

/* Reads the first lines of cfg's log (replay_path, replay_format,
 * replay_methods) and appends a target on url for each of its busiest
 * patterns, named by it, then the "other" target. Returns 0, or -1 with
 * the reason in err. */
int patterns_load(struct config *cfg, const char *url, char *err, size_t errlen);

#endif
