/* report_load_config.c - a saved result's "config" object read back into
 * a struct config (report_load.c reads the rest of the run; compare_load.c
 * a compare's workloads) through its table (report_keys_config): every
 * option the options' table gives a JSON key through that table, the rows
 * worked out by hand here, each value checked as report_load.c does. */
#include "report_load.h"
#include "report_keys.h"
#include "jread.h"
#include "opt.h"

#include <stdlib.h>
#include <string.h>

#define MAX_URLS 1000000 /* a saved config's URLs, at most */

/* The URLs as typed. Returns -1 out of memory. */
static int load_urls(struct jc *c, json_t *o, const char *key, struct config *cfg)
{
    json_t *urls = jread_arr(c, o, key, 1);
    size_t i, n = json_array_size(urls);
    if (c->failed)
        return 0;
    if (n > MAX_URLS)
        return jread_fail(c, key, "more than %d", MAX_URLS), 0;
    if ((cfg->url_text = calloc(n ? n : 1, sizeof(char *))) == NULL)
        return -1;
    cfg->ntargets = (uint32_t)n;
    for (i = 0; i < n; i++) {
        const char *u = json_string_value(json_array_get(urls, i));
        if (u == NULL)
            return jread_fail(c, key, "entry %zu is not a string", i), 0;
        if ((cfg->url_text[i] = config_keep(cfg, u)) == NULL)
            return -1;
    }
    return 0;
}

/* The run's method: what rafale writes there is a token, anything else
 * did not come from it. Returns -1 out of memory. */
static int load_method(struct jc *c, json_t *o, const char *key, struct config *cfg)
{
    const char *m = jread_str(c, o, key, 1);
    size_t i;
    if (m == NULL)
        return 0;
    for (i = 0; m[i]; i++)
        if (!((m[i] >= 'A' && m[i] <= 'Z') || (m[i] >= 'a' && m[i] <= 'z') || m[i] == '-' || m[i] == '_') || i > 32)
            return jread_fail(c, key, "not an HTTP method"), 0;
    if (i == 0)
        return jread_fail(c, key, "empty"), 0;
    return (cfg->method = config_keep(cfg, m)) == NULL ? -1 : 0;
}

/* The -H lines. Returns -1 out of memory. */
static int load_headers(struct jc *c, json_t *o, const char *key, struct config *cfg)
{
    json_t *hs = jread_arr(c, o, key, 0), *e;
    size_t i;
    json_array_foreach(hs, i, e) {
        if (!json_is_string(e))
            return jread_fail(c, key, "entry %zu is not a string", i), 0;
        if (config_add_header(cfg, json_string_value(e)) != 0)
            return -1;
    }
    return 0;
}

/* Think time, [low, high] seconds, as the run had it. */
static void load_think(struct jc *c, json_t *o, const char *key, struct config *cfg)
{
    json_t *th = json_object_get(o, key);
    double lo, hi;
    if (!json_is_array(th) || json_array_size(th) != 2 || !json_is_number(json_array_get(th, 0)) ||
        !json_is_number(json_array_get(th, 1)))
        return;
    lo = json_number_value(json_array_get(th, 0));
    hi = json_number_value(json_array_get(th, 1));
    if (!(lo >= 0 && lo <= hi && hi <= MAX_SECONDS))
        jread_fail(c, key, "wants [low, high] seconds, 0 <= low <= high");
    else {
        cfg->think_lo_ns = (uint64_t)(lo * 1e9);
        cfg->think_hi_ns = (uint64_t)(hi * 1e9);
    }
}

/* The stages (--stages) as the run had them. */
static void load_stages(struct jc *c, json_t *o, const char *key, struct config *cfg)
{
    json_t *st = jread_arr(c, o, key, 0), *e;
    size_t k;
    if (st && json_array_size(st) > 64)
        jread_fail(c, key, "more than 64 stages");
    json_array_foreach(st, k, e) {
        struct report_stage one = { 0, 0 };
        size_t a2 = jread_enter(c, "%s[%zu]", key, k);
        if (k >= 64)
            break;
        report_keys_read(c, e, &report_keys_stage, &one);
        cfg->stage_dur[k] = one.dur_ns;
        cfg->stage_val[k] = one.to;
        jread_leave(c, a2);
        cfg->nstages = (uint32_t)k + 1;
    }
}

/* A string kept by cfg, or NULL when absent. Returns -1 out of memory. */
static int load_kept(struct jc *c, json_t *o, const char *key, struct config *cfg, const char **dst)
{
    const char *s = jread_str(c, o, key, 0);
    return s && (*dst = config_keep(cfg, s)) == NULL ? -1 : 0;
}

/* Reads what row k says of the config into base. */
static void config_fig(struct jc *c, json_t *o, const struct report_key *k, void *base)
{
    struct config *cfg = base;
    const char *key = k->key, *s;
    json_t *ck;
    char why[128];
    size_t i;
    int oom = 0;
    switch ((enum report_key_fig)k->fig) {
    case RKF_URLS:
        oom = load_urls(c, o, key, cfg);
        break;
    case RKF_METHOD:
        oom = load_method(c, o, key, cfg);
        break;
    case RKF_OPTIONS: /* every option the options' table gives a JSON key */
        opt_json_read(c, o, cfg);
        break;
    case RKF_BODY:
        cfg->body_len = (size_t)jread_count(c, o, key, 0);
        cfg->has_body = cfg->body_len > 0;
        break;
    case RKF_HEADERS:
        oom = load_headers(c, o, key, cfg);
        break;
    case RKF_EXPECT:
        if ((s = jread_str(c, o, key, 0)) != NULL && status_set_parse(s, &cfg->expect, why, sizeof(why)) != 0)
            jread_fail(c, key, "not a status list: %s", why);
        break;
    case RKF_TARGETS:
        oom = load_kept(c, o, key, cfg, &cfg->targets_path);
        break;
    case RKF_THINK:
        load_think(c, o, key, cfg);
        break;
    case RKF_CHECKS:
        ck = jread_arr(c, o, key, 0);
        for (i = 0; ck && i < json_array_size(ck) && i < 1000 && !oom; i++)
            if (json_is_string(json_array_get(ck, i)))
                oom = config_add_check(cfg, json_string_value(json_array_get(ck, i))) != 0;
        break;
    case RKF_STAGES:
        load_stages(c, o, key, cfg);
        break;
    case RKF_CONTENT_TYPE:
        oom = load_kept(c, o, key, cfg, &cfg->content_type);
        break;
    case RKF_REPLAY:
        report_replay_load_config(c, o, cfg);
        break;
    default:
        break;
    }
    if (oom)
        jread_fail(c, "", "out of memory");
}

/* The "config" object of a result into cfg; its strings are kept by cfg. */
int report_load_config(struct jc *c, json_t *o, struct config *cfg)
{
    size_t at = jread_enter(c, "%s", report_keys_config.name);
    config_defaults(cfg);
    report_keys_read_by(c, o, &report_keys_config, cfg, config_fig);
    jread_leave(c, at);
    return c->failed ? -1 : 0;
}
