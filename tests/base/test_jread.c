/* The checked JSON reader: every field's type and range checked, the first
 * problem said as "FILE: path.to.field: what is wrong" and the later ones
 * kept silent, hostile strings made safe for a terminal. */
#include "jread.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static char err[512];

static json_t *doc(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    CHECKF(j != NULL, "%s: %s", text, je.text);
    return j;
}

static void reader(struct jc *c)
{
    memset(c, 0, sizeof(*c));
    c->path = "r.json";
    c->err = err;
    c->errlen = sizeof(err);
    err[0] = '\0';
}

static void good_fields_read(void)
{
    struct jc c;
    json_t *j = doc("{\"n\": 2.5, \"count\": 9007199254740992, \"zero\": 0, \"s\": \"text\", \"t\": true, \"f\": false,"
                    " \"o\": {\"a\": 1}, \"l\": [1, 2], \"secs\": 1.5, \"nul\": null}");
    reader(&c);
    CHECK(jread_num(&c, j, "n", 0, 10, 1) == 2.5);
    CHECK(jread_count(&c, j, "count", 1) == 9007199254740992ULL);
    CHECK(jread_count(&c, j, "zero", 1) == 0);
    CHECK(jread_ns(&c, j, "secs", 1) == 1500000000ULL);
    CHECK(strcmp(jread_str(&c, j, "s", 1), "text") == 0);
    CHECK(jread_bool(&c, j, "t") == 1 && jread_bool(&c, j, "f") == 0);
    CHECK(json_integer_value(json_object_get(jread_obj(&c, j, "o", 1), "a")) == 1);
    CHECK(json_array_size(jread_arr(&c, j, "l", 1)) == 2);
    /* Absent or null and not required: nothing, and no failure. */
    CHECK(jread_num(&c, j, "absent", 0, 1, 0) == 0 && jread_count(&c, j, "nul", 0) == 0);
    CHECK(jread_str(&c, j, "absent", 0) == NULL && jread_bool(&c, j, "nul") == 0 && jread_bool(&c, j, "absent") == 0);
    CHECK(jread_obj(&c, j, "nul", 0) == NULL && jread_arr(&c, j, "absent", 0) == NULL);
    CHECKF(!c.failed && err[0] == '\0', "%s", err);
    json_decref(j);
}

/* The first problem of reading key from text with fn, said in full. */
static void says(const char *text, const char *want, void (*fn)(struct jc *, json_t *))
{
    struct jc c;
    json_t *j = doc(text);
    if (j == NULL)
        return;
    reader(&c);
    fn(&c, j);
    CHECKF(c.failed && strcmp(err, want) == 0, "%s: got '%s', want '%s'", text, err, want);
    json_decref(j);
}

static void num_0_100(struct jc *c, json_t *j)
{
    CHECK(jread_num(c, j, "k", 0, 100, 1) == 0);
}
static void count(struct jc *c, json_t *j)
{
    CHECK(jread_count(c, j, "k", 1) == 0);
}
static void ns(struct jc *c, json_t *j)
{
    CHECK(jread_ns(c, j, "k", 1) == 0);
}
static void str(struct jc *c, json_t *j)
{
    CHECK(jread_str(c, j, "k", 1) == NULL);
}
static void boolean(struct jc *c, json_t *j)
{
    CHECK(jread_bool(c, j, "k") == 0);
}
static void obj(struct jc *c, json_t *j)
{
    CHECK(jread_obj(c, j, "k", 1) == NULL);
}
static void arr(struct jc *c, json_t *j)
{
    CHECK(jread_arr(c, j, "k", 0) == NULL);
}

static void hostile_fields_said(void)
{
    says("{}", "r.json: k: missing", num_0_100);
    says("{\"k\": null}", "r.json: k: missing", count);
    says("{\"k\": \"12\"}", "r.json: k: not a number", num_0_100);
    says("{\"k\": true}", "r.json: k: not a number", count);
    says("{\"k\": 100.5}", "r.json: k: 100.5 is out of range (0 to 100)", num_0_100);
    says("{\"k\": -1}", "r.json: k: -1 is out of range (0 to 9.0072e+15)", count);
    says("{\"k\": 1e300}", "r.json: k: 1e+300 is out of range (0 to 9.0072e+15)", count);
    says("{\"k\": 2.5}", "r.json: k: 2.5 is not a whole number", count);
    /* Seconds: never a value whose nanoseconds would not fit. */
    says("{\"k\": 1e10}", "r.json: k: 1e+10 is out of range (0 to 1e+09)", ns);
    says("{\"k\": -0.5}", "r.json: k: -0.5 is out of range (0 to 1e+09)", ns);
    says("{\"k\": 5}", "r.json: k: not a string", str);
    says("{\"k\": \"yes\"}", "r.json: k: not true or false", boolean);
    says("{\"k\": 1}", "r.json: k: not true or false", boolean);
    says("{}", "r.json: k: missing", obj);
    says("{\"k\": []}", "r.json: k: not an object", obj);
    says("{\"k\": {}}", "r.json: k: not a list", arr);
    /* Not an object at all: every key reads as absent. */
    says("[1, 2]", "r.json: k: missing", str);
}

static void the_place_and_the_first_problem(void)
{
    struct jc c;
    size_t a, b;
    json_t *j = doc("{\"x\": \"no\", \"y\": \"no\"}");
    reader(&c);
    a = jread_enter(&c, "per_url[%d]", 3);
    b = jread_enter(&c, "latency");
    CHECK(strcmp(c.at, "per_url[3].latency") == 0);
    jread_leave(&c, b);
    CHECK(strcmp(c.at, "per_url[3]") == 0);
    /* An index follows its list without a dot. */
    b = jread_enter(&c, "[%d]", 7);
    CHECK(strcmp(c.at, "per_url[3][7]") == 0);
    jread_leave(&c, b);
    CHECK(jread_num(&c, j, "x", 0, 1, 1) == 0);
    CHECKF(strcmp(err, "r.json: per_url[3].x: not a number") == 0, "%s", err);
    /* Once failed, the others stay silent: the first problem is said. */
    CHECK(jread_num(&c, j, "y", 0, 1, 1) == 0);
    CHECK(jread_fail(&c, "z", "another") == -1);
    CHECKF(strcmp(err, "r.json: per_url[3].x: not a number") == 0, "%s", err);
    jread_leave(&c, a);
    CHECK(c.at[0] == '\0');
    /* A failure on the place itself (key ""): no dangling dot. */
    reader(&c);
    jread_enter(&c, "servers[%d]", 1);
    jread_fail(&c, "", "not an object");
    CHECKF(strcmp(err, "r.json: servers[1]: not an object") == 0, "%s", err);
    json_decref(j);
}

static void a_deep_place_is_cut_not_overrun(void)
{
    struct jc c;
    size_t first = 0, k;
    int i;
    reader(&c);
    /* 40 levels of "level_NN": far past the place's 160 bytes. */
    for (i = 0; i < 40; i++) {
        k = jread_enter(&c, "level_%02d", i);
        if (i == 0)
            first = k;
        CHECK(strlen(c.at) < sizeof(c.at));
    }
    CHECK(strncmp(c.at, "level_00.level_01.", 18) == 0);
    jread_fail(&c, "key", "bad");
    CHECK(strncmp(err, "r.json: level_00.", 17) == 0 && strstr(err, ": bad") != NULL);
    jread_leave(&c, first);
    CHECK(c.at[0] == '\0');
}

static void copies_and_defaults(void)
{
    struct jc c;
    char small[5];
    char *d;
    json_t *j = doc("{\"name\": \"alpha-beta\", \"n\": 3}");
    reader(&c);
    jread_copy(small, sizeof(small), "alpha");
    CHECK(strcmp(small, "alph") == 0);
    jread_copy(small, sizeof(small), NULL);
    CHECK(small[0] == '\0');
    d = jread_dup(&c, j, "name", "dflt");
    CHECK(d && strcmp(d, "alpha-beta") == 0);
    free(d);
    d = jread_dup(&c, j, "absent", "dflt");
    CHECK(d && strcmp(d, "dflt") == 0);
    free(d);
    CHECK(jread_dup(&c, j, "absent", NULL) == NULL && !c.failed);
    /* A number where a string belongs: failed, the default given. */
    d = jread_dup(&c, j, "n", "dflt");
    CHECK(c.failed && strcmp(err, "r.json: n: not a string") == 0 && d && strcmp(d, "dflt") == 0);
    free(d);
    json_decref(j);
}

static void strings_scrubbed_for_a_terminal(void)
{
    json_t *j = doc("{\"a\": \"red \\u001b[31mtext\\u0007\", \"l\": [\"ok\\tand\\nlines\", {\"b\": \"\\u009bx\"}],"
                    " \"n\": 5}"),
           *deep, *at;
    int i;
    if (j == NULL)
        return;
    jread_scrub(j, 0);
    CHECK(strcmp(json_string_value(json_object_get(j, "a")), "red ?[31mtext?") == 0);
    CHECK(strcmp(json_string_value(json_array_get(json_object_get(j, "l"), 0)), "ok\tand\nlines") == 0);
    CHECK(strcmp(json_string_value(json_object_get(json_array_get(json_object_get(j, "l"), 1), "b")), "?x") == 0);
    CHECK(json_integer_value(json_object_get(j, "n")) == 5);
    json_decref(j);
    /* Nesting past 64 levels is left as it is (no deep recursion). */
    deep = json_array();
    at = deep;
    for (i = 0; i < 100; i++) {
        json_t *next = json_array();
        json_array_append_new(at, next);
        at = next;
    }
    json_array_append_new(at, json_string("\x1b"));
    jread_scrub(deep, 0);
    CHECK(strcmp(json_string_value(json_array_get(at, 0)), "\x1b") == 0);
    json_decref(deep);
}

int main(void)
{
    T_RUN(good_fields_read);
    T_RUN(hostile_fields_said);
    T_RUN(the_place_and_the_first_problem);
    T_RUN(a_deep_place_is_cut_not_overrun);
    T_RUN(copies_and_defaults);
    T_RUN(strings_scrubbed_for_a_terminal);
    T_END("jread");
}
