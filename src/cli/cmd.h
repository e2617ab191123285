/* cmd.h - the subcommands in one table: each row drives the dispatch
 * (main.c), the usage lines, the help of the small subcommands, rafale-mpi's
 * refusal and shell completion (completion.c). A new subcommand is one row
 * and its body, a function taking its own argv (argv[0] its name). */
#ifndef RAFALE_CMD_H
#define RAFALE_CMD_H

#include <stdio.h>

struct cmp_plan;
struct cmp_result;

struct cmd {
    const char *name;      /* "": the run itself, `rafale [options] URL...` */
    int (*run)(int argc, char **argv); /* the body; returns the exit status */
    const char *usage;     /* what follows "rafale" in the usage line */
    const char *what;      /* what it is for, in a few words */
    int mpi;               /* rafale-mpi runs it (the others are refused) */
    unsigned where;        /* its options in the option table (OPT_*) */
    const char *operand;   /* for completion: what its operands are ("URL", "JSON file"), NULL for none */
    const char *words;     /* or the words its operand is one of, NULL */
};

/* The row of the subcommand called name, or NULL (the run's row has the
 * name ""). */
const struct cmd *cmd_find(const char *name);
/* Row i (0 is the run's), or NULL past the last. */
const struct cmd *cmd_at(unsigned i);

/* The usage lines of every subcommand, then the run's options. */
void cmd_usage(FILE *f);
/* A subcommand's help: its usage line, what it is for, its options. */
void cmd_help(FILE *f, const struct cmd *c);

/* What the subcommands share: a line of compare's or calibrate's live log
 * on arg (a FILE *), and a compare's HTML page written to path (who: the
 * command, for the error). Returns 0 or -1 (said on stderr). */
void cmd_log_line(const char *line, void *arg);
int cmd_compare_html(const char *who, const char *path, const struct cmp_plan *p, const struct cmp_result *r);

/* The bodies (cmd_*.c, completion.c). */
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int completion_main(int argc, char **argv);
/* rafale-mpi's run (cmd_mpi.c, -DRAFALE_MPI): every rank runs main's argv. */
int cmd_mpi(int argc, char **argv);

#endif
