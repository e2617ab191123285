/* cmd.c - the subcommands' table, its usage lines and help pages, and the
 * little the bodies share. */
#include "cmd.h"
#include "cli.h"
#include "opt.h"
#include "compare.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

static const struct cmd cmds[] = {
    { "", cmd_run, "[options] URL...", "load-test one or more HTTP endpoints", 1, OPT_RUN, "URL", NULL },
    { "sweep", cmd_sweep, "sweep [options] URL", "the highest rate within an SLO", 0, OPT_SWEEP, "URL", NULL },
    { "serve", cmd_serve, "serve [options]", "run the built-in target server", 0, OPT_SERVE, NULL, NULL },
    { "compare", cmd_compare, "compare [options] PLAN", "several servers side by side", 0, OPT_COMPARE, "plan file",
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
};

const struct cmd *cmd_find(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (strcmp(cmds[i].name, name) == 0)
            return &cmds[i];
    return NULL;
}

const struct cmd *cmd_at(unsigned i)
{
    return i < sizeof(cmds) / sizeof(cmds[0]) ? &cmds[i] : NULL;
}

/* "rafale USAGE", its what aligned after it (or three spaces on when long). */
static void usage_line(FILE *f, const char *lead, const struct cmd *c)
{
    char left[200];
    snprintf(left, sizeof(left), "rafale %s", c->usage);
    if (strlen(left) < 32)
        fprintf(f, "%s%-31s  %s\n", lead, left, c->what);
    else
        fprintf(f, "%s%s   %s\n", lead, left, c->what);
}

void cmd_usage(FILE *f)
{
    size_t i;
    for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        usage_line(f, i ? "       " : "Usage: ", &cmds[i]);
    cli_usage(f);
}

void cmd_help(FILE *f, const struct cmd *c)
{
    fprintf(f, "Usage: rafale %s\n%c%s.\n", c->usage, toupper((unsigned char)c->what[0]), c->what + 1);
    opt_help(f, c->where);
}

void cmd_log_line(const char *line, void *arg)
{
    fprintf(arg, "%s\n", line);
    fflush(arg);
}

int cmd_compare_html(const char *who, const char *path, const struct cmp_plan *p, const struct cmp_result *r)
{
    FILE *f = fopen(path, "w");
    int rc;
    if (f == NULL) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", who, path, strerror(errno));
        return -1;
    }
    rc = report_compare_html(f, p, r);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "%s: writing '%s' failed\n", who, path);
        return -1;
    }
    return 0;
}
