/* The subcommands' table: a row by its name, a first word that is no
 * subcommand (an option, a URL, an address) never taken for a typo of one,
 * the open files a run needs, the usage lines aligned, a subcommand's
 * help, its command line refused in one line (an unknown option, an output
 * that would replace a result it reads, one it cannot write). */
#include "cmd.h"
#include "metrics.h"
#include "opt.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static const struct cmd rows[] = {
    { "", NULL, "[options] URL...", "load-test one or more HTTP targets", 1, OPT_RUN, "URL", NULL },
    { "report", NULL, "report [--html F] RESULT.json...", "the reports again from saved results", 0, OPT_REPORT,
      "JSON file", NULL },
    { "merge", NULL, "merge [--json F] [--html F] SHARD.json...", "one run's shards (--shard) as one result", 0,
      OPT_MERGE, "JSON file", NULL },
    { NULL, NULL, NULL, NULL, 0, 0, NULL, NULL },
};

static void rows_by_name(void)
{
    CHECK(cmd_find(rows, "") == &rows[0] && cmd_find(rows, "merge") == &rows[2]);
    CHECK(cmd_find(rows, "Merge") == NULL && cmd_find(rows, "mer") == NULL);
    /* Options, URLs, addresses, paths: the run's, never a typo (and no
     * lookup of them as a host). */
    CHECK(cmd_near(rows, "--report") == NULL && cmd_near(rows, "http://report") == NULL);
    CHECK(cmd_near(rows, "reprot.json") == NULL && cmd_near(rows, "127.0.0.1:8080") == NULL &&
          cmd_near(rows, "[::1]") == NULL && cmd_near(rows, "user@merg") == NULL);
    /* Far from every name: none. */
    CHECK(cmd_near(rows, "zzzzzzzzzz") == NULL);
}

static void open_files_of_a_run(void)
{
    struct config c;
    config_defaults(&c);
    c.connections = 100;
    c.threads = 4;
    /* A connection each, an epoll descriptor a thread, 64 for its files. */
    CHECK(cmd_open_files(&c) == 100 + 4 + 64);
    c.max_connections = 500;
    CHECK(cmd_open_files(&c) == 500 + 4 + 64);
    c.max_connections = 0;
    c.connections = 2;
    c.threads = 8; /* no more threads than connections */
    CHECK(cmd_open_files(&c) == 2 + 2 + 64);
    c.metrics_listen = "127.0.0.1:9090";
    CHECK(cmd_open_files(&c) == 2 + 2 + METRICS_FILES + 64);
    c.metrics_listen = NULL;
    config_free(&c);
}

static void usage_and_help(void)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    cmd_usage(f, rows);
    fclose(f);
    /* The what aligned after a short usage; three spaces after a long one. */
    CHECKF(strstr(text, "Usage: rafale [options] URL...          load-test one or more HTTP targets\n"
                        "       rafale report [--html F] RESULT.json...   the reports again from saved results\n"
                        "       rafale merge [--json F] [--html F] SHARD.json...   one run's shards") == text,
           "%s", text);
    CHECK(strstr(text, "\nExamples:\n") != NULL);
    free(text);
    f = open_memstream(&text, &n);
    cmd_help(f, &rows[1]);
    fclose(f);
    CHECKF(strstr(text, "Usage: rafale report [--html F] RESULT.json...\nThe reports again from saved results.\n") ==
                   text &&
               strstr(text, "--html") != NULL && strstr(text, "--connections") == NULL,
           "%s", text);
    free(text);
    f = open_memstream(&text, &n);
    cmd_log_line("calibrate: measuring", f);
    fclose(f);
    CHECK(strcmp(text, "calibrate: measuring\n") == 0);
    free(text);
}

/* cmd_args on a command line given as one string; its exit status (-1:
 * the body goes on) and what it said on stderr. */
static struct {
    char line[256];
    struct result_args a;
    int first;
} call;

static int args(void *arg)
{
    static char buf[256]; /* the options point into it after the call */
    char *argv[16], *tok, *save = NULL;
    int argc = 0;
    (void)arg;
    snprintf(buf, sizeof(buf), "%s", call.line);
    for (tok = strtok_r(buf, " ", &save); tok && argc < 15; tok = strtok_r(NULL, " ", &save))
        argv[argc++] = tok;
    argv[argc] = NULL;
    memset(&call.a, 0, sizeof(call.a));
    return cmd_args(&rows[1], argc, argv, -1, &call.a, &call.first);
}

static int run_args(const char *line, char *said, size_t n)
{
    snprintf(call.line, sizeof(call.line), "%s", line);
    return t_stderr(args, NULL, said, n);
}

static void command_lines(void)
{
    char said[600];
    CHECK(run_args("report --html /dev/null a.json b.json", said, sizeof(said)) == -1 && said[0] == '\0');
    CHECK(call.first == 3 && call.a.out[OUT_HTML] && strcmp(call.a.out[OUT_HTML], "/dev/null") == 0);
    CHECK(run_args("report --bogus a.json", said, sizeof(said)) == 2);
    CHECKF(strcmp(said, "rafale report: unknown option '--bogus' (rafale report [--html F] RESULT.json...)\n") == 0,
           "%s", said);
    /* Its output on a result it reads: that result would be lost. */
    CHECK(run_args("report --html tests/data/saved/base.json tests/data/saved/base.json", said, sizeof(said)) == 2);
    CHECKF(strcmp(said, "rafale report: --html would replace 'tests/data/saved/base.json', a result it reads: give "
                        "it another file\n") == 0,
           "%s", said);
    CHECK(run_args("report --html /nonexistent/r.html a.json", said, sizeof(said)) == 2);
    CHECKF(strcmp(said, "rafale report: --html: cannot write '/nonexistent/r.html': No such file or directory\n") == 0,
           "%s", said);
}

int main(void)
{
    T_RUN(rows_by_name);
    T_RUN(open_files_of_a_run);
    T_RUN(usage_and_help);
    T_RUN(command_lines);
    T_END("cmd");
}
