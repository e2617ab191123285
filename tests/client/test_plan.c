/* The plan of a run (src/client/plan.c, plan_h2.c): URLs on one address
 * share an endpoint, request bytes are built once, a templated request
 * expands within the room the plan promised, and the HTTP/2 form holds
 * every field. */
#include "client.h"
#include "targets.h"
#include "../t.h"

#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

static void build(struct config *cfg, const char *const *urls, int n)
{
    char err[256], notes[256];
    int i;
    config_defaults(cfg);
    for (i = 0; i < n; i++)
        CHECKF(targets_add_url(cfg, urls[i], err, sizeof(err)) == 0, "%s", err);
    CHECKF(config_finish(cfg, err, sizeof(err), notes, sizeof(notes)) == 0, "%s", err);
}

static void endpoints_shared(void)
{
    static const char *const urls[] = { "http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b", "http://127.0.0.1:8081/c",
                                        "http://localhost:8080/d" };
    struct config cfg;
    struct plan pl;
    char err[256];
    build(&cfg, urls, 4);
    CHECKF(plan_build(&cfg, &pl, err, sizeof(err)) == 0, "%s", err);
    /* 127.0.0.1:8080 twice is one endpoint; another port, or another
     * host name (its own Host and SNI), is one of its own. */
    CHECK(pl.nendpoints == 3 && pl.targets[0].endpoint == pl.targets[1].endpoint && pl.targets[2].endpoint != pl.targets[0].endpoint &&
          pl.targets[3].endpoint != pl.targets[0].endpoint);
    CHECK(pl.endpoints[pl.targets[0].endpoint].ntargets == 2 && pl.endpoints[pl.targets[0].endpoint].norder == 2);
    /* Untemplated: the bytes are ready, built once. */
    CHECK(pl.targets[1].req && pl.targets[1].len > 0 && memcmp(pl.targets[1].req, "GET /b HTTP/1.1\r\n", 17) == 0);
    plan_free(&pl);
    config_free(&cfg);
}

static void templated_within_room(void)
{
    static const char *const urls[] = { "http://127.0.0.1:8080/" };
    struct config cfg;
    struct plan pl;
    struct tpl_ctx ctx;
    uint64_t rng = 5;
    char err[256], *buf;
    uint8_t jar_line = 1;
    size_t n;
    int k, ok = 1;
    build(&cfg, urls, 1);
    config_add_header(&cfg, "X-Id: {{uuid}}-{{rand 1 1000000}}");
    cfg.body = strdup("{\"n\": {{seq}}}");
    cfg.body_len = strlen(cfg.body);
    cfg.has_body = 1;
    CHECKF(plan_build(&cfg, &pl, err, sizeof(err)) == 0, "%s", err);
    CHECK(pl.templated && pl.targets[0].req == NULL && pl.max_len > 0);
    buf = malloc(pl.max_len);
    for (k = 0; k < 100; k++) {
        template_ctx_start(&ctx, 3, &rng);
        n = plan_expand(&pl, 0, &ctx, NULL, buf, &jar_line);
        if (n > pl.max_len || jar_line != 0 || memcmp(buf, "GET / HTTP/1.1\r\n", 16) != 0 ||
            !memmem(buf, n, "\r\nX-Id: ", 8) || !memmem(buf, n, "\r\nContent-Length: ", 18))
            ok = 0;
    }
    CHECKF(ok, "%.*s", (int)n, buf);
    /* The body follows the blank line, its length per request. */
    CHECK(memmem(buf, n, "\r\n\r\n{\"n\": 99}", 13) != NULL && memmem(buf, n, "Content-Length: 9\r\n", 19) != NULL);
    free(buf);
    plan_free(&pl);
    config_free(&cfg);
}

static void http2_fields(void)
{
    static const char *const urls[] = { "http://127.0.0.1:8080/x?y=1" };
    struct config cfg;
    struct plan pl;
    char err[256];
    build(&cfg, urls, 1);
    cfg.proto_asked[PROTO_HTTP2] = 1;
    config_add_header(&cfg, "Connection: keep-alive"); /* connection-specific: not in HTTP/2 (RFC 9113 8.2.2) */
    config_add_header(&cfg, "X-A: 1");
    CHECKF(plan_build(&cfg, &pl, err, sizeof(err)) == 0 && plan_h2_build(&pl, err, sizeof(err)) == 0, "%s", err);
    {
        const nghttp2_nv *nv = pl.targets[0].h2nv;
        size_t i, n = pl.targets[0].h2nnv;
        int path = 0, xa = 0, conn = 0;
        for (i = 0; i < n; i++) {
            path |= nv[i].namelen == 5 && memcmp(nv[i].name, ":path", 5) == 0 && nv[i].valuelen == 6 &&
                    memcmp(nv[i].value, "/x?y=1", 6) == 0;
            xa |= nv[i].namelen == 3 && memcmp(nv[i].name, "x-a", 3) == 0;
            conn |= nv[i].namelen == 10 && memcmp(nv[i].name, "connection", 10) == 0;
        }
        CHECK(n >= 5 && path && xa && !conn);
    }
    plan_h2_free(&pl);
    plan_free(&pl);
    config_free(&cfg);
}

int main(void)
{
    T_RUN(endpoints_shared);
    T_RUN(templated_within_room);
    T_RUN(http2_fields);
    T_END("test_plan");
}
