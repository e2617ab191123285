/* manpage.h - the man page's option lists (rafale.1), generated from the
 * option table as shell completion is (`rafale --man-options`). Private
 * to src/cli/. */
#ifndef RAFALE_MANPAGE_H
#define RAFALE_MANPAGE_H

#include <stdio.h>

struct cmd;

/* Writes, in roff, the options of the run by --help's groups, then each
 * subcommand's own (of all, cmd.h): each list between the comment lines
 * `.\" options: KEY` and `.\" end of options` ("rafale, Load", "rafale
 * serve"), an option's heading and its help. Returns 0, or -1 on a write
 * error. */
int manpage_options(FILE *f, const struct cmd *all);

#endif
