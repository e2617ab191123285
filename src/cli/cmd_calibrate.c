/* cmd_calibrate.c - `rafale calibrate`: this machine's reference,
 * measured, stored and printed. */
#include "cmd.h"
#include "calibrate.h"
#include "cli.h"
#include "outputs.h"
#include "report.h"
#include "stop.h"

#include <stdio.h>

int cmd_calibrate(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    (void)all;
    const struct cmd *c = self;
    struct result_args a = { 0 };
    struct machine_ref ref;
    char err[600], path[4096];
    int first;

    switch (cli_parse_args(argc, argv, c->where, c->usage, 0, &a, &first, err, sizeof(err))) {
    case CLI_HELP:
        cmd_help(stdout, c);
        printf("\nMeasures this machine's reference: rafale serve, pinned as compare pins servers,\nwith always the "
               "same workload (%s),\nand keeps it in $XDG_CACHE_HOME/rafale/calibration.json (or ~/.cache/rafale/).\n"
               "A run with --calibrate yes (compare: calibrate = yes) carries it.\n", CALIBRATE_WORKLOAD);
        return 0;
    case CLI_EXIT:
        return 0;
    case CLI_ERROR:
        fprintf(stderr, "rafale calibrate: %s\n", err);
        return 2;
    case CLI_OK:
        break;
    }
    /* Before the measure's seconds; calibrate_save makes the directory. */
    if (outputs_ready(a.out, 1, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale calibrate: %s\n", err);
        return 2;
    }
    stop_catch(0);
    printf("rafale calibrate: %s\n", CALIBRATE_WORKLOAD);
    fflush(stdout);
    if (calibrate_run(stop_flag(), cmd_log_line, stdout, &ref, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale calibrate: %s\n", err);
        return atomic_load(stop_flag()) ? 130 : 1;
    }
    printf("\n");
    report_ref_text(stdout, &ref, "");
    if (calibrate_path(path, sizeof(path)) != 0) {
        fprintf(stderr, "rafale calibrate: warning: neither XDG_CACHE_HOME nor HOME is set: the reference is not kept\n");
    } else if (calibrate_save(path, &ref, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale calibrate: %s\n", err);
        return 1;
    } else {
        printf("Kept in %s\n", path);
    }
    if (a.out[OUT_JSON] && calibrate_save(a.out[OUT_JSON], &ref, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale calibrate: %s\n", err);
        return 1;
    }
    return 0;
}
