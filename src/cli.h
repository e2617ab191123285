/* cli.h - the command line: options into a struct config, help text. */
#ifndef RAFALE_CLI_H
#define RAFALE_CLI_H

#include <stddef.h>

#include "config.h"

enum cli_result {
    CLI_OK,       /* run with the config */
    CLI_EXIT,     /* --help or --version was printed: exit 0 */
    CLI_ERROR     /* err holds one line for the user: exit 2 */
};

/* Parses `rafale [options] URL...` (sweep: `rafale sweep [options] URL...`,
 * argv[0] being "sweep"). notes receives remarks for the user (adjustments
 * such as lowering -c), possibly empty. */
enum cli_result cli_parse(int argc, char **argv, int sweep, struct config *cfg, char *err, size_t errlen,
                          char *notes, size_t noteslen);
void cli_free(struct config *cfg);
/* The defaults of a plain `rafale URL` run, without URLs. */
void cli_defaults(struct config *cfg);

/* Parses `rafale serve [options]` (argv[0] is "serve"). */
enum cli_result cli_parse_serve(int argc, char **argv, struct serve_config *sc, char *err, size_t errlen);

/* Options of `rafale compare FILE`. */
struct compare_args {
    const char *file;
    const char *html_path, *json_path;
    int repeat;                 /* 0: as the file says */
    const char *server_cpus, *client_cpus;
};
/* Parses `rafale compare [options] FILE` (argv[0] is "compare"). */
enum cli_result cli_parse_compare(int argc, char **argv, struct compare_args *a, char *err, size_t errlen);

void cli_usage(void);

#endif
