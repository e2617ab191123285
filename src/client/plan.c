/* plan.c - the read-only plan of a run: each target's target resolved once
 * (URLs on the same address and scheme share connections), each target's
 * request built once, so the hot path only ever writes a ready buffer; a
 * request with templates is compiled once and expanded per request into
 * the connection's buffer (plan_expand), with no allocation. */
#include "client.h"
#include "accesslog.h"
#include "err.h"
#include "request.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void tpl_drop(struct tpl **t)
{
    if (*t) {
        template_free(*t);
        free(*t);
        *t = NULL;
    }
}

void plan_free(struct plan *pl)
{
    uint32_t i;
    for (i = 0; i < pl->ntargets; i++) {
        free(pl->targets[i].req);
        tpl_drop(&pl->targets[i].head_tpl);
        tpl_drop(&pl->targets[i].body_tpl);
        free(pl->targets[i].log_json);
        free(pl->targets[i].log_csv);
        free(pl->targets[i].log_method);
    }
    for (i = 0; i < pl->nendpoints; i++) {
        free(pl->endpoints[i].targets);
        free(pl->endpoints[i].order);
    }
    for (i = 0; i < pl->nchecks; i++)
        check_free(&pl->checks[i]);
    for (i = 0; i < pl->nextracts; i++)
        check_free(&pl->extracts[i]);
    free(pl->checks);
    free(pl->check_target);
    free(pl->extracts);
    free(pl->extract_var);
    if (pl->tset)
        for (i = 0; i < pl->tset->nvars; i++)
            free((void *)pl->tset->var_names[i]);
    free(pl->targets);
    free(pl->endpoints);
    free((void *)pl->next);
    if (pl->tset) {
        template_set_free(pl->tset);
        free(pl->tset);
    }
    tls_client_free(pl->tls);
}

void plan_target_dir(const struct target *t, char *dir, size_t n)
{
    const char *slash = t && t->file ? strrchr(t->file, '/') : NULL;
    if (slash)
        snprintf(dir, n, "%.*s", (int)(slash - t->file), t->file);
    else
        snprintf(dir, n, ".");
}

const char *plan_tpl_origin(enum tpl_where where)
{
    /* A body from -p may be any bytes: the line must say that it is read as
     * a template, or a binary body holding '{{' is refused with no reason. */
    static const char *const from[] = { [TPL_BODY] = "the request body (-b or --body-file, read as a template)",
                                        [TPL_FIELD] = "a -H header", [TPL_TARGET] = "the URL",
                                        [TPL_HEAD] = "the URL or a -H header" };
    return where < sizeof(from) / sizeof(from[0]) ? from[where] : "a template";
}

/* Compiles s into a new template. Returns 0 or -1. */
static int compile(struct plan *pl, const char *s, size_t n, enum tpl_where where, const struct target *t,
                   struct tpl **out, char *err, size_t errlen)
{
    char why[512], dir[4096];
    plan_target_dir(t, dir, sizeof(dir));
    if ((*out = calloc(1, sizeof(**out))) == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    if (template_compile(s, n, where, pl->tset, dir, *out, why, sizeof(why)) != 0) {
        free(*out);
        *out = NULL;
        if (t && t->file)
            err_set(err, errlen, NULL, "%s:%u: %s", t->file, t->line, why);
        else
            err_set(err, errlen, NULL, "%s: %s", plan_tpl_origin(where), why);
        return -1;
    }
    return 0;
}

/* The request of target i, built once, or compiled when it holds templates. */
static int build_request(const struct config *cfg, struct plan *pl, uint32_t i, char *err, size_t errlen)
{
    struct plan_target *pt = &pl->targets[i];
    const struct target *t = cfg->targets ? &cfg->targets[i] : NULL;
    struct req_spec rs;
    uint32_t h;
    int templated;
    char why[512];

    config_request(cfg, i, &rs);
    /* Refused when the file or the options were read; checked again here,
     * once per target, so that no way into a plan skips it. */
    if (request_framing(&rs, &h, why, sizeof(why)) != 0) {
        if (t && t->own && t->file)
            err_set(err, errlen, NULL, "%s:%u: %s", t->file, t->line + 1 + h, why);
        else
            err_set(err, errlen, NULL, "--header '%.60s': %s", rs.headers[h], why);
        return -1;
    }
    pt->head = strcmp(rs.method, "HEAD") == 0;
    pt->tls = cfg->urls[i].tls;
    pt->has_body = rs.has_body;
    pt->body = rs.body;
    pt->body_len = rs.body_len;
    /* With --cookies every request carries its connection's Cookie field. */
    templated = cfg->cookies || template_has(cfg->urls[i].target, strlen(cfg->urls[i].target)) ||
                (rs.has_body && template_has(rs.body, rs.body_len));
    for (h = 0; h < rs.nheaders; h++)
        templated |= template_has(rs.headers[h], strlen(rs.headers[h]));
    if (!templated)
        return request_build(&rs, &cfg->urls[i], &pt->req, &pt->len, err, errlen);

    /* Head and body apart: the Content-Length is the body's expansion's. */
    rs.head_only = 1;
    pt->add_len = rs.has_body && !request_user_has(&rs, "Content-Length") && !request_user_has(&rs, "Transfer-Encoding");
    if (rs.has_body && template_has(rs.body, rs.body_len)) {
        if (compile(pl, rs.body, rs.body_len, TPL_BODY, t, &pt->body_tpl, err, errlen) != 0)
            return -1;
        pt->max_len = pt->body_tpl->max_len;
    } else if (rs.has_body) {
        pt->max_len = rs.body_len;
    }
    if (!pl->proto->fields) {
        /* HTTP/1.1's bytes (HTTP/2's fields are plan_h2.c's). */
        char *head;
        size_t n;
        int rc;
        if (request_build(&rs, &cfg->urls[i], &head, &n, err, errlen) != 0)
            return -1;
        rc = compile(pl, head, n, TPL_HEAD, t, &pt->head_tpl, err, errlen);
        free(head);
        if (rc != 0)
            return -1;
        pt->max_len += pt->head_tpl->max_len + 40; /* "Content-Length: N\r\n\r\n" */
        if (cfg->cookies)
            pt->max_len += 10 + JAR_HEADER_MAX; /* "Cookie: ...\r\n" */
    }
    pl->templated = 1;
    return 0;
}

size_t plan_expand(const struct plan *pl, uint32_t target, struct tpl_ctx *ctx, const struct jar *jar, char *out,
                   uint8_t *jar_line)
{
    const struct plan_target *pt = &pl->targets[target];
    size_t o = template_expand(pt->head_tpl, pl->tset, ctx, out), blen;
    char *body;
    *jar_line = 0;
    if (jar && jar->n) {
        /* The request's path is in its request line: METHOD SP path SP. */
        const char *p = memchr(out, ' ', o), *e = p ? memchr(p + 1, ' ', o - (size_t)(p + 1 - out)) : NULL;
        size_t k;
        memcpy(out + o, "Cookie: ", 8);
        k = p && e ? cookie_header(jar, p + 1, (size_t)(e - p - 1), pl->targets[target].tls, time(NULL), out + o + 8) : 0;
        if (k) {
            memcpy(out + o + 8 + k, "\r\n", 2);
            o += 10 + k;
        }
        *jar_line = k != 0;
    }
    if (!pt->has_body) {
        memcpy(out + o, "\r\n", 2);
        return o + 2;
    }
    /* The body goes after the head, whose length line is not known yet:
     * expanded at the far end of the buffer, then moved into place. */
    body = out + pt->max_len - (pt->body_tpl ? pt->body_tpl->max_len : pt->body_len);
    if (pt->body_tpl) {
        blen = template_expand(pt->body_tpl, pl->tset, ctx, body);
    } else {
        blen = pt->body_len;
        body = (char *)pt->body;
    }
    if (pt->add_len) {
        char num[32];
        int k = snprintf(num, sizeof(num), "Content-Length: %zu\r\n", blen);
        memcpy(out + o, num, (size_t)k);
        o += (size_t)k;
    }
    memcpy(out + o, "\r\n", 2);
    o += 2;
    memmove(out + o, body, blen);
    return o + blen;
}

size_t plan_expand_body(const struct plan *pl, uint32_t target, struct tpl_ctx *ctx, char *out)
{
    const struct plan_target *pt = &pl->targets[target];
    if (pt->body_tpl)
        return template_expand(pt->body_tpl, pl->tset, ctx, out);
    memcpy(out, pt->body, pt->body_len);
    return pt->body_len;
}

/* Each address's share of the --targets order. */
static int build_orders(const struct config *cfg, struct plan *pl, char *err, size_t errlen)
{
    uint32_t i, k;
    pl->next = calloc(pl->nendpoints ? pl->nendpoints : 1, sizeof(*pl->next));
    if (pl->next == NULL)
        goto oom;
    uint32_t n = cfg->norder ? cfg->norder : cfg->ntargets;
    /* One pass to count each address's share, one to fill it in. */
    for (k = 0; k < n; k++)
        pl->endpoints[pl->targets[cfg->norder ? cfg->order[k] : k].endpoint].norder++;
    for (i = 0; i < pl->nendpoints; i++) {
        if ((pl->endpoints[i].order = calloc(pl->endpoints[i].norder ? pl->endpoints[i].norder : 1, sizeof(uint32_t))) == NULL)
            goto oom;
        pl->endpoints[i].norder = 0;
    }
    for (k = 0; k < n; k++) {
        uint32_t u = cfg->norder ? cfg->order[k] : k;
        struct plan_endpoint *tg = &pl->endpoints[pl->targets[u].endpoint];
        tg->order[tg->norder++] = u;
    }
    return 0;
oom:
    err_set(err, errlen, NULL, "out of memory");
    return -1;
}

static int same_address(const struct plan_endpoint *tg, const struct net_addr *a, const struct url *u)
{
    return tg->addr.len == a->len && memcmp(&tg->addr.ss, &a->ss, a->len) == 0 && tg->tls == u->tls &&
           strcmp(tg->host, u->host) == 0;
}

/* Each target's checks and extractions, compiled for the run; the variables
 * the extractions set, named before any template that uses them compiles. */
static int build_checks(const struct config *cfg, struct plan *pl, char *err, size_t errlen)
{
    uint32_t i, k, nc = 0, nx = 0;
    char why[400];
    for (i = 0; i < cfg->ntargets; i++) {
        const struct target *t = cfg->targets ? &cfg->targets[i] : NULL;
        nc += cfg->ncheck_exprs + (t ? t->nchecks : 0);
        nx += t ? t->nextracts : 0;
    }
    pl->checks = calloc(nc ? nc : 1, sizeof(*pl->checks));
    pl->check_target = calloc(nc ? nc : 1, sizeof(*pl->check_target));
    pl->extracts = calloc(nx ? nx : 1, sizeof(*pl->extracts));
    pl->extract_var = calloc(nx ? nx : 1, sizeof(*pl->extract_var));
    if (pl->checks == NULL || pl->check_target == NULL || pl->extracts == NULL || pl->extract_var == NULL)
        goto oom;
    for (i = 0; i < cfg->ntargets; i++) {
        const struct target *t = cfg->targets ? &cfg->targets[i] : NULL;
        struct plan_target *pt = &pl->targets[i];
        uint32_t own = t ? t->nchecks : 0;
        pt->check0 = pl->nchecks;
        for (k = 0; k < own + cfg->ncheck_exprs; k++) {
            const char *e = k < own ? t->checks[k] : cfg->check_exprs[k - own];
            struct check *c = &pl->checks[pl->nchecks];
            if (check_compile(e, c, why, sizeof(why)) != 0)
                goto bad;
            pl->check_target[pl->nchecks++] = i;
            pt->capture |= (check_needs_head(c) ? CAPTURE_HEAD : 0) | (check_needs_body(c) ? CAPTURE_BODY : 0);
        }
        pt->nchecks = pl->nchecks - pt->check0;
        pt->extract0 = pl->nextracts;
        for (k = 0; t && k < t->nextracts; k++) {
            struct check *c = &pl->extracts[pl->nextracts];
            uint32_t v;
            if (check_compile_extract(t->extracts[k], c, why, sizeof(why)) != 0)
                goto bad;
            pl->nextracts++;
            pt->capture |= (check_needs_head(c) ? CAPTURE_HEAD : 0) | (check_needs_body(c) ? CAPTURE_BODY : 0);
            for (v = 0; v < pl->tset->nvars; v++)
                if (strcmp(pl->tset->var_names[v], c->var) == 0)
                    break;
            if (v == pl->tset->nvars) {
                if (v == TPL_MAX_VARS) {
                    snprintf(why, sizeof(why), "more than %d variables", TPL_MAX_VARS);
                    goto bad;
                }
                if ((pl->tset->var_names[v] = strdup(c->var)) == NULL)
                    goto oom;
                pl->tset->nvars++;
            }
            pl->extract_var[pl->nextracts - 1] = v;
        }
        pt->nextracts = pl->nextracts - pt->extract0;
        if (t && t->has_think && cfg->rate > 0) {
            snprintf(why, sizeof(why), "# think: is for a closed loop: with -R the schedule decides when requests go");
            goto bad;
        }
        if (t && t->has_think) {
            pt->think_lo = t->think_lo_ns;
            pt->think_hi = t->think_hi_ns;
        } else {
            pt->think_lo = cfg->think_lo_ns;
            pt->think_hi = cfg->think_hi_ns;
        }
        pt->after = (uint8_t)((pt->nchecks || pt->nextracts ? AFTER_VERIFY : 0) | (pt->think_hi ? AFTER_THINK : 0));
        continue;
bad:
        if (t && t->file)
            err_set(err, errlen, NULL, "%s:%u: %s", t->file, t->line, why);
        else
            err_set(err, errlen, NULL, "--check: %s", why);
        return -1;
    }
    for (k = 0; k < (uint32_t)cfg->slo.n; k++)
        if (cfg->slo.goal[k].metric == SLO_CHECKS_PCT && pl->nchecks == 0) {
            err_set(err, errlen, NULL,
                    "--slo %s: no response is checked (give --check, or # check: in the targets file)",
                    cfg->slo.goal[k].text);
            return -1;
        }
    return 0;
oom:
    err_set(err, errlen, NULL, "out of memory");
    return -1;
}

/* --log: each target's name (or its target, as typed) quoted once for JSON and
 * for CSV (RFC 4180), cut to 1 KiB; its method. */
static int log_labels(const struct config *cfg, struct plan *pl)
{
    uint32_t i;
    for (i = 0; i < pl->ntargets; i++) {
        struct plan_target *pt = &pl->targets[i];
        const struct target *t = cfg->targets ? &cfg->targets[i] : NULL;
        const char *name = t && t->name ? t->name : cfg->url_text[i];
        const char *m = t && t->own && t->method ? t->method : cfg->method;
        size_t n = text_cut(name, strlen(name), 1024), k, j = 0, c = 0;
        pt->log_json = malloc(n * 6 + 3);
        pt->log_csv = malloc(n * TEXT_REPLACEMENT_LEN + 3);
        pt->log_method = strdup(m);
        if (pt->log_json == NULL || pt->log_csv == NULL || pt->log_method == NULL)
            return -1;
        pt->log_json[j++] = '"';
        pt->log_csv[c++] = '"';
        for (k = 0; k < n; k++) {
            unsigned char b = (unsigned char)name[k];
            if (b >= 0x80) {
                /* A whole UTF-8 sequence goes as it is; a byte that is not
                 * as U+FFFD, as --json writes it: every line stays UTF-8. */
                size_t len = text_utf8_len(name + k, n - k);
                const char *from = len ? name + k : TEXT_REPLACEMENT;
                memcpy(pt->log_json + j, from, len ? len : TEXT_REPLACEMENT_LEN);
                memcpy(pt->log_csv + c, from, len ? len : TEXT_REPLACEMENT_LEN);
                j += len ? len : TEXT_REPLACEMENT_LEN;
                c += len ? len : TEXT_REPLACEMENT_LEN;
                k += len ? len - 1 : 0;
                continue;
            }
            if (b == '"' || b == '\\') {
                pt->log_json[j++] = '\\';
                pt->log_json[j++] = (char)b;
            } else if (b < 0x20 || b == 0x7f) {
                j += (size_t)snprintf(pt->log_json + j, 7, "\\u%04x", b);
            } else {
                pt->log_json[j++] = (char)b;
            }
            if (b == '"')
                pt->log_csv[c++] = '"';
            pt->log_csv[c++] = (char)b;
        }
        pt->log_json[j++] = '"';
        pt->log_csv[c++] = '"';
        pt->log_json_len = j;
        pt->log_csv_len = c;
        pt->log_method_len = strlen(m) > 64 ? 64 : strlen(m);
        /* The longest line of this target: its label, its method, and the
         * figures and keys (under 400 bytes). */
        if ((j > c ? j : c) + pt->log_method_len + 400 > pl->log_line_max)
            pl->log_line_max = (j > c ? j : c) + pt->log_method_len + 400;
    }
    return 0;
}

/* rafale replay: each request's line is the log's (its method and
 * request-target, replay.c), the rest of its bytes its target's, built
 * once: where that rest begins, and room for the longest line. HTTP/2 and
 * HTTP/3 take the slot's method and path as :method and :path, the rest
 * of the fields the target's (replay_fields). */
static int replay_plan(struct plan *pl, char *err, size_t errlen)
{
    uint32_t i;
    for (i = 0; i < pl->ntargets; i++) {
        struct plan_target *pt = &pl->targets[i];
        const char *sp = pt->req ? memchr(pt->req, ' ', pt->len) : NULL;
        sp = sp ? memchr(sp + 1, ' ', pt->len - (size_t)(sp + 1 - pt->req)) : NULL;
        if (sp == NULL)
            return err_set(err, errlen, NULL, "rafale replay: the requests cannot be templated (no {{...}}, --cookies)");
        pt->replay_rest = (size_t)(sp - pt->req);
        if (pt->len - pt->replay_rest + ALOG_METHOD_MAX + 1 + ALOG_TARGET_MAX > pl->max_len)
            pl->max_len = pt->len - pt->replay_rest + ALOG_METHOD_MAX + 1 + ALOG_TARGET_MAX;
    }
    pl->templated = 1; /* a buffer per slot, where each request is written */
    return 0;
}

int plan_build(const struct config *cfg, struct plan *pl, char *err, size_t errlen)
{
    uint32_t i, j, endpoints_cap = 0;

    memset(pl, 0, sizeof(*pl));
    pl->cfg = cfg;
    pl->proto = config_proto(cfg);
    pl->targets = calloc(cfg->ntargets, sizeof(*pl->targets));
    pl->tset = calloc(1, sizeof(*pl->tset));
    if (pl->targets == NULL || pl->tset == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    pl->ntargets = cfg->ntargets;
    pl->tset->stride = cfg->shard_count ? cfg->shard_count : 1;
    pl->tset->offset = cfg->shard_index;
    if (build_checks(cfg, pl, err, errlen) != 0)
        return -1;
    for (i = 0; i < cfg->ntargets; i++) {
        struct net_addr a;
        const struct url *u = &cfg->urls[i];
        if (build_request(cfg, pl, i, err, errlen) != 0)
            return -1;
        if (pl->targets[i].head_tpl)
            pl->targets[i].vars |= pl->targets[i].head_tpl->vars;
        if (pl->targets[i].body_tpl)
            pl->targets[i].vars |= pl->targets[i].body_tpl->vars;
        /* A host and port resolved for the URL before are not looked up
         * again: a targets file of 100 000 paths on one server resolves once. */
        if (i > 0 && (cfg->unix_socket || (strcmp(u->host, cfg->urls[i - 1].host) == 0 && u->port == cfg->urls[i - 1].port)))
            a = pl->endpoints[pl->targets[i - 1].endpoint].addr;
        else if (cfg->unix_socket ? net_unix(cfg->unix_socket, &a, err, errlen) != 0
                                  : config_resolve(cfg, u->host, (uint16_t)u->port, &a, err, errlen) != 0)
            return -1;
        /* URLs on the same address (and scheme) share connections; the
         * previous URL's address is looked at first, the usual case. */
        j = i > 0 ? pl->targets[i - 1].endpoint : 0;
        if (!(j < pl->nendpoints && same_address(&pl->endpoints[j], &a, u)))
            for (j = 0; j < pl->nendpoints; j++)
                if (same_address(&pl->endpoints[j], &a, u))
                    break;
        if (u->tls && pl->tls == NULL && !pl->proto->quic && tls_client_new(&cfg->tls, &pl->tls, err, errlen) != 0)
            return -1;
        /* Addresses and their targets grow by doubling: a file of 100 000
         * targets may name one server or 100 000. */
        if (j == pl->nendpoints) {
            if (config_grow(&pl->endpoints, &endpoints_cap, j + 1, sizeof(*pl->endpoints)) != 0) {
                err_set(err, errlen, NULL, "out of memory");
                return -1;
            }
            memset(&pl->endpoints[j], 0, sizeof(pl->endpoints[j]));
            pl->endpoints[j].addr = a;
            pl->endpoints[j].tls = u->tls;
            snprintf(pl->endpoints[j].host, sizeof(pl->endpoints[j].host), "%s", u->host);
            pl->nendpoints++;
        }
        if ((pl->endpoints[j].ntargets & (pl->endpoints[j].ntargets - 1)) == 0) {
            /* ntargets is 0 or a power of two: the room is full. */
            uint32_t *nu = realloc(pl->endpoints[j].targets, (pl->endpoints[j].ntargets ? 2 * (size_t)pl->endpoints[j].ntargets : 1) *
                                                            sizeof(uint32_t));
            if (nu == NULL) {
                err_set(err, errlen, NULL, "out of memory");
                return -1;
            }
            pl->endpoints[j].targets = nu;
        }
        pl->endpoints[j].targets[pl->endpoints[j].ntargets++] = i;
        pl->targets[i].endpoint = j;
        if (pl->targets[i].max_len > pl->max_len)
            pl->max_len = pl->targets[i].max_len;
    }
    if (cfg->follow && (pl->proto->takes & TAKES_FOLLOW)) {
        /* A redirect's request is rebuilt in the slot's buffer: the longest
         * head, a Location of up to 2 KiB, and the body. */
        for (i = 0; i < pl->ntargets; i++) {
            size_t n = (pl->targets[i].req ? pl->targets[i].len : pl->targets[i].max_len) + 2100;
            if (n > pl->max_len)
                pl->max_len = n;
        }
        pl->templated = 1;
    }
    if (cfg->replay_path && replay_plan(pl, err, errlen) != 0)
        return -1;
    if (build_orders(cfg, pl, err, errlen) != 0)
        return -1;
    if (cfg->out[OUT_LOG] && log_labels(cfg, pl) != 0) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    return 0;
}
