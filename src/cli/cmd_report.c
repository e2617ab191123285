/* cmd_report.c - `rafale report RESULT.json...`: the reports again, from
 * saved results (runs, or a whole compare); several runs are laid side by
 * side. */
#include "cmd.h"
#include "cli.h"
#include "compare.h"
#include "compare_load.h"
#include "outputs.h"
#include "report.h"
#include "report_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Several saved runs side by side, as one workload of a compare whose
 * "servers" are the files. */
static int side_by_side(const char *const out[OUT__COUNT], struct loaded *runs, char **names, int n)
{
    struct compare_file cf;
    struct compare_result cr;
    int k, rc = compare_saved_init(&cf, &cr, runs[0].run.cfg, n);

    for (k = 0; k < n && rc == 0; k++) {
        const char *base = strrchr(names[k], '/') ? strrchr(names[k], '/') + 1 : names[k];
        struct run_result *lr = &runs[k].run;
        struct config *own = lr->own_cfg;
        /* A cell's run: the workload's configuration on its URL
         * (compare.h), and its findings left out, as they always were.
         * Its own configuration stays here, freed with runs[k] (the
         * workload's copy of the first may point into it). */
        lr->cfg = lr->own_cfg = NULL;
        lr->found.n = 0;
        lr->has_findings = 0;
        rc = compare_saved_add(&cf, &cr, k, base, own->ntargets ? own->url_text[0] : "", lr);
        lr->cfg = lr->own_cfg = own;
    }
    if (rc == 0) {
        compare_summarize(&cf, &cr);
        rc = cmd_compare_html("rafale report", out, &cf, &cr);
    } else {
        fprintf(stderr, "rafale report: out of memory\n");
    }
    compare_result_free(&cr);
    compare_file_free(&cf);
    return rc != 0;
}

/* The text reports of the n results, then the page out asks for. */
static int report_out(struct loaded *runs, char **names, int n, int compares, const char *const out[OUT__COUNT])
{
    FILE *tf = outputs_text(out);
    int i;
    if (n > 1 && !compares) {
        const struct run_result **res = calloc((size_t)n, sizeof(*res));
        if (res == NULL) {
            fprintf(stderr, "rafale report: out of memory\n");
            return 1;
        }
        for (i = 0; i < n; i++)
            res[i] = &runs[i].run;
        report_machines(tf, res, (const char *const *)names, n);
        report_side_text(tf, res, (const char *const *)names, n);
        free(res);
    } else if (compares) {
        report_compare_print(tf, &runs[0].cf, &runs[0].cmp);
    } else {
        report_text(tf, &runs[0].run);
    }
    if (out[OUT_HTML] == NULL)
        return 0;
    if (compares)
        return cmd_compare_html("rafale report", out, &runs[0].cf, &runs[0].cmp) != 0;
    if (n > 1)
        return side_by_side(out, runs, names, n);
    return outputs_write(out, OUT_HTML, &runs[0].run, "rafale report") != 0;
}

int cmd_report(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    (void)all;
    const struct cmd *c = self;
    struct result_args a = { 0 };
    struct loaded *runs;
    char err[512], **names;
    int i, n = 0, first, st, rc = 0, compares = 0;

    if ((st = cmd_args(c, argc, argv, -1, &a, &first)) >= 0)
        return st;
    if (first >= argc) {
        fprintf(stderr, "rafale report: no result file given (rafale %s)\n", c->usage);
        return 2;
    }
    names = argv + first;
    if ((runs = calloc((size_t)argc, sizeof(*runs))) == NULL) {
        fprintf(stderr, "rafale report: out of memory\n");
        return 1;
    }
    for (i = first; i < argc; i++, n++) {
        if (compare_load(argv[i], &runs[n], err, sizeof(err)) != 0) {
            fprintf(stderr, "rafale report: %s\n", err);
            compare_load_free(&runs[n]);
            rc = 1;
            goto out;
        }
        compares += runs[n].is_compare;
    }
    if (compares && n > 1) {
        fprintf(stderr, "rafale report: a compare result is reported on its own: give one file\n");
        rc = 2;
        goto out;
    }
    rc = report_out(runs, names, n, compares, a.out);
out:
    for (i = 0; i < n; i++)
        compare_load_free(&runs[i]);
    free(runs);
    return rc;
}
