/* cmd_merge.c - `rafale merge SHARD.json...`: the shards of one run
 * (--shard I/N) as the one result of the whole run. */
#include "cmd.h"
#include "cli.h"
#include "findings.h"
#include "merge.h"
#include "outputs.h"
#include "report.h"
#include "report_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The merged result's findings (the host counters stay with each
 * shard's), its report and its files. Returns the exit status. */
static int merged_out(struct run_result *m, const struct result_args *a)
{
    int rc = 0;
    findings_eval(m, &m->found);
    m->has_findings = 1;
    report_text(outputs_text(a->out), m);
    if (a->out[OUT_JSON] && outputs_write(a->out, OUT_JSON, m, "rafale merge") != 0)
        rc = 1;
    if (a->out[OUT_HTML] && outputs_write(a->out, OUT_HTML, m, "rafale merge") != 0)
        rc = 1;
    return rc;
}

int cmd_merge(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    (void)all;
    const struct cmd *c = self;
    struct result_args a = { 0 };
    json_t **roots;
    static struct run_result m; /* 20 KiB of findings: off the stack */
    char err[512];
    int i, n = 0, first, st, rc = 0;

    if ((st = cmd_args(c, argc, argv, -1, &a, &first)) >= 0)
        return st;
    if (first >= argc) {
        fprintf(stderr, "rafale merge: no shard results given (rafale %s)\n", c->usage);
        return 2;
    }
    if ((roots = calloc((size_t)argc, sizeof(*roots))) == NULL) {
        fprintf(stderr, "rafale merge: out of memory\n");
        return 1;
    }
    for (i = first; i < argc; i++, n++)
        if ((roots[n] = report_load_json(argv[i], err, sizeof(err))) == NULL) {
            fprintf(stderr, "rafale merge: %s\n", err);
            rc = 1;
            goto out;
        }
    if (merge_shards(roots, (const char **)argv + first, n, &m, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale merge: %s\n", err);
        rc = 1;
        goto out;
    }
    rc = merged_out(&m, &a);
    result_free(&m);
out:
    for (i = 0; i < n; i++)
        json_decref(roots[i]);
    free(roots);
    return rc;
}
