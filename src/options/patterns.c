/* patterns.c - rafale replay's targets: the endpoint patterns of its log
 * (accesslog_pattern), the busiest of its first lines a target each, so
 * each has its own row and charts in every report; the rest one "other"
 * target. Each replayed request keeps its own method and request-target
 * (client/replay.c writes its request line); a target gives the rest of
 * its bytes (Host, -H) and its row. */
#include "patterns.h"
#include "accesslog.h"
#include "err.h"
#include "targets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCAN_LINES 100000  /* lines read to find the busiest patterns */
#define SCAN_KINDS 4096    /* distinct patterns counted; past them, "other" */

struct kind {
    char name[PATTERN_NAME_MAX];
    uint64_t count, first;
};

static int busiest(const void *a, const void *b)
{
    const struct kind *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Counts the patterns of the log's first lines into k (n kinds). */
static int scan(const struct config *cfg, struct kind *k, uint32_t *n, char *err, size_t errlen)
{
    static char line[65536], target[ALOG_TARGET_MAX];
    enum alog_format f = ALOG_AUTO;
    FILE *in = fopen(cfg->replay_path, "r");
    uint64_t lines = 0;
    int cut = 0;
    if (in == NULL)
        return err_set(err, errlen, NULL, "%s: %s", cfg->replay_path, strerror(errno));
    if (cfg->replay_format && accesslog_format_parse(cfg->replay_format, &f) != 0) {
        fclose(in);
        return err_set(err, errlen, NULL, "--format wants auto, combined, common or json, not '%s'",
                       cfg->replay_format);
    }
    while (lines < SCAN_LINES && fgets(line, sizeof(line), in)) {
        size_t len = strlen(line), plen;
        struct alog_req r;
        char pat[PATTERN_NAME_MAX];
        uint32_t i;
        int was_cut = cut;
        cut = len > 0 && line[len - 1] != '\n';
        if (was_cut)
            continue; /* the rest of a long line */
        lines++;
        if (f == ALOG_AUTO && strspn(line, " \t\r\n") != len)
            f = accesslog_detect(line, len);
        if (accesslog_parse(f, line, len - (len > 0 && line[len - 1] == '\n'), &r, target) != ALOG_OK ||
            !accesslog_method_in(cfg->replay_methods, r.method))
            continue;
        plen = accesslog_pattern(target, r.target_len, pat, sizeof(pat));
        for (i = 0; i < *n && (strlen(k[i].name) != plen || memcmp(k[i].name, pat, plen) != 0); i++)
            ;
        if (i == *n && *n < SCAN_KINDS) {
            memcpy(k[i].name, pat, plen + 1);
            k[i].first = lines;
            (*n)++;
        }
        if (i < *n)
            k[i].count++;
    }
    fclose(in);
    return 0;
}

int patterns_load(struct config *cfg, const char *url, char *err, size_t errlen)
{
    struct kind *k = calloc(SCAN_KINDS, sizeof(*k));
    uint32_t n = 0, i;
    int rc = -1;
    if (k == NULL)
        return err_set(err, errlen, NULL, "out of memory");
    if (scan(cfg, k, &n, err, errlen) != 0)
        goto out;
    qsort(k, n, sizeof(*k), busiest);
    for (i = 0; i < n && i < PATTERNS_MAX; i++)
        if (targets_add_named(cfg, url, k[i].name, err, errlen) != 0)
            goto out;
    rc = targets_add_named(cfg, url, PATTERN_OTHER, err, errlen);
out:
    free(k);
    return rc;
}
