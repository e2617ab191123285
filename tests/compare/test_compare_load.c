/* A saved result read back whichever it is: a whole compare (its servers,
 * workloads, settings, alike checks, every round) or one run; a hand-edited
 * or hostile compare refused in one line naming the file and the field. */
#include "compare_load.h"
#include "../t.h"

#include <string.h>

#define SAVED "tests/data/saved/compare.json"

static void a_compare_read_back(void)
{
    struct loaded l;
    char err[600] = "";
    const struct compare_cell *c;
    CHECKF(compare_load(SAVED, &l, err, sizeof(err)) == 0, "%s", err);
    CHECK(l.is_compare && l.cf.nservers == 2 && l.cf.nworkloads == 1);
    CHECK(strcmp(l.cf.servers[0].name, "alpha") == 0 && strcmp(l.cf.servers[1].name, "beta") == 0);
    CHECK(strcmp(l.cf.workloads[0].name, "hello") == 0 && l.cf.workloads[0].cfg.ntargets == 0);
    CHECK(l.cf.set.repeat == 3 && l.cf.set.same_within == 0.03 && l.cf.set.grace_ns == 3000000000ULL &&
          l.cf.set.ready_ns == 15000000000ULL && l.cf.baseline == 0);
    CHECK(l.cf.set.nserver_cpus == 1 && l.cf.set.server_cpus[0] == 0 && l.cf.set.nclient_cpus == 1 &&
          l.cf.set.client_cpus[0] == 1);
    CHECK(l.cmp.cgroups == 1 && l.cmp.interrupted == 0 && l.cmp.alike[0].checked && l.cmp.alike[0].ndiff == 0);
    c = compare_cell_at(&l.cmp, 0, 1);
    CHECK(c->nruns == 3 && c->runs[0].fig.total.completed > 0 && c->rps_median > 0);
    compare_load_free(&l);
    CHECK(l.is_compare == 0 && l.cf.servers == NULL);
    /* One run's result: read as a run. */
    CHECKF(compare_load("tests/data/saved/base.json", &l, err, sizeof(err)) == 0, "%s", err);
    CHECK(!l.is_compare && l.run.fig.total.completed > 0);
    compare_load_free(&l);
}

/* The saved compare with one change made by edit (on its "compare"
 * object); returns compare_load_root's return, err its reason. */
static int edited(void (*edit)(json_t *cmp), struct loaded *l, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_load_file(SAVED, 0, &je);
    int rc;
    CHECKF(root != NULL, "%s", je.text);
    if (root == NULL)
        return -2;
    edit(json_object_get(root, "compare"));
    err[0] = '\0';
    rc = compare_load_root(root, "c.json", l, err, errlen);
    json_decref(root);
    return rc;
}

static json_t *workload0(json_t *cmp)
{
    return json_array_get(json_object_get(cmp, "workloads"), 0);
}

static void differences_and_baseline(json_t *cmp)
{
    json_t *d = json_pack("[{s:s, s:s, s:s}]", "field", "status", "server", "beta", "value", "404");
    json_object_set_new(workload0(cmp), "alike", d);
    json_object_set_new(workload0(cmp), "alike_cut", json_string("alpha: answer not read whole in 5 s"));
    json_object_set_new(cmp, "baseline", json_string("beta"));
}

static void no_servers(json_t *cmp)
{
    json_array_clear(json_object_get(cmp, "servers"));
}

static void a_cell_too_few(json_t *cmp)
{
    json_array_remove(json_object_get(workload0(cmp), "servers"), 1);
}

static void stranger_in_alike(json_t *cmp)
{
    json_object_set_new(workload0(cmp), "alike",
                        json_pack("[{s:s, s:s, s:s}]", "field", "status", "server", "gamma", "value", "404"));
}

static void cpu_out_of_range(json_t *cmp)
{
    json_object_set_new(cmp, "server_cpus", json_pack("[i, i]", 0, 5000));
}

static void server_not_object(json_t *cmp)
{
    json_array_set_new(json_object_get(cmp, "servers"), 1, json_string("beta"));
}

static void repeat_negative(json_t *cmp)
{
    json_object_set_new(cmp, "repeat", json_integer(-3));
}

static void run_not_a_run(json_t *cmp)
{
    json_t *runs = json_object_get(json_array_get(json_object_get(workload0(cmp), "servers"), 1), "run_results");
    json_object_set_new(json_object_get(json_array_get(runs, 2), "summary"), "requests", json_string("many"));
}

static void alike_and_baseline_read(void)
{
    struct loaded l;
    char err[600];
    CHECKF(edited(differences_and_baseline, &l, err, sizeof(err)) == 0, "%s", err);
    CHECK(l.cmp.alike[0].checked && l.cmp.alike[0].ndiff == 1 && l.cmp.alike[0].diff[0].server == 1);
    CHECK(strcmp(l.cmp.alike[0].diff[0].field, "status") == 0 && strcmp(l.cmp.alike[0].diff[0].value, "404") == 0);
    CHECK(strcmp(l.cmp.alike[0].cut, "alpha: answer not read whole in 5 s") == 0 && l.cf.baseline == 2);
    compare_load_free(&l);
}

static void hostile_compares_refused(void)
{
    static const struct {
        void (*edit)(json_t *);
        const char *want;
    } cases[] = {
        { no_servers, "c.json: compare.servers: a compare needs 1 to 10000 servers and workloads" },
        { a_cell_too_few, "c.json: compare.servers: workload 0 has 1 results for 2 servers" },
        { stranger_in_alike,
          "c.json: compare.workloads[0].alike: [0]: not a {field, server, value} of a server of the compare file" },
        { cpu_out_of_range, "c.json: compare.server_cpus: entry 1 is not a CPU number" },
        { server_not_object, "c.json: compare.servers[1]: not an object" },
        { repeat_negative, "c.json: compare.repeat: -3 is out of range (0 to 1000)" },
        { run_not_a_run, "c.json: compare.workloads[0].servers[1].run_results[2].summary.requests: not a number" },
    };
    struct loaded l;
    char err[600];
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECKF(edited(cases[i].edit, &l, err, sizeof(err)) == -1 && strstr(err, cases[i].want) == err &&
                   strchr(err, '\n') == NULL,
               "case %zu: got '%s', want '%s'", i, err, cases[i].want);
        compare_load_free(&l);
    }
    /* Not an object at all. */
    {
        json_t *list = json_array();
        CHECK(compare_load_root(list, "l.json", &l, err, sizeof(err)) == -1 &&
              strcmp(err, "l.json: not a rafale result (saved with --json)") == 0);
        json_decref(list);
        compare_load_free(&l);
    }
    CHECK(compare_load("tests/data/saved/no-such.json", &l, err, sizeof(err)) == -1 &&
          strstr(err, "no-such.json") != NULL);
}

int main(void)
{
    T_RUN(a_compare_read_back);
    T_RUN(alike_and_baseline_read);
    T_RUN(hostile_compares_refused);
    T_END("compare_load");
}
