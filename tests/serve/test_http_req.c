/* Request parser tests: each request is given whole, then as a buffer that
 * grows (split at every byte, and one byte at a time), as serve gives it;
 * every prefix sits right before a PROT_NONE page, at a new address each
 * time (the parser keeps offsets, not pointers), so a read past the end
 * crashes and a stale pointer is caught. */
#include "http_req.h"
#include "../t.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *guard_base[2];
static size_t page;
static int flip;

/* Copies s to the end of one of two regions, each followed by a guard
 * page, alternating: consecutive calls see the bytes at different places. */
static const char *guarded(const char *s, size_t n)
{
    char *end = guard_base[flip++ % 2] + 16 * page;
    memmove(end - n, s, n);
    return end - n;
}

struct want {
    ssize_t len;         /* head length, or -1 */
    int status;          /* with -1 */
    const char *path;    /* when complete */
    int minor, keep, head;
    uint64_t clen;
};

/* Parses the prefix lengths in steps (k, then n); returns the first result
 * that is not -2, or -2. */
static ssize_t grow(const char *s, size_t n, size_t k, struct http_req *r, int *status, const char **why)
{
    ssize_t rc = -2;
    memset(r, 0, sizeof(*r));
    if (k > 0) {
        rc = http_req_parse(guarded(s, k), k, 1 << 20, r, status, why);
        if (rc != -2)
            return rc;
    }
    return http_req_parse(guarded(s, n), n, 1 << 20, r, status, why);
}

static void check_req(const char *name, const char *s, struct want w)
{
    size_t n = strlen(s), k;
    struct http_req r;
    const char *why = "";
    int status = 0;
    ssize_t rc;

    for (k = 0; k <= n; k++) {
        rc = grow(s, n, k, &r, &status, &why);
        CHECKF(rc == w.len, "%s split at %zu: got %zd want %zd (%d %s)", name, k, rc, w.len, status, why);
        if (rc == -1 && w.len == -1)
            CHECKF(status == w.status, "%s split at %zu: status %d want %d (%s)", name, k, status, w.status, why);
        if (rc >= 0 && w.len >= 0) {
            CHECKF(r.plen == strlen(w.path) && memcmp(r.path, w.path, r.plen) == 0, "%s split %zu: path %.*s", name,
                   k, (int)r.plen, r.path);
            CHECKF(r.minor == w.minor && r.keep == w.keep && r.head == w.head && r.clen == w.clen,
                   "%s split %zu: minor %d keep %d head %d clen %llu", name, k, r.minor, r.keep, r.head,
                   (unsigned long long)r.clen);
        }
    }
    /* One byte more each time. */
    memset(&r, 0, sizeof(r));
    rc = -2;
    for (k = 1; k <= n && rc == -2; k++)
        rc = http_req_parse(guarded(s, k), k, 1 << 20, &r, &status, &why);
    CHECKF(rc == w.len, "%s bytewise: got %zd want %zd (%s)", name, rc, w.len, why);
    if (rc == -1)
        CHECKF(status == w.status, "%s bytewise: status %d", name, status);
}

#define OK(name, s, path, minor, keep, head, clen) \
    check_req(name, s, (struct want){ (ssize_t)strlen(s), 0, path, minor, keep, head, clen })
#define BAD(name, s, status) check_req(name, s, (struct want){ -1, status, NULL, 0, 0, 0, 0 })

int main(void)
{
    char big[20000];
    char many[4000];
    int i;
    size_t u = 0;

    page = (size_t)sysconf(_SC_PAGESIZE);
    for (i = 0; i < 2; i++) {
        guard_base[i] = mmap(NULL, 17 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        mprotect(guard_base[i] + 16 * page, page, PROT_NONE);
    }

    OK("get", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "/", 1, 1, 0, 0);
    OK("query", "GET /json?a=1&b=2 HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n", "/json?a=1&b=2", 1, 1, 0, 0);
    OK("close", "GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Close\r\n\r\n", "/", 1, 0, 0, 0);
    OK("http/1.0", "GET /a HTTP/1.0\r\n\r\n", "/a", 0, 0, 0, 0);
    OK("http/1.0 keep-alive", "GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", "/a", 0, 1, 0, 0);
    OK("http/1.5 is 1.1", "GET / HTTP/1.5\r\nHost: x\r\n\r\n", "/", 1, 1, 0, 0);
    OK("head", "HEAD /bytes/10 HTTP/1.1\r\nHost: x\r\n\r\n", "/bytes/10", 1, 1, 1, 0);
    OK("post", "POST /f HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n\r\n", "/f", 1, 1, 0, 12);
    OK("same length twice", "POST /f HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\ncontent-length: 3\r\n\r\n", "/f", 1, 1,
       0, 3);
    OK("empty lines first", "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", "/", 1, 1, 0, 0);
    OK("value ows", "GET / HTTP/1.1\r\nHost:x\r\nX-A: \t spaced \t\r\n\r\n", "/", 1, 1, 0, 0);
    OK("obs-text", "GET / HTTP/1.1\r\nHost: x\r\nX-A: caf\xc3\xa9\r\n\r\n", "/", 1, 1, 0, 0);
    OK("absolute form", "GET http://example.test:8080/p?q=1 HTTP/1.1\r\nHost: example.test\r\n\r\n", "/p?q=1", 1, 1, 0,
       0);
    OK("absolute form, no path", "GET HTTPS://example.test HTTP/1.1\r\nHost: example.test\r\n\r\n", "/", 1, 1, 0, 0);
    OK("absolute form, query only", "GET http://h?x=1 HTTP/1.1\r\nHost: h\r\n\r\n", "/", 1, 1, 0, 0);

    BAD("bare LF", "GET / HTTP/1.1\nHost: x\n\n", 400);
    BAD("bare LF in a field", "GET / HTTP/1.1\r\nHost: x\nX: y\r\n\r\n", 400);
    BAD("HTTP/0.9", "GET /\r\n", 400);
    BAD("no version", "GET / \r\n\r\n", 400);
    BAD("TLS ClientHello", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400);
    BAD("HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505);
    BAD("bad version", "GET / HTTX/1.1\r\nHost: x\r\n\r\n", 400);
    BAD("two spaces", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    BAD("control in target", "GET /a\x01 HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    BAD("bad method", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400);
    BAD("space before colon", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\nabcde", 400);
    BAD("obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n", 400);
    BAD("conflicting lengths", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400);
    BAD("length list", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\n", 400);
    BAD("bad length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0x10\r\n\r\n", 400);
    BAD("length with TE", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400);
    BAD("TE", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 501);
    BAD("too long a body", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n", 413);
    BAD("no Host", "GET / HTTP/1.1\r\n\r\n", 400);
    BAD("two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400);
    BAD("control in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x7f\r\n\r\n", 400);
    BAD("empty field name", "GET / HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n", 400);
    /* Refused on the byte, not when its line ends (the metrics port's junk: a 400 at once). */
    BAD("control in a field not ended", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x01", 400);
    BAD("CR inside a field not ended", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb", 400);

    /* 101 fields, and a head over 16 KiB. */
    u = (size_t)snprintf(many, sizeof(many), "GET / HTTP/1.1\r\nHost: x\r\n");
    for (i = 0; i < 100; i++)
        u += (size_t)snprintf(many + u, sizeof(many) - u, "X-%d: 1\r\n", i);
    snprintf(many + u, sizeof(many) - u, "\r\n");
    BAD("too many fields", many, 431);
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    memcpy(big, "GET / HTTP/1.1\r\nHost: x\r\nX-B: ", 29);
    {
        /* Long without an end: refused at the limit, not waited on. */
        struct http_req r;
        int status = 0;
        const char *why;
        memset(&r, 0, sizeof(r));
        CHECK(http_req_parse(big, strlen(big), 1 << 20, &r, &status, &why) == -1 && status == 431);
    }
    /* Pipelined: the first head's length, then the second from there. */
    {
        static const char two[] = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n";
        struct http_req r;
        int status;
        const char *why;
        ssize_t n1, n2;
        memset(&r, 0, sizeof(r));
        n1 = http_req_parse(two, sizeof(two) - 1, 1 << 20, &r, &status, &why);
        CHECK(n1 == 28 && r.plen == 2 && memcmp(r.path, "/a", 2) == 0);
        n2 = http_req_parse(two + n1, sizeof(two) - 1 - (size_t)n1, 1 << 20, &r, &status, &why);
        CHECK(n2 == 28 && memcmp(r.path, "/b", 2) == 0 && r.clen == 0);
    }
    T_END("test_http_req");
}
