/* URL parsing tests. */
#include "url.h"
#include "../t.h"

#include <string.h>

static int ok(const char *s, const char *host, unsigned port, const char *target)
{
    struct url u;
    char err[256];
    int good;
    if (url_parse(s, &u, err, sizeof(err)) != 0) {
        fprintf(stderr, "unexpected error for %s: %s\n", s, err);
        return 0;
    }
    good = strcmp(u.host, host) == 0 && u.port == port && strcmp(u.target, target) == 0;
    if (!good)
        fprintf(stderr, "%s -> host %s port %u target %s\n", s, u.host, u.port, u.target);
    url_free(&u);
    return good;
}

static int bad(const char *s, const char *needle)
{
    struct url u;
    char err[256] = "";
    int r = url_parse(s, &u, err, sizeof(err));
    url_free(&u);
    if (r == 0)
        return 0;
    if (strstr(err, needle) == NULL) {
        fprintf(stderr, "%s: error '%s' lacks '%s'\n", s, err, needle);
        return 0;
    }
    return 1;
}

static void accepts(void)
{
    CHECK(ok("http://127.0.0.1:8080/", "127.0.0.1", 8080, "/"));
    CHECK(ok("http://localhost", "localhost", 80, "/"));
    CHECK(ok("HTTP://Example.com/a/b?x=1&y=2", "Example.com", 80, "/a/b?x=1&y=2"));
    CHECK(ok("http://h?q", "h", 80, "/?q"));
    CHECK(ok("http://h/p#frag", "h", 80, "/p"));
    CHECK(ok("localhost:9000/x", "localhost", 9000, "/x"));
    CHECK(ok("http://[::1]:8080/v6", "::1", 8080, "/v6"));
    CHECK(ok("http://[::1]", "::1", 80, "/"));
    CHECK(ok("http://a:65535/", "a", 65535, "/"));

}

static void https(void)
{
    CHECK(ok("https://127.0.0.1/", "127.0.0.1", 443, "/"));
    CHECK(ok("https://h:8443/x", "h", 8443, "/x"));
    CHECK(bad("ftp://h/", "unsupported scheme 'ftp'"));
    {
        struct url t;
        char e[64];
        CHECK(url_parse("https://x/", &t, e, sizeof(e)) == 0 && t.tls == 1 && strcmp(t.scheme, "https") == 0);
        url_free(&t);
        CHECK(url_parse("http://x/", &t, e, sizeof(e)) == 0 && t.tls == 0);
        url_free(&t);
    }
}

static void refuses(void)
{
    CHECK(bad("http://h:0/", "bad port"));
    CHECK(bad("http://h:65536/", "bad port"));
    CHECK(bad("http://h:80x/", "bad port"));
    CHECK(bad("http://h:/", "bad port"));
    CHECK(bad("http:///path", "no host"));
    CHECK(bad("http://[::1/", "unterminated IPv6"));
    CHECK(bad("http://h o/", "space or control"));
    CHECK(bad("http://u:p@h/", "user:password@"));
    CHECK(bad("http://h!x/", "bad character"));
    CHECK(bad("", "empty URL"));
}

static void host_header(void)
{
    struct url u;
    char err[128], hh[300];

    CHECK(url_parse("http://[::1]:81/", &u, err, sizeof(err)) == 0);
    CHECK(strcmp(url_host_header(&u, hh, sizeof(hh)), "[::1]:81") == 0);
    url_free(&u);
    CHECK(url_parse("http://example.com/", &u, err, sizeof(err)) == 0);
    CHECK(strcmp(url_host_header(&u, hh, sizeof(hh)), "example.com") == 0);
    url_free(&u);
}

/* A Location on the request's own origin, resolved as --follow does; 0
 * for another origin. */
static void same_origin(void)
{
    static const struct {
        const char *base, *loc, *cur, *want; /* want NULL: another origin */
    } cases[] = {
        { "http://h:8080/", "/next", "/a/b", "/next" },
        { "http://h:8080/", "next", "/a/b?x=1", "/a/next" },
        { "http://h:8080/", "?page=2", "/a/b?x=1", "/a/b?page=2" },
        { "http://h:8080/", "http://H:8080/x#frag", "/", "/x" },
        { "http://h:8080/", "HTTP://h:8080?q", "/", "/?q" },
        { "http://h:8080/", "//h:8080/y", "/", "/y" },
        { "http://h:8080/", "//h:8080", "/", "/" },
        { "http://h/", "http://h:80/z", "/", "/z" },
        { "https://h/", "https://h/z", "/", "/z" },
        { "http://[::1]:81/", "http://[::1]:81/v6", "/", "/v6" },
        { "http://h:8080/", "/sp  \t", "/", "/sp" },
        { "http://h:8080/", "https://h:8080/x", "/", NULL },
        { "http://h:8080/", "http://other:8080/x", "/", NULL },
        { "http://h:8080/", "http://h:8081/x", "/", NULL },
        { "http://h:8080/", "http://h:/x", "/", NULL },
        { "http://h:8080/", "http://h:8080x/x", "/", NULL },
        { "http://h:8080/", "http://h:99999999999/x", "/", NULL },
        { "http://h:8080/", "//", "/", NULL },
        { "http://[::1]:81/", "http://[::2]:81/", "/", NULL },
        { "http://h:8080/", "http://hh:8080/", "/", NULL },
    };
    size_t i;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct url u;
        char err[128], path[64];
        size_t n;
        CHECK(url_parse(cases[i].base, &u, err, sizeof(err)) == 0);
        n = url_same_origin(&u, cases[i].loc, strlen(cases[i].loc), cases[i].cur, strlen(cases[i].cur), path,
                            sizeof(path));
        if (cases[i].want)
            CHECKF(n == strlen(cases[i].want) && memcmp(path, cases[i].want, n) == 0, "%s: '%.*s'", cases[i].loc,
                   (int)n, path);
        else
            CHECKF(n == 0, "%s: '%.*s' (another origin)", cases[i].loc, (int)n, path);
        url_free(&u);
    }
    {
        /* Too long for the room: not followed. */
        struct url u;
        char err[128], path[8];
        CHECK(url_parse("http://h/", &u, err, sizeof(err)) == 0);
        CHECK(url_same_origin(&u, "/a-long-path", 12, "/", 1, path, sizeof(path)) == 0);
        url_free(&u);
    }
}

int main(void)
{
    T_RUN(accepts);
    T_RUN(https);
    T_RUN(refuses);
    T_RUN(host_header);
    T_RUN(same_origin);
    T_END("test_url");
}
