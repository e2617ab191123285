/* report.h - the results of a run, for people (text) and machines (JSON,
 * ab-compatible CSV). Each writer takes a FILE and returns 0 or -1. */
#ifndef RAFALE_REPORT_H
#define RAFALE_REPORT_H

#include <stdio.h>

#include "config.h"
#include "engine.h"

int report_text(FILE *f, const struct config *cfg, const struct engine_result *r);
/* slo: the evaluated checks, or NULL. */
int report_json(FILE *f, const struct config *cfg, const struct engine_result *r, const struct slo *slo);
/* The "config" object of a result, as report_json writes it. */
void report_json_config(FILE *f, const struct config *cfg);
/* Writes s as a JSON string literal. */
void report_json_str(FILE *f, const char *s);
int report_csv(FILE *f, const struct engine_result *r);
/* A self-contained HTML page with inline SVG charts. */
int report_html(FILE *f, const struct config *cfg, const struct engine_result *r);

/* The percentiles every report shows, in order. */
extern const double report_pcts[];
extern const char *const report_pct_names[];
#define REPORT_NPCTS 6

#endif
