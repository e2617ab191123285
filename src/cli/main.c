/* main.c - rafale's entry and the subcommands' table (cmd.h): the
 * subcommand named by the first word, or the run itself. The bodies
 * (cmd_*.c) print fatal errors and choose the exit code. */
#include "cmd.h"
#include "manpage.h"
#include "opt.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const struct cmd cmds[] = {
    { "", cmd_run, "[options] URL...", "load-test one or more HTTP targets", 1, OPT_RUN, "URL", NULL },
    { "sweep", cmd_sweep, "sweep [options] URL", "the highest rate within an SLO", 0, OPT_SWEEP, "URL", NULL },
    { "replay", cmd_replay, "replay [options] ACCESS_LOG URL", "a web server's access log replayed at its times", 0,
      OPT_REPLAY, "access log", NULL },
    { "serve", cmd_serve, "serve [options]", "run the built-in target server", 0, OPT_SERVE, NULL, NULL },
    { "compare", cmd_compare, "compare [options] FILE", "several servers side by side", 0, OPT_COMPARE, "compare file",
      NULL },
    { "report", cmd_report, "report [--html F] RESULT.json...", "the reports again from saved results", 0, OPT_REPORT,
      "JSON file", NULL },
    { "merge", cmd_merge, "merge [--json F] [--html F] SHARD.json...", "one run's shards (--shard) as one result", 0,
      OPT_MERGE, "JSON file", NULL },
    { "diff", cmd_diff, "diff [--threshold 5%] [--json F] [--html F] BASE.json NEW.json", "a regression gate", 0,
      OPT_DIFF, "JSON file", NULL },
    { "calibrate", cmd_calibrate, "calibrate [--json F]", "this machine's reference, for results from several machines",
      0, OPT_CALIBRATE, NULL, NULL },
    { "completion", completion_main, "completion bash|zsh|fish", "a completion script for your shell", 0,
      OPT_COMPLETION, "shell", "bash zsh fish" },
    { NULL, NULL, NULL, NULL, 0, 0, NULL, NULL },
};

int main(int argc, char **argv)
{
    const struct cmd *c = argc > 1 ? cmd_find(cmds, argv[1]) : NULL, *near;

#ifdef RAFALE_MPI
    return cmd_mpi(&cmds[0], cmds, argc, argv);
#endif
    /* The man page's option lists, for make man: a path of its own, in no
     * help (scripts/man.py). */
    if (argc == 2 && strcmp(argv[1], "--man-options") == 0)
        return manpage_options(stdout, cmds) == 0 && fflush(stdout) == 0 ? 0 : 1;
    if (c == NULL && argc > 1 && (near = cmd_near(cmds, argv[1])) != NULL) {
        fprintf(stderr, "rafale: unknown command '%s': did you mean 'rafale %s'?\n", argv[1], near->name);
        return 2;
    }
    /* A subcommand takes its own argv, argv[0] its name; the run, rafale's. */
    if (c == NULL || c->name[0] == '\0')
        return cmd_run(&cmds[0], cmds, argc, argv);
    return c->run(c, cmds, argc - 1, argv + 1);
}
