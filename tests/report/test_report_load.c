/* A result saved with --json read back: its figures as written (counts,
 * statuses, the latency histogram's count, min and max), its
 * configuration owned; a missing file, text that is not JSON, a figure of
 * the wrong type and a histogram that contradicts its own min and max are
 * each refused with a one-line reason naming the file. */
#include "report_load.h"
#include "../t.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BASE "tests/data/saved/base.json"

static int load(const char *path, struct run_result *r, char *err, size_t errlen)
{
    json_t *root = report_load_json(path, err, errlen);
    int rc;
    result_init(r);
    if (!root)
        return -1;
    rc = report_load_run_root(root, path, r, err, errlen);
    json_decref(root);
    return rc;
}

static void saved_run_as_written(void)
{
    struct run_result r;
    char err[512] = "";
    int rc = load(BASE, &r, err, sizeof(err));
    CHECKF(rc == 0, "%s", err);
    if (rc == 0) {
        const struct stats *t = &r.fig.total;
        CHECK(t->completed == 150 && t->started == 150 && t->status[200] == 150 && stats_errors(t) == 0);
        CHECK(t->bytes_received == 19650 && t->bytes_sent == 12150 && t->conns_opened == 2);
        CHECK(r.fig.elapsed_s == 5.0);
        CHECK(r.cfg && r.cfg == r.own_cfg && r.cfg->connections == 2 && r.cfg->threads == 1);
        CHECK(r.fig.ntargets == 1 && r.fig.per_target && r.fig.per_target[0].completed == 150);
        /* The histogram: 150 values, its min and max as written (ns). */
        const struct hist *h = &r.fig.per_target[0].h[H_LATENCY];
        CHECKF(h->total == 150 && h->min == 1247284 && h->max == 8024745, "%llu %llu %llu",
               (unsigned long long)h->total, (unsigned long long)h->min, (unsigned long long)h->max);
    }
    result_free(&r);
}

/* BASE with one edit (old, there once, replaced by new), written to path. */
static int edited(const char *path, const char *old, const char *new)
{
    FILE *f = fopen(BASE, "rb");
    static char text[1 << 20];
    size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    char *at;
    if (f)
        fclose(f);
    text[n] = 0;
    at = strstr(text, old);
    if (!at || strstr(at + 1, old))
        return -1;
    f = fopen(path, "wb");
    if (!f)
        return -1;
    fwrite(text, 1, (size_t)(at - text), f);
    fputs(new, f);
    fputs(at + strlen(old), f);
    fclose(f);
    return 0;
}

static void bad_files_refused(void)
{
    static const struct {
        const char *old, *new, *want;
    } cases[] = {
        { "\"tool\"", "[\"tool\"", "" },                                  /* not JSON */
        /* A figure of the wrong type; a min outside its first bucket (the totals' and the URL's are written
         * alike: the edit is the totals', the line's indent telling them apart). */
        { "\n  \"summary\": {\"protocol\": \"http/1.1\", \"requests\": 150,",
          "\n  \"summary\": {\"protocol\": \"http/1.1\", \"requests\": \"many\",", "requests" },
        { "\n  \"latency\": {\"count\": 150, \"min_us\": 1247.284", "\n  \"latency\": {\"count\": 150, \"min_us\": 100.0",
          "min_us" },
        /* The keys issue 41 added, each refused when it cannot be: a probe of more answers than requests, an
         * interval whose low is above its high, a precision goal that is not a share. */
        { "\n  \"summary\": {\"protocol\"",
          "\n  \"probe\": {\"requests\": 2, \"answered\": 5, \"failed\": 0, \"bad\": 0, \"elapsed_s\": 0.1, "
          "\"latency_p50_us\": 5.0, \"latency_min_us\": 4.0, \"targets\": [{\"answered\": 5, \"latency_p50_us\": 5.0, "
          "\"latency_min_us\": 4.0}]},\n  \"summary\": {\"protocol\"", "probe.requests" },
        { "\n  \"summary\": {\"protocol\": \"http/1.1\", \"requests\": 150,",
          "\n  \"intervals\": {\"batches\": 10, \"batch_s\": 0.1},\n  \"summary\": {\"rps_ci\": [9, 1], "
          "\"protocol\": \"http/1.1\", \"requests\": 150,", "summary.rps_ci" },
        { "\n  \"summary\": {\"protocol\"", "\n  \"precision\": {\"goal\": {\"p99\": 7}},\n  \"summary\": {\"protocol\"",
          "precision.p99" },
        /* rafale replay's: a format it does not read, methods that are not, a skipped "method" that is not. */
        { "\"config\": {\"urls\"", "\"config\": {\"replay\": {\"log\": \"a.log\", \"format\": \"xml\"}, \"urls\"",
          "config.replay.format" },
        { "\"config\": {\"urls\"", "\"config\": {\"replay\": {\"log\": \"a.log\", \"methods\": \"GET\\r\\n\"}, \"urls\"",
          "config.replay.methods" },
        { "\"config\": {\"urls\"", "\"config\": {\"replay\": {\"log\": \"a.log\", \"speed\": 0}, \"urls\"",
          "config.replay.speed" },
        { "\"config\": {\"urls\"",
          "\"replay\": {\"lines\": 3, \"replayed\": 1, \"skipped_methods\": {\"PO ST\": 2}},\n  \"config\": "
          "{\"replay\": {\"log\": \"a.log\"}, \"urls\"", "replay.skipped_methods" },
    };
    char path[] = "/tmp/rafale-test-report-load-XXXXXX";
    int fd = mkstemp(path);
    size_t i;
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct run_result r;
        char err[512] = "";
        CHECKF(edited(path, cases[i].old, cases[i].new) == 0, "case %zu: the edit is there once", i);
        CHECKF(load(path, &r, err, sizeof(err)) == -1 && strstr(err, path) && strstr(err, cases[i].want) &&
               !strchr(err, '\n'), "case %zu: '%s'", i, err);
        result_free(&r);
    }
    {
        /* A saved replay read back: its settings and its tally, for the reports (and the findings: open loop). */
        struct run_result r;
        char err[512] = "";
        CHECK(edited(path, "\"config\": {\"urls\"",
                     "\"config\": {\"replay\": {\"log\": \"a.log\", \"speed\": 2, \"format\": \"json\", \"limit\": "
                     "null, \"methods\": \"GET,HEAD\"}, \"urls\"") == 0);
        CHECKF(load(path, &r, err, sizeof(err)) == 0, "%s", err);
        CHECK(r.cfg && r.cfg->replay_path && strcmp(r.cfg->replay_path, "a.log") == 0 && r.cfg->replay_speed == 2 &&
              r.cfg->replay_limit == 0 && strcmp(r.cfg->replay_methods, "GET,HEAD") == 0 && r.cfg->replay_tally &&
              strcmp(r.cfg->replay_tally->format, "json") == 0 && config_open_loop(r.cfg));
        result_free(&r);
    }
    unlink(path);
    {
        struct run_result r;
        char err[512] = "";
        CHECK(load("/nonexistent/x.json", &r, err, sizeof(err)) == -1 && strstr(err, "/nonexistent/x.json"));
        result_free(&r);
    }
}

int main(void)
{
    T_RUN(saved_run_as_written);
    T_RUN(bad_files_refused);
    T_END("test_report_load");
}
