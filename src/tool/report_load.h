/* report_load.h - reads a result saved with --json back, so `rafale report`
 * can rebuild the text and HTML reports without running anything. */
#ifndef RAFALE_REPORT_LOAD_H
#define RAFALE_REPORT_LOAD_H

#include <jansson.h>
#include <stddef.h>

#include "compare.h"
#include "config.h"
#include "engine.h"
#include "findings.h"
#include "monitor.h"

/* A loaded run: its configuration (as far as the reports need it) and result. */
struct loaded_run {
    struct config cfg;
    struct engine_result res;
    struct monitor_result server;
    int has_server;
    struct findings found;       /* its "findings", as saved */
    int has_findings;
};

/* What a saved file holds: one run (--json), or a whole compare. */
struct loaded {
    int is_compare;
    struct loaded_run run;       /* !is_compare */
    struct cmp_plan plan;        /* is_compare: as far as the reports need it */
    struct cmp_result cmp;       /* is_compare: every run, summarized */
};

/* Reads path. Returns 0, or -1 with a one-line reason in err. */
int report_load(const char *path, struct loaded *out, char *err, size_t errlen);
void report_load_free(struct loaded *l);
/* The same from JSON already parsed (path names it in messages), and the
 * parse alone (NULL with the reason in err). */
int report_load_root(json_t *root, const char *path, struct loaded *out, char *err, size_t errlen);
json_t *report_load_json(const char *path, char *err, size_t errlen);
/* A "calibration" object (rafale calibrate's reference), checked. */
struct jc;
void report_load_ref(struct jc *c, json_t *o, struct machine_ref *ref);

#endif
