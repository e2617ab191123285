/* cli.h - the command lines of rafale, sweep, serve, compare and the
 * subcommands on saved results:
 * the option table (opt.c) applied to argv, plus the checks that need the
 * operands. */
#ifndef RAFALE_CLI_H
#define RAFALE_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "compare_settings.h"
#include "config.h"
#include "opt.h"

struct serve_config; /* serve_config.h: only the parser and serve need its fields */

enum cli_result {
    CLI_OK,       /* run with the config */
    CLI_EXIT,     /* --help or --version was printed: exit 0 */
    CLI_ERROR,    /* err holds one line for the user: exit 2 */
    CLI_HELP      /* --help: the caller prints the subcommand's help, exit 0 */
};

/* Parses `rafale [options] URL...` (sweep: `rafale sweep [options] URL...`,
 * argv[0] being "sweep"); CLI_HELP for --help. notes receives remarks for the user (adjustments
 * such as lowering -c), possibly empty. Free cfg with config_free(). */
enum cli_result cli_parse(int argc, char **argv, int sweep, struct config *cfg, char *err, size_t errlen,
                          char *notes, size_t noteslen);

/* A replay's config (replay_path set) made ready to run on url: its
 * options checked, its targets the log's patterns, its connections opened
 * as needed. Also a compare's replay workload, on each server's url.
 * Returns 0, or -1 with why in err. */
int cli_replay_setup(struct config *cfg, const char *url, char *err, size_t errlen);
/* Parses `rafale replay [options] ACCESS_LOG URL` (argv[0] being
 * "replay"): the log's busiest endpoint patterns read as targets. */
enum cli_result cli_parse_replay(int argc, char **argv, struct config *cfg, char *err, size_t errlen, char *notes,
                                 size_t noteslen);

/* Parses `rafale serve [options]` (argv[0] is "serve"). */
enum cli_result cli_parse_serve(int argc, char **argv, struct serve_config *sc, char *err, size_t errlen);

/* `rafale compare [options] FILE`: the compare file, and the settings given
 * on the command line (zero when not given), which override the file's. */
struct compare_args {
    const char *file;
    struct compare_settings set;
};
enum cli_result cli_parse_compare(int argc, char **argv, struct compare_args *a, char *err, size_t errlen);

/* `rafale NAME [options] OPERAND...` of the subcommands on saved results
 * (report, merge, diff, calibrate, completion): the options of `where`
 * into a, the operands from argv[*first]. operands: 0 when it takes none.
 * An unknown option is said with synopsis, "unknown option '--x' (rafale
 * SYNOPSIS)" ("argument" when it takes no operands). */
enum cli_result cli_parse_args(int argc, char **argv, unsigned where, const char *synopsis, int operands,
                               struct result_args *a, int *first, char *err, size_t errlen);

/* The options of a run and the examples: the help after the subcommands'
 * lines (src/cli's table). */
void cli_usage(FILE *f);
/* What rafale sweep does, in a few lines: in the help above and sweep's own. */
void cli_sweep_usage(FILE *f);

#endif
