/* compare_load.h - reads any saved result back: one run's or a whole
 * compare's, for `rafale report` and `rafale diff`. */
#ifndef RAFALE_COMPARE_LOAD_H
#define RAFALE_COMPARE_LOAD_H

#include <jansson.h>
#include <stddef.h>

#include "compare.h"
#include "report_load.h"

/* What a saved file holds: one run (--json), or a whole compare. */
struct loaded {
    int is_compare;
    struct run_result run;       /* !is_compare */
    struct compare_file cf;          /* is_compare: as far as the reports need it */
    struct compare_result cmp;       /* is_compare: every run, summarized */
};

/* Reads path. Returns 0, or -1 with a one-line reason in err. */
int compare_load(const char *path, struct loaded *out, char *err, size_t errlen);
void compare_load_free(struct loaded *l);
/* The same from JSON already parsed (report_load_json), path naming it in
 * messages. */
int compare_load_root(json_t *root, const char *path, struct loaded *out, char *err, size_t errlen);

#endif
