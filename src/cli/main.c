/* main.c - rafale's entry: the subcommand named by the first word (cmd.c's
 * table), or the run itself. The bodies (cmd_*.c) print fatal errors and
 * choose the exit code. */
#include "cmd.h"

int main(int argc, char **argv)
{
    const struct cmd *c = argc > 1 ? cmd_find(argv[1]) : NULL;

#ifdef RAFALE_MPI
    return cmd_mpi(argc, argv);
#endif
    /* A subcommand takes its own argv, argv[0] its name; the run, rafale's. */
    if (c == NULL || c->name[0] == '\0')
        return cmd_run(argc, argv);
    return c->run(argc - 1, argv + 1);
}
