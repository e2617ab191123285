/* patterns.c - rafale replay's targets: the endpoint patterns of its log
 * (accesslog_pattern), the busiest of its first lines a target each, so
 * each has its own row and charts in every report; the rest one "other"
 * target. The user's own (--pattern REGEX=NAME) come first, and the paths
 * they match are not counted for the automatic ones. Each replayed request keeps its own method and request-target
 * (client/replay.c writes its request line); a target gives the rest of
 * its bytes (Host, -H) and its row. */
#include "patterns.h"
#include "accesslog.h"
#include "err.h"
#include "targets.h"

#include <errno.h>
#include <regex.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The user's patterns, compiled. */
struct users {
    regex_t re[PATTERNS_USER_MAX];
    char name[PATTERNS_USER_MAX][PATTERN_NAME_MAX];
    uint32_t n;
};

/* Does one of the user's patterns match target's path? */
static int user_match(const struct users *u, const char *target, size_t n)
{
    char path[ALOG_TARGET_MAX + 1];
    uint32_t i;
    accesslog_path(target, n, path);
    for (i = 0; i < u->n; i++)
        if (regexec(&u->re[i], path, 0, NULL, 0) == 0)
            return 1;
    return 0;
}

/* The log, opened once, as a stream to scan (*in; NULL: nothing to scan).
 * A file is scanned from its start, and the reader opens it again. A pipe
 * or a FIFO cannot be read twice: its first REPLAY_HEAD_MAX bytes are read
 * into cfg->replay_head, their whole lines scanned, and they go to the
 * reader with the descriptor. */
static int open_log(struct config *cfg, FILE **in, char *err, size_t errlen)
{
    struct replay_head *h;
    struct stat st;
    const char *nl;
    int fd = open(cfg->replay_path, O_RDONLY | O_CLOEXEC);
    *in = NULL;
    if (fd < 0 || fstat(fd, &st) != 0 || (S_ISREG(st.st_mode) && (*in = fdopen(fd, "r")) == NULL)) {
        err_set(err, errlen, NULL, "%s: %s", cfg->replay_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (*in)
        return 0;
    if ((h = config_own(cfg, malloc(sizeof(*h)))) == NULL) {
        close(fd);
        return err_set(err, errlen, NULL, "out of memory");
    }
    h->fd = fd;
    h->len = 0;
    cfg->replay_head = h;
    while (h->len < REPLAY_HEAD_MAX) {
        ssize_t k = read(fd, h->bytes + h->len, REPLAY_HEAD_MAX - h->len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return err_set(err, errlen, NULL, "%s: %s", cfg->replay_path, strerror(errno));
        if (k == 0)
            break;
        h->len += (size_t)k;
    }
    if ((nl = memrchr(h->bytes, '\n', h->len)) != NULL && (*in = fmemopen(h->bytes, (size_t)(nl - h->bytes) + 1, "r")) == NULL)
        return err_set(err, errlen, NULL, "out of memory");
    return 0;
}

/* Counts the patterns of the log's first lines into k (n kinds). */
static int scan(struct config *cfg, const struct users *u, struct kind *k, uint32_t *n, char *err,
                size_t errlen)
{
    static char line[65536], target[ALOG_TARGET_MAX];
    enum alog_format f = ALOG_AUTO;
    FILE *in;
    uint64_t lines = 0;
    int cut = 0;
    if (cfg->replay_format && accesslog_format_parse(cfg->replay_format, &f) != 0)
        return err_set(err, errlen, NULL, "--format wants auto, combined, common or json, not '%s'",
                       cfg->replay_format);
    if (open_log(cfg, &in, err, errlen) != 0)
        return -1;
    while (in && lines < SCAN_LINES && fgets(line, sizeof(line), in)) {
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
            !accesslog_method_in(cfg->replay_methods, r.method) || user_match(u, target, r.target_len))
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
    if (in)
        fclose(in);
    return 0;
}

/* Is name one of the targets of cfg already? */
static int named(const struct config *cfg, const char *name)
{
    uint32_t i;
    for (i = 0; i < cfg->ntargets; i++)
        if (cfg->targets[i].name && strcmp(cfg->targets[i].name, name) == 0)
            return 1;
    return 0;
}

int patterns_load(struct config *cfg, const char *url, char *err, size_t errlen)
{
    struct kind *k = calloc(SCAN_KINDS, sizeof(*k));
    struct users *u = calloc(1, sizeof(*u));
    uint32_t n = 0, i;
    int rc = -1;
    if (k == NULL || u == NULL) {
        free(k);
        free(u);
        return err_set(err, errlen, NULL, "out of memory");
    }
    if (cfg->nreplay_patterns > PATTERNS_USER_MAX) {
        err_set(err, errlen, NULL, "--pattern: at most %d", PATTERNS_USER_MAX);
        goto out;
    }
    for (; u->n < cfg->nreplay_patterns; u->n++) {
        char why[300];
        if (accesslog_user_pattern(cfg->replay_patterns[u->n], &u->re[u->n], u->name[u->n], PATTERN_NAME_MAX, why,
                                   sizeof(why)) != 0) {
            err_set(err, errlen, NULL, "--pattern '%s': %s", cfg->replay_patterns[u->n], why);
            goto out;
        }
        if (!named(cfg, u->name[u->n]) && targets_add_named(cfg, url, u->name[u->n], err, errlen) != 0) {
            u->n++;
            goto out;
        }
    }
    if (scan(cfg, u, k, &n, err, errlen) != 0)
        goto out;
    qsort(k, n, sizeof(*k), busiest);
    for (i = 0; i < n && i < PATTERNS_MAX; i++)
        if (!named(cfg, k[i].name) && targets_add_named(cfg, url, k[i].name, err, errlen) != 0)
            goto out;
    rc = named(cfg, PATTERN_OTHER) ? 0 : targets_add_named(cfg, url, PATTERN_OTHER, err, errlen);
out:
    for (i = 0; i < u->n; i++)
        regfree(&u->re[i]);
    free(u);
    free(k);
    return rc;
}
