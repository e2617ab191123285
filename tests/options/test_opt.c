/* The option table: short and long forms, the same words for a bad value
 * whichever way the option was written, options of another command named,
 * flags in plans, and the cross-option rules of config_finish(). */
#include "opt.h"
#include "compare_settings.h"
#include "serve_config.h"
#include "jread.h"
#include "targets.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

/* Parses a command line given as one string (space-separated). */
static enum opt_result parse(const char *line, unsigned where, struct config *cfg, struct compare_settings *cs,
                             struct serve_config *sc, char *err, int *first)
{
    static char buf[512];
    char *argv[32], *tok, *save = NULL;
    int argc = 0;
    struct opt_dst d = { cfg, sc, cs, NULL };
    snprintf(buf, sizeof(buf), "prog %s", line);
    for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
        argv[argc++] = tok;
    argv[argc] = NULL;
    return opt_parse_argv(argc, argv, where, &d, first, err, 256);
}

static void short_and_long(void)
{
    struct config c;
    char err[256];
    int first;
    config_defaults(&c);
    CHECK(parse("-n 10k -c 20 -t 2 -d 1m --close -H X-A:1 --header X-B:2 -m PUT --expect 200,3xx -R 500.5 URL",
                OPT_RUN, &c, NULL, NULL, err, &first) == OPT_OK);
    CHECK(c.requests == 10000 && c.connections == 20 && c.connections_given && c.threads == 2 &&
          c.duration_ns == 60000000000ULL && c.keepalive == 0 && c.nheaders == 2 && strcmp(c.method, "PUT") == 0 &&
          c.method_given && status_set_has(&c.expect, 302) && !status_set_has(&c.expect, 201) && c.rate == 500.5);
    CHECK(first == 20);
    config_free(&c);
}

static void same_words_either_way(void)
{
    struct config c;
    char err[256];
    int first;
    config_defaults(&c);
    CHECK(parse("-c 0 URL", OPT_RUN, &c, NULL, NULL, err, &first) == OPT_ERROR);
    CHECKF(strcmp(err, "-c wants a number of connections from 1 to 10000000, not '0'") == 0, "%s", err);
    CHECK(parse("--connections many URL", OPT_RUN, &c, NULL, NULL, err, &first) == OPT_ERROR);
    CHECKF(strcmp(err, "--connections wants a number of connections from 1 to 10000000, not 'many'") == 0, "%s", err);
    CHECK(parse("--timeout 0 URL", OPT_RUN, &c, NULL, NULL, err, &first) == OPT_ERROR &&
          strstr(err, "--timeout wants a duration of at least 1ms") != NULL);
    CHECK(parse("--bogus URL", OPT_RUN, &c, NULL, NULL, err, &first) == OPT_ERROR &&
          strcmp(err, "unknown option '--bogus' (see --help)") == 0);
    CHECK(parse("--start 5 URL", OPT_RUN, &c, NULL, NULL, err, &first) == OPT_ERROR &&
          strcmp(err, "--start is an option of 'rafale sweep'") == 0);
    CHECK(parse("--repeat 3 URL", OPT_RUN, &c, NULL, NULL, err, &first) == OPT_ERROR &&
          strcmp(err, "--repeat is an option of 'rafale compare'") == 0);
    CHECK(parse("-c", OPT_RUN, &c, NULL, NULL, err, &first) == OPT_ERROR && strstr(err, "needs a value") != NULL);
    CHECK(parse("-h", OPT_RUN, &c, NULL, NULL, err, &first) == OPT_HELP);
    CHECK(parse("--version", OPT_RUN, &c, NULL, NULL, err, &first) == OPT_VERSION);
    config_free(&c);
}

/* A mistyped option is answered with the nearest one of the command's,
 * when one is near enough to be what was meant. */
static void typo_suggested(void)
{
    static const struct {
        const char *line;
        unsigned where;
        const char *want;
    } cases[] = {
        { "--conections 5 URL", OPT_RUN, "unknown option '--conections': did you mean --connections? (see --help)" },
        { "--conections=5 URL", OPT_RUN, "unknown option '--conections=5': did you mean --connections? (see --help)" },
        { "--duratoin 5s URL", OPT_RUN, "unknown option '--duratoin': did you mean --duration? (see --help)" },
        { "--Insecure URL", OPT_RUN, "unknown option '--Insecure': did you mean --insecure? (see --help)" },
        { "--timout 1s URL", OPT_RUN, "unknown option '--timout': did you mean --timeout? (see --help)" },
        { "--requets 5 URL", OPT_SWEEP, "unknown option '--requets': did you mean --requests? (see --help)" },
        { "--repaet 3 P", OPT_COMPARE, "unknown option '--repaet': did you mean --repeat? (see --help)" },
        { "--lisen :0", OPT_SERVE, "unknown option '--lisen': did you mean --listen? (see --help)" },
        /* Nothing near: no guess. */
        { "--bogus URL", OPT_RUN, "unknown option '--bogus' (see --help)" },
        { "--xyz URL", OPT_RUN, "unknown option '--xyz' (see --help)" },
        { "--chatty URL", OPT_RUN, "unknown option '--chatty' (see --help)" },
        { "--connectionsconnections 5 URL", OPT_RUN, "unknown option '--connectionsconnections' (see --help)" },
        /* A flag given a value: said so, not that the flag is an option of
         * the command it was given to ('rafale URL'). */
        { "--insecure=1 https://h/", OPT_RUN, "--insecure takes no value, not '1' (see --help)" },
        { "--close=yes URL", OPT_RUN, "--close takes no value, not 'yes' (see --help)" },
        { "--insec=1 https://h/", OPT_RUN, "--insecure takes no value, not '1' (see --help)" },
        { "--http3= :0", OPT_SERVE, "--http3 takes no value, not '' (see --help)" },
    };
    struct config c;
    struct compare_settings cs;
    struct serve_config sc;
    char err[256];
    size_t i;
    int first;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        config_defaults(&c);
        memset(&cs, 0, sizeof(cs));
        memset(&sc, 0, sizeof(sc));
        CHECKF(parse(cases[i].line, cases[i].where, &c, &cs, &sc, err, &first) == OPT_ERROR &&
               strcmp(err, cases[i].want) == 0, "%s: %s", cases[i].line, err);
        config_free(&c);
    }
}

static void plan_keys_and_flags(void)
{
    struct config c;
    struct opt_dst d;
    char err[256];
    const struct opt_def *o;
    config_defaults(&c);
    d.run = &c;
    d.serve = NULL;
    d.cmp = NULL;
    o = opt_find("close", OPT_WORKLOAD);
    CHECK(o && opt_is_flag(o) && opt_set(o, &d, "yes", "close", err, sizeof(err)) == 0 && c.keepalive == 0);
    CHECK(opt_set(o, &d, "no", "close", err, sizeof(err)) == 0 && c.keepalive == 1);
    CHECK(opt_set(o, &d, "maybe", "close", err, sizeof(err)) == -1 && strcmp(err, "close wants yes or no, not 'maybe'") == 0);
    CHECK(opt_find("json", OPT_WORKLOAD) == NULL && opt_find("repeat", OPT_WORKLOAD) == NULL);
    CHECK(opt_find("repeat", OPT_SETTINGS) != NULL && opt_find("threads", OPT_SERVE) != NULL);
    o = opt_find("connections", OPT_WORKLOAD);
    CHECK(opt_set(o, &d, "12", "connections", err, sizeof(err)) == 0 && c.connections == 12);
    config_free(&c);
}

/* A TLS option does nothing on http://: refused when no URL is https://,
 * taken when one is (a run may mix them). */
static void tls_options_need_https(void)
{
    static const struct {
        const char *opts, *named;
    } cases[] = {
        { "--insecure", "--insecure" },
        { "--cacert /dev/null", "--cacert" },
        { "--cert /dev/null", "--cert" },
        { "--cert /dev/null --key /dev/null --key-pass pass:x", "--cert" },
        { "--tls-version 1.3", "--tls-version" },
        { "--ciphers HIGH", "--ciphers" },
        { "--no-tls-resume", "--no-tls-resume" },
    };
    static const char *const urls[] = { "http://127.0.0.1:1/", "http://127.0.0.1:1/ https://127.0.0.1:2/" };
    struct config c;
    char line[200], err[256], want[200], notes[64];
    size_t i, u;
    int first;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        for (u = 0; u < 2; u++) {
            char *words[4], *save = NULL, *tok;
            int n = 0, ok = 1, k;
            config_defaults(&c);
            snprintf(line, sizeof(line), "%s %s", cases[i].opts, urls[u]);
            CHECK(parse(line, OPT_RUN, &c, NULL, NULL, err, &first) == OPT_OK);
            snprintf(line, sizeof(line), "%s", urls[u]);
            for (tok = strtok_r(line, " ", &save); tok && n < 4; tok = strtok_r(NULL, " ", &save))
                words[n++] = tok;
            for (k = 0; k < n; k++)
                ok &= targets_add_url(&c, words[k], err, sizeof(err)) == 0;
            CHECK(ok);
            snprintf(want, sizeof(want), "%s is for https:// URLs and every URL here is http://", cases[i].named);
            if (u == 0)
                CHECKF(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == -1 && strcmp(err, want) == 0,
                       "%s: %s", cases[i].opts, err);
            else
                CHECKF(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0, "%s, mixed: %s", cases[i].opts,
                       err);
            config_free(&c);
        }
}

static void cross_option_rules(void)
{
    struct config c;
    char err[256], notes[256];
    config_defaults(&c);
    c.requests = 3;
    c.connections = 10;
    c.connections_given = 1;
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && c.connections == 3 &&
          strstr(notes, "using 3 connections") != NULL && c.threads <= 3);
    config_free(&c);
    config_defaults(&c);
    c.max_connections = 20;
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == -1 && strstr(err, "goes with -R") != NULL);
    config_free(&c);
    config_defaults(&c);
    c.pipeline = 4;
    c.keepalive = 0;
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == -1 && strstr(err, "--pipeline needs keep-alive"));
    config_free(&c);
    config_defaults(&c);
    CHECK(config_finish(&c, err, sizeof(err), notes, sizeof(notes)) == 0 && c.duration_ns == 10000000000ULL);
    config_free(&c);
}

static void help_lists_every_option(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    opt_help(f, OPT_RUN);
    fclose(f);
    CHECK(strstr(text, "-n, --requests N") && strstr(text, "--expect LIST") && strstr(text, "--monitor-cgroup PATH") &&
          strstr(text, "Constant rate (open loop):") && !strstr(text, "--repeat") && !strstr(text, "--no-progress"));
    free(text);
}

/* The options a result's "config" object holds go out and come back
 * through the table: every one, with its value. */
static void json_config_round_trip(void)
{
    struct config a, b;
    struct jc c = { "t.json", NULL, 0, 0, "" };
    char err[256], *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    json_t *o;
    json_error_t je;
    config_defaults(&a);
    a.connections = 77;
    a.threads = 3;
    a.keepalive = 0;
    a.requests = 123456;
    a.duration_ns = 2500000000ULL;
    a.timeout_ns = 750000000ULL;
    a.connect_timeout_ns = 1000000000ULL;
    a.requests_per_conn = 9;
    a.pipeline = 4;
    a.rate = 1234.5;
    a.warmup_ns = 200000000ULL;
    a.proto_asked[PROTO_HTTP2] = 1;
    a.streams = 8;
    a.h2_window_bits = 20;
    a.follow = 3;
    a.cookies = 1;
    fputs("{\"x\": 0", f);
    opt_json_write(f, &a);
    fputs("}", f);
    fclose(f);
    o = json_loads(text, 0, &je);
    CHECKF(o != NULL, "%s: %s", je.text, text);
    c.err = err;
    c.errlen = sizeof(err);
    config_defaults(&b);
    CHECK(opt_json_read(&c, o, &b) == 0);
    CHECK(b.connections == 77 && b.threads == 3 && b.keepalive == 0 && b.requests == 123456 &&
          b.duration_ns == 2500000000ULL && b.timeout_ns == 750000000ULL && b.connect_timeout_ns == 1000000000ULL &&
          b.requests_per_conn == 9 && b.pipeline == 4 && b.rate == 1234.5 && b.warmup_ns == 200000000ULL &&
          b.proto_asked[PROTO_HTTP2] == 1 && b.streams == 8 && b.h2_window_bits == 20 && b.follow == 3 && b.cookies == 1);
    /* Out of its option's range, or of the wrong type: said with its key. */
    json_object_set_new(o, "streams", json_integer(5000));
    config_defaults(&b);
    c.failed = 0;
    CHECKF(opt_json_read(&c, o, &b) == -1 && strstr(err, "t.json: streams: 5000 is out of range"), "%s", err);
    json_object_set_new(o, "streams", json_integer(2));
    json_object_set_new(o, "cookies", json_string("yes"));
    c.failed = 0;
    CHECKF(opt_json_read(&c, o, &b) == -1 && strstr(err, "cookies: not true or false"), "%s", err);
    json_decref(o);
    free(text);
    config_free(&a);
    config_free(&b);
}

int main(void)
{
    T_RUN(short_and_long);
    T_RUN(same_words_either_way);
    T_RUN(typo_suggested);
    T_RUN(plan_keys_and_flags);
    T_RUN(cross_option_rules);
    T_RUN(tls_options_need_https);
    T_RUN(help_lists_every_option);
    T_RUN(json_config_round_trip);
    T_END("test_opt");
}
