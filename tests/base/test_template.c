/* Templates: compiled once, expanded per request, never past the length
 * they promise; CSV files with quotes; the mistakes a user makes, named. */
#include "template.h"
#include "../t.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *expand(const char *src, struct tpl_set *set, uint64_t conn, uint64_t *rng, struct tpl_ctx *ctx)
{
    struct tpl t;
    char err[256], *out;
    size_t n;
    if (template_compile(src, strlen(src), TPL_BODY, set, ".", &t, err, sizeof(err)) != 0)
        return NULL;
    out = malloc(t.max_len + 1);
    template_ctx_start(ctx, conn, rng);
    n = template_expand(&t, set, ctx, out);
    CHECK(n <= t.max_len);
    out[n] = '\0';
    template_free(&t);
    return out;
}

static void literal_seq_conn_rand(void)
{
    struct tpl_set set;
    struct tpl_ctx ctx;
    uint64_t rng = 99;
    char *a, *b;
    int i, ok = 1;
    memset(&set, 0, sizeof(set));
    a = expand("no template at all", &set, 0, &rng, &ctx);
    CHECK(a && strcmp(a, "no template at all") == 0);
    free(a);
    a = expand("/u/{{seq}}/{{seq}}?c={{conn}}", &set, 17, &rng, &ctx);
    CHECKF(a && strcmp(a, "/u/0/0?c=17") == 0, "%s", a); /* one request, one {{seq}} value */
    free(a);
    b = expand("{{seq}}", &set, 0, &rng, &ctx);
    CHECK(b && strcmp(b, "1") == 0);
    free(b);
    for (i = 0; i < 2000; i++) {
        long v;
        a = expand("{{rand -3 3}}", &set, 0, &rng, &ctx);
        v = strtol(a, NULL, 10);
        if (v < -3 || v > 3)
            ok = 0;
        free(a);
    }
    CHECK(ok);
    a = expand("{{uuid}}", &set, 0, &rng, &ctx);
    CHECKF(a && strlen(a) == 36 && a[14] == '4' && strchr("89ab", a[19]) && a[8] == '-', "%s", a);
    free(a);
    template_set_free(&set);
}

static void csv_rows_in_order(void)
{
    struct tpl_set set;
    struct tpl_ctx ctx;
    uint64_t rng = 1;
    FILE *f = fopen("rafale-test-template.csv", "w");
    char *a;
    int i;
    fputs("id,name,note\r\n1,alice,\"a, b\"\r\n2,bob,\"say \"\"hi\"\"\"\r\n\r\n3,carol,x\n", f);
    fclose(f);
    memset(&set, 0, sizeof(set));
    for (i = 0; i < 4; i++) {
        static const char *const want[] = { "1 alice a, b", "2 bob say \"hi\"", "3 carol x", "1 alice a, b" };
        a = expand("{{csv rafale-test-template.csv id}} {{csv rafale-test-template.csv name}} "
                   "{{csv rafale-test-template.csv note}}",
                   &set, 0, &rng, &ctx);
        CHECKF(a && strcmp(a, want[i]) == 0, "row %d: %s", i, a ? a : "(null)");
        free(a);
    }
    CHECK(set.ncsv == 1 && set.csv[0].nrows == 3 && set.csv[0].ncols == 3); /* read once, blank line skipped */
    template_set_free(&set);
    remove("rafale-test-template.csv");
}

/* Bounds at the ends of int64: every value within them, no signed overflow
 * (UBSan in the sanitized build). */
static void rand_at_the_edges(void)
{
    static const struct {
        const char *src;
        long long lo, hi;
    } cases[] = {
        { "{{rand -9223372036854775808 0}}", INT64_MIN, 0 },
        { "{{rand 0 9223372036854775807}}", 0, INT64_MAX },
        { "{{rand -9223372036854775808 9223372036854775807}}", INT64_MIN, INT64_MAX },
        { "{{rand -9223372036854775808 -9223372036854775807}}", INT64_MIN, INT64_MIN + 1 },
        { "{{rand 9223372036854775807 9223372036854775807}}", INT64_MAX, INT64_MAX },
    };
    struct tpl_set set;
    struct tpl_ctx ctx;
    uint64_t rng = 7;
    size_t i;
    int k;
    memset(&set, 0, sizeof(set));
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int ok = 1, neg = 0;
        for (k = 0; k < 500; k++) {
            char *a = expand(cases[i].src, &set, 0, &rng, &ctx), *end;
            long long v;
            errno = 0;
            v = a ? strtoll(a, &end, 10) : 0;
            if (a == NULL || errno || *end || v < cases[i].lo || v > cases[i].hi)
                ok = 0;
            neg |= v < 0;
            free(a);
        }
        CHECKF(ok, "%s", cases[i].src);
        if (cases[i].lo < 0 && cases[i].hi > 0)
            CHECKF(neg, "%s: both signs drawn", cases[i].src);
    }
}

/* A value bound for the request line or a header may not carry bytes that
 * would end it: refused when compiled, wherever it comes from. */
static void values_that_would_smuggle(void)
{
    struct tpl_set set;
    struct tpl t;
    char err[256];
    FILE *f = fopen("rafale-test-inject.csv", "w");
    const char *head = "GET /u/{{csv rafale-test-inject.csv path}} HTTP/1.1\r\nX-A: {{csv rafale-test-inject.csv hdr}}"
                       "\r\n";
    fputs("path,hdr,body,sp\n"
          "a,ok,\"x\r\nGET /smuggled HTTP/1.1\",has space\n", f);
    fclose(f);
    memset(&set, 0, sizeof(set));
    /* A CR LF in a body is only data. */
    CHECK(template_compile("{{csv rafale-test-inject.csv body}}", 35, TPL_BODY, &set, NULL, &t, err, sizeof(err)) == 0);
    template_free(&t);
    CHECKF(template_compile("{{csv rafale-test-inject.csv body}}", 35, TPL_FIELD, &set, NULL, &t, err, sizeof(err)) == -1 &&
               strstr(err, "data row 1 holds a CR") && strstr(err, "header field"), "%s", err);
    CHECKF(template_compile("{{csv rafale-test-inject.csv sp}}", 33, TPL_TARGET, &set, NULL, &t, err, sizeof(err)) == -1 &&
               strstr(err, "a space") && strstr(err, "request-target"), "%s", err);
    /* A space is fine in a header value. */
    CHECK(template_compile("{{csv rafale-test-inject.csv sp}}", 33, TPL_FIELD, &set, NULL, &t, err, sizeof(err)) == 0);
    template_free(&t);
    /* A head: the request line's rule up to the first CRLF, a field's after. */
    CHECKF(template_compile(head, strlen(head), TPL_HEAD, &set, NULL, &t, err, sizeof(err)) == 0, "%s", err);
    template_free(&t);
    setenv("RAFALE_TEST_INJECT", "v\r\nX-Injected: 1", 1);
    CHECKF(template_compile("{{env RAFALE_TEST_INJECT}}", 26, TPL_FIELD, &set, NULL, &t, err, sizeof(err)) == -1 &&
               strstr(err, "holds a CR"), "%s", err);
    setenv("RAFALE_TEST_INJECT", "a\x7f", 1);
    CHECKF(template_compile("{{env RAFALE_TEST_INJECT}}", 26, TPL_FIELD, &set, NULL, &t, err, sizeof(err)) == -1 &&
               strstr(err, "a DEL"), "%s", err);
    setenv("RAFALE_TEST_INJECT", "a\tb c", 1);
    CHECK(template_compile("{{env RAFALE_TEST_INJECT}}", 26, TPL_FIELD, &set, NULL, &t, err, sizeof(err)) == 0);
    template_free(&t);
    CHECKF(template_compile("/{{env RAFALE_TEST_INJECT}} HTTP/1.1\r\n", 37, TPL_HEAD, &set, NULL, &t, err, sizeof(err)) == -1 &&
               strstr(err, "request-target"), "%s", err);
    CHECK(template_bad_byte("abc", 3, TPL_TARGET) == NULL && template_bad_byte("a\0c", 3, TPL_FIELD) != NULL &&
          template_bad_byte("a\rb", 3, TPL_BODY) == NULL);
    template_set_free(&set);
    remove("rafale-test-inject.csv");
}

static void mistakes_are_named(void)
{
    static const struct {
        const char *src, *want;
    } bad[] = {
        { "{{nope}}", "unknown template {{nope}}" },
        { "{{rand 5 1}}", "A <= B" },
        { "{{rand 1}}", "two integers" },
        { "{{seq", "'{{' without '}}'" },
        { "{{}}", "an empty {{}}" },
        { "{{env RAFALE_TEST_SURELY_UNSET}}", "is not set" },
        { "{{csv /nonexistent/x.csv a}}", "cannot read CSV file" },
    };
    struct tpl_set set;
    struct tpl t;
    char err[256];
    size_t i;
    memset(&set, 0, sizeof(set));
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        CHECKF(template_compile(bad[i].src, strlen(bad[i].src), TPL_BODY, &set, NULL, &t, err, sizeof(err)) == -1 &&
                   strstr(err, bad[i].want) != NULL,
               "%s: %s", bad[i].src, err);
    }
    CHECK(template_has("a{{b", 4) && !template_has("a{b}", 4) && !template_has("{", 1));
    template_set_free(&set);
}

int main(void)
{
    /* The CSV files in a directory of this run's own: the plain and the
     * sanitized programs run at once. */
    char dir[] = "/tmp/rafale-test-template-XXXXXX";
    if (mkdtemp(dir) == NULL || chdir(dir) != 0) {
        perror(dir);
        return 1;
    }
    T_RUN(literal_seq_conn_rand);
    T_RUN(csv_rows_in_order);
    T_RUN(mistakes_are_named);
    T_RUN(rand_at_the_edges);
    T_RUN(values_that_would_smuggle);
    if (chdir("/") == 0)
        rmdir(dir);
    T_END("test_template");
}
