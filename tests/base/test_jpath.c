/* JSON paths found by a scan: members, indexes, quoted keys, nested
 * values skipped whole; strings decoded (\uXXXX, surrogate pairs), numbers
 * read exactly; what is missing is JP_NONE, what is broken JP_BAD. */
#include "jpath.h"
#include "../t.h"

#include <string.h>

static enum jp_type find(const char *path, const char *json, const char **v, size_t *vlen)
{
    struct jpath p;
    char err[128];
    enum jp_type t;
    if (jpath_compile(path, strlen(path), &p, err, sizeof(err)) != 0) {
        CHECKF(0, "%s: %s", path, err);
        return JP_BAD;
    }
    t = jpath_find(&p, json, strlen(json), v, vlen);
    jpath_free(&p);
    return t;
}

static int is(const char *path, const char *json, enum jp_type want, const char *text)
{
    const char *v = NULL;
    size_t n = 0;
    enum jp_type t = find(path, json, &v, &n);
    return t == want && (!text || (n == strlen(text) && memcmp(v, text, n) == 0));
}

static void paths_found(void)
{
    const char *j = "{\"a\": {\"skip\": [1, {\"x\": \"}\"}, [2]], \"b\": [10, 20, {\"c\": \"hi\"}]},"
                    " \"a key\": true, \"n\": -1.5e3, \"z\": null}";
    CHECK(is("$.a.b[1]", j, JP_NUMBER, "20"));
    CHECK(is("$.a.b[2].c", j, JP_STRING, "\"hi\""));
    CHECK(is("$['a key']", j, JP_TRUE, "true"));
    CHECK(is("$.n", j, JP_NUMBER, "-1.5e3"));
    CHECK(is("$.z", j, JP_NULL, "null"));
    CHECK(is("$.a.b", j, JP_ARRAY, NULL));
    CHECK(is("$", j, JP_OBJECT, NULL));
    /* Missing: a member, an index past the end, an index into an object. */
    CHECK(is("$.nope", j, JP_NONE, NULL) && is("$.a.b[3]", j, JP_NONE, NULL) && is("$.a[0]", j, JP_NONE, NULL));
    /* Broken before the path is reached. */
    CHECK(is("$.b", "{\"a\": [1, 2", JP_BAD, NULL) || is("$.b", "{\"a\": [1, 2", JP_NONE, NULL));
    CHECK(is("$.b", "{\"a\" 1, \"b\": 2}", JP_BAD, NULL));
}

static void bad_paths_refused(void)
{
    static const char *const bad[] = { "", "a.b", "$.", "$[", "$[x]", "$['open", "$.a[1" };
    struct jpath p;
    char err[128];
    size_t i;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        int rc = jpath_compile(bad[i], strlen(bad[i]), &p, err, sizeof(err));
        CHECKF(rc == -1 && err[0], "'%s' compiled", bad[i]);
        if (rc == 0)
            jpath_free(&p);
    }
}

static void strings_and_numbers(void)
{
    char out[64];
    double d;
    static const char s1[] = "\"a\\n\\u00e9\\ud83d\\ude00\\\"\"";
    ssize_t n = jpath_string(s1, strlen(s1), out, sizeof(out));
    CHECK(n == 9 && memcmp(out, "a\n\xc3\xa9\xf0\x9f\x98\x80\"", 9) == 0);
    CHECK(jpath_string("\"abc\"", 5, out, 2) == -1);       /* does not fit */
    CHECK(jpath_string("\"\\u12\"", 6, out, sizeof(out)) == -1);  /* a short escape */
    CHECK(jpath_string("\"\\q\"", 4, out, sizeof(out)) == -1);    /* no such escape */
    CHECK(jpath_number("1.25", 4, &d) == 0 && d == 1.25);
    CHECK(jpath_number("-0", 2, &d) == 0 && d == 0);
    CHECK(jpath_number("1e400", 5, &d) == 0 && d > 1e308);
    CHECK(jpath_number("1e-400", 6, &d) == 1 && d == 0);
    CHECK(jpath_number("01", 2, &d) == -1 && jpath_number("1.", 2, &d) == -1 && jpath_number("+1", 2, &d) == -1);
}

int main(void)
{
    T_RUN(paths_found);
    T_RUN(bad_paths_refused);
    T_RUN(strings_and_numbers);
    T_END("test_jpath");
}
