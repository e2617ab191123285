/* rafale replay's targets: the endpoint patterns of a log's lines (ids as
 * {id}: numbers, UUIDs, long hex; the query folded), the busiest a target
 * each in order of their counts (ties: first seen), the rest "other";
 * only the methods replayed are counted. */
#include "config.h"
#include "patterns.h"
#include "../t.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char path[64];
static FILE *log_f;

static void open_log(void)
{
    int fd;
    snprintf(path, sizeof(path), "/tmp/rafale-test-patterns-XXXXXX");
    fd = mkstemp(path);
    CHECK(fd >= 0 && (log_f = fdopen(fd, "w")) != NULL);
}

/* n combined-format lines of method and target. */
static void lines(int n, const char *method, const char *target)
{
    int i;
    for (i = 0; i < n; i++)
        fprintf(log_f, "10.0.0.%d - - [10/Oct/2000:13:55:%02d +0000] \"%s %s HTTP/1.1\" 200 12 \"-\" \"ua\"\n", i % 250,
                i % 60, method, target);
}

/* Loads the log into cfg (methods: --methods or NULL); 0 or -1 with err. */
static int load(struct config *cfg, const char *methods, const char *format, char *err, size_t errlen)
{
    fflush(log_f);
    config_defaults(cfg);
    cfg->replay_path = path;
    cfg->replay_methods = methods;
    cfg->replay_format = format;
    err[0] = '\0';
    return patterns_load(cfg, "http://127.0.0.1:8080", err, errlen);
}

static const char *name(const struct config *cfg, uint32_t i)
{
    return i < cfg->ntargets && cfg->targets[i].name ? cfg->targets[i].name : "(none)";
}

static void ids_folded_busiest_first(void)
{
    struct config cfg;
    char err[256];
    open_log();
    lines(2, "GET", "/search?q=shoes");
    lines(3, "GET", "/users/123/orders");
    lines(2, "GET", "/users/98765/orders?page=2");
    lines(4, "GET", "/items/550e8400-e29b-41d4-a716-446655440000");
    lines(1, "GET", "/blob/deadbeef0123456789abcdef");
    lines(1, "GET", "/blob/deadbeef01234567");
    /* Hex letters alone, or short hex: words, not ids. */
    lines(3, "GET", "/static/abcdefabcdefabcdef");
    lines(1, "GET", "/v/abc123");
    lines(2, "GET", "/search?q=hats#top");
    lines(9, "POST", "/login"); /* not replayed by default: not counted */
    fputs("this is not a log line\n\n", log_f);
    lines(1, "HEAD", "/");
    CHECKF(load(&cfg, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
    CHECKF(cfg.ntargets == 8, "%u targets", cfg.ntargets);
    /* 5 /users/{id}/orders, 4 /search and /items/{id} (search first seen),
     * 3 /static/..., 2 /blob/{id}, then 1 each in the order seen. */
    CHECK(strcmp(name(&cfg, 0), "/users/{id}/orders") == 0);
    CHECK(strcmp(name(&cfg, 1), "/search") == 0);
    CHECK(strcmp(name(&cfg, 2), "/items/{id}") == 0);
    CHECK(strcmp(name(&cfg, 3), "/static/abcdefabcdefabcdef") == 0);
    CHECK(strcmp(name(&cfg, 4), "/blob/{id}") == 0);
    CHECK(strcmp(name(&cfg, 5), "/v/abc123") == 0);
    CHECK(strcmp(name(&cfg, 6), "/") == 0);
    CHECK(strcmp(name(&cfg, 7), "other") == 0);
    /* Every target on the URL given: its host and port, its own row. */
    CHECK(cfg.urls[0].port == 8080 && strcmp(cfg.urls[7].host, "127.0.0.1") == 0);
    config_free(&cfg);

    /* --methods POST: the log's POSTs alone. */
    CHECKF(load(&cfg, "POST", NULL, err, sizeof(err)) == 0, "%s", err);
    CHECK(cfg.ntargets == 2 && strcmp(name(&cfg, 0), "/login") == 0 && strcmp(name(&cfg, 1), "other") == 0);
    config_free(&cfg);
    fclose(log_f);
    unlink(path);
}

static void the_busiest_twelve_kept(void)
{
    struct config cfg;
    char err[256], t[32];
    int i;
    open_log();
    /* 15 patterns, /p0 the least busy, /p14 the busiest. */
    for (i = 0; i < 15; i++) {
        snprintf(t, sizeof(t), "/p%d", i);
        lines(i + 1, "GET", t);
    }
    CHECKF(load(&cfg, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
    CHECK(cfg.ntargets == PATTERNS_MAX + 1);
    CHECK(strcmp(name(&cfg, 0), "/p14") == 0 && strcmp(name(&cfg, 11), "/p3") == 0);
    CHECK(strcmp(name(&cfg, PATTERNS_MAX), PATTERN_OTHER) == 0);
    for (i = 0; i < (int)cfg.ntargets; i++)
        CHECK(strcmp(name(&cfg, (uint32_t)i), "/p0") != 0 && strcmp(name(&cfg, (uint32_t)i), "/p2") != 0);
    config_free(&cfg);
    fclose(log_f);
    unlink(path);
}

static void a_long_line_is_one_line(void)
{
    struct config cfg;
    char err[256];
    int i;
    open_log();
    /* A line longer than the reader's buffer (64 KiB) that ends as a log
     * line would: its end is the rest of that line, not a line of its own. */
    for (i = 0; i < 65535; i++)
        fputc('x', log_f);
    lines(1, "GET", "/fake");
    lines(1, "GET", "/short");
    CHECKF(load(&cfg, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
    CHECKF(cfg.ntargets == 2 && strcmp(name(&cfg, 0), "/short") == 0, "%u targets, the first %s", cfg.ntargets,
           name(&cfg, 0));
    config_free(&cfg);
    fclose(log_f);
    unlink(path);
}

static void mistakes_said(void)
{
    struct config cfg;
    char err[256];
    open_log();
    lines(1, "GET", "/");
    CHECK(load(&cfg, NULL, "apache", err, sizeof(err)) == -1);
    CHECKF(strcmp(err, "--format wants auto, combined, common or json, not 'apache'") == 0, "%s", err);
    config_free(&cfg);
    fclose(log_f);
    unlink(path);
    CHECK(load(&cfg, NULL, NULL, err, sizeof(err)) == -1);
    CHECKF(strstr(err, path) == err && strstr(err, "No such file or directory") != NULL, "%s", err);
    config_free(&cfg);
}

static void an_empty_log_has_other_alone(void)
{
    struct config cfg;
    char err[256];
    open_log();
    CHECKF(load(&cfg, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
    CHECK(cfg.ntargets == 1 && strcmp(name(&cfg, 0), "other") == 0);
    config_free(&cfg);
    fclose(log_f);
    unlink(path);
}

int main(void)
{
    T_RUN(ids_folded_busiest_first);
    T_RUN(the_busiest_twelve_kept);
    T_RUN(a_long_line_is_one_line);
    T_RUN(mistakes_said);
    T_RUN(an_empty_log_has_other_alone);
    T_END("patterns");
}
