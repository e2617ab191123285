/* targets.c - the requests of a run, from the command line and from
 * --targets FILE (see targets.h): parsed and checked before any load, every
 * mistake named with its file and line. */
#include "targets.h"
#include "err.h"
#include "buf.h"
#include "http_lex.h"
#include "template.h"
#include "check.h"
#include "units.h"
#include "request.h"

#include <errno.h>

#define TARGETS_MAX_FILE ((size_t)64 << 20) /* a targets file, @FILE body or stdin */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int targets_parse_url(const char *text, struct url *u, char *err, size_t errlen)
{
    const char *scheme = strstr(text, "://"), *auth = scheme ? scheme + 3 : text, *path;
    struct buf sk = { 0 };
    size_t i, n = strlen(text);
    char *tp;

    path = auth + strcspn(auth, "/?#");
    if (!template_has(text, n))
        return url_parse(text, u, err, errlen);
    if (template_has(text, (size_t)(path - text))) {
        err_set(err, errlen, NULL, "templates go in the URL's path and query, not in its scheme, host or port");
        return -1;
    }
    /* Checked with each {{...}} as a plain value; the path keeps them. */
    for (i = 0; i < n;) {
        if (text[i] == '{' && i + 1 < n && text[i + 1] == '{') {
            const char *close = strstr(text + i + 2, "}}");
            if (close == NULL) {
                free(sk.p);
                err_set(err, errlen, NULL, "'{{' without '}}' in '%s'", text);
                return -1;
            }
            if (buf_put(&sk, "0", 1) != 0)
                goto oom;
            i = (size_t)(close - text) + 2;
        } else {
            if (buf_put(&sk, text + i, 1) != 0)
                goto oom;
            i++;
        }
    }
    if (buf_put(&sk, "", 1) != 0)
        goto oom;
    if (url_parse(sk.p, u, err, errlen) != 0) {
        free(sk.p);
        return -1;
    }
    free(sk.p);
    n = strcspn(path, "#");
    tp = malloc(n + 2);
    if (tp == NULL) {
        url_free(u);
        goto oom2;
    }
    i = 0;
    if (path[0] != '/')
        tp[i++] = '/';
    memcpy(tp + i, path, n);
    tp[i + n] = '\0';
    free(u->target);
    u->target = tp;
    return 0;
oom:
    free(sk.p);
oom2:
    err_set(err, errlen, NULL, "out of memory");
    return -1;
}

static int same_target(const struct config *cfg, uint32_t i, const char *text, const struct target *t)
{
    const struct target *o = &cfg->targets[i];
    uint32_t h;
    if (strcmp(cfg->url_text[i], text) != 0 || o->own != t->own || o->nheaders != t->nheaders ||
        o->has_body != t->has_body || o->body_len != t->body_len)
        return 0;
    if ((o->method == NULL) != (t->method == NULL) || (o->method && strcmp(o->method, t->method) != 0))
        return 0;
    if ((o->name == NULL) != (t->name == NULL) || (o->name && strcmp(o->name, t->name) != 0))
        return 0;
    for (h = 0; h < t->nheaders; h++)
        if (strcmp(o->headers[h], t->headers[h]) != 0)
            return 0;
    if (o->nchecks != t->nchecks || o->nextracts != t->nextracts || o->has_think != t->has_think ||
        o->think_lo_ns != t->think_lo_ns || o->think_hi_ns != t->think_hi_ns)
        return 0;
    for (h = 0; h < t->nchecks; h++)
        if (strcmp(o->checks[h], t->checks[h]) != 0)
            return 0;
    for (h = 0; h < t->nextracts; h++)
        if (strcmp(o->extracts[h], t->extracts[h]) != 0)
            return 0;
    return !t->has_body || memcmp(o->body, t->body, t->body_len) == 0;
}

/* FNV-1a over a target's parts, each ended by a byte no text holds. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return (h ^ 0xff) * 0x100000001b3ULL;
}

static uint64_t target_hash(const char *text, const struct target *t)
{
    uint64_t h = fnv(0xcbf29ce484222325ULL, text, strlen(text));
    uint32_t k;
    h = fnv(h, t->method ? t->method : "", t->method ? strlen(t->method) : 0);
    h = fnv(h, t->name ? t->name : "", t->name ? strlen(t->name) : 0);
    for (k = 0; k < t->nheaders; k++)
        h = fnv(h, t->headers[k], strlen(t->headers[k]));
    for (k = 0; k < t->nchecks; k++)
        h = fnv(h, t->checks[k], strlen(t->checks[k]));
    for (k = 0; k < t->nextracts; k++)
        h = fnv(h, t->extracts[k], strlen(t->extracts[k]));
    return t->has_body ? fnv(h, t->body, t->body_len) : h;
}

/* The slot of the hash where text/t is, or the empty one it would go in. */
static uint32_t *index_slot(const struct config *cfg, const char *text, const struct target *t)
{
    uint32_t mask = cfg->tindex_cap - 1, i = (uint32_t)target_hash(text, t) & mask;
    while (cfg->tindex[i] && !same_target(cfg, cfg->tindex[i] - 1, text, t))
        i = (i + 1) & mask;
    return &cfg->tindex[i];
}

/* Keeps the hash at most half full, rebuilt when it doubles. */
static int index_grow(struct config *cfg)
{
    uint32_t cap = cfg->tindex_cap ? cfg->tindex_cap : 64, i;
    if (cfg->tindex && (uint64_t)(cfg->ntargets + 1) * 2 <= cfg->tindex_cap)
        return 0;
    while ((uint64_t)(cfg->ntargets + 1) * 2 > cap)
        cap *= 2;
    free(cfg->tindex);
    if ((cfg->tindex = calloc(cap, sizeof(*cfg->tindex))) == NULL) {
        cfg->tindex_cap = 0;
        return -1;
    }
    cfg->tindex_cap = cap;
    for (i = 0; i < cfg->ntargets; i++)
        *index_slot(cfg, cfg->url_text[i], &cfg->targets[i]) = i + 1;
    return 0;
}

/* Appends a target (or, when the same one was written before, only its
 * turn in the order). */
static int add_target(struct config *cfg, const char *text, struct url *u, const struct target *t, char *err,
                      size_t errlen)
{
    uint32_t i, *slot, cap;
    if (index_grow(cfg) != 0)
        goto oom;
    slot = index_slot(cfg, text, t);
    if (*slot) {
        url_free(u);
        i = *slot - 1;
    } else {
        i = cfg->ntargets;
        /* The three arrays share one count and one room. */
        cap = cfg->urls_cap;
        if (config_grow(&cfg->urls, &cap, i + 1, sizeof(*cfg->urls)) != 0)
            goto oom;
        cap = cfg->urls_cap;
        if (config_grow(&cfg->url_text, &cap, i + 1, sizeof(*cfg->url_text)) != 0)
            goto oom;
        cap = cfg->urls_cap;
        if (config_grow(&cfg->targets, &cap, i + 1, sizeof(*cfg->targets)) != 0)
            goto oom;
        cfg->urls_cap = cap;
        if ((cfg->url_text[i] = config_keep(cfg, text)) == NULL)
            goto oom;
        cfg->urls[i] = *u;
        cfg->targets[i] = *t;
        cfg->ntargets++;
        *slot = i + 1;
    }
    if (config_grow(&cfg->order, &cfg->order_cap, cfg->norder + 1, sizeof(*cfg->order)) != 0)
        goto oom2;
    cfg->order[cfg->norder++] = i;
    return 0;
oom:
    url_free(u);
oom2:
    err_set(err, errlen, NULL, "out of memory");
    return -1;
}

int targets_add_url(struct config *cfg, const char *text, char *err, size_t errlen)
{
    struct url u;
    struct target t;
    memset(&t, 0, sizeof(t));
    if (url_parse(text, &u, err, errlen) != 0)
        return -1;
    return add_target(cfg, text, &u, &t, err, errlen);
}

int targets_add_named(struct config *cfg, const char *text, const char *name, char *err, size_t errlen)
{
    struct url u;
    struct target t;
    memset(&t, 0, sizeof(t));
    if ((t.name = config_keep(cfg, name)) == NULL)
        return err_set(err, errlen, NULL, "out of memory");
    if (url_parse(text, &u, err, errlen) != 0)
        return -1;
    return add_target(cfg, text, &u, &t, err, errlen);
}

/* --- the file --- */

struct tf {
    struct config *cfg;
    const char *file;        /* as the user named it */
    const char *base;        /* where paths go, or NULL */
    char dir[4096];          /* for @PATH and {{csv}} */
    uint32_t line;
    char *err;
    size_t errlen;
    /* The target being read. */
    int open;
    char *url;
    struct url u;
    struct target t;
    const char **hdr;        /* its header lines, until it is complete */
    uint32_t hcap;
    /* Directive lines (# name:, # check:, # extract:, # think:) waiting
     * for the request they stand before. */
    struct target pend;
    uint32_t pend_line, pchecks_cap, pextracts_cap;
};

static int tf_fail(struct tf *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int tf_fail(struct tf *f, const char *fmt, ...)
{
    char place[4200];
    va_list ap;
    snprintf(place, sizeof(place), "%s:%u", f->file, f->line);
    va_start(ap, fmt);
    err_setv(f->err, f->errlen, place, fmt, ap);
    va_end(ap);
    return -1;
}

/* Every template of the target compiles (then thrown away: the plan
 * compiles them again for the run). */
static int check_templates(struct tf *f, const char *what, enum tpl_where where, const char *s, size_t n)
{
    struct tpl_set set;
    struct tpl t;
    char why[512];
    int rc;
    if (!template_has(s, n))
        return 0;
    memset(&set, 0, sizeof(set));
    set.vars_any = 1; /* the extractions are checked against them when the run is planned */
    rc = template_compile(s, n, where, &set, f->dir, &t, why, sizeof(why));
    template_free(&t);
    template_set_free(&set);
    return rc == 0 ? 0 : tf_fail(f, "%s: %s", what, why);
}

static int tf_close(struct tf *f)
{
    const char **h = NULL;
    struct req_spec rs;
    uint32_t bad = 0;
    char why[512];
    if (!f->open)
        return 0;
    f->open = 0;
    /* A framing header that would not say where the request ends is named
     * at its own line (the header lines follow the request line). */
    memset(&rs, 0, sizeof(rs));
    rs.method = f->t.method;
    rs.headers = f->hdr;
    rs.nheaders = f->t.nheaders;
    rs.body = f->t.body;
    rs.body_len = f->t.body_len;
    rs.has_body = f->t.has_body;
    if (request_framing(&rs, &bad, why, sizeof(why)) != 0) {
        url_free(&f->u);
        f->line = f->t.line + 1 + bad;
        return tf_fail(f, "%s", why);
    }
    if (f->t.nheaders) {
        /* The header lines, in an array of the config's. */
        h = config_own(f->cfg, malloc(f->t.nheaders * sizeof(*h)));
        if (h == NULL) {
            url_free(&f->u);
            return tf_fail(f, "out of memory");
        }
        memcpy(h, f->hdr, f->t.nheaders * sizeof(*h));
    }
    f->t.headers = h;
    return add_target(f->cfg, f->url, &f->u, &f->t, f->err, f->errlen);
}

/* "METHOD URL [# name: NAME]" */
static int tf_request(struct tf *f, char *s)
{
    char *sp = s + strcspn(s, " \t"), *url, *rest;
    size_t k;
    if (tf_close(f) != 0)
        return -1;
    if (*sp == '\0')
        return tf_fail(f, "expected 'METHOD URL', got '%.60s'", s);
    *sp = '\0';
    for (k = 0; s[k]; k++)
        if (!lex_tchar(s[k]))
            return tf_fail(f, "'%.40s' is not an HTTP method", s);
    url = sp + 1 + strspn(sp + 1, " \t");
    /* The URL ends at a blank outside {{...}} ({{rand 1 9}} has blanks). */
    for (rest = url; *rest && *rest != ' ' && *rest != '\t'; rest++)
        if (rest[0] == '{' && rest[1] == '{' && strstr(rest, "}}"))
            rest = strstr(rest, "}}") + 1;
    memset(&f->t, 0, sizeof(f->t));
    if (*rest) {
        *rest++ = '\0';
        rest += strspn(rest, " \t");
        if (*rest) {
            /* "# name: NAME" */
            if (strncmp(rest, "#", 1) != 0)
                return tf_fail(f, "after the URL: expected '# name: NAME', got '%.60s'", rest);
            rest += 1 + strspn(rest + 1, " \t");
            if (strncmp(rest, "name:", 5) != 0)
                return tf_fail(f, "after the URL: expected '# name: NAME', got '# %.60s'", rest);
            rest += 5 + strspn(rest + 5, " \t");
            k = strlen(rest);
            while (k && (rest[k - 1] == ' ' || rest[k - 1] == '\t'))
                rest[--k] = '\0';
            if (k == 0)
                return tf_fail(f, "'# name:' without a name");
            for (k = 0; rest[k]; k++)
                if (!lex_field_char(rest[k]))
                    return tf_fail(f, "the name holds the control byte 0x%02x (it would reach terminals and reports)",
                                   (unsigned char)rest[k]);
            if ((f->t.name = config_keep(f->cfg, rest)) == NULL)
                return tf_fail(f, "out of memory");
        }
    }
    if (f->pend.name && f->t.name)
        return tf_fail(f, "a name twice: '# name: %.40s' on the line before and '# name:' after the URL", f->pend.name);
    if (f->pend.name)
        f->t.name = f->pend.name;
    f->t.checks = f->pend.checks;
    f->t.nchecks = f->pend.nchecks;
    f->t.extracts = f->pend.extracts;
    f->t.nextracts = f->pend.nextracts;
    f->t.has_think = f->pend.has_think;
    f->t.think_lo_ns = f->pend.think_lo_ns;
    f->t.think_hi_ns = f->pend.think_hi_ns;
    memset(&f->pend, 0, sizeof(f->pend));
    f->pchecks_cap = f->pextracts_cap = 0;
    f->pend_line = 0;
    if (*url == '\0')
        return tf_fail(f, "a method without a URL");
    if (url[0] == '/') {
        /* A path: on the compare file's server. */
        char full[8192];
        size_t bl;
        if (f->base == NULL)
            return tf_fail(f, "a path without a host: write the whole URL (http://host:port%.40s); in a compare file "
                              "paths go to each server", url);
        bl = strlen(f->base);
        while (bl && f->base[bl - 1] == '/')
            bl--;
        snprintf(full, sizeof(full), "%.*s%s", (int)bl, f->base, url);
        url = full;
        if ((f->url = (char *)config_keep(f->cfg, url)) == NULL)
            return tf_fail(f, "out of memory");
    } else if ((f->url = (char *)config_keep(f->cfg, url)) == NULL) {
        return tf_fail(f, "out of memory");
    }
    if ((f->t.method = config_keep(f->cfg, s)) == NULL)
        return tf_fail(f, "out of memory");
    {
        char why[512];
        if (targets_parse_url(f->url, &f->u, why, sizeof(why)) != 0)
            return tf_fail(f, "%s", why);
        if (check_templates(f, "the URL", TPL_TARGET, f->url, strlen(f->url)) != 0) {
            url_free(&f->u);
            return -1;
        }
    }
    f->t.own = 1;
    f->t.file = f->file;
    f->t.line = f->line;
    f->open = 1;
    return 0;
}

static int tf_header(struct tf *f, const char *s)
{
    const char *colon = strchr(s, ':'), *kept;
    size_t k;
    if (colon == NULL || colon == s)
        return tf_fail(f, "expected a header 'Name: value', '@FILE' or '< TEXT' (or a blank line before the next "
                          "request), got '%.60s'", s);
    for (k = 0; s + k < colon; k++)
        if (!lex_tchar(s[k]))
            return tf_fail(f, "bad header name '%.*s'", (int)(colon - s), s);
    /* RFC 9110 §5.5: CR, DEL and controls but HTAB are never sent. */
    for (k = 1; colon[k]; k++)
        if (!lex_field_char(colon[k]))
            return tf_fail(f, "the value of header '%.*s' holds the control byte 0x%02x, which a header cannot carry "
                              "(RFC 9110 section 5.5)", (int)(colon - s), s, (unsigned char)colon[k]);
    if (check_templates(f, "a header", TPL_FIELD, colon + 1, strlen(colon + 1)) != 0)
        return -1;
    if ((kept = config_keep(f->cfg, s)) == NULL)
        return tf_fail(f, "out of memory");
    if (f->t.nheaders == f->hcap) {
        uint32_t cap = f->hcap ? f->hcap * 2 : 8;
        const char **n = realloc((void *)f->hdr, cap * sizeof(*n));
        if (n == NULL)
            return tf_fail(f, "out of memory");
        f->hdr = n;
        f->hcap = cap;
    }
    f->hdr[f->t.nheaders++] = kept;
    return 0;
}

static int tf_body(struct tf *f, const char *s)
{
    if (f->t.has_body)
        return tf_fail(f, "a second body line: a target has one body at most");
    if (s[0] == '<') {
        const char *text = s + 1 + (s[1] == ' ');
        if ((f->t.body = config_keep(f->cfg, text)) == NULL)
            return tf_fail(f, "out of memory");
        f->t.body_len = strlen(text);
    } else {
        char path[8192];
        struct buf b = { 0 };
        const char *name = s + 1 + strspn(s + 1, " \t");
        if (*name == '\0')
            return tf_fail(f, "'@' without a file name");
        if (name[0] == '/')
            snprintf(path, sizeof(path), "%s", name);
        else
            snprintf(path, sizeof(path), "%s/%s", f->dir, name);
        if (buf_read_file(&b, path, TARGETS_MAX_FILE) != 0) {
            int e = errno;
            buf_free(&b);
            return tf_fail(f, "@%s: %s", name, e == EFBIG ? "larger than 64 MiB" : strerror(e));
        }
        if (b.p == NULL && (b.p = malloc(1)) == NULL)
            return tf_fail(f, "out of memory");
        if ((f->t.body = config_own(f->cfg, b.p)) == NULL)
            return tf_fail(f, "out of memory");
        f->t.body_len = b.len;
    }
    f->t.has_body = 1;
    return check_templates(f, "the body", TPL_BODY, f->t.body, f->t.body_len);
}

/* A duration or a range of them: "100ms", "1s-3s". */
static int think_range(const char *v, uint64_t *lo, uint64_t *hi)
{
    char a[64];
    const char *dash = strchr(v, '-');
    if (strlen(v) >= sizeof(a))
        return -1;
    if (dash == NULL)
        return units_parse_duration(v, lo) == 0 ? (*hi = *lo, 0) : -1;
    snprintf(a, sizeof(a), "%.*s", (int)(dash - v), v);
    if (units_parse_duration(a, lo) != 0 || units_parse_duration(dash + 1, hi) != 0 || *hi < *lo)
        return -1;
    return 0;
}

static int pend_add(struct tf *f, const char ***arr, uint32_t *n, uint32_t *cap, const char *v)
{
    const char *kept = config_keep(f->cfg, v);
    if (kept == NULL)
        return tf_fail(f, "out of memory");
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 4;
        const char **a = config_own(f->cfg, malloc(nc * sizeof(*a)));
        if (a == NULL)
            return tf_fail(f, "out of memory");
        if (*n)
            memcpy(a, *arr, *n * sizeof(*a));
        *arr = a; /* the old array stays the config's until it is freed */
        *cap = nc;
    }
    (*arr)[(*n)++] = kept;
    return 0;
}

/* "# name: NAME", "# check: EXPR", "# extract: NAME = EXPR", "# think: D":
 * a directive for the request after it. Returns 1 when s was one (0 or -1
 * in *rc), 0 when it is a plain comment. */
static int tf_directive(struct tf *f, const char *s, int *rc)
{
    static const char *const words[] = { "name:", "check:", "extract:", "think:" };
    const char *v;
    char why[400];
    int k;
    s += 1 + strspn(s + 1, " \t");
    for (k = 0; k < 4; k++)
        if (strncmp(s, words[k], strlen(words[k])) == 0)
            break;
    if (k == 4)
        return 0;
    v = s + strlen(words[k]);
    v += strspn(v, " \t");
    *rc = 0;
    if (f->pend_line == 0)
        f->pend_line = f->line;
    if (k == 0) {
        size_t n = strlen(v), i;
        char *name;
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
            n--;
        if (n == 0)
            return *rc = tf_fail(f, "'# name:' without a name"), 1;
        if (f->pend.name)
            return *rc = tf_fail(f, "a second '# name:' for one request"), 1;
        for (i = 0; i < n; i++)
            if (!lex_field_char(v[i]))
                return *rc = tf_fail(f, "the name holds the control byte 0x%02x (it would reach terminals and reports)",
                                     (unsigned char)v[i]), 1;
        if ((name = strndup(v, n)) == NULL || (f->pend.name = config_keep(f->cfg, name)) == NULL) {
            free(name);
            return *rc = tf_fail(f, "out of memory"), 1;
        }
        free(name);
    } else if (k == 1 || k == 2) {
        struct check c;
        if ((k == 1 ? check_compile(v, &c, why, sizeof(why)) : check_compile_extract(v, &c, why, sizeof(why))) != 0)
            return *rc = tf_fail(f, "# %s %s", words[k], why), 1;
        check_free(&c);
        *rc = k == 1 ? pend_add(f, &f->pend.checks, &f->pend.nchecks, &f->pchecks_cap, v)
                     : pend_add(f, &f->pend.extracts, &f->pend.nextracts, &f->pextracts_cap, v);
    } else {
        char d[64];
        size_t n = strcspn(v, " \t");
        snprintf(d, sizeof(d), "%.*s", (int)(n < 63 ? n : 63), v);
        if (f->pend.has_think)
            return *rc = tf_fail(f, "a second '# think:' for one request"), 1;
        if (think_range(d, &f->pend.think_lo_ns, &f->pend.think_hi_ns) != 0 || v[n + strspn(v + n, " \t")])
            return *rc = tf_fail(f, "# think: wants a duration or a range of them (100ms, 1s-3s), not '%.40s'", v), 1;
        f->pend.has_think = 1;
    }
    return 1;
}

/* A line that starts a request: a method token, a space, then a URL. */
static int is_request_line(const char *s)
{
    size_t k = 0;
    while (s[k] && lex_tchar(s[k]))
        k++;
    return k > 0 && (s[k] == ' ' || s[k] == '\t');
}

int targets_load(struct config *cfg, const char *path, const char *base, char *err, size_t errlen)
{
    struct buf b = { 0 };
    const char *slash = strrchr(path, '/');
    char dir[4096];
    int rc;

    if (strcmp(path, "-") == 0 || slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    /* Standard input has the files' cap: an endless pipe is refused, not
     * read until memory runs out. */
    if ((strcmp(path, "-") == 0 ? buf_read_stream(&b, stdin, TARGETS_MAX_FILE)
                                : buf_read_file(&b, path, TARGETS_MAX_FILE)) != 0) {
        err_set(err, errlen, NULL, "--targets: cannot read '%s': %s", strcmp(path, "-") == 0 ? "(stdin)" : path,
                errno == EFBIG ? "larger than 64 MiB" : strerror(errno));
        buf_free(&b);
        return -1;
    }
    rc = targets_parse(cfg, b.p ? b.p : "", b.len, strcmp(path, "-") == 0 ? "(stdin)" : path, dir, base, err, errlen);
    buf_free(&b);
    return rc;
}

int targets_parse(struct config *cfg, const char *text, size_t len, const char *name, const char *dir,
                  const char *base, char *err, size_t errlen)
{
    struct tf f;
    struct buf b = { 0 };
    size_t i = 0;
    uint32_t before = cfg->norder;
    int rc = 0;

    memset(&f, 0, sizeof(f));
    f.cfg = cfg;
    f.base = base;
    f.err = err;
    f.errlen = errlen;
    f.file = name;
    snprintf(f.dir, sizeof(f.dir), "%s", dir);
    /* A copy to cut into lines, ending with one. */
    if (buf_put(&b, text, len) != 0 || buf_put(&b, "\n", 1) != 0) {
        buf_free(&b);
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    while (i < b.len && rc == 0) {
        char *line = b.p + i, *end = memchr(line, '\n', b.len - i), *s;
        size_t n = (size_t)(end - line);
        i += n + 1;
        f.line++;
        if (n && line[n - 1] == '\r')
            n--;
        line[n] = '\0';
        if (memchr(line, '\0', n) != NULL) {
            rc = tf_fail(&f, "a NUL byte (is this a text file?)");
            break;
        }
        s = line + strspn(line, " \t");
        if (*s == '\0' || *s == '#') {
            rc = tf_close(&f); /* blank and comment lines end a target */
            if (rc == 0 && *s == '#')
                tf_directive(&f, s, &rc);
            continue;
        }
        if (!f.open && f.pend_line && !is_request_line(s)) {
            rc = tf_fail(&f, "expected the request the directives of line %u are for ('METHOD URL'), got '%.60s'",
                         f.pend_line, s);
            continue;
        }
        if (!f.open) {
            rc = is_request_line(s) ? tf_request(&f, s) : tf_fail(&f, "expected 'METHOD URL', got '%.60s'", s);
            continue;
        }
        if (f.t.has_body) {
            rc = tf_fail(&f, "nothing may follow the body line (a blank line ends the target)");
            continue;
        }
        if (*s == '@' || *s == '<')
            rc = tf_body(&f, s);
        else if (is_request_line(s) && strchr(s, ':') && strchr(s, ' ') < strchr(s, ':'))
            rc = tf_request(&f, s); /* the next request, without a blank line */
        else
            rc = tf_header(&f, s);
    }
    if (rc == 0)
        rc = tf_close(&f);
    else if (f.open)
        url_free(&f.u);
    if (rc == 0 && f.pend_line) {
        f.line = f.pend_line;
        rc = tf_fail(&f, "directives (# name:, # check:, # extract:, # think:) with no request after them");
    }
    buf_free(&b);
    free((void *)f.hdr);
    if (rc == 0 && cfg->norder == before) {
        err_set(err, errlen, NULL, "%s: no request in the file", f.file);
        return -1;
    }
    return rc;
}
