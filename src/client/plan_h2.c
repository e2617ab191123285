/* plan_h2.c - the HTTP/2 form of the plan's requests: each target's header
 * fields (nghttp2_nv) built once, from the same request spec as HTTP/1.1
 * (request_fields); a templated request's field values compiled, and
 * expanded per request with its body (plan_h2_expand) into the slot's
 * buffer. The session (http2.c) submits them; the engine builds and frees
 * this part of the plan. */
#include "client.h"
#include "err.h"
#include "request.h"

#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int any_template(const struct req_field *rf, int n)
{
    int k;
    for (k = 0; k < n; k++)
        if (template_has(rf[k].value, rf[k].vlen))
            return 1;
    return 0;
}

int plan_h2_build(struct plan *pl, char *err, size_t errlen)
{
    const struct config *cfg = pl->cfg;
    uint32_t i;
    int at = -1; /* the header at fault, when one is */

    for (i = 0; i < pl->ntargets; i++) {
        struct plan_target *pt = &pl->targets[i];
        struct req_field *rf;
        struct req_spec rs;
        char dir[4096];
        nghttp2_nv *nv;
        int n, k;
        config_request(cfg, i, &rs);
        /* A templated body has no content-length field: its DATA frames
         * end with END_STREAM (RFC 9113 §8.1). */
        rs.head_only = pt->body_tpl != NULL;
        n = request_fields(&rs, &cfg->urls[i], &rf, err, errlen);
        if (n < 0)
            goto fail;
        /* The fields' text stays in rf's block, after the nv array. */
        nv = malloc((size_t)n * sizeof(*nv) + sizeof(rf));
        if (nv == NULL) {
            free(rf);
            err_set(err, errlen, NULL, "out of memory");
            goto fail;
        }
        for (k = 0; k < n; k++) {
            nv[k].name = (uint8_t *)rf[k].name;
            nv[k].namelen = rf[k].nlen;
            nv[k].value = (uint8_t *)rf[k].value;
            nv[k].valuelen = rf[k].vlen;
            /* The plan outlives every session: nghttp2 need not copy. */
            nv[k].flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
        }
        memcpy(&nv[n], &rf, sizeof(rf)); /* kept to be freed */
        pt->h2nv = nv;
        pt->h2nnv = (size_t)n;
        if (cfg->replay_path && n > H2_MAX_FIELDS) {
            /* Each request's :method and :path are its own: sent as a templated one's. */
            err_set(err, errlen, NULL, "rafale replay: more than %d header fields in a request", H2_MAX_FIELDS);
            goto fail;
        }
        if (pt->req != NULL || !any_template(rf, n))
            continue; /* built once (a templated body alone needs no field of its own) */
        /* Templated: each value that holds one gets its template. Too many
         * fields are named at the first header line past the limit. */
        for (k = H2_MAX_FIELDS; k < n && at < 0; k++)
            at = rf[k].header;
        if (n > H2_MAX_FIELDS || (pt->h2val = calloc((size_t)n, sizeof(*pt->h2val))) == NULL) {
            err_set(err, errlen, NULL,
                    n > H2_MAX_FIELDS ? "more than %d header fields in a templated request" : "out of memory",
                    H2_MAX_FIELDS);
            goto fail;
        }
        plan_target_dir(cfg->targets ? &cfg->targets[i] : NULL, dir, sizeof(dir));
        for (k = 0; k < n; k++) {
            char why[512];
            if (!template_has(rf[k].value, rf[k].vlen))
                continue;
            /* {{csv FILE}} is relative to the targets file, as for HTTP/1.1. */
            enum tpl_where where = rf[k].nlen == 5 && memcmp(rf[k].name, ":path", 5) == 0 ? TPL_TARGET : TPL_FIELD;
            if (template_compile(rf[k].value, rf[k].vlen, where, pl->tset, dir, &pt->h2val[k], why, sizeof(why)) != 0) {
                at = rf[k].header;
                if (cfg->targets && cfg->targets[i].file)
                    err_set(err, errlen, NULL, "%s", why); /* fail: adds its line */
                else
                    err_set(err, errlen, NULL, "%s: %s", plan_tpl_origin(where), why);
                goto fail;
            }
            if (pt->h2val[k].max_len > H2_MAX_VALUE) {
                at = rf[k].header;
                err_set(err, errlen, NULL, "a templated header value may reach %zu bytes (%d at most)",
                        pt->h2val[k].max_len, H2_MAX_VALUE);
                goto fail;
            }
            pt->max_len += 2 + pt->h2val[k].max_len;
            pt->vars |= pt->h2val[k].vars;
        }
        if (pt->max_len > pl->max_len)
            pl->max_len = pt->max_len;
    }
    return 0;
fail:
    /* A targets file's request is named by the line at fault, as targets.c
     * does: the header's (on the lines after the request line), or the
     * request line's. */
    if (cfg->targets && cfg->targets[i].file) {
        char why[512];
        snprintf(why, sizeof(why), "%s", err);
        err_set(err, errlen, NULL, "%s:%u: %s", cfg->targets[i].file,
                cfg->targets[i].line + (at >= 0 ? 1 + (uint32_t)at : 0), why);
    }
    return -1;
}

void plan_h2_free(struct plan *pl)
{
    uint32_t i;
    for (i = 0; i < pl->ntargets; i++) {
        nghttp2_nv *nv = pl->targets[i].h2nv;
        if (pl->targets[i].h2val) {
            size_t k;
            for (k = 0; k < pl->targets[i].h2nnv; k++)
                template_free(&pl->targets[i].h2val[k]);
            free(pl->targets[i].h2val);
        }
        if (nv) {
            struct req_field *rf;
            memcpy(&rf, &nv[pl->targets[i].h2nnv], sizeof(rf));
            free(rf);
            free(nv);
        }
    }
}

size_t plan_h2_expand(const struct plan *pl, uint32_t target, struct tpl_ctx *ctx, char *out)
{
    const struct plan_target *pt = &pl->targets[target];
    size_t blen = pt->has_body ? plan_expand_body(pl, target, ctx, out) : 0, o = plan_h2_body_room(pt), k;
    /* Then each templated value, its length first (two bytes). */
    for (k = 0; pt->h2val && k < pt->h2nnv; k++) {
        size_t n;
        if (pt->h2val[k].nparts == 0)
            continue;
        n = template_expand(&pt->h2val[k], pl->tset, ctx, out + o + 2);
        out[o] = (char)(n >> 8);
        out[o + 1] = (char)n;
        o += 2 + n;
    }
    return blen;
}

size_t plan_h2_fields(const struct plan *pl, const struct slot *s, const struct jar *jar, char *buf, void *out)
{
    const struct plan_target *pt = &pl->targets[s->target];
    const char *v = s->req + plan_h2_body_room(pt), *path = pl->cfg->urls[s->target].target;
    nghttp2_nv *nv = out;
    size_t k, n = pt->h2nnv, ck, plen = strlen(path);
    for (k = 0; k < pt->h2nnv; k++) {
        nv[k] = ((const nghttp2_nv *)pt->h2nv)[k];
        if (pt->h2val == NULL || pt->h2val[k].nparts == 0)
            continue;
        nv[k].valuelen = ((size_t)(uint8_t)v[0] << 8) | (uint8_t)v[1];
        nv[k].value = (uint8_t *)v + 2;
        nv[k].flags = NGHTTP2_NV_FLAG_NO_COPY_NAME;
        v += 2 + nv[k].valuelen;
    }
    if (pl->cfg->replay_path) {
        /* The log's method and path; nghttp2 copies them. */
        const char *m;
        replay_fields(s->req, s->req_len, &m, &nv[H2_METHOD].valuelen, &path, &plen);
        nv[H2_METHOD].value = (uint8_t *)m;
        nv[H2_PATH].value = (uint8_t *)path;
        nv[H2_PATH].valuelen = plen;
        nv[H2_METHOD].flags = nv[H2_PATH].flags = NGHTTP2_NV_FLAG_NO_COPY_NAME;
    }
    if (jar && (ck = cookie_header(jar, path, plen, pt->tls, time(NULL), buf)) > 0 && n <= H2_MAX_FIELDS) {
        nv[n].name = (uint8_t *)"cookie";
        nv[n].namelen = 6;
        nv[n].value = (uint8_t *)buf;
        nv[n].valuelen = ck;
        nv[n].flags = NGHTTP2_NV_FLAG_NO_COPY_NAME;
        n++;
    }
    return n;
}
