/* fuzz/fuzz_http_req.c - libFuzzer entry point for serve's request parser:
 * `make fuzz` (clang). The input is parsed whole, then as a buffer that grows
 * in two steps, cut at a point taken from the input's last byte (a control
 * byte at the end, so the bytes parsed still start like a request); both
 * must give the same verdict, and the parser must never read past the
 * buffer (ASan) or claim more bytes than it was given. */
#include "http_req.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct http_req a, b;
    const char *why;
    int sa = 0, sb = 0;
    ssize_t whole, r;
    size_t len, cut;
    char *copy;

    if (size < 2)
        return 0;
    len = size - 1;
    cut = (size_t)data[len] * len / 256;
    copy = malloc(len);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, len);
    memset(&a, 0, sizeof(a));
    whole = http_req_parse(copy, len, 1 << 20, &a, &sa, &why);
    if (whole > (ssize_t)len || (whole == -1 && (sa < 400 || sa > 505)))
        abort();
    if (whole >= 0 && (a.path == NULL || a.plen == 0 || a.mlen == 0 || a.method != copy + (a.method - copy)))
        abort();
    memset(&b, 0, sizeof(b));
    r = cut ? http_req_parse(copy, cut, 1 << 20, &b, &sb, &why) : -2;
    if (r == -2)
        r = http_req_parse(copy, len, 1 << 20, &b, &sb, &why);
    /* A request refused on a prefix is refused whole too; complete at the
     * same byte, with the same framing. */
    if ((whole == -1) != (r == -1) || (whole >= 0 && (whole != r || a.clen != b.clen || a.keep != b.keep)))
        abort();
    free(copy);
    return 0;
}
