/* compare_load.c - reads a saved result back whichever it is: one run
 * (report_load.c reads it) or a whole compare (read here), for `rafale
 * report` and `rafale diff`. The same checks as report_load.c: a saved file
 * may be hand-edited, truncated or hostile. */
#include "compare_load.h"
#include "jread.h"
#include "err.h"
#include "text.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static void cpu_list(struct jc *c, json_t *o, const char *key, int *out, int *n)
{
    json_t *list = jread_arr(c, o, key, 0), *e;
    size_t i;
    json_array_foreach(list, i, e) {
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) > 1023) {
            jread_fail(c, key, "entry %zu is not a CPU number", i);
            return;
        }
        if (*n < CMP_MAX_CPUS)
            out[(*n)++] = (int)json_integer_value(e);
    }
}

/* A compare result: its compare file as far as the reports need it, and every run. */
/* Each workload's alike check: true, a list of differences, or null. */
static void load_alike(struct jc *c, json_t *wls, const struct compare_file *p, struct compare_result *r)
{
    size_t at;
    int s, w;

    for (w = 0; w < p->nworkloads && !c->failed; w++) {
        /* Did the servers answer alike: true, a list of differences, or
         * null (not checked; older files have no key). */
        json_t *al = json_object_get(json_array_get(wls, (size_t)w), "alike"), *d;
        size_t i;
        at = jread_enter(c, "workloads[%d]", w);
        jread_copy(r->alike[w].cut, sizeof(r->alike[w].cut),
                    jread_str(c, json_array_get(wls, (size_t)w), "alike_cut", 0));
        jread_leave(c, at);
        at = jread_enter(c, "workloads[%d].alike", w);
        r->alike[w].checked = json_is_true(al) || json_is_array(al);
        json_array_foreach(al, i, d) {
            const char *srv = json_string_value(json_object_get(d, "server"));
            const char *field = json_string_value(json_object_get(d, "field"));
            const char *value = json_string_value(json_object_get(d, "value"));
            struct compare_difference *n;
            for (s = 0; srv && s < p->nservers; s++)
                if (strcmp(p->servers[s].name, srv) == 0)
                    break;
            if (srv == NULL || field == NULL || value == NULL || s == p->nservers) {
                jread_fail(c, "", "[%zu]: not a {field, server, value} of a server of the compare file", i);
                break;
            }
            if (i > 10000 || (n = realloc(r->alike[w].diff, (i + 1) * sizeof(*n))) == NULL) {
                jread_fail(c, "", "too many differences");
                break;
            }
            r->alike[w].diff = n;
            n[i].server = s;
            jread_copy(n[i].field, sizeof(n[i].field), field);
            jread_copy(n[i].value, sizeof(n[i].value), value);
            r->alike[w].ndiff = (int)i + 1;
        }
        jread_leave(c, at);
    }
}

/* A workload's duration = auto: the probing rounds (its length is its
 * config's duration). Absent or null: a length given. */
static void load_duration_auto(struct jc *c, json_t *o, struct compare_workload *wl)
{
    json_t *probes;
    size_t k, at;
    if (!json_is_object(o))
        return;
    at = jread_enter(c, "duration_auto");
    wl->duration_auto = 1;
    wl->auto_max = jread_bool(c, o, "max_reached");
    probes = jread_arr(c, o, "probes", 0);
    for (k = 0; k < json_array_size(probes) && wl->nprobes < COMPARE_PROBES_MAX; k++) {
        json_t *e = json_array_get(probes, k);
        json_t *ci = json_object_get(e, "own_ci");
        struct compare_probe *pr = &wl->probes[wl->nprobes++];
        pr->duration_ns = jread_ns(c, e, "duration_s", 1);
        pr->own_ci = json_is_number(ci) ? jread_num(c, e, "own_ci", 0, 1e6, 0) : NAN;
    }
    jread_leave(c, at);
}

/* Each workload's cells: a server's runs, each a run's saved result. */
static void load_cells(struct jc *c, json_t *wls, const struct compare_file *p, struct compare_result *r)
{
    size_t at, k;
    int s, w;

    for (w = 0; w < p->nworkloads && !c->failed; w++) {
        json_t *cells = jread_arr(c, json_array_get(wls, (size_t)w), "servers", 1);
        if (cells && json_array_size(cells) != (size_t)p->nservers) {
            jread_fail(c, "servers", "workload %d has %zu results for %d servers", w, json_array_size(cells), p->nservers);
            break;
        }
        for (s = 0; s < p->nservers && !c->failed; s++) {
            json_t *cell = json_array_get(cells, (size_t)s), *runs, *ro;
            struct compare_cell *cc = compare_cell_at(r, w, s);
            at = jread_enter(c, "workloads[%d].servers[%d]", w, s);
            runs = jread_arr(c, cell, "run_results", 0);
            cc->url = jread_dup(c, cell, "url", NULL);
            json_array_foreach(runs, k, ro) {
                static struct run_result lr; /* 20 KiB of findings: off the stack */
                size_t a2 = jread_enter(c, "run_results[%zu]", k);
                int bad = report_load_run(c, ro, &lr) != 0;
                if (!bad && !(lr.cfg->ntargets > 1 || lr.cfg->targets_path)) {
                    /* A run of targets keeps its own URLs; the others'
                     * are the workload's (compare.h). */
                    config_free(lr.own_cfg);
                    free(lr.own_cfg);
                    lr.cfg = lr.own_cfg = NULL;
                }
                if (bad || compare_add_run(cc, &lr) != 0) {
                    if (!c->failed)
                        jread_fail(c, "", "out of memory");
                    result_free(&lr);
                    break;
                }
                jread_leave(c, a2);
            }
            jread_leave(c, at);
        }
    }
}

static int load_compare(struct jc *c, json_t *cmp, struct loaded *out)
{
    struct compare_file *p = &out->cf;
    struct compare_result *r = &out->cmp;
    json_t *svs, *wls, *e;
    const char *note;
    struct machine_ref ref;
    size_t at;
    int s, w;

    jread_enter(c, "compare");
    svs = jread_arr(c, cmp, "servers", 1);
    wls = jread_arr(c, cmp, "workloads", 1);
    note = jread_str(c, cmp, "note", 0);
    memset(&ref, 0, sizeof(ref));
    if (jread_obj(c, cmp, "calibration", 0))
        report_load_ref(c, jread_obj(c, cmp, "calibration", 0), &ref);
    if (c->failed)
        return -1;
    if (json_array_size(svs) == 0 || json_array_size(wls) == 0 || json_array_size(svs) > 10000 ||
        json_array_size(wls) > 10000)
        return jread_fail(c, "servers", "a compare needs 1 to 10000 servers and workloads");
    compare_settings_defaults(&p->set);
    p->file = jread_dup(c, cmp, "plan", NULL);
    p->set.repeat = (int)jread_num(c, cmp, "repeat", 0, 1000, 0);
    p->set.repeat_auto = jread_bool(c, cmp, "repeat_auto");
    /* Results from before same-within: the band they now read with. */
    if (json_object_get(cmp, "same_within"))
        p->set.same_within = jread_num(c, cmp, "same_within", 0.001, 0.5, 0);
    if (json_object_get(cmp, "max_duration_s"))
        p->set.max_duration_ns = jread_ns(c, cmp, "max_duration_s", 0);
    p->set.discard = (int)jread_num(c, cmp, "discard", 0, 100, 0);
    p->set.grace_ns = jread_ns(c, cmp, "grace_s", 0);
    p->set.ready_ns = jread_ns(c, cmp, "ready_timeout_s", 0);
    cpu_list(c, cmp, "server_cpus", p->set.server_cpus, &p->set.nserver_cpus);
    cpu_list(c, cmp, "client_cpus", p->set.client_cpus, &p->set.nclient_cpus);
    {
        const char *pin = jread_str(c, cmp, "pin", 0);
        p->set.pin = pin && strcmp(pin, "auto") == 0 ? PIN_CHOSE : pin && strcmp(pin, "no") == 0 ? PIN_NO : 0;
    }
    p->nservers = (int)json_array_size(svs);
    p->nworkloads = (int)json_array_size(wls);
    p->servers = calloc((size_t)p->nservers, sizeof(*p->servers));
    p->workloads = calloc((size_t)p->nworkloads, sizeof(*p->workloads));
    if (p->servers == NULL || p->workloads == NULL)
        return jread_fail(c, "", "out of memory");
    for (s = 0; s < p->nservers && !c->failed; s++) {
        struct compare_server *sv = &p->servers[s];
        e = json_array_get(svs, (size_t)s);
        at = jread_enter(c, "servers[%d]", s);
        if (!json_is_object(e)) {
            jread_fail(c, "", "not an object");
            break;
        }
        sv->name = jread_dup(c, e, "name", "?");
        sv->url = jread_dup(c, e, "url", "");
        sv->start = jread_dup(c, e, "start", NULL);
        sv->cgroup = jread_dup(c, e, "cgroup", NULL);
        sv->version = jread_dup(c, e, "version", NULL);
        sv->pid = (int)jread_num(c, e, "pid", 0, 2147483647.0, 0);
        jread_leave(c, at);
    }
    {
        const char *base = jread_str(c, cmp, "baseline", 0);
        for (s = 0; base && s < p->nservers && !c->failed; s++)
            if (strcmp(p->servers[s].name, base) == 0)
                p->baseline = s + 1;
    }
    for (w = 0; w < p->nworkloads && !c->failed; w++) {
        struct compare_workload *wl = &p->workloads[w];
        e = json_array_get(wls, (size_t)w);
        at = jread_enter(c, "workloads[%d]", w);
        if (!json_is_object(e)) {
            jread_fail(c, "", "not an object");
            break;
        }
        wl->name = jread_dup(c, e, "name", "?");
        wl->path = jread_dup(c, e, "path", "/");
        if (report_load_config(c, jread_obj(c, e, "config", 1), &wl->cfg) != 0)
            break;
        load_duration_auto(c, jread_obj(c, e, "duration_auto", 0), wl);
        /* The workload itself has no URL: each server has its own. */
        free(wl->cfg.url_text);
        wl->cfg.url_text = NULL;
        wl->cfg.ntargets = 0;
        jread_leave(c, at);
    }
    if (c->failed)
        return -1;
    if (compare_result_init(r, p) != 0)
        return jread_fail(c, "", "out of memory");
    r->interrupted = jread_bool(c, cmp, "interrupted");
    r->cgroups = jread_bool(c, cmp, "cgroups");
    r->ref = ref;
    jread_copy(r->note, sizeof(r->note), note);
    for (s = 0; s < p->nservers; s++) {
        json_t *sv = json_array_get(svs, (size_t)s);
        r->failed[s] = jread_bool(c, sv, "failed");
        jread_copy(r->failure[s], CMP_WHY_MAX, jread_str(c, sv, "reason", 0));
        jread_copy(r->output[s], CMP_OUTPUT_MAX + 1, jread_str(c, sv, "output", 0));
    }
    load_alike(c, wls, p, r);
    load_cells(c, wls, p, r);
    if (c->failed)
        return -1;
    compare_summarize(p, r);
    return 0;
}


int compare_load_root(json_t *root, const char *path, struct loaded *out, char *err, size_t errlen)
{
    struct jc c = { path, err, errlen, 0, "" };
    json_t *cmp;

    memset(out, 0, sizeof(*out));
    if (!json_is_object(root)) {
        err_set(err, errlen, NULL, "%s: not a rafale result (saved with --json)", path);
        return -1;
    }
    jread_scrub(root, 0);
    cmp = json_object_get(root, "compare");
    if (json_is_object(cmp)) {
        out->is_compare = 1;
        return load_compare(&c, cmp, out);
    }
    return report_load_run(&c, root, &out->run);
}

int compare_load(const char *path, struct loaded *out, char *err, size_t errlen)
{
    json_t *root;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((root = report_load_json(path, err, errlen)) == NULL)
        return -1;
    rc = compare_load_root(root, path, out, err, errlen);
    json_decref(root);
    return rc;
}

void compare_load_free(struct loaded *l)
{
    if (l->is_compare) {
        compare_result_free(&l->cmp);
        compare_file_free(&l->cf);
    } else {
        result_free(&l->run);
    }
    memset(l, 0, sizeof(*l));
}
