/* outputs.h - what a run's result is written as: the text report, the SLO
 * checks, the files the command line asks for (JSON, CSV, HTML,
 * HdrHistogram) and the live page's last state. A run, rafale-mpi's merged
 * ranks and rafale merge share them. Private to src/cli/. */
#ifndef RAFALE_OUTPUTS_H
#define RAFALE_OUTPUTS_H

#include <stdio.h>

#include "config.h"
#include "metrics.h"
#include "result.h"

/* Whether the output file path (of option opt, "--json") can be written,
 * checked before any load so that a mistake does not cost the run: a
 * directory, a missing directory, a file or place without write
 * permission is said in err ("--json: cannot write 'x': ..."). Nothing is
 * truncated: an old file stays whole until the result replaces it (after
 * a Ctrl-C too, with the partial result). dirs_made: the writer makes a
 * missing directory, so that is no mistake. Returns 0 or -1. */
int outputs_check(const char *path, const char *opt, int dirs_made, char *err, size_t errlen);
/* The same for every file of a run's cfg (--json, --csv, --html, --hdr). */
int outputs_check_run(const struct config *cfg, char *err, size_t errlen);

/* Writes res as kind k to path ("-": stdout). Returns 0, or -1 (said on
 * stderr). */
int outputs_write(const char *path, enum out_kind k, const struct run_result *res);

/* The end of a run, one or merged from ranks: the text report (on stderr
 * when the JSON owns stdout), the SLO checks of opts (the command line's)
 * evaluated on res (res->slo then), every file opts asks for, the live
 * page's last state (live, or NULL). Returns the exit status: 1 when a
 * file could not be written, 130 when interrupted, 3 when an SLO failed,
 * else 0. */
int outputs_finish(struct config *opts, struct run_result *res, struct metrics *live);

#endif
