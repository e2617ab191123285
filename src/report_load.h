/* report_load.h - reads a result saved with --json back, so `rafale report`
 * can rebuild the text and HTML reports without running anything. */
#ifndef RAFALE_REPORT_LOAD_H
#define RAFALE_REPORT_LOAD_H

#include <stddef.h>

#include "config.h"
#include "engine.h"

/* A loaded run: its configuration (as far as the reports need it) and result. */
struct loaded_run {
    struct config cfg;
    struct engine_result res;
    char **strings;          /* owned copies behind cfg's pointers */
    int nstrings;
};

/* Reads path. Returns 0, or -1 with a one-line reason in err. */
int report_load(const char *path, struct loaded_run *run, char *err, size_t errlen);
void report_load_free(struct loaded_run *run);

#endif
