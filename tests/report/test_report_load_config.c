/* report_load_config: a run's settings written by report_json_config and
 * read back into a struct config: every one as it was (URLs, method,
 * connections, threads, requests, headers, body, expected statuses,
 * arrivals, order and seed, think time, the body kept, checks, stages);
 * and each hand-made mistake refused in one line naming the field. */
#include "report.h"
#include "report_load.h"
#include "jread.h"
#include "targets.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

/* cfg written as a result's "config" object, parsed (NULL: not JSON). */
static json_t *written(const struct config *cfg)
{
    static char text[1 << 16];
    FILE *f = fmemopen(text, sizeof(text), "w");
    report_json_config(f, cfg);
    fclose(f);
    return json_loads(text, 0, NULL);
}

/* o read back into back; its message in err. */
static int read_back(json_t *o, struct config *back, char *err, size_t errlen)
{
    struct jc c = { "r.json", err, errlen, 0, "" };
    err[0] = '\0';
    return report_load_config(&c, o, back);
}

static void settings_as_written(void)
{
    struct config cfg, back;
    char err[512];
    json_t *o;
    config_defaults(&cfg);
    CHECK(targets_add_url(&cfg, "http://127.0.0.1:8080/a", err, sizeof(err)) == 0);
    CHECK(targets_add_url(&cfg, "http://127.0.0.1:8080/b?x=\"1\"", err, sizeof(err)) == 0);
    cfg.method = "PUT";
    cfg.connections = 7;
    cfg.threads = 3;
    cfg.requests = 500;
    cfg.rate = 250;
    cfg.poisson = 1;
    cfg.body_len = 42;
    cfg.has_body = 1;
    config_add_header(&cfg, "X-A: 1");
    config_add_header(&cfg, "Authorization: Bearer t");
    CHECK(status_set_parse("200,404", &cfg.expect, err, sizeof(err)) == 0);
    cfg.order_mode = ORDER_RANDOM;
    cfg.seed = 7;
    cfg.seed_given = 1;
    cfg.think_lo_ns = 500000000ULL;
    cfg.think_hi_ns = 1500000000ULL;
    cfg.max_body = 1000;
    config_add_check(&cfg, "status == 200");
    cfg.nstages = 2;
    cfg.stage_dur[0] = 2000000000ULL;
    cfg.stage_val[0] = 100;
    cfg.stage_dur[1] = 3000000000ULL;
    cfg.stage_val[1] = 300;
    cfg.stage_start = 10;
    cfg.user_timestamps = 0;
    o = written(&cfg);
    CHECK(o != NULL);
    CHECKF(read_back(o, &back, err, sizeof(err)) == 0, "%s", err);
    CHECK(back.ntargets == 2 && strcmp(back.url_text[0], "http://127.0.0.1:8080/a") == 0 &&
          strcmp(back.url_text[1], "http://127.0.0.1:8080/b?x=\"1\"") == 0);
    CHECK(strcmp(back.method, "PUT") == 0 && back.connections == 7 && back.threads == 3 && back.requests == 500);
    CHECK(back.rate == 250 && back.poisson == 1 && back.body_len == 42 && back.has_body == 1);
    CHECK(back.nheaders == 2 && strcmp(back.headers[1], "Authorization: Bearer t") == 0);
    CHECK(strcmp(back.expect.text, cfg.expect.text) == 0 && status_set_has(&back.expect, 404) &&
          !status_set_has(&back.expect, 201));
    CHECK(back.order_mode == ORDER_RANDOM && back.seed == 7 && back.seed_given == 1);
    CHECK(back.think_lo_ns == 500000000ULL && back.think_hi_ns == 1500000000ULL && back.max_body == 1000);
    CHECK(back.ncheck_exprs == 1 && strcmp(back.check_exprs[0], "status == 200") == 0);
    CHECK(back.nstages == 2 && back.stage_dur[1] == 3000000000ULL && back.stage_val[1] == 300 &&
          back.stage_start == 10 && back.stages_conns == 0);
    CHECK(back.user_timestamps == 0 && back.targets_path == NULL);
    json_decref(o);
    config_free(&back);
    /* The defaults read back as the defaults. */
    cfg.order_mode = ORDER_DEFAULT;
    cfg.seed_given = 0;
    cfg.nstages = 0;
    cfg.has_body = 0;
    o = written(&cfg);
    CHECKF(read_back(o, &back, err, sizeof(err)) == 0, "%s", err);
    CHECK(back.order_mode == ORDER_DEFAULT && back.seed_given == 0 && back.nstages == 0 && back.body_len == 0);
    json_decref(o);
    config_free(&back);
    cfg.method = NULL; /* not the config's own */
    config_free(&cfg);
}

/* A valid object with key set to v (or removed, v NULL): its message. */
static const char *refusal(const char *key, json_t *v)
{
    static char err[512];
    struct config cfg, back;
    json_t *o;
    config_defaults(&cfg);
    targets_add_url(&cfg, "http://127.0.0.1:8080/", err, sizeof(err));
    o = written(&cfg);
    if (v)
        json_object_set_new(o, key, v);
    else
        json_object_del(o, key);
    if (read_back(o, &back, err, sizeof(err)) == 0)
        snprintf(err, sizeof(err), "(read)");
    json_decref(o);
    config_free(&back);
    config_free(&cfg);
    return err;
}

#define REFUSED(key, v, want)                                                                                          \
    do {                                                                                                               \
        const char *e_ = refusal(key, v);                                                                              \
        CHECKF(strcmp(e_, want) == 0, "%s: '%s'", key, e_);                                                            \
    } while (0)

static void mistakes_refused(void)
{
    REFUSED("urls", NULL, "r.json: config.urls: missing");
    REFUSED("urls", json_pack("[s,i]", "http://x/", 3), "r.json: config.urls: entry 1 is not a string");
    REFUSED("method", json_string("GE T"), "r.json: config.method: not an HTTP method");
    REFUSED("method", json_string(""), "r.json: config.method: empty");
    REFUSED("method", json_string("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ"), "r.json: config.method: not an HTTP method");
    REFUSED("headers", json_pack("[s,n]", "X: 1"), "r.json: config.headers: entry 1 is not a string");
    REFUSED("think_s", json_pack("[f,f]", 2.0, 1.0),
            "r.json: config.think_s: wants [low, high] seconds, 0 <= low <= high");
    REFUSED("stages", json_pack("[{s:f}]", "duration_s", 1.0), "r.json: config.stages[0].to: missing");
    {
        json_t *many = json_array();
        int i;
        for (i = 0; i < 65; i++)
            json_array_append_new(many, json_pack("{s:f,s:f}", "duration_s", 1.0, "to", 5.0));
        REFUSED("stages", many, "r.json: config.stages: more than 64 stages");
    }
    REFUSED("expect", json_string("abc"),
            "r.json: config.expect: not a status list: status codes such as 200, 200,302, 2xx,3xx or 200-299");
    /* Unknown words are defaults, not errors: an order rafale does not write. */
    REFUSED("order", json_string("whatever"), "(read)");
}

int main(void)
{
    T_RUN(settings_as_written);
    T_RUN(mistakes_refused);
    T_END("test_report_load_config");
}
