/* Access log lines (accesslog.c): combined, common and JSON lines read to
 * their method, request-target and time; a target that could end the
 * request line refused; every line fed before a guard page, so a read past
 * its end crashes; endpoint patterns. */
#include "accesslog.h"
#include "../t.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *guard_base;
static size_t page;

/* s copied to the end of a readable region followed by a guard page. */
static const char *guarded(const char *s, size_t n)
{
    char *end = guard_base + 16 * page;
    memcpy(end - n, s, n);
    return end - n;
}

static char target[ALOG_TARGET_MAX];

static int parse(enum alog_format f, const char *line, struct alog_req *r)
{
    size_t n = strlen(line);
    return accesslog_parse(f, guarded(line, n), n, r, target);
}

static int is_target(const struct alog_req *r, const char *want)
{
    int ok = r->target_len == strlen(want) && memcmp(target, want, r->target_len) == 0;
    if (!ok)
        fprintf(stderr, "target '%.*s', want '%s'\n", (int)r->target_len, target, want);
    return ok;
}

/* 2000-10-10 20:55:36 UTC, in ns. */
#define T_2000 (971211336LL * 1000000000LL)

static void combined(void)
{
    struct alog_req r;
    const char *l = "127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif?x=1 HTTP/1.0\" 200 2326 "
                    "\"http://www.example.com/start.html\" \"Mozilla/4.08 [en] (Win98; I ;Nav)\"";
    CHECK(accesslog_detect(l, strlen(l)) == ALOG_COMBINED);
    CHECK(parse(ALOG_AUTO, l, &r) == ALOG_OK);
    CHECK(strcmp(r.method, "GET") == 0);
    CHECK(is_target(&r, "/apache_pb.gif?x=1"));
    CHECKF(r.t_ns == T_2000, "%lld", (long long)r.t_ns);
    CHECK(r.whole_second == 1);
    /* A CR before the newline is the line's end, not the request's. */
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"HEAD / HTTP/1.1\" 200 0 \"-\" \"-\"\r", &r) == 0);
    CHECK(strcmp(r.method, "HEAD") == 0 && is_target(&r, "/") && r.t_ns == T_2000);
}

static void common(void)
{
    struct alog_req r;
    const char *l = "::1 - - [01/Jan/2024:00:00:01 +0000] \"POST /api/v1/users HTTP/2.0\" 201 17";
    CHECK(accesslog_detect(l, strlen(l)) == ALOG_COMMON);
    CHECK(parse(ALOG_COMMON, l, &r) == ALOG_OK);
    CHECK(strcmp(r.method, "POST") == 0 && is_target(&r, "/api/v1/users"));
    CHECK(r.t_ns == (1704067201LL * 1000000000LL));
    /* HTTP/0.9: no version. */
    CHECK(parse(ALOG_COMMON, "h - - [01/Jan/2024:00:00:01 +0000] \"GET /old\" 200 1", &r) == ALOG_OK);
    CHECK(is_target(&r, "/old"));
    /* A leap day and a zone east of UTC. */
    CHECK(parse(ALOG_COMMON, "h - - [29/Feb/2024:01:00:00 +0100] \"GET / HTTP/1.1\" 200 1", &r) == ALOG_OK);
    CHECK(r.t_ns == (1709164800LL * 1000000000LL));
}

static void escapes(void)
{
    struct alog_req r;
    /* nginx writes a quote as \x22: decoded, it is a byte of the target. */
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"GET /a\\x22b HTTP/1.1\" 200 0 \"-\" \"-\"", &r) == 0);
    CHECK(is_target(&r, "/a\"b"));
    /* Apache writes it \" */
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"GET /a\\\"b HTTP/1.1\" 200 0 \"-\" \"-\"", &r) == 0);
    CHECK(is_target(&r, "/a\"b"));
}

static void refused(void)
{
    struct alog_req r;
    /* A CR or LF decoded into the target would end the request line. */
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"GET /a\\x0d\\x0aHost:x HTTP/1.1\" 200 0", &r) ==
          ALOG_CONTROL);
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"GET /a\rb HTTP/1.1\" 200 0", &r) == ALOG_CONTROL);
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"GET /a b HTTP/1.1\" 200 0", &r) == ALOG_CONTROL);
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"GET /a\\x7f HTTP/1.1\" 200 0", &r) == ALOG_CONTROL);
    CHECK(parse(ALOG_JSON, "{\"msec\":1.5,\"request_method\":\"GET\",\"request_uri\":\"/a\\r\\nX: y\"}", &r) ==
          ALOG_CONTROL);
    CHECK(parse(ALOG_JSON, "{\"msec\":1.5,\"request_method\":\"GET\",\"request_uri\":\"/a\\u0000\"}", &r) == ALOG_CONTROL);
    /* Not a request: a TLS handshake to a plain port, a bad method, no time. */
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"\\x16\\x03\\x01\" 400 0", &r) == ALOG_BAD);
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"-\" 400 0", &r) == ALOG_BAD);
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"G(T / HTTP/1.1\" 400 0", &r) == ALOG_BAD);
    CHECK(parse(ALOG_COMBINED, "h - - [10/Foo/2000:20:55:36 +0000] \"GET / HTTP/1.1\" 200 0", &r) == ALOG_BAD);
    CHECK(parse(ALOG_COMBINED, "h - - [31/Feb/2000:20:55:36 +0000] \"GET / HTTP/1.1\" 200 0", &r) == ALOG_BAD);
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"GET / HTTP/1.1", &r) == ALOG_BAD);
    CHECK(parse(ALOG_COMBINED, "h - - [10/Oct/2000:20:55:36 +0000] \"GET http://x/ HTTP/1.1\" 200 0", &r) == ALOG_BAD);
    CHECK(parse(ALOG_COMBINED, "garbage", &r) == ALOG_BAD);
    CHECK(parse(ALOG_COMBINED, "   ", &r) == ALOG_BLANK);
    CHECK(parse(ALOG_JSON, "{\"request_method\":\"GET\",\"request_uri\":\"/\"}", &r) == ALOG_BAD);
    CHECK(parse(ALOG_JSON, "{\"msec\":1.5,\"request_uri\":\"/\"}", &r) == ALOG_BAD);
    CHECK(parse(ALOG_JSON, "{\"msec\":1.5,\"request_method\":\"GET\",\"request_uri\":\"/\"", &r) == ALOG_BAD);
    CHECK(parse(ALOG_JSON, "{\"msec\":1.5,\"request_method\":\"GET\",\"request_uri\":\"/\"} x", &r) == ALOG_BAD);
    CHECK(parse(ALOG_JSON, "{\"msec\":-1,\"request_method\":\"GET\",\"request_uri\":\"/\"}", &r) == ALOG_BAD);
    CHECK(parse(ALOG_JSON, "{\"msec\":1.5,\"request_method\":\"GET\",\"request_uri\":\"/\\ud800\"}", &r) == ALOG_BAD);
}

static void too_long(void)
{
    static char line[ALOG_TARGET_MAX + 200];
    struct alog_req r;
    int n = snprintf(line, sizeof(line), "h - - [10/Oct/2000:20:55:36 +0000] \"GET /");
    memset(line + n, 'a', ALOG_TARGET_MAX);
    strcpy(line + n + ALOG_TARGET_MAX, " HTTP/1.1\" 200 0");
    CHECK(parse(ALOG_COMBINED, line, &r) == ALOG_LONG);
    line[n + ALOG_TARGET_MAX - 1] = '\0';
    strcat(line, " HTTP/1.1\" 200 0");
    CHECK(parse(ALOG_COMBINED, line, &r) == ALOG_OK && r.target_len == ALOG_TARGET_MAX);
}

static void json(void)
{
    struct alog_req r;
    const char *l = "{\"remote_addr\":\"::1\",\"msec\":\"1700000000.123\",\"status\":200,\"nested\":{\"a\":[1,\"}\"]},"
                    "\"request_method\":\"GET\",\"request_uri\":\"/search?q=\\u00e9t\\u00e9\"}";
    CHECK(accesslog_detect(l, strlen(l)) == ALOG_JSON);
    CHECK(parse(ALOG_AUTO, l, &r) == ALOG_OK);
    CHECK(strcmp(r.method, "GET") == 0 && is_target(&r, "/search?q=\xc3\xa9t\xc3\xa9"));
    CHECKF(r.t_ns == 1700000000123000000LL, "%lld", (long long)r.t_ns);
    CHECK(r.whole_second == 0);
    /* A number, to the ns exactly; "request" instead of method and URI. */
    CHECK(parse(ALOG_JSON, "{\"time\": 1700000000.000000001, \"request\": \"DELETE /x/1 HTTP/1.1\"}", &r) == ALOG_OK);
    CHECK(r.t_ns == 1700000000000000001LL && strcmp(r.method, "DELETE") == 0 && is_target(&r, "/x/1"));
    /* ISO 8601, with and without a fraction. */
    CHECK(parse(ALOG_JSON, "{\"timestamp\":\"2023-11-14T22:13:20+00:00\",\"request\":\"GET / HTTP/1.1\"}", &r) == 0);
    CHECK(r.t_ns == 1700000000LL * 1000000000LL && r.whole_second == 1);
    CHECK(parse(ALOG_JSON, "{\"timestamp\":\"2023-11-14T23:13:20.25+01:00\",\"request\":\"GET / HTTP/1.1\"}", &r) == 0);
    CHECK(r.t_ns == 1700000000250000000LL && r.whole_second == 0);
    /* msec wins over a time to the second beside it. */
    CHECK(parse(ALOG_JSON, "{\"msec\":1700000000.5,\"time\":\"2023-11-14T22:13:20Z\",\"request\":\"GET / HTTP/1.1\"}",
                &r) == 0);
    CHECK(r.t_ns == 1700000000500000000LL);
}

/* Every prefix of a line, each before the guard page: never a read past
 * its end, never a crash. */
static void prefixes(void)
{
    const char *lines[] = {
        "127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /a\\x22b?x=1 HTTP/1.0\" 200 2326 \"r\" \"u\"",
        "{\"msec\":\"1700000000.123\",\"x\":{\"a\":[1,\"}\"]},\"request_method\":\"GET\",\"request_uri\":\"/\\ud83d\\ude00\"}",
        "{\"timestamp\":\"2023-11-14T23:13:20.25+01:00\",\"request\":\"GET / HTTP/1.1\"}",
    };
    size_t i, k;
    struct alog_req r;
    for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        size_t n = strlen(lines[i]);
        for (k = 0; k <= n; k++) {
            int rc = accesslog_parse(ALOG_AUTO, guarded(lines[i], k), k, &r, target);
            CHECK(rc <= 0 && rc >= ALOG_BLANK);
            CHECK(k == n ? rc == ALOG_OK : 1);
        }
    }
}

static int pat(const char *t, const char *want)
{
    char out[128];
    size_t n = accesslog_pattern(t, strlen(t), out, sizeof(out));
    if (strcmp(out, want) != 0 || n != strlen(want)) {
        fprintf(stderr, "pattern of '%s': '%s', want '%s'\n", t, out, want);
        return 0;
    }
    return 1;
}

static void patterns(void)
{
    char small[8];
    CHECK(pat("/", "/"));
    CHECK(pat("/users/42", "/users/{id}"));
    CHECK(pat("/users/42/orders/7?page=2", "/users/{id}/orders/{id}"));
    CHECK(pat("/o/123e4567-e89b-12d3-a456-426614174000/x", "/o/{id}/x"));
    CHECK(pat("/blob/507f1f77bcf86cd799439011", "/blob/{id}"));
    CHECK(pat("/blob/deadbeefdeadbeef", "/blob/deadbeefdeadbeef")); /* no digit: a word */
    CHECK(pat("/v2/items", "/v2/items"));
    CHECK(pat("/a//b/", "/a//b/"));
    CHECK(pat("*", "*"));
    /* Cut to the room given, never past it. */
    CHECK(accesslog_pattern("/abcdefghij/1", 13, small, sizeof(small)) == 7 && strcmp(small, "/abcdef") == 0);
    CHECK(accesslog_pattern("//////////", 10, small, sizeof(small)) == 7);
}

/* A --pattern's path: the target's bytes up to its query or fragment, read
 * no further than its length (a target is not NUL terminated: a long one
 * fills its buffer). */
static void paths(void)
{
    static char big[ALOG_TARGET_MAX];
    char out[ALOG_TARGET_MAX + 1];
    accesslog_path(guarded("/a/b?x=1", 8), 8, out);
    CHECK(strcmp(out, "/a/b") == 0);
    accesslog_path(guarded("/a#f", 4), 4, out);
    CHECK(strcmp(out, "/a") == 0);
    accesslog_path(guarded("/users/42", 9), 9, out);
    CHECK(strcmp(out, "/users/42") == 0);
    memset(big, 'a', sizeof(big));
    big[0] = '/';
    accesslog_path(guarded(big, sizeof(big)), sizeof(big), out);
    CHECK(strlen(out) == ALOG_TARGET_MAX && out[0] == '/' && out[ALOG_TARGET_MAX - 1] == 'a');
}

static void formats(void)
{
    enum alog_format f;
    CHECK(accesslog_format_parse("json", &f) == 0 && f == ALOG_JSON);
    CHECK(accesslog_format_parse("combined", &f) == 0 && f == ALOG_COMBINED);
    CHECK(accesslog_format_parse("xml", &f) == -1);
    CHECK(strcmp(accesslog_format_name(ALOG_COMMON), "common") == 0);
    CHECK(accesslog_days(1970, 1, 1) == 0 && accesslog_days(2000, 3, 1) == 11017);
}

/* --from and --to: ISO 8601, the combined stamp, epoch seconds; nothing else. */
static void user_times(void)
{
    const int64_t t0 = 1700000000LL * 1000000000LL; /* 2023-11-14T22:13:20Z */
    int64_t t;
    regex_t re;
    char name[16], why[200];
    CHECK(accesslog_time("2023-11-14T22:13:20", &t) == 0 && t == t0);
    CHECK(accesslog_time("2023-11-14T23:13:20.5+01:00", &t) == 0 && t == t0 + 500000000);
    CHECK(accesslog_time("14/Nov/2023:22:13:20 +0000", &t) == 0 && t == t0);
    CHECK(accesslog_time("[14/Nov/2023:21:13:20 -0100]", &t) == 0 && t == t0);
    CHECK(accesslog_time("1700000000.25", &t) == 0 && t == t0 + 250000000);
    CHECK(accesslog_time("14/Nov/2023:22:13:20 +0000x", &t) == -1);
    CHECK(accesslog_time("yesterday", &t) == -1 && accesslog_time("", &t) == -1 && accesslog_time("[]", &t) == -1);
    CHECK(accesslog_time("2023-13-14T22:13:20", &t) == -1);
    /* --pattern REGEX=NAME: the name after the last '='. */
    CHECK(accesslog_user_pattern("^/a=b/=rows", &re, name, sizeof(name), why, sizeof(why)) == 0 &&
          strcmp(name, "rows") == 0 && regexec(&re, "/a=b/1", 0, NULL, 0) == 0 && regexec(&re, "/a", 0, NULL, 0) != 0);
    regfree(&re);
    CHECK(accesslog_user_pattern("(=x", &re, name, sizeof(name), why, sizeof(why)) == -1 && strstr(why, "regex"));
    CHECK(accesslog_user_pattern("^/a", &re, name, sizeof(name), why, sizeof(why)) == -1);
    CHECK(accesslog_user_pattern("^/a=", &re, name, sizeof(name), why, sizeof(why)) == -1);
    CHECK(accesslog_user_pattern("=x", &re, name, sizeof(name), why, sizeof(why)) == -1);
    CHECK(accesslog_user_pattern("^/a=a-name-much-too-long", &re, name, sizeof(name), why, sizeof(why)) == -1);
}

int main(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    guard_base = mmap(NULL, 17 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard_base == MAP_FAILED || mprotect(guard_base + 16 * page, page, PROT_NONE) != 0)
        return 1;
    T_RUN(combined);
    T_RUN(common);
    T_RUN(escapes);
    T_RUN(refused);
    T_RUN(too_long);
    T_RUN(json);
    T_RUN(prefixes);
    T_RUN(patterns);
    T_RUN(paths);
    T_RUN(formats);
    T_RUN(user_times);
    T_END("test_accesslog");
}
