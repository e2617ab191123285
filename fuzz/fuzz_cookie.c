/* fuzz/fuzz_cookie.c - libFuzzer entry point for the cookie jar (`make
 * fuzz`, clang): each input line is a Set-Cookie value from a hostile
 * server, stored at a clock that moves with the input; then the Cookie
 * value for a few paths. Nothing may crash, overflow (UBSan: Max-Age and
 * Expires arithmetic), or write a Cookie value longer than JAR_HEADER_MAX
 * or holding a byte a header cannot carry. */
#include "cookie.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void check_header(const struct jar *j, const char *path, time_t now)
{
    static char out[JAR_HEADER_MAX + 1];
    size_t n = cookie_header(j, path, strlen(path), now & 1, now, out), i;
    if (n > JAR_HEADER_MAX)
        abort();
    for (i = 0; i < n; i++)
        if (out[i] == '\r' || out[i] == '\n' || out[i] == '\0')
            abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static struct jar j;
    const char *p = (const char *)data, *end = p + size;
    time_t now = 1764547200;

    memset(&j, 0, sizeof(j));
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        cookie_set(&j, p, n, "/a/b", 4, now);
        if (j.n > JAR_MAX || j.used > JAR_TEXT)
            abort();
        now += n * 1000; /* time passes: expiries are crossed */
        p += n + 1;
    }
    check_header(&j, "/", now);
    check_header(&j, "/a/b/c?x=1", now);
    check_header(&j, "/a", now + 86400);
    return 0;
}
