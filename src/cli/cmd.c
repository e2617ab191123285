/* cmd.c - what the subcommands' table gives: a row by name, the usage
 * lines, a help page; and the little the bodies share. */
#include "cmd.h"
#include "cli.h"
#include "opt.h"
#include "compare.h"
#include "config.h"
#include "metrics.h"
#include "net.h"
#include "outputs.h"
#include "suggest.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

const struct cmd *cmd_find(const struct cmd *all, const char *name)
{
    for (; all->name; all++)
        if (strcmp(all->name, name) == 0)
            return all;
    return NULL;
}

const struct cmd *cmd_near(const struct cmd *all, const char *word)
{
    const struct cmd *c, *best = NULL;
    struct net_addr a;
    struct suggest s;
    char why[200];
    /* A URL, an address, a path or an option is none. */
    if (word[0] == '-' || word[strcspn(word, ".:/[@")] != '\0')
        return NULL;
    suggest_init(&s, word);
    for (c = all; c->name; c++)
        if (c->name[0]) {
            const char *before = s.best;
            suggest_offer(&s, c->name);
            if (s.best != before)
                best = c;
        }
    /* A host of that name (rafale server, on a network with a "server")
     * is the URL it looks like. */
    if (best && net_resolve(word, 80, &a, why, sizeof(why)) == 0)
        return NULL;
    return best;
}

unsigned long long cmd_open_files(const struct config *cfg)
{
    uint32_t conns = cfg->max_connections > cfg->connections ? cfg->max_connections : cfg->connections;
    uint32_t threads = cfg->threads < conns ? cfg->threads : conns; /* the engine's: no more than connections */
    return (unsigned long long)conns + threads + (cfg->metrics_listen ? METRICS_FILES : 0) + 64;
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

void cmd_usage(FILE *f, const struct cmd *all)
{
    const struct cmd *c;
    for (c = all; c->name; c++)
        usage_line(f, c == all ? "Usage: " : "       ", c);
    cli_usage(f);
}

void cmd_help(FILE *f, const struct cmd *c)
{
    fprintf(f, "Usage: rafale %s\n%c%s.\n", c->usage, toupper((unsigned char)c->what[0]), c->what + 1);
    opt_help(f, c->where);
}

int cmd_args(const struct cmd *c, int argc, char **argv, int operands, struct result_args *a, int *first)
{
    char err[600];
    int i;
    switch (cli_parse_args(argc, argv, c->where, c->usage, operands, a, first, err, sizeof(err))) {
    case CLI_HELP:
        cmd_help(stdout, c);
        return 0;
    case CLI_EXIT:
        return 0;
    case CLI_ERROR:
        fprintf(stderr, "rafale %s: %s\n", c->name, err);
        return 2;
    case CLI_OK:
        break;
    }
    /* Checked before the work (a large merge, two compares read). */
    if (a && outputs_ready(a->out, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale %s: %s\n", c->name, err);
        return 2;
    }
    /* Nor on a result it reads: that would be lost for its report. */
    for (i = *first > 0 ? *first : argc; a && i < argc; i++) {
        const char *o = NULL;
        int k;
        for (k = 0; k < OUT__COUNT && o == NULL; k++)
            if (a->out[k] && outputs_same(a->out[k], argv[i]))
                o = outputs_opt((enum out_kind)k);
        if (o) {
            fprintf(stderr, "rafale %s: %s would replace '%s', a result it reads: give it another file\n", c->name, o,
                    argv[i]);
            return 2;
        }
    }
    return -1;
}

void cmd_log_line(const char *line, void *arg)
{
    fprintf(arg, "%s\n", line);
    fflush(arg);
}

int cmd_compare_html(const char *who, const char *const out[OUT__COUNT], const struct compare_file *p,
                     const struct compare_result *r)
{
    FILE *f = outputs_open(out, OUT_HTML, who);
    return f ? outputs_close(out, OUT_HTML, f, report_compare_html(f, p, r), who) : -1;
}
