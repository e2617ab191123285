/* cmd_diff.c - `rafale diff BASE.json NEW.json`: each figure's change with
 * its interval; exit 3 when one got significantly worse by more than the
 * threshold, 0 otherwise, 1 when a file cannot be read or written, 2 for
 * usage or results of different workloads. */
#include "cmd.h"
#include "cli.h"
#include "compare_load.h"
#include "diff.h"
#include "merge.h"
#include "outputs.h"
#include "report_load.h"

#include <stdio.h>
#include <string.h>

/* Two compares, cell by cell. Returns the exit status. */
static int two_compares(const struct loaded *in, const char *const files[2], const struct result_args *a)
{
    FILE *jf = NULL;
    int cells, worse, rc = 0;
    if (a->out[OUT_HTML]) {
        fprintf(stderr, "rafale diff: --html is for two runs; give --json for two compares\n");
        return 2;
    }
    if (a->out[OUT_JSON] && (jf = outputs_open(a->out, OUT_JSON, "rafale diff")) == NULL)
        return 1;
    cells = diff_compares(in, files, a->threshold, outputs_text(a->out), jf, &worse);
    if (jf && outputs_close(a->out, OUT_JSON, jf, ferror(jf), "rafale diff") != 0)
        rc = 1;
    if (cells == 0) {
        fprintf(stderr, "rafale diff: %s and %s share no workload and server by name\n", files[0], files[1]);
        return 2;
    }
    return rc ? rc : worse ? 3 : 0;
}

/* Two runs of one workload. Returns the exit status. */
static int two_runs(const struct loaded *in, json_t *const roots[2], const char *const files[2],
                    const struct result_args *a)
{
    /* What may differ between two runs of one workload: their length, the
     * threads that made them, the server's address (before and after a
     * change, on another port or host). */
    static const char *const own[] = { "threads", "duration_s", "requests", "seed", "urls" };
    struct diff_result d;
    const char *diffkey;
    int i, rc;

    if ((diffkey = merge_config_diff(json_object_get(roots[0], "config"), json_object_get(roots[1], "config"), own,
                                     sizeof(own) / sizeof(own[0])))) {
        fprintf(stderr, "rafale diff: %s and %s are not runs of the same workload: their '%s' differ\n", files[0],
                files[1], diffkey);
        return 2;
    }
    diff_results(&in[0].run.fig, &in[1].run.fig, a->threshold, &d);
    diff_print(outputs_text(a->out), &d, files[0], files[1]);
    rc = d.worse ? 3 : 0;
    for (i = 0; i < 2; i++) {
        enum out_kind k = i ? OUT_HTML : OUT_JSON;
        FILE *f;
        if (a->out[k] == NULL)
            continue;
        if ((f = outputs_open(a->out, k, "rafale diff")) == NULL ||
            outputs_close(a->out, k, f, i ? diff_html(f, &d, files[0], files[1]) : diff_json(f, &d, files[0], files[1]),
                          "rafale diff") != 0)
            rc = 1;
    }
    return rc;
}

int cmd_diff(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    (void)all;
    const struct cmd *c = self;
    struct result_args a = { .threshold = 0.05 };
    const char *files[2];
    json_t *roots[2] = { NULL, NULL };
    struct loaded in[2];
    char err[512];
    int i, first, st, rc = 2;

    if ((st = cmd_args(c, argc, argv, 2, &a, &first)) >= 0)
        return st;
    if (argc - first != 2) {
        fprintf(stderr, "rafale diff: give two results, BASE.json and NEW.json (%d given)\n", argc - first);
        return 2;
    }
    files[0] = argv[first];
    files[1] = argv[first + 1];
    memset(in, 0, sizeof(in));
    for (i = 0; i < 2; i++) {
        if ((roots[i] = report_load_json(files[i], err, sizeof(err))) == NULL ||
            compare_load_root(roots[i], files[i], &in[i], err, sizeof(err)) != 0) {
            fprintf(stderr, "rafale diff: %s\n", err);
            rc = 1;
            goto out;
        }
    }
    if (in[0].is_compare != in[1].is_compare)
        fprintf(stderr, "rafale diff: %s is a compare result and %s is not: diff two of a kind\n",
                files[in[0].is_compare ? 0 : 1], files[in[0].is_compare ? 1 : 0]);
    else if (in[0].is_compare)
        rc = two_compares(in, files, &a);
    else
        rc = two_runs(in, roots, files, &a);
out:
    for (i = 0; i < 2; i++) {
        compare_load_free(&in[i]);
        if (roots[i])
            json_decref(roots[i]);
    }
    return rc;
}
