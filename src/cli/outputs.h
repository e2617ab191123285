/* outputs.h - the files a command writes (enum out_kind, config.h), in
 * one table (outputs.c): each one's option and what it is, and the writer
 * of a run's result as it. One rule for "-": it is standard output, one
 * output at most may have it, and the text report then goes to stderr.
 * One way to open an output and to say why it could not be written. Every
 * command that writes files goes through it: a run and rafale-mpi (their
 * result's text report, SLO goals, files and the live page's last
 * state), sweep, compare, report, merge, diff, calibrate. A new output of
 * a run: its kind (config.h), its option (options/opt.c), its row here.
 * Private to src/cli/. */
#ifndef RAFALE_OUTPUTS_H
#define RAFALE_OUTPUTS_H

#include <stdio.h>

#include "config.h"
#include "metrics.h"
#include "result.h"

/* The rule on "-": at most one of out[] (a command's outputs, NULL: not
 * asked) has standard output; two would be written into each other.
 * Returns 0, or -1 with "--json - and --html - both want standard output:
 * give one of them a file" in err. */
int outputs_stdout(const char *const out[OUT__COUNT], char *err, size_t errlen);
/* Before any work, so that a mistake does not cost the run: the rule on
 * "-", and every file writable (a directory, a missing directory, a file
 * or place without write permission: "--json: cannot write 'x': ...").
 * Nothing is truncated: an old file stays whole until the result replaces
 * it (after a Ctrl-C too, with the partial result). dirs_made: the writer
 * makes a missing directory, so that is no mistake. --log's file is its
 * writer's to check (at the run's start, a pipe's reader too). Two outputs
 * on one file are refused ("--json and --html name the same file 'x'").
 * Returns 0, or -1 with the reason in err. */
int outputs_ready(const char *const out[OUT__COUNT], int dirs_made, char *err, size_t errlen);
/* Whether paths a and b name one file (the same words, or one existing
 * regular file; never "-", a device or a FIFO): an output on an input. */
int outputs_same(const char *a, const char *b);
/* Output k's option ("--json"). */
const char *outputs_opt(enum out_kind k);
/* Where the text report goes: stderr when an output has standard output
 * (--log - aside: its lines come as requests end, the report after them),
 * else stdout. */
FILE *outputs_text(const char *const out[OUT__COUNT]);

/* Output k opened for writing: its file, or stdout for "-". NULL when it
 * cannot be (said on stderr after who, "rafale compare"). */
FILE *outputs_open(const char *const out[OUT__COUNT], enum out_kind k, const char *who);
/* Closes f (stdout: flushed) of output k; rc is its writer's. Says a
 * failure on stderr. Returns 0 or -1. */
int outputs_close(const char *const out[OUT__COUNT], enum out_kind k, FILE *f, int rc, const char *who);
/* Output k of a run's result (JSON, CSV, HdrHistogram, HTML) by the
 * table's writer, opened and closed so. Returns 0 or -1 (said). */
int outputs_write(const char *const out[OUT__COUNT], enum out_kind k, const struct run_result *res, const char *who);

/* The end of a run, one or merged from ranks: the text report (on stderr
 * when the JSON owns stdout), the SLO goals of opts (the command line's)
 * evaluated on res (res->slo then), every file opts asks for, the live
 * page's last state (live, or NULL). Returns the exit status: 1 when a
 * file could not be written, 130 when interrupted, 3 when an SLO failed,
 * else 0. */
int outputs_finish(struct config *opts, struct run_result *res, struct metrics *live);

#endif
