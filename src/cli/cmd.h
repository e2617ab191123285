/* cmd.h - the subcommands in one table (main.c's, where the program is
 * wired; it ends with a row whose name is NULL): each row drives the
 * dispatch, the usage lines, the help of the small subcommands,
 * rafale-mpi's refusal and shell completion (completion.c). A new
 * subcommand is one row and its body, a function given its row, the table
 * and its own argv (argv[0] its name). Bodies reach the table only through
 * what they are given, so no call circle runs through it. Private to
 * src/cli/. */
#ifndef RAFALE_CMD_H
#define RAFALE_CMD_H

#include <stdio.h>

#include "config.h"

struct compare_file;
struct config;
struct compare_result;
struct result_args;

struct cmd {
    const char *name;      /* "": the run itself, `rafale [options] URL...` */
    int (*run)(const struct cmd *self, const struct cmd *all, int argc, char **argv); /* the body: the exit status */
    const char *usage;     /* what follows "rafale" in the usage line */
    const char *what;      /* what it is for, in a few words */
    int mpi;               /* rafale-mpi runs it (the others are refused) */
    unsigned where;        /* its options in the option table (OPT_*) */
    const char *operand;   /* for completion: what its operands are ("URL", "JSON file"), NULL for none */
    const char *words;     /* or the words its operand is one of, NULL */
};

/* The row of all called name, or NULL (the run's row has the name ""). */
const struct cmd *cmd_find(const struct cmd *all, const char *name);

/* The subcommand a first word may be a typo of ("compar"), or NULL: none
 * near, or the word has a '.', ':', '/' or the like, or a host has that
 * name (then it is the run's URL). */
const struct cmd *cmd_near(const struct cmd *all, const char *word);

/* The usage lines of every subcommand, then the run's options. */
void cmd_usage(FILE *f, const struct cmd *all);
/* A subcommand's help: its usage line, what it is for, its options. */
void cmd_help(FILE *f, const struct cmd *c);
/* A small subcommand's command line through the option table (c->where):
 * its options into a, the index of its first operand in *first (operands:
 * how many it takes, -1 any). Returns -1 when the body goes on, else its
 * exit status: 0 after --help, 2 after the error said on stderr. */
int cmd_args(const struct cmd *c, int argc, char **argv, int operands, struct result_args *a, int *first);

/* What the subcommands share: a line of compare's or calibrate's live log
 * on arg (a FILE *), and a compare's HTML page written as out[OUT_HTML]
 * (who: the command, for the error). Returns 0 or -1 (said on stderr). */
void cmd_log_line(const char *line, void *arg);
int cmd_compare_html(const char *who, const char *const out[OUT__COUNT], const struct compare_file *p,
                     const struct compare_result *r);

/* The open files a run of cfg holds at most: a connection each, an epoll
 * descriptor a thread, the metrics port's, and 64 more for its files. */
unsigned long long cmd_open_files(const struct config *cfg);

/* The bodies (cmd_*.c, completion.c). */
int cmd_run(const struct cmd *self, const struct cmd *all, int argc, char **argv);
int cmd_sweep(const struct cmd *self, const struct cmd *all, int argc, char **argv);
int cmd_replay(const struct cmd *self, const struct cmd *all, int argc, char **argv);
int cmd_serve(const struct cmd *self, const struct cmd *all, int argc, char **argv);
int cmd_compare(const struct cmd *self, const struct cmd *all, int argc, char **argv);
int cmd_report(const struct cmd *self, const struct cmd *all, int argc, char **argv);
int cmd_merge(const struct cmd *self, const struct cmd *all, int argc, char **argv);
int cmd_diff(const struct cmd *self, const struct cmd *all, int argc, char **argv);
int cmd_calibrate(const struct cmd *self, const struct cmd *all, int argc, char **argv);
int completion_main(const struct cmd *self, const struct cmd *all, int argc, char **argv);
/* rafale-mpi's run (cmd_mpi.c, -DRAFALE_MPI): every rank runs main's argv. */
int cmd_mpi(const struct cmd *self, const struct cmd *all, int argc, char **argv);

#endif
