/* cli.h - the command lines of rafale, rafale sweep, serve and compare:
 * the option table (opt.c) applied to argv, plus the checks that need the
 * operands. */
#ifndef RAFALE_CLI_H
#define RAFALE_CLI_H

#include <stddef.h>

#include "cmp_settings.h"
#include "config.h"

struct serve_config; /* serve_config.h: only the parser and serve need its fields */

#define RAFALE_VERSION "0.2.0"

enum cli_result {
    CLI_OK,       /* run with the config */
    CLI_EXIT,     /* --help or --version was printed: exit 0 */
    CLI_ERROR     /* err holds one line for the user: exit 2 */
};

/* Parses `rafale [options] URL...` (sweep: `rafale sweep [options] URL...`,
 * argv[0] being "sweep"). notes receives remarks for the user (adjustments
 * such as lowering -c), possibly empty. Free cfg with config_free(). */
enum cli_result cli_parse(int argc, char **argv, int sweep, struct config *cfg, char *err, size_t errlen,
                          char *notes, size_t noteslen);

/* Parses `rafale serve [options]` (argv[0] is "serve"). */
enum cli_result cli_parse_serve(int argc, char **argv, struct serve_config *sc, char *err, size_t errlen);

/* `rafale compare [options] PLAN`: the plan file, and the settings given on
 * the command line (zero when not given), which override the plan's. */
struct compare_args {
    const char *file;
    struct cmp_settings set;
};
enum cli_result cli_parse_compare(int argc, char **argv, struct compare_args *a, char *err, size_t errlen);

void cli_usage(void);

#endif
