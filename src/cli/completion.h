/* completion.h - shell completion scripts generated from the option table
 * (`rafale completion bash|zsh|fish`). Private to src/cli/. */
#ifndef RAFALE_COMPLETION_H
#define RAFALE_COMPLETION_H

#include <stdio.h>

struct cmd;

/* Writes the script for shell ("bash", "zsh", "fish"), the subcommands
 * those of all (cmd.h). Returns 0, or -1 for another shell or a write
 * error. */
int completion_write(FILE *f, const char *shell, const struct cmd *all);

#endif
