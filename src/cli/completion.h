/* completion.h - shell completion scripts generated from the option table
 * (`rafale completion bash|zsh|fish`). */
#ifndef RAFALE_COMPLETION_H
#define RAFALE_COMPLETION_H

#include <stdio.h>

/* Writes the script for shell ("bash", "zsh", "fish"). Returns 0, or -1
 * for another shell or a write error. */
int completion_write(FILE *f, const char *shell);

#endif
