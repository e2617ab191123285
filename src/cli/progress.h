/* progress.h - the live view on stderr while a run goes on. Private to
 * src/cli/. */
#ifndef RAFALE_PROGRESS_H
#define RAFALE_PROGRESS_H

#include <stdio.h>

#include "config.h"
#include "engine.h"

struct progress {
    FILE *f;
    const struct config *cfg;
    int tty;               /* redraw one line in place; else a plain line every few seconds */
    double last_print_s;
    double last_elapsed_s;
    unsigned long long last_completed;
    int drawn;
};

/* Prepares the view for f (usually stderr). */
void progress_init(struct progress *p, FILE *f, const struct config *cfg);
/* An engine_progress_fn: arg is a struct progress. */
void progress_update(const struct engine_progress *e, void *arg);
/* Clears the live line before the report is printed. */
void progress_done(struct progress *p);

#endif
