/* A compare's JSON written and read back: every server, workload, setting,
 * alike check and round the same, a failed server's reason and output
 * (quotes, newlines, tabs, backslashes) kept as text, and the file written
 * again from what was read byte for byte the same. */
#include "compare.h"
#include "compare_load.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

/* l's compare as JSON, read back into back (0), the text in *json. */
static int round_trip(struct loaded *l, struct loaded *back, char **json)
{
    char err[600] = "";
    size_t n = 0;
    FILE *f = open_memstream(json, &n);
    json_error_t je;
    json_t *root;
    int rc;
    CHECK(report_compare_json(f, &l->cf, &l->cmp) == 0);
    fclose(f);
    root = json_loads(*json, 0, &je);
    CHECKF(root != NULL, "%s", je.text);
    if (root == NULL)
        return -1;
    rc = compare_load_root(root, "again.json", back, err, sizeof(err));
    CHECKF(rc == 0, "%s", err);
    json_decref(root);
    return rc;
}

static void the_same_read_back(void)
{
    struct loaded l, back, again;
    char err[600], *one = NULL, *two = NULL;
    int s;
    CHECKF(compare_load("tests/data/saved/compare.json", &l, err, sizeof(err)) == 0, "%s", err);
    /* What the saved file did not have: a difference, a baseline, a failed
     * server's words. */
    l.cmp.alike[0].ndiff = 1;
    l.cmp.alike[0].diff = calloc(1, sizeof(*l.cmp.alike[0].diff));
    l.cmp.alike[0].diff[0].server = 1;
    snprintf(l.cmp.alike[0].diff[0].field, sizeof(l.cmp.alike[0].diff[0].field), "status");
    snprintf(l.cmp.alike[0].diff[0].value, sizeof(l.cmp.alike[0].diff[0].value), "404");
    l.cf.baseline = 2;
    l.cmp.failed[0] = 1;
    snprintf(l.cmp.failure[0], CMP_WHY_MAX, "exited with \"status\" 1");
    snprintf(l.cmp.output[0], CMP_OUTPUT_MAX + 1, "line \"one\"\nline\ttwo \\end");
    compare_summarize(&l.cf, &l.cmp);
    if (round_trip(&l, &back, &one) != 0)
        goto out;
    CHECK(back.is_compare && back.cf.nservers == l.cf.nservers && back.cf.nworkloads == l.cf.nworkloads);
    CHECK(back.cf.set.repeat == l.cf.set.repeat && back.cf.set.same_within == l.cf.set.same_within &&
          back.cf.set.nserver_cpus == l.cf.set.nserver_cpus && back.cf.baseline == 2);
    CHECK(back.cmp.alike[0].checked && back.cmp.alike[0].ndiff == 1 && back.cmp.alike[0].diff[0].server == 1 &&
          strcmp(back.cmp.alike[0].diff[0].value, "404") == 0);
    CHECK(back.cmp.failed[0] == 1 && strcmp(back.cmp.failure[0], "exited with \"status\" 1") == 0);
    CHECKF(strcmp(back.cmp.output[0], "line \"one\"\nline\ttwo \\end") == 0, "%s", back.cmp.output[0]);
    for (s = 0; s < l.cf.nservers; s++) {
        const struct compare_cell *a = compare_cell_at(&l.cmp, 0, s), *b = compare_cell_at(&back.cmp, 0, s);
        CHECK(strcmp(back.cf.servers[s].name, l.cf.servers[s].name) == 0);
        CHECK(a->nruns == b->nruns && a->rps_median == b->rps_median && a->rps_ci[0] == b->rps_ci[0] &&
              a->total.completed == b->total.completed);
    }
    /* Written again from what was read: the same bytes. */
    if (round_trip(&back, &again, &two) == 0) {
        CHECK(strcmp(one, two) == 0);
        compare_load_free(&again);
    }
    compare_load_free(&back);
out:
    free(one);
    free(two);
    compare_load_free(&l);
}

int main(void)
{
    T_RUN(the_same_read_back);
    T_END("report_compare_json");
}
