/* report_load_config.c - a saved result's "config" object read back into
 * a struct config (report_load.c reads the rest of the run; compare_load.c
 * a compare's workloads): every option the table gives a JSON key through
 * the table, the rest here, each value checked as report_load.c does. */
#include "report_load.h"
#include "jread.h"
#include "opt.h"

#include <stdlib.h>
#include <string.h>

#define MAX_URLS 1000000 /* a saved config's URLs, at most */

/* The stages (--stages) as the run had them. */
static void load_stages(struct jc *c, json_t *o, struct config *cfg)
{
    json_t *st = jread_arr(c, o, "stages", 0), *e;
    size_t k;
    const char *of = jread_str(c, o, "stages_of", 0);
    if (st && json_array_size(st) > 64)
        jread_fail(c, "stages", "more than 64 stages");
    json_array_foreach(st, k, e) {
        size_t a2 = jread_enter(c, "stages[%zu]", k);
        if (k >= 64)
            break;
        cfg->stage_dur[k] = jread_ns(c, e, "duration_s", 1);
        cfg->stage_val[k] = jread_num(c, e, "to", 0, 1e8, 1);
        jread_leave(c, a2);
        cfg->nstages = (uint32_t)k + 1;
    }
    cfg->stages_conns = of && strcmp(of, "connections") == 0;
    cfg->stage_start = jread_num(c, o, "stage_start", 0, 1e8, 0);
}

/* The "config" object of a result into cfg; its strings are kept by cfg. */
int report_load_config(struct jc *c, json_t *o, struct config *cfg)
{
    json_t *urls, *hs, *e;
    const char *ex, *arr, *m, *ct;
    char why[128];
    size_t i, n, at = jread_enter(c, "config");

    config_defaults(cfg);
    urls = jread_arr(c, o, "urls", 1);
    hs = jread_arr(c, o, "headers", 0);
    ex = jread_str(c, o, "expect", 0);
    arr = jread_str(c, o, "arrival", 0);
    m = jread_str(c, o, "method", 1);
    ct = jread_str(c, o, "content_type", 0);
    if (c->failed)
        goto out;
    n = json_array_size(urls);
    if (n > MAX_URLS) {
        jread_fail(c, "urls", "more than %d", MAX_URLS);
        goto out;
    }
    if ((cfg->url_text = calloc(n ? n : 1, sizeof(char *))) == NULL)
        goto oom;
    cfg->ntargets = (uint32_t)n;
    for (i = 0; i < n; i++) {
        const char *u = json_string_value(json_array_get(urls, i));
        if (u == NULL) {
            jread_fail(c, "urls", "entry %zu is not a string", i);
            goto out;
        }
        if ((cfg->url_text[i] = config_keep(cfg, u)) == NULL)
            goto oom;
    }
    json_array_foreach(hs, i, e) {
        if (!json_is_string(e)) {
            jread_fail(c, "headers", "entry %zu is not a string", i);
            goto out;
        }
        if (config_add_header(cfg, json_string_value(e)) != 0)
            goto oom;
    }
    /* What rafale writes there is a token: anything else did not come from it. */
    for (i = 0; m[i]; i++)
        if (!((m[i] >= 'A' && m[i] <= 'Z') || (m[i] >= 'a' && m[i] <= 'z') || m[i] == '-' || m[i] == '_') || i > 32) {
            jread_fail(c, "method", "not an HTTP method");
            goto out;
        }
    if (i == 0 || (cfg->method = config_keep(cfg, m)) == NULL) {
        if (i == 0)
            jread_fail(c, "method", "empty");
        goto out;
    }
    if (ct && (cfg->content_type = config_keep(cfg, ct)) == NULL)
        goto oom;
    /* Every option the table gives a JSON key, read through the table. */
    opt_json_read(c, o, cfg);
    cfg->body_len = (size_t)jread_count(c, o, "body_bytes", 0);
    cfg->has_body = cfg->body_len > 0;
    if (ex && status_set_parse(ex, &cfg->expect, why, sizeof(why)) != 0)
        jread_fail(c, "expect", "not a status list: %s", why);
    cfg->poisson = arr && strcmp(arr, "poisson") == 0;
    {
        /* Results saved before kernel timestamps were user time. */
        const char *ts = jread_str(c, o, "timestamps", 0);
        cfg->user_timestamps = ts == NULL || strcmp(ts, "user") == 0;
    }
    {
        const char *ord = jread_str(c, o, "order", 0), *tp = jread_str(c, o, "targets", 0);
        cfg->order_mode = ord == NULL ? ORDER_DEFAULT : strcmp(ord, "sequential") == 0 ? ORDER_SEQUENTIAL
                          : strcmp(ord, "random") == 0 ? ORDER_RANDOM : strcmp(ord, "session") == 0 ? ORDER_SESSION
                                                                                                   : ORDER_DEFAULT;
        if (tp && (cfg->targets_path = config_keep(cfg, tp)) == NULL)
            goto oom;
        if (json_object_get(o, "seed")) {
            cfg->seed = jread_count(c, o, "seed", 0);
            cfg->seed_given = 1;
        }
    }
    {
        /* Think time and the --check list, as the run had them. */
        json_t *th = json_object_get(o, "think_s"), *ck = jread_arr(c, o, "checks", 0);
        size_t k;
        if (json_is_array(th) && json_array_size(th) == 2 && json_is_number(json_array_get(th, 0)) &&
            json_is_number(json_array_get(th, 1))) {
            double lo = json_number_value(json_array_get(th, 0)), hi = json_number_value(json_array_get(th, 1));
            if (!(lo >= 0 && lo <= hi && hi <= MAX_SECONDS))
                jread_fail(c, "think_s", "wants [low, high] seconds, 0 <= low <= high");
            else {
                cfg->think_lo_ns = (uint64_t)(lo * 1e9);
                cfg->think_hi_ns = (uint64_t)(hi * 1e9);
            }
        }
        if (json_object_get(o, "max_body"))
            cfg->max_body = jread_count(c, o, "max_body", 0);
        for (k = 0; ck && k < json_array_size(ck) && k < 1000; k++)
            if (json_is_string(json_array_get(ck, k)) &&
                config_add_check(cfg, json_string_value(json_array_get(ck, k))) != 0)
                goto oom;
    }
    load_stages(c, o, cfg);
    report_replay_load_config(c, o, cfg);
out:
    jread_leave(c, at);
    return c->failed ? -1 : 0;
oom:
    jread_leave(c, at);
    jread_fail(c, "", "out of memory");
    return -1;
}
