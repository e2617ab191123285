/* Checks and extractions on responses: every subject and operator, JSON
 * paths over real and broken JSON, and every mistake in an expression
 * refused with its words. */
#include "check.h"
#include "jpath.h"
#include "../t.h"

#include <string.h>

static const char *JSON = "{\"ok\": true, \"n\": 42, \"pi\": -3.5e0, \"name\": \"caf\\u00e9 \\\"x\\\"\", \"none\": null,"
                          " \"items\": [{\"id\": 7, \"tags\": [\"a\", \"b\"]}, {\"id\": 8}], \"a key\": {\"x\": \"y\"},"
                          " \"esc\\u0061ped\": 1, \"token\": \"abc.def\"}";

static int ev(const char *expr, const struct check_response *r, char *seen)
{
    struct check c;
    char err[300];
    int ok;
    if (check_compile(expr, &c, err, sizeof(err)) != 0) {
        CHECKF(0, "%s: %s", expr, err);
        return -1;
    }
    ok = check_eval(&c, r, seen, 256);
    check_free(&c);
    return ok;
}

static void paths(void)
{
    struct jpath p;
    const char *v;
    size_t n;
    char err[200], s[64];
    CHECK(jpath_compile("$.items[1].id", 13, &p, err, sizeof(err)) == 0 && p.n == 3);
    CHECK(jpath_find(&p, JSON, strlen(JSON), &v, &n) == JP_NUMBER && n == 1 && v[0] == '8');
    jpath_free(&p);
    CHECK(jpath_compile("$.items[0].tags[1]", 18, &p, err, sizeof(err)) == 0);
    CHECK(jpath_find(&p, JSON, strlen(JSON), &v, &n) == JP_STRING && n == 3 && memcmp(v, "\"b\"", 3) == 0);
    jpath_free(&p);
    CHECK(jpath_compile("$['a key'].x", 12, &p, err, sizeof(err)) == 0);
    CHECK(jpath_find(&p, JSON, strlen(JSON), &v, &n) == JP_STRING);
    jpath_free(&p);
    /* A key written with an escape is found by its decoded name. */
    CHECK(jpath_compile("$.escaped", 9, &p, err, sizeof(err)) == 0);
    CHECK(jpath_find(&p, JSON, strlen(JSON), &v, &n) == JP_NUMBER);
    jpath_free(&p);
    CHECK(jpath_compile("$.items", 7, &p, err, sizeof(err)) == 0);
    CHECK(jpath_find(&p, JSON, strlen(JSON), &v, &n) == JP_ARRAY && v[0] == '[' && v[n - 1] == ']');
    jpath_free(&p);
    CHECK(jpath_compile("$", 1, &p, err, sizeof(err)) == 0 && p.n == 0);
    CHECK(jpath_find(&p, JSON, strlen(JSON), &v, &n) == JP_OBJECT && n == strlen(JSON));
    jpath_free(&p);
    /* Not there, and not JSON. */
    CHECK(jpath_compile("$.items[5]", 10, &p, err, sizeof(err)) == 0);
    CHECK(jpath_find(&p, JSON, strlen(JSON), &v, &n) == JP_NONE);
    CHECK(jpath_find(&p, "{\"items\": [1, 2", 15, &v, &n) == JP_BAD);
    CHECK(jpath_find(&p, "<html>", 6, &v, &n) == JP_BAD);
    CHECK(jpath_find(&p, "{\"items\": 3}", 12, &v, &n) == JP_NONE);
    jpath_free(&p);
    CHECK(jpath_compile("$.a", 3, &p, err, sizeof(err)) == 0);
    CHECK(jpath_find(&p, "{\"a\": tru}", 10, &v, &n) == JP_BAD);
    CHECK(jpath_find(&p, "{\"b\": [[[[[[1]]]]]], \"a\": 1}", 27, &v, &n) == JP_NUMBER);
    CHECK(jpath_find(&p, "{\"b\": [1}, \"a\": 1}", 18, &v, &n) == JP_BAD);
    jpath_free(&p);
    /* Strings decoded: escapes, \u to UTF-8, a surrogate pair. */
    CHECK(jpath_string("\"caf\\u00e9 \\\"x\\\"\"", 17, s, sizeof(s)) == 9 && memcmp(s, "caf\xc3\xa9 \"x\"", 9) == 0);
    CHECK(jpath_string("\"\\ud83d\\ude00\"", 14, s, sizeof(s)) == 4 && memcmp(s, "\xf0\x9f\x98\x80", 4) == 0);
    CHECK(jpath_string("\"abc\"", 5, s, 2) == -1);
    /* Mistakes in a path. */
    CHECK(jpath_compile("a.b", 3, &p, err, sizeof(err)) == -1 && strstr(err, "begins with $"));
    CHECK(jpath_compile("$.a[x]", 6, &p, err, sizeof(err)) == -1 && strstr(err, "[N] wants an index"));
    CHECK(jpath_compile("$..a", 4, &p, err, sizeof(err)) == -1 && strstr(err, "empty member"));
    CHECK(jpath_compile("$['a", 4, &p, err, sizeof(err)) == -1 && strstr(err, "not closed"));
    CHECK(jpath_compile("$a", 2, &p, err, sizeof(err)) == -1);
}

static void checks(void)
{
    const char head[] = "Content-Type: application/json; charset=utf-8\r\nContent-Length: 12\r\n"
                        "Set-Cookie: sid=s3cr3t; Path=/\r\nLocation: /next\r\n";
    struct check_response r = { 200, head, sizeof(head) - 1, JSON, 0, 0, 0, 0, 0, 1 << 20, 150 * 1000000ULL };
    char seen[256];
    r.body_len = r.body_size = strlen(JSON);
    CHECK(ev("status == 200", &r, seen) == 1 && ev("status != 200", &r, seen) == 0 && strcmp(seen, "status 200") == 0);
    CHECK(ev("status < 300", &r, seen) == 1 && ev("status >= 300", &r, seen) == 0 && ev("status ~ ^2..$", &r, seen) == 1);
    CHECK(ev("header Content-Type ~ json", &r, seen) == 1 && ev("header content-type contains utf-8", &r, seen) == 1);
    CHECK(ev("header Content-Type == text/html", &r, seen) == 0 &&
          strcmp(seen, "Content-Type: application/json; charset=utf-8") == 0);
    CHECK(ev("header X-Missing exists", &r, seen) == 0 && strcmp(seen, "no X-Missing header") == 0);
    CHECK(ev("header Location exists", &r, seen) == 1 && ev("header Content-Length < 100", &r, seen) == 1);
    CHECK(ev("body contains \"ok\"", &r, seen) == 1 && ev("body contains welcome", &r, seen) == 0 &&
          strncmp(seen, "body: {\"ok\": true", 17) == 0);
    CHECK(ev("body ~ items\": \\[", &r, seen) == 1 && ev("body == nope", &r, seen) == 0 && ev("body != nope", &r, seen) == 1);
    CHECK(ev("json $.ok == true", &r, seen) == 1 && ev("json $.ok == false", &r, seen) == 0 && strcmp(seen, "$.ok: true") == 0);
    CHECK(ev("json $.n == 42", &r, seen) == 1 && ev("json $.n > 41.5", &r, seen) == 1 && ev("json $.n < 10", &r, seen) == 0);
    CHECK(ev("json $.pi == -3.5", &r, seen) == 1 && ev("json $.none == null", &r, seen) == 1);
    CHECK(ev("json $.name == \"caf\xc3\xa9 \\\"x\\\"\"", &r, seen) == 1 && ev("json $.name contains caf", &r, seen) == 1);
    CHECK(ev("json $.token ~ ^[a-z]+\\.[a-z]+$", &r, seen) == 1 && ev("json $.n == \"42\"", &r, seen) == 0);
    CHECK(ev("json $.items[0].id exists", &r, seen) == 1 && ev("json $.items[9].id exists", &r, seen) == 0 &&
          strncmp(seen, "no such value in: ", 18) == 0);
    CHECK(ev("json $.ok != false", &r, seen) == 1 && ev("json $.missing != 1", &r, seen) == 0);
    /* Operators need no blanks around them. */
    CHECK(ev("status==200", &r, seen) == 1 && ev("json $.n>41", &r, seen) == 1 && ev("size<=16k", &r, seen) == 1 &&
          ev("status!=200", &r, seen) == 0 && ev("json $.token~^abc", &r, seen) == 1);
    CHECK(ev("size < 16k", &r, seen) == 1 && ev("size > 1KiB", &r, seen) == 0 && ev("size == 238", &r, seen) == 0);
    CHECK(ev("duration < 200ms", &r, seen) == 1 && ev("duration < 100ms", &r, seen) == 0 &&
          strcmp(seen, "duration 150.0ms") == 0);
    /* A body too long to keep: its checks fail, saying so. */
    r.body_over = 1;
    CHECK(ev("body contains ok", &r, seen) == 0 && strstr(seen, "longer than --max-body (1048576 bytes)"));
    CHECK(ev("json $.ok == true", &r, seen) == 0 && ev("size > 10", &r, seen) == 1);
    r.body_over = 0;
    /* Operands: JSON's escapes decoded; a quoted regex keeps its own. */
    r.body = "tab\there, caf\xc3\xa9, a.b";
    r.body_len = strlen(r.body);
    CHECK(ev("body contains \"tab\\there\"", &r, seen) == 1 && ev("body contains \"caf\\u00e9\"", &r, seen) == 1);
    CHECK(ev("body ~ \"a\\.b$\"", &r, seen) == 1 && ev("body ~ \"x\\.b$\"", &r, seen) == 0);
    /* The head or the size not known: said, not guessed. */
    r.head_over = 1;
    CHECK(ev("header Location exists", &r, seen) == 0 && strstr(seen, "head is longer than the 64 KiB kept"));
    r.head_over = 0;
    r.size_unknown = 1;
    CHECK(ev("size > 0", &r, seen) == 0 && strncmp(seen, "size not known", 14) == 0);
    r.size_unknown = 0;
    /* C1 controls never reach a terminal: as UTF-8 (C2 9B, a CSI) or a stray byte. */
    r.body = "a\xc2\x9b" "[31mb\x9b" "c\xc3\xa9";
    r.body_len = strlen(r.body);
    CHECK(ev("body contains zzz", &r, seen) == 0 && strcmp(seen, "body: a?[31mb?" "c\xc3\xa9") == 0);
    /* What is seen is cut and printable. */
    r.body = "line one\r\nline two";
    r.body_len = 18;
    CHECK(ev("body contains three", &r, seen) == 0 && strcmp(seen, "body: line one??line two") == 0);
    r.body = "<html>";
    r.body_len = 6;
    CHECK(ev("json $.ok == true", &r, seen) == 0 && strcmp(seen, "not JSON: <html>") == 0);
}

/* ev() on the body {"n": PRE, then k times D, then POST}. */
static int ev_num(const char *expr, const char *pre, char d, int k, const char *post)
{
    static char body[2048];
    struct check_response r = { 200, NULL, 0, body, 0, 0, 0, 0, 0, 1 << 20, 1000 };
    char seen[256];
    int o = snprintf(body, sizeof(body), "{\"n\": %s", pre);
    memset(body + o, d, (size_t)k);
    o += k;
    o += snprintf(body + o, sizeof(body) - (size_t)o, "%s}", post);
    r.body_len = r.body_size = (size_t)o;
    return ev(expr, &r, seen);
}

/* A JSON number of any length (RFC 8259 §6 sets none) compares by its
 * value; past the double's range as +-inf, nearer zero than any double as
 * neither zero nor beyond any other literal. */
static void long_numbers(void)
{
    const char head[] = "X-Long: 1000000000000000000000000000000000000000000000000000000000000\r\nX-Bad: 5abc\r\n";
    struct check_response r = { 200, head, sizeof(head) - 1, "", 0, 0, 0, 0, 0, 1 << 20, 1000 };
    char seen[256];
    double x;
    CHECK(ev_num("json $.n > 5", "1", '0', 600, "") == 1 && ev_num("json $.n < 5", "1", '0', 600, "") == 0);
    CHECK(ev_num("json $.n > 5", "1", '0', 300, "") == 1);
    CHECK(ev_num("json $.n < 5", "0.", '0', 600, "1") == 1 && ev_num("json $.n > 0", "0.", '0', 600, "1") == 1);
    CHECK(ev_num("json $.n == 0", "0.", '0', 600, "1") == 0 && ev_num("json $.n != 0", "0.", '0', 600, "1") == 1);
    CHECK(ev_num("json $.n < 0", "0.", '0', 600, "1") == 0 && ev_num("json $.n > -1", "0.", '0', 600, "1") == 1);
    CHECK(ev_num("json $.n < 0", "-0.", '0', 600, "1") == 1 && ev_num("json $.n > -1", "-0.", '0', 600, "1") == 1);
    CHECK(ev_num("json $.n == 0", "0.", '0', 600, "") == 1 && ev_num("json $.n == 0", "-0.", '0', 600, "e99999999999") == 1);
    CHECK(ev_num("json $.n < 5", "-1", '0', 600, "") == 1 && ev_num("json $.n > -1e300", "-1", '0', 600, "") == 0);
    /* 600 digits after the point. */
    CHECK(ev_num("json $.n > 2.5", "2.", '5', 600, "") == 1 && ev_num("json $.n < 2.6", "2.", '5', 600, "") == 1);
    CHECK(ev_num("json $.n >= 25.5", "2", '5', 1, ".50000000000000000000") == 1);
    /* Digits past those kept still round: 2^53 + 1 and a bit is nearer 2^53 + 2. */
    CHECK(ev_num("json $.n > 9007199254740992", "9007199254740993.", '0', 40, "1") == 1);
    CHECK(ev_num("json $.n == 9007199254740992", "9007199254740993.", '0', 40, "") == 1);
    /* Beyond the double's range: +-inf. */
    CHECK(ev_num("json $.n > 5", "1e400", 'x', 0, "") == 1 && ev_num("json $.n < -1e300", "-1e400", 'x', 0, "") == 1);
    CHECK(ev_num("json $.n > 1e300", "1e99999999999999999999", 'x', 0, "") == 1);
    CHECK(ev_num("json $.n > 0", "1e-99999999999999999999", 'x', 0, "") == 1);
    CHECK(ev_num("json $.n > 1", "0.", '0', 600, "1e700") == 1 && ev_num("json $.n < 1", "0.", '0', 600, "1e500") == 1);
    /* Not numbers: refused as before, long or short. */
    CHECK(ev_num("json $.n > 0", "1", '0', 600, ".") == 0 && ev_num("json $.n > 0", "-", 'x', 0, "") == 0);
    CHECK(ev_num("json $.n > 0", "1e", 'x', 0, "") == 0 && ev_num("json $.n > 0", ".5", 'x', 0, "") == 0);
    CHECK(ev_num("json $.n > 0", "+1", 'x', 0, "") == 0 && ev_num("json $.n > 0", "1", '0', 600, "e+") == 0);
    CHECK(jpath_number("01", 2, &x) == -1 && jpath_number("1.", 2, &x) == -1 && jpath_number("", 0, &x) == -1);
    CHECK(jpath_number("1e5x", 4, &x) == -1 && jpath_number("-0", 2, &x) == 0 && x == 0);
    CHECK(jpath_number("123.45e-2", 9, &x) == 0 && x == 1.2345 && jpath_number("-0.0025", 7, &x) == 0 && x == -0.0025);
    /* A header's number: any length too; not a number still fails. */
    CHECK(ev("header X-Long > 1e59", &r, seen) == 1 && ev("header X-Bad > 1", &r, seen) == 0);
}

static void extractions(void)
{
    const char head[] = "Location: /items/17\r\nSet-Cookie: theme=dark\r\nSet-Cookie: sid=s3cr3t; Path=/; HttpOnly\r\n";
    const char *body = "<form><input name=\"csrf\" value=\"tok-123\"></form>";
    struct check_response r = { 200, head, sizeof(head) - 1, JSON, 0, 0, 0, 0, 0, 1 << 20, 1000 };
    struct check c;
    char out[CHECK_VALUE_MAX], err[300];
    ssize_t n;
    r.body_len = r.body_size = strlen(JSON);
    CHECK(check_compile_extract("token = json $.token", &c, err, sizeof(err)) == 0 && strcmp(c.var, "token") == 0);
    n = check_extract(&c, &r, out);
    CHECK(n == 7 && memcmp(out, "abc.def", 7) == 0);
    check_free(&c);
    CHECK(check_compile_extract("id = json $.items[1].id", &c, err, sizeof(err)) == 0);
    CHECK(check_extract(&c, &r, out) == 1 && out[0] == '8');
    check_free(&c);
    CHECK(check_compile_extract("where = header Location", &c, err, sizeof(err)) == 0);
    CHECK(check_extract(&c, &r, out) == 9 && memcmp(out, "/items/17", 9) == 0);
    check_free(&c);
    CHECK(check_compile_extract("sid = cookie sid", &c, err, sizeof(err)) == 0);
    CHECK(check_extract(&c, &r, out) == 6 && memcmp(out, "s3cr3t", 6) == 0);
    check_free(&c);
    CHECK(check_compile_extract("t = cookie theme", &c, err, sizeof(err)) == 0);
    CHECK(check_extract(&c, &r, out) == 4 && memcmp(out, "dark", 4) == 0);
    check_free(&c);
    r.body = body;
    r.body_len = strlen(body);
    CHECK(check_compile_extract("csrf = body /name=\"csrf\" value=\"([^\"]+)\"/", &c, err, sizeof(err)) == 0);
    CHECK(check_extract(&c, &r, out) == 7 && memcmp(out, "tok-123", 7) == 0);
    check_free(&c);
    CHECK(check_compile_extract("none = json $.token", &c, err, sizeof(err)) == 0);
    CHECK(check_extract(&c, &r, out) == -1); /* not JSON */
    check_free(&c);
    CHECK(check_compile_extract("x = header X-Nope", &c, err, sizeof(err)) == 0);
    CHECK(check_extract(&c, &r, out) == -1);
    check_free(&c);
}

static void bad(const char *expr, const char *want, int extract)
{
    struct check c;
    char err[300] = "";
    int rc = extract ? check_compile_extract(expr, &c, err, sizeof(err)) : check_compile(expr, &c, err, sizeof(err));
    CHECKF(rc == -1 && strstr(err, want), "'%s': wanted '%s', got '%s'", expr, want, err);
}

static void mistakes(void)
{
    bad("colour == red", "begins with status, header, body, json, size or duration", 0);
    bad("status", "expected an operator", 0);
    bad("status = 200", "expected an operator", 0);
    bad("status == ok", "status wants a status code", 0);
    bad("status == 1000", "status wants a status code", 0);
    bad("status contains 2", "status does not take 'contains'", 0);
    bad("header", "wants a header name", 0);
    bad("header Bad(Name) exists", "is not a header name", 0);
    bad("header X-A < many", "compare numbers", 0);
    bad("header X-A ==", "wants a value", 0);
    bad("body > 3", "body does not take '>'", 0);
    bad("body contains \"open", "without its closing quote", 0);
    bad("body contains \"a\" b", "something after the quoted value", 0);
    bad("body ~ ([", "bad regular expression", 0);
    bad("body exists", "'exists' is for a header or a JSON path", 0);
    bad("json ok == true", "begins with $", 0);
    bad("json $.n == maybe", "json compares with a JSON value", 0);
    bad("json $.n > \"a\"", "compare numbers", 0);
    bad("json $.a exists now", "'exists' takes no value", 0);
    bad("size < big", "size wants", 0);
    bad("size ~ 1", "size wants", 0);
    bad("duration < soon", "duration wants", 0);
    bad("token json $.t", "NAME = json PATH", 1);
    bad(" = json $.t", "wants a name", 1);
    bad("to ken = json $.t", "is not a variable name", 1);
    bad("t = xml /a", "takes json, header, body or cookie", 1);
    bad("t = body value=(.*)", "between slashes", 1);
    bad("t = body /([/", "bad regular expression", 1);
    bad("t = json", "wants a path", 1);
    bad("t = header", "wants a name", 1);
    bad("t = header A B", "something after", 1);
}

int main(void)
{
    T_RUN(paths);
    T_RUN(checks);
    T_RUN(long_numbers);
    T_RUN(extractions);
    T_RUN(mistakes);
    T_END("test_check");
}
