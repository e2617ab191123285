/* fuzz/fuzz_accesslog.c - libFuzzer entry point for the access log's line
 * parser (`make fuzz`, clang): each input line is a line of a hostile log,
 * read in every format. Nothing may crash or read past the line (ASan),
 * and a line taken must hold a request-target of bounded length with no
 * byte that could end or split a request line, and a method that is a
 * token. */
#include "accesslog.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void check(const char *line, size_t n, enum alog_format f)
{
    static char target[ALOG_TARGET_MAX];
    char pat[256];
    struct alog_req r;
    size_t i;
    /* Its own copy, of its own length: ASan sees a read past it. */
    char *copy = malloc(n ? n : 1);
    if (copy == NULL)
        return;
    memcpy(copy, line, n);
    if (accesslog_parse(f, copy, n, &r, target) == ALOG_OK) {
        if (r.target_len == 0 || r.target_len > ALOG_TARGET_MAX || r.method[0] == '\0' ||
            strlen(r.method) >= ALOG_METHOD_MAX)
            abort();
        for (i = 0; i < r.target_len; i++)
            if ((unsigned char)target[i] <= 0x20 || target[i] == 0x7f)
                abort();
        for (i = 0; r.method[i]; i++)
            if ((unsigned char)r.method[i] <= 0x20 || r.method[i] == '"' || r.method[i] == '/')
                abort();
        if (accesslog_pattern(target, r.target_len, pat, sizeof(pat)) >= sizeof(pat))
            abort();
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        check(p, n, ALOG_AUTO);
        check(p, n, ALOG_COMBINED);
        check(p, n, ALOG_JSON);
        p += n + 1;
    }
    return 0;
}
