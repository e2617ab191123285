/* compare_file.c - the compare file: INI-like sections whose keys are the
 * option table's (opt.c), so it is checked exactly as a command line is
 * and a bad value gets the flag's own words, with FILE:LINE in front. */
#include "compare.h"
#include "compare_replay.h"
#include "proc.h"
#include "err.h"
#include "targets.h"
#include "opt.h"
#include "suggest.h"
#include "text.h"
#include "units.h"
#include "url.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct kv {
    char *key, *value;
    int line;
};

enum sec_kind { SEC_SETTINGS, SEC_SERVER, SEC_WORKLOAD };

struct section {
    enum sec_kind kind;
    char *name;
    int line;
    struct kv *kv;
    int nkv, capkv;
};

struct sections {
    struct section *s;
    int n, cap;
};

static char *trim(char *s)
{
    char *e;
    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static void sections_free(struct sections *ss)
{
    int i, k;
    for (i = 0; i < ss->n; i++) {
        for (k = 0; k < ss->s[i].nkv; k++) {
            free(ss->s[i].kv[k].key);
            free(ss->s[i].kv[k].value);
        }
        free(ss->s[i].kv);
        free(ss->s[i].name);
    }
    free(ss->s);
}

static int bad(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int bad(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
{
    char place[4200];
    va_list ap;
    if (line > 0)
        snprintf(place, sizeof(place), "%s:%d", path, line);
    else
        snprintf(place, sizeof(place), "%s", path);
    va_start(ap, fmt);
    err_setv(err, errlen, place, fmt, ap);
    va_end(ap);
    return -1;
}

/* A name compare prints on many lines (a server's, a workload's, the
 * baseline): plain UTF-8 text, no control byte or character, which a
 * terminal would act on. kind: "server" or "workload" for a section's
 * name, NULL for the baseline. Returns 0, or -1 with FILE:LINE. */
static int check_name(const char *path, int line, const char *kind, const char *name, char *err, size_t errlen)
{
    size_t n = strlen(name), k = text_safe_len(name, n);
    const unsigned char *b = (const unsigned char *)name + k;
    char shown[200], what[300], why[80];
    if (k == n)
        return 0;
    snprintf(shown, sizeof(shown), "%s", name);
    text_scrub(shown, strlen(shown), 1);
    if (kind)
        snprintf(what, sizeof(what), "the name of [%s %s]", kind, shown);
    else
        snprintf(what, sizeof(what), "baseline");
    if (text_utf8_len(name + k, n - k) == 2) /* 0xc2 0x80..0x9f */
        snprintf(why, sizeof(why), "the control character U+%04X", b[1]);
    else if (b[0] >= 0x80)
        return bad(err, errlen, path, line, "%s holds the byte 0x%02x, which is not UTF-8", what, b[0]);
    else
        snprintf(why, sizeof(why), "the control byte 0x%02x", b[0]);
    return bad(err, errlen, path, line, "%s holds %s (it would reach terminals and reports)", what, why);
}

/* A section [WORD NAME] whose WORD is none of settings, server, workload:
 * the one it may be a typo of, or NULL. */
static const char *section_near(const char *name)
{
    static const char *const kinds[] = { "settings", "server", "workload" };
    char word[32];
    struct suggest s;
    size_t i;
    snprintf(word, sizeof(word), "%.*s", (int)strcspn(name, " \t"), name);
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(word, kinds[i]) == 0)
            return NULL; /* the word is right: the name is what is wrong */
    suggest_init(&s, word);
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        suggest_offer(&s, kinds[i]);
    return s.best;
}

/* A section's opening line, [KIND NAME] at s (line ln): a new section of
 * ss. Returns 0, or what bad() returns. */
static int section_open(struct sections *ss, char *s, const char *path, int ln, char *err, size_t errlen)
{
    char *end = strchr(s, ']'), *name;
    enum sec_kind kind;
    struct section *sec;
    int rc;

    if (end == NULL || end[1] != '\0')
        return bad(err, errlen, path, ln, "a section is written [settings], [server NAME] or [workload NAME]");
    *end = '\0';
    name = trim(s + 1);
    if (strcmp(name, "settings") == 0) {
        kind = SEC_SETTINGS;
        name = "settings";
    } else if (strncmp(name, "server", 6) == 0 && isspace((unsigned char)name[6])) {
        kind = SEC_SERVER;
        name = trim(name + 6);
    } else if (strncmp(name, "workload", 8) == 0 && isspace((unsigned char)name[8])) {
        kind = SEC_WORKLOAD;
        name = trim(name + 8);
    } else {
        const char *near = section_near(name), *rest = name + strcspn(name, " \t");
        if (near)
            return bad(err, errlen, path, ln, "unknown section [%s]: did you mean [%s%s]?", name, near,
                       strcmp(near, "settings") == 0 ? "" : rest);
        return bad(err, errlen, path, ln, "unknown section [%s] (use [settings], [server NAME], [workload NAME])",
                   name);
    }
    if (kind != SEC_SETTINGS &&
        (rc = check_name(path, ln, kind == SEC_SERVER ? "server" : "workload", name, err, errlen)) != 0)
        return rc;
    if (ss->n == ss->cap) {
        int c = ss->cap ? ss->cap * 2 : 8;
        struct section *n = realloc(ss->s, (size_t)c * sizeof(*n));
        if (n == NULL)
            return bad(err, errlen, path, ln, "out of memory");
        ss->s = n;
        ss->cap = c;
    }
    sec = &ss->s[ss->n++];
    memset(sec, 0, sizeof(*sec));
    sec->kind = kind;
    sec->line = ln;
    if ((sec->name = strdup(name)) == NULL)
        return bad(err, errlen, path, ln, "out of memory");
    return 0;
}

/* Reads the file into sections of key = value lines. */
static int read_sections(const char *path, struct sections *ss, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int ln = 0, rc = 0;

    memset(ss, 0, sizeof(*ss));
    if (f == NULL)
        return bad(err, errlen, path, 0, "cannot read the compare file: %s", strerror(errno));
    while ((got = getline(&line, &cap, f)) >= 0) {
        char *s, *eq;
        struct section *sec;
        ssize_t k;
        ln++;
        /* Errors quote the line's values and the report shows them: a
         * control byte (an escape sequence, a NUL that would cut the line
         * short) is refused; a tab and the line's end are text. */
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            got--;
        for (k = 0; k < got && ((unsigned char)line[k] >= 0x20 || line[k] == '\t') && line[k] != 0x7f; k++)
            ;
        if (k < got) {
            char shown[200];
            s = line + strspn(line, " \t");
            snprintf(shown, sizeof(shown), "%.*s", (int)(got - (s - line)), s);
            text_scrub(shown, strlen(shown), 1);
            rc = bad(err, errlen, path, ln, "%s%s holds the control byte 0x%02x (it would reach terminals and "
                     "reports)", *s == '[' ? "the section " : "the line", *s == '[' ? shown : "",
                     (unsigned char)line[k]);
            break;
        }
        s = trim(line);
        /* Only a whole line is a comment: '#' inside a value (a shell
         * command, a URL fragment, a header) is kept. */
        if (*s == '\0' || *s == '#')
            continue;
        if (*s == '[') {
            if ((rc = section_open(ss, s, path, ln, err, errlen)) != 0)
                break;
            continue;
        }
        eq = strchr(s, '=');
        if (eq == NULL) {
            rc = bad(err, errlen, path, ln, "expected 'key = value'");
            break;
        }
        *eq = '\0';
        if (ss->n == 0) {
            rc = bad(err, errlen, path, ln, "'%s' comes before any section", trim(s));
            break;
        }
        sec = &ss->s[ss->n - 1];
        if (sec->nkv == sec->capkv) {
            int c = sec->capkv ? sec->capkv * 2 : 8;
            struct kv *n = realloc(sec->kv, (size_t)c * sizeof(*n));
            if (n == NULL) {
                rc = bad(err, errlen, path, ln, "out of memory");
                break;
            }
            sec->kv = n;
            sec->capkv = c;
        }
        sec->kv[sec->nkv].key = strdup(trim(s));
        sec->kv[sec->nkv].value = strdup(trim(eq + 1));
        sec->kv[sec->nkv].line = ln;
        sec->nkv++;
        if (sec->kv[sec->nkv - 1].key == NULL || sec->kv[sec->nkv - 1].value == NULL) {
            rc = bad(err, errlen, path, ln, "out of memory");
            break;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

/* One key of a workload (or a default in [settings]) through the option
 * table; duration also takes auto here (*dur_auto: 1 for auto, 0 for a
 * length). Returns 0, 1 when the key is not a workload key, or -1. */
static int workload_key(struct config *cfg, int *dur_auto, const struct kv *kv, const char *path, char *err,
                        size_t errlen)
{
    const struct opt_def *o = opt_find(kv->key, OPT_WORKLOAD);
    struct opt_dst d = { cfg, NULL, NULL, NULL };
    char why[400];
    if (o == NULL)
        return 1;
    if (strcmp(kv->key, "duration") == 0) {
        uint64_t ns;
        if (strcmp(kv->value, "auto") == 0) {
            *dur_auto = 1;
            return 0;
        }
        if (units_parse_duration(kv->value, &ns) != 0 || ns == 0)
            return bad(err, errlen, path, kv->line, "duration wants a duration such as 10s, 1m or 500ms, or auto, "
                       "not '%s'", kv->value);
        *dur_auto = 0;
    }
    if (opt_set(o, &d, kv->value, kv->key, why, sizeof(why)) != 0)
        return bad(err, errlen, path, kv->line, "%s", why);
    return 0;
}

static int parse_settings(struct compare_file *p, struct config *defaults, int *dur_auto, const struct section *sec,
                          const char *path, const struct kv **baseline, char *err, size_t errlen)
{
    int k;
    for (k = 0; k < sec->nkv; k++) {
        const struct kv *kv = &sec->kv[k];
        const struct opt_def *o = opt_find(kv->key, OPT_SETTINGS);
        int r;
        if (o) {
            struct opt_dst d = { NULL, NULL, &p->set, NULL };
            char why[400];
            if (opt_set(o, &d, kv->value, kv->key, why, sizeof(why)) != 0)
                return bad(err, errlen, path, kv->line, "%s", why);
            continue;
        }
        if (strcmp(kv->key, "path") == 0)
            return bad(err, errlen, path, kv->line, "path belongs to a [workload]");
        if (strcmp(kv->key, "baseline") == 0) {
            /* A server's name: found once every [server] is read. */
            if (check_name(path, kv->line, NULL, kv->value, err, errlen) != 0)
                return -1;
            *baseline = kv;
            continue;
        }
        r = workload_key(defaults, dur_auto, kv, path, err, errlen);
        if (r < 0)
            return -1;
        if (r > 0) {
            struct suggest s;
            char keys[400];
            suggest_init(&s, kv->key);
            opt_suggest(&s, OPT_SETTINGS | OPT_WORKLOAD);
            suggest_offer(&s, "baseline");
            if (s.best)
                return bad(err, errlen, path, kv->line, "unknown key '%s' in [settings]: did you mean %s?", kv->key,
                           s.best);
            opt_keys(OPT_SETTINGS, keys, sizeof(keys));
            return bad(err, errlen, path, kv->line,
                       "unknown key '%s' in [settings] (%s, baseline, or the default of any workload key)", kv->key,
                       keys);
        }
    }
    return 0;
}

static int keep_str(char **field, const char *v)
{
    free(*field);
    *field = strdup(v);
    return *field ? 0 : -1;
}

/* A [server]'s keys, in the order an error lists them. */
static const char *const server_keys[] = { "start", "pid", "cgroup", "reuse", "url", "dir", "env", "ready",
                                           "ready-status", "version" };

/* The error for an unknown key of a [server]: the key it may be a typo
 * of, or them all. */
static int unknown_server_key(const struct compare_server *sv, const struct kv *kv, const char *path, char *err,
                              size_t errlen)
{
    struct suggest s;
    char keys[200];
    size_t i, at = 0;
    suggest_init(&s, kv->key);
    for (i = 0; i < sizeof(server_keys) / sizeof(server_keys[0]); i++) {
        suggest_offer(&s, server_keys[i]);
        at += (size_t)snprintf(keys + at, sizeof(keys) - at, "%s%s", i ? ", " : "", server_keys[i]);
    }
    if (s.best)
        return bad(err, errlen, path, kv->line, "unknown key '%s' in [server %s]: did you mean %s?", kv->key, sv->name,
                   s.best);
    return bad(err, errlen, path, kv->line, "unknown key '%s' in [server %s] (%s)", kv->key, sv->name, keys);
}

static int parse_server(struct compare_server *sv, const struct section *sec, const char *path, char *err, size_t errlen)
{
    int k;
    status_set_default(&sv->ready_status);
    for (k = 0; k < sec->nkv; k++) {
        const struct kv *kv = &sec->kv[k];
        const char *key = kv->key, *v = kv->value;
        int rc = 0;
        if (!strcmp(key, "start"))
            rc = keep_str(&sv->start, v);
        else if (!strcmp(key, "url"))
            rc = keep_str(&sv->url, v);
        else if (!strcmp(key, "dir"))
            rc = keep_str(&sv->dir, v);
        else if (!strcmp(key, "ready")) {
            if (v[0] != '/')
                return bad(err, errlen, path, kv->line, "ready wants a path such as /health, not '%s'", v);
            rc = keep_str(&sv->ready, v);
        } else if (!strcmp(key, "cgroup")) {
            rc = keep_str(&sv->cgroup, v);
        } else if (!strcmp(key, "reuse")) {
            if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
                return bad(err, errlen, path, kv->line, "reuse wants yes or no, not '%s'", v);
            sv->reuse = strcmp(v, "yes") == 0;
        } else if (!strcmp(key, "version"))
            rc = keep_str(&sv->version_cmd, v);
        else if (!strcmp(key, "ready-status")) {
            char why[200];
            if (status_set_parse(v, &sv->ready_status, why, sizeof(why)) != 0)
                return bad(err, errlen, path, kv->line, "ready-status wants %s, not '%s'", why, v);
        } else if (!strcmp(key, "pid")) {
            uint64_t pid;
            if (units_parse_count(v, &pid) != 0 || pid == 0 || pid > 0x7fffffff)
                return bad(err, errlen, path, kv->line, "pid wants a process id, not '%s'", v);
            sv->pid = (int)pid;
        } else if (!strcmp(key, "env")) {
            char **n;
            if (strchr(v, '=') == NULL || v[0] == '=')
                return bad(err, errlen, path, kv->line, "env wants NAME=VALUE, not '%s'", v);
            n = realloc(sv->env, (size_t)(sv->nenv + 1) * sizeof(char *));
            if (n == NULL)
                return bad(err, errlen, path, kv->line, "out of memory");
            sv->env = n;
            if ((sv->env[sv->nenv] = strdup(v)) == NULL)
                rc = -1;
            else
                sv->nenv++;
        } else {
            return unknown_server_key(sv, kv, path, err, errlen);
        }
        if (rc != 0)
            return bad(err, errlen, path, kv->line, "out of memory");
    }
    if (sv->url == NULL)
        return bad(err, errlen, path, sec->line, "[server %s] has no url", sv->name);
    if ((sv->start != NULL) + (sv->pid != 0) + (sv->cgroup != NULL) + (sv->reuse != 0) != 1)
        return bad(err, errlen, path, sec->line,
                   "[server %s] needs one of start (a command), pid, cgroup or reuse = yes (already running)",
                   sv->name);
    return 0;
}

/* A file the workload names (*field), taken beside the compare file when
 * relative. Returns 0 or -1 (memory). */
static int beside(struct config *cfg, const char *file, const char **field)
{
    const char *slash = strrchr(file, '/');
    char full[4096];
    if ((*field)[0] == '/' || slash == NULL || strcmp(*field, "-") == 0)
        return 0;
    snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - file), file, *field);
    return (*field = config_keep(cfg, full)) ? 0 : -1;
}

static int parse_workload(struct compare_workload *wl, const struct config *defaults, int dur_auto,
                          const struct compare_settings *over, const struct section *sec, const char *path, char *err,
                          size_t errlen)
{
    char why[400], notes[8];
    int k;
    if (config_copy(&wl->cfg, defaults) != 0)
        return bad(err, errlen, path, sec->line, "out of memory");
    wl->duration_auto = dur_auto;
    for (k = 0; k < sec->nkv; k++) {
        const struct kv *kv = &sec->kv[k];
        int r;
        if (strcmp(kv->key, "path") == 0) {
            if (kv->value[0] != '/')
                return bad(err, errlen, path, kv->line, "path wants a path starting with /, not '%s'", kv->value);
            if (keep_str(&wl->path, kv->value) != 0)
                return bad(err, errlen, path, kv->line, "out of memory");
            continue;
        }
        if (strcmp(kv->key, "replay") == 0) {
            if ((wl->cfg.replay_path = config_keep(&wl->cfg, kv->value)) == NULL ||
                beside(&wl->cfg, path, &wl->cfg.replay_path) != 0)
                return bad(err, errlen, path, kv->line, "out of memory");
            continue;
        }
        r = workload_key(&wl->cfg, &wl->duration_auto, kv, path, err, errlen);
        if (r < 0)
            return -1;
        if (r > 0) {
            struct suggest s;
            suggest_init(&s, kv->key);
            opt_suggest(&s, OPT_WORKLOAD);
            suggest_offer(&s, "path");
            suggest_offer(&s, "replay");
            if (s.best)
                return bad(err, errlen, path, kv->line, "unknown key '%s' in [workload %s]: did you mean %s?",
                           kv->key, wl->name, s.best);
            return bad(err, errlen, path, kv->line,
                       "unknown key '%s' in [workload %s] (path, replay, or a run option by its long name: connections, "
                       "requests, duration, close, rate, method, header, body, body-file, content-type, expect, "
                       "timeout, ...; see rafale --help)",
                       kv->key, wl->name);
        }
    }
    if (wl->path == NULL && keep_str(&wl->path, "/") != 0)
        return bad(err, errlen, path, sec->line, "out of memory");
    for (k = 0; k < sec->nkv; k++) {
        const char *misfit = compare_replay_misfit(sec->kv[k].key, wl->cfg.replay_path != NULL);
        if (misfit)
            return bad(err, errlen, path, sec->kv[k].line, "%s %s", sec->kv[k].key, misfit);
    }
    if (over && over->warmup_set) /* the command line's, over the file's */
        wl->cfg.warmup_ns = over->warmup_ns;
    if (wl->cfg.replay_path) {
        /* The log's end ends a round: no duration of 5 s by default. */
        if (config_finish(&wl->cfg, why, sizeof(why), notes, sizeof(notes)) != 0 ||
            compare_replay_check(&wl->cfg, wl->duration_auto, why, sizeof(why)) != 0)
            return bad(err, errlen, path, sec->line, "[workload %s]: %s", wl->name, why);
        return 0;
    }
    if (wl->duration_auto) {
        /* Rounds sized in time: a count would end them first. */
        if (wl->cfg.requests)
            return bad(err, errlen, path, sec->line, "[workload %s]: duration = auto lengthens the rounds in time, "
                       "requests = %llu ends them at a count: give one of the two", wl->name,
                       (unsigned long long)wl->cfg.requests);
        wl->cfg.duration_ns = COMPARE_AUTO_FIRST_NS; /* until compare_rounds chooses */
    }
    /* Neither a count nor a duration: 5 s, not the 10 s of a plain run. */
    if (wl->cfg.requests == 0 && wl->cfg.duration_ns == 0)
        wl->cfg.duration_ns = 5 * 1000000000ULL;
    if (config_finish(&wl->cfg, why, sizeof(why), notes, sizeof(notes)) != 0)
        return bad(err, errlen, path, sec->line, "[workload %s]: %s", wl->name, why);
    if (wl->cfg.targets_path) {
        /* Relative to the compare file; read now, so a mistake stops the compare
         * before any server starts (paths go to each server's url). */
        struct config check;
        int rc;
        if (beside(&wl->cfg, path, &wl->cfg.targets_path) != 0 || config_copy(&check, &wl->cfg) != 0)
            return bad(err, errlen, path, sec->line, "out of memory");
        rc = targets_load(&check, wl->cfg.targets_path, "http://127.0.0.1:1", why, sizeof(why));
        config_free(&check);
        if (rc != 0)
            return bad(err, errlen, path, sec->line, "[workload %s]: %s", wl->name, why);
    }
    return 0;
}

/* Scheme, host and port: where a request goes (RFC 6454's origin). */
static int same_origin(const struct url *a, const struct url *b)
{
    return strcmp(a->scheme, b->scheme) == 0 && strcasecmp(a->host, b->host) == 0 && a->port == b->port;
}

/* Every target of a workload's targets file goes to the server under test:
 * a whole URL on another origin would measure another server in this
 * server's cell. Each server's paths are loaded on its url, so a path
 * always passes and a whole URL passes only on the one server it names. */
static int targets_on_servers(const struct compare_file *p, char *err, size_t errlen)
{
    int w, s;
    uint32_t k;
    for (w = 0; w < p->nworkloads; w++) {
        const struct compare_workload *wl = &p->workloads[w];
        if (wl->cfg.targets_path == NULL || strcmp(wl->cfg.targets_path, "-") == 0)
            continue; /* standard input is read once, by the run */
        for (s = 0; s < p->nservers; s++) {
            const struct compare_server *sv = &p->servers[s];
            struct config check;
            struct url base;
            char why[400];
            int rc = 0;
            if (url_parse(sv->url, &base, why, sizeof(why)) != 0)
                return bad(err, errlen, p->file, 0, "[server %s] url: %s", sv->name, why);
            if (config_copy(&check, &wl->cfg) != 0) {
                url_free(&base);
                return bad(err, errlen, p->file, 0, "out of memory");
            }
            if (targets_load(&check, wl->cfg.targets_path, sv->url, why, sizeof(why)) != 0)
                rc = bad(err, errlen, p->file, 0, "[workload %s]: %s", wl->name, why);
            for (k = 0; rc == 0 && k < check.ntargets; k++)
                if (check.targets[k].own && !same_origin(&check.urls[k], &base))
                    rc = bad(err, errlen, check.targets[k].file, (int)check.targets[k].line,
                             "%s is not on the server under test ([server %s] is %s): write the path alone so it "
                             "goes to each server", check.url_text[k], sv->name, sv->url);
            config_free(&check);
            url_free(&base);
            if (rc != 0)
                return -1;
        }
    }
    return 0;
}

/* A workload's TLS key has a use only when a server is https:// (its
 * targets file's URLs are on the server's origin, so the same scheme). */
static int tls_on_servers(const struct compare_file *p, char *err, size_t errlen)
{
    int w, s;
    for (w = 0; w < p->nworkloads; w++) {
        const char *tls = config_tls_given(&p->workloads[w].cfg);
        if (tls == NULL)
            continue;
        for (s = 0; s < p->nservers && strncasecmp(p->servers[s].url, "https://", 8) != 0; s++)
            ;
        if (s == p->nservers)
            return bad(err, errlen, p->file, 0, "[workload %s]: %s is for https:// URLs and every [server] url is "
                       "http://", p->workloads[w].name, tls);
    }
    return 0;
}

/* pin = auto: with neither list given and two CPUs or more, rafale gets a
 * quarter of the CPUs it may use (at least one, the last ones) and the
 * servers the rest. A quarter: rafale costs less per request than the
 * servers it measures, and a cell where it did not has its
 * client_cpu_bound finding. */
void compare_file_pin_auto(struct compare_settings *set)
{
    int cpus[CMP_MAX_CPUS], n, nc, i;
    if (set->pin == PIN_NO || set->nserver_cpus || set->nclient_cpus)
        return;
    n = proc_cpus_allowed(cpus, CMP_MAX_CPUS);
    if (n < 2)
        return;
    nc = n / 4 > 0 ? n / 4 : 1;
    for (i = 0; i < n - nc; i++)
        set->server_cpus[set->nserver_cpus++] = cpus[i];
    for (; i < n; i++)
        set->client_cpus[set->nclient_cpus++] = cpus[i];
    set->pin = PIN_CHOSE;
}

/* The command line's settings over the file's. */
static void override(struct compare_settings *set, const struct compare_settings *over)
{
    int k;
    if (over == NULL)
        return;
    if (over->repeat) {
        set->repeat = over->repeat;
        set->repeat_auto = over->repeat_auto;
    }
    if (over->max_repeat)
        set->max_repeat = over->max_repeat;
    if (over->max_duration_ns)
        set->max_duration_ns = over->max_duration_ns;
    if (over->same_within > 0)
        set->same_within = over->same_within;
    if (over->discard)
        set->discard = over->discard;
    if (over->pin)
        set->pin = over->pin;
    if (over->nserver_cpus) {
        memcpy(set->server_cpus, over->server_cpus, sizeof(set->server_cpus));
        set->nserver_cpus = over->nserver_cpus;
    }
    if (over->nclient_cpus) {
        memcpy(set->client_cpus, over->client_cpus, sizeof(set->client_cpus));
        set->nclient_cpus = over->nclient_cpus;
    }
    for (k = 0; k < OUT__COUNT; k++)
        if (over->out[k])
            set->out[k] = over->out[k];
}

int compare_file_parse(const char *path, const struct compare_settings *over, struct compare_file *p, char *err, size_t errlen)
{
    struct sections ss;
    struct config defaults;
    const struct kv *baseline = NULL;
    int i, j, rc = -1, dur_auto = 0;

    memset(p, 0, sizeof(*p));
    compare_settings_defaults(&p->set);
    /* Compare's own defaults for a workload: 50 connections, 1 s of warm-up,
     * threads to match the client CPUs (0 until the settings are known). */
    config_defaults(&defaults);
    defaults.connections = 50;
    defaults.warmup_ns = 1000000000ULL;
    defaults.threads = 0;
    memset(&ss, 0, sizeof(ss));
    if ((p->file = strdup(path)) == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        goto out;
    }
    if (read_sections(path, &ss, err, errlen) != 0)
        goto out;
    for (i = 0; i < ss.n; i++) {
        const struct section *sec = &ss.s[i];
        if (sec->kind == SEC_SETTINGS && parse_settings(p, &defaults, &dur_auto, sec, path, &baseline, err, errlen) != 0)
            goto out;
        if (sec->kind == SEC_SERVER)
            p->nservers++;
        if (sec->kind == SEC_WORKLOAD)
            p->nworkloads++;
    }
    override(&p->set, over);
    compare_file_pin_auto(&p->set);
    /* Threads not given: one per CPU rafale is pinned to, or one. */
    if (defaults.threads == 0)
        defaults.threads = p->set.nclient_cpus ? (uint32_t)p->set.nclient_cpus : 1;
    p->servers = calloc((size_t)p->nservers + 1, sizeof(*p->servers));
    p->workloads = calloc((size_t)p->nworkloads + 1, sizeof(*p->workloads));
    if (p->servers == NULL || p->workloads == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        goto out;
    }
    p->nservers = p->nworkloads = 0;
    /* [settings] apply to every workload, wherever they stand in the file. */
    for (i = 0; i < ss.n; i++) {
        const struct section *sec = &ss.s[i];
        if (sec->kind == SEC_SETTINGS)
            continue;
        if (sec->name[0] == '\0') {
            bad(err, errlen, path, sec->line, "a [%s] needs a name", sec->kind == SEC_SERVER ? "server" : "workload");
            goto out;
        }
        if (sec->kind == SEC_SERVER) {
            struct compare_server *sv = &p->servers[p->nservers++];
            for (j = 0; j < p->nservers - 1; j++)
                if (strcmp(p->servers[j].name, sec->name) == 0) {
                    bad(err, errlen, path, sec->line, "a second [server %s]", sec->name);
                    goto out;
                }
            if ((sv->name = strdup(sec->name)) == NULL || parse_server(sv, sec, path, err, errlen) != 0)
                goto out;
        } else {
            struct compare_workload *wl = &p->workloads[p->nworkloads++];
            for (j = 0; j < p->nworkloads - 1; j++)
                if (strcmp(p->workloads[j].name, sec->name) == 0) {
                    bad(err, errlen, path, sec->line, "a second [workload %s]", sec->name);
                    goto out;
                }
            if ((wl->name = strdup(sec->name)) == NULL ||
                parse_workload(wl, &defaults, dur_auto, over, sec, path, err, errlen) != 0)
                goto out;
        }
    }
    /* Checked last, so a mistake earlier in the file is the one told. */
    if (p->nservers == 0 || p->nworkloads == 0) {
        bad(err, errlen, path, 0, "needs at least one [server NAME] and one [workload NAME]");
        goto out;
    }
    if (targets_on_servers(p, err, errlen) != 0 || tls_on_servers(p, err, errlen) != 0)
        goto out;
    if (baseline) {
        for (j = 0; j < p->nservers && strcmp(p->servers[j].name, baseline->value) != 0; j++)
            ;
        if (j == p->nservers) {
            bad(err, errlen, path, baseline->line, "baseline names no [server]: '%s'", baseline->value);
            goto out;
        }
        p->baseline = j + 1;
    }
    rc = 0;
out:
    sections_free(&ss);
    config_free(&defaults);
    return rc;
}

void compare_file_free(struct compare_file *p)
{
    int i, k;
    for (i = 0; p->servers && i < p->nservers; i++) {
        struct compare_server *s = &p->servers[i];
        free(s->name);
        free(s->start);
        free(s->cgroup);
        free(s->url);
        free(s->dir);
        free(s->ready);
        free(s->version_cmd);
        free(s->version);
        for (k = 0; k < s->nenv; k++)
            free(s->env[k]);
        free(s->env);
    }
    for (i = 0; p->workloads && i < p->nworkloads; i++) {
        free(p->workloads[i].name);
        free(p->workloads[i].path);
        config_free(&p->workloads[i].cfg);
    }
    free(p->servers);
    free(p->workloads);
    free(p->file);
    memset(p, 0, sizeof(*p));
}
