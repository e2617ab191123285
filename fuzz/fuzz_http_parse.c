/* fuzz/fuzz_http_parse.c - libFuzzer entry point for the response parser:
 * `make fuzz` (clang). The input is fed whole, then again split in two at a
 * point taken from its first byte; both must agree, and the parser must
 * never read past the buffer (ASan) or claim more bytes than it was given. */
#include "../src/http_parse.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
    struct hp a, b;
    ssize_t whole, r;
    size_t cut;
    char *copy;

    if (len == 0)
        return 0;
    copy = malloc(len);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, len);
    hp_reset(&a, data[0] & 1);
    whole = hp_feed(&a, copy, len);
    if (whole > (ssize_t)len)
        abort();

    cut = data[0] % len;
    hp_reset(&b, data[0] & 1);
    r = cut ? hp_feed(&b, copy, cut) : -2;
    if (r == -2)
        r = hp_feed(&b, copy + cut, len - cut), r = r >= 0 ? r + (ssize_t)cut : r;
    /* Same verdict whatever the split: complete at the same byte, or partial, or malformed. */
    if ((whole >= 0) != (r >= 0) || (whole >= 0 && whole != r) || (whole == -1) != (r == -1))
        abort();
    free(copy);
    return 0;
}
