/* The plan's HTTP/2 form (src/client/plan_h2.c): a templated request's
 * field values expanded per request after its body, and read back as its
 * fields (the others as built once), the jar's cookies one more field; a
 * templated request of more fields than H2_MAX_FIELDS, or a value that may
 * pass H2_MAX_VALUE, refused before the run. */
#include "client.h"
#include "targets.h"
#include "../t.h"

#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The h2 plan of URL with the extra headers (NULL-ended) and body;
 * returns plan_h2_build's result, err its reason. */
static int build(struct config *cfg, struct plan *pl, const char *url, const char *const *headers, const char *body,
                 char *err, size_t errlen)
{
    char notes[256];
    config_defaults(cfg);
    CHECKF(targets_add_url(cfg, url, err, errlen) == 0, "%s", err);
    cfg->proto_asked[PROTO_HTTP2] = 1;
    for (; headers && *headers; headers++)
        CHECK(config_add_header(cfg, *headers) == 0);
    if (body) {
        cfg->body = strdup(body);
        cfg->body_len = strlen(body);
        cfg->has_body = 1;
    }
    CHECKF(config_finish(cfg, err, errlen, notes, sizeof(notes)) == 0, "%s", err);
    CHECKF(plan_build(cfg, pl, err, errlen) == 0, "%s", err);
    return plan_h2_build(pl, err, errlen);
}

static void done(struct config *cfg, struct plan *pl)
{
    plan_h2_free(pl);
    plan_free(pl);
    config_free(cfg);
}

/* The value of field name among n, or NULL (its length in *len). */
static const char *field(const nghttp2_nv *nv, size_t n, const char *name, size_t *len)
{
    size_t k;
    for (k = 0; k < n; k++)
        if (nv[k].namelen == strlen(name) && memcmp(nv[k].name, name, nv[k].namelen) == 0) {
            *len = nv[k].valuelen;
            return (const char *)nv[k].value;
        }
    return NULL;
}

static int is(const nghttp2_nv *nv, size_t n, const char *name, const char *want)
{
    size_t len = 0;
    const char *v = field(nv, n, name, &len);
    return v && len == strlen(want) && memcmp(v, want, len) == 0;
}

/* Target 0's fields for a request whose templated body and values are req
 * (the slot a session would hand over). */
static size_t fields_of(const struct plan *pl, const char *req, const struct jar *jar, char *buf, nghttp2_nv *nv)
{
    struct slot s;
    memset(&s, 0, sizeof(s));
    s.target = 0;
    s.req = req;
    return plan_h2_fields(pl, &s, jar, buf, nv);
}

static void templated_values(void)
{
    static const char *const headers[] = { "X-Id: n-{{seq}}", "X-Plain: p", NULL };
    struct config cfg;
    struct plan pl;
    struct tpl_ctx ctx;
    struct jar jar;
    nghttp2_nv nv[H2_MAX_FIELDS + 1];
    char err[256], *out, cookies[JAR_HEADER_MAX + 1];
    uint64_t rng = 1;
    size_t n, blen, nbase;
    int k;
    CHECKF(build(&cfg, &pl, "http://127.0.0.1:1/item/{{seq}}", headers, "{\"n\": {{seq}}}", err, sizeof(err)) == 0,
           "%s", err);
    nbase = pl.targets[0].h2nnv;
    CHECK(pl.targets[0].h2val != NULL && pl.templated && pl.max_len >= pl.targets[0].max_len);
    out = malloc(pl.max_len);
    for (k = 0; k < 3; k++) {
        char want[32];
        template_ctx_start(&ctx, 0, &rng);
        blen = plan_h2_expand(&pl, 0, &ctx, out);
        /* The body, then the values: one {{seq}} per request, the same in each. */
        snprintf(want, sizeof(want), "{\"n\": %d}", k);
        CHECKF(blen == strlen(want) && memcmp(out, want, blen) == 0, "%.*s", (int)blen, out);
        n = fields_of(&pl, out, NULL, cookies, nv);
        CHECK(n == nbase);
        snprintf(want, sizeof(want), "/item/%d", k);
        CHECK(is(nv, n, ":path", want) && is(nv, n, ":method", "POST") && is(nv, n, "x-plain", "p"));
        snprintf(want, sizeof(want), "n-%d", k);
        CHECK(is(nv, n, "x-id", want));
        /* A templated body has no content-length: its DATA ends the stream. */
        CHECK(field(nv, n, "content-length", &blen) == NULL);
    }
    /* The jar's cookies: one more field. */
    memset(&jar, 0, sizeof(jar));
    cookie_set(&jar, "s=1", 3, "/", 1, time(NULL));
    cookie_set(&jar, "t=2; Path=/item", 15, "/", 1, time(NULL));
    template_ctx_start(&ctx, 0, &rng);
    plan_h2_expand(&pl, 0, &ctx, out);
    n = fields_of(&pl, out, &jar, cookies, nv);
    CHECK(n == nbase + 1 && (is(nv, n, "cookie", "s=1; t=2") || is(nv, n, "cookie", "t=2; s=1")));
    free(out);
    done(&cfg, &pl);
}

/* An untemplated request's fields are built once, a literal body's length
 * among them. */
static void built_once(void)
{
    static const char *const headers[] = { "X-A: 1", NULL };
    struct config cfg;
    struct plan pl;
    char err[256];
    CHECKF(build(&cfg, &pl, "http://127.0.0.1:1/x", headers, "hello", err, sizeof(err)) == 0, "%s", err);
    CHECK(pl.targets[0].h2val == NULL && pl.targets[0].req != NULL);
    CHECK(is(pl.targets[0].h2nv, pl.targets[0].h2nnv, "content-length", "5") &&
          is(pl.targets[0].h2nv, pl.targets[0].h2nnv, ":authority", "127.0.0.1:1"));
    done(&cfg, &pl);
}

static void refused(void)
{
    static const char *headers[H2_MAX_FIELDS + 2];
    static char lines[H2_MAX_FIELDS + 1][24], big[H2_MAX_VALUE + 32];
    const char *one[2] = { big, NULL };
    struct config cfg;
    struct plan pl;
    char err[256];
    int k;
    for (k = 0; k <= H2_MAX_FIELDS; k++) {
        snprintf(lines[k], sizeof(lines[k]), "X-%d: {{seq}}", k);
        headers[k] = lines[k];
    }
    CHECK(build(&cfg, &pl, "http://127.0.0.1:1/", headers, NULL, err, sizeof(err)) == -1);
    CHECKF(strcmp(err, "more than 64 header fields in a templated request") == 0, "%s", err);
    done(&cfg, &pl);
    memcpy(big, "X-Big: ", 7);
    memset(big + 7, 'v', H2_MAX_VALUE);
    strcpy(big + 7 + H2_MAX_VALUE, "{{seq}}");
    CHECK(build(&cfg, &pl, "http://127.0.0.1:1/", one, NULL, err, sizeof(err)) == -1);
    CHECKF(strstr(err, "a templated header value may reach ") && strstr(err, " bytes (8192 at most)"), "%s", err);
    done(&cfg, &pl);
}

int main(void)
{
    T_RUN(templated_values);
    T_RUN(built_once);
    T_RUN(refused);
    T_END("test_plan_h2");
}
