/* fuzz/fuzz_http_parse.c - libFuzzer entry point for the response parser:
 * `make fuzz` (clang). The input's last byte is the control byte (HEAD or
 * not, and where to split), so the bytes parsed start like a response and
 * the corpus's well-formed responses are fuzzed in HEAD mode and at every
 * split point too. The rest is fed whole, then split in two; both must
 * agree, and the parser must never read past the buffer (ASan) or claim
 * more bytes than it was given. */
#include "http_parse.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct hp a, b;
    ssize_t whole, r;
    size_t len, cut;
    unsigned char ctl;
    int head;
    char *copy;

    if (size < 2)
        return 0;
    len = size - 1;
    ctl = data[len];
    head = ctl & 1;
    cut = (size_t)(ctl >> 1) * len / 128;
    copy = malloc(len);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, len);
    http_parse_reset(&a, head);
    whole = http_parse_feed(&a, copy, len);
    if (whole > (ssize_t)len)
        abort();

    http_parse_reset(&b, head);
    r = cut ? http_parse_feed(&b, copy, cut) : -2;
    if (r == -2)
        r = http_parse_feed(&b, copy + cut, len - cut), r = r >= 0 ? r + (ssize_t)cut : r;
    /* Same verdict whatever the split: complete at the same byte, or partial, or malformed. */
    if ((whole >= 0) != (r >= 0) || (whole >= 0 && whole != r) || (whole == -1) != (r == -1))
        abort();
    if (whole >= 0 && (a.status != b.status || http_parse_keepalive(&a) != http_parse_keepalive(&b)))
        abort();
    free(copy);
    return 0;
}
