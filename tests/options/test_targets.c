/* --targets files: each request as written (method, URL, name, headers,
 * inline body, checks, extracts, think time), in order, and every mistake
 * refused with FILE:LINE and what is wrong, before any load. */
#include "config.h"
#include "targets.h"
#include "../t.h"

#include <string.h>

static int parse(struct config *cfg, const char *text, char *err, size_t errlen)
{
    config_defaults(cfg);
    return targets_parse(cfg, text, strlen(text), "t.targets", "/tmp", NULL, err, errlen);
}

static void requests_as_written(void)
{
    static const char text[] =
        "# a comment line\n"
        "POST http://127.0.0.1:8080/login   # name: login\n"
        "Content-Type: application/json\n"
        "X-Id: 7\n"
        "< {\"user\": \"ada\"}\n"
        "\n"
        "# check: status == 200\n"
        "# extract: tok = json $.token\n"
        "# think: 100ms-300ms\n"
        "GET http://127.0.0.1:8080/items?page=2\n";
    struct config cfg;
    char err[256] = "";
    CHECKF(parse(&cfg, text, err, sizeof(err)) == 0, "%s", err);
    CHECK(cfg.ntargets == 2);
    if (cfg.ntargets == 2) {
        const struct target *a = &cfg.targets[0], *b = &cfg.targets[1];
        CHECK(a->method && strcmp(a->method, "POST") == 0 && a->name && strcmp(a->name, "login") == 0);
        CHECK(a->nheaders == 2 && strcmp(a->headers[0], "Content-Type: application/json") == 0 &&
              strcmp(a->headers[1], "X-Id: 7") == 0);
        CHECK(a->has_body && a->body_len == 15 && memcmp(a->body, "{\"user\": \"ada\"}", 15) == 0);
        CHECK(a->own && a->line == 2 && strcmp(a->file, "t.targets") == 0);
        CHECK(strcmp(cfg.urls[0].host, "127.0.0.1") == 0 && cfg.urls[0].port == 8080);
        CHECK(b->method && strcmp(b->method, "GET") == 0 && b->name == NULL && !b->has_body && b->nheaders == 0);
        CHECK(b->nchecks == 1 && strcmp(b->checks[0], "status == 200") == 0);
        CHECK(b->nextracts == 1 && strstr(b->extracts[0], "tok") && strstr(b->extracts[0], "json $.token"));
        CHECK(b->has_think && b->think_lo_ns == 100000000ULL && b->think_hi_ns == 300000000ULL);
        CHECK(b->line == 10);
    }
    config_free(&cfg);
}

static void mistakes_name_their_line(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        { "GET http://127.0.0.1:8080/\n\nFETCH\n", "t.targets:3:" },
        { "GET http://127.0.0.1:8080/\nNo colon here\n", "t.targets:2:" },
        { "# think: soon\nGET http://127.0.0.1:8080/\n", "t.targets:1:" },
        { "GET ftp://127.0.0.1/\n", "t.targets:1:" },
        { "GET http://127.0.0.1:8080/\n< a\n< b\n", "t.targets:3:" },
    };
    size_t i;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct config cfg;
        char err[256] = "";
        int rc = parse(&cfg, bad[i].text, err, sizeof(err));
        CHECKF(rc == -1 && strncmp(err, bad[i].want, strlen(bad[i].want)) == 0, "case %zu: %d '%s'", i, rc, err);
        config_free(&cfg);
    }
}

static void a_path_goes_to_the_base(void)
{
    struct config cfg;
    char err[256] = "";
    config_defaults(&cfg);
    CHECKF(targets_parse(&cfg, "GET /health\n", 12, "t.targets", "/tmp", "http://127.0.0.1:9000", err,
                         sizeof(err)) == 0, "%s", err);
    CHECK(cfg.ntargets == 1 && cfg.urls[0].port == 9000 && strcmp(cfg.urls[0].host, "127.0.0.1") == 0);
    config_free(&cfg);
    config_defaults(&cfg);
    CHECK(targets_parse(&cfg, "GET /health\n", 12, "t.targets", "/tmp", NULL, err, sizeof(err)) == -1 &&
          strncmp(err, "t.targets:1:", 12) == 0);
    config_free(&cfg);
}

int main(void)
{
    T_RUN(requests_as_written);
    T_RUN(mistakes_name_their_line);
    T_RUN(a_path_goes_to_the_base);
    T_END("test_targets");
}
