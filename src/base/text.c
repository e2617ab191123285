/* text.c - UTF-8 checking and terminal scrubbing for bytes from outside:
 * one rule for every output, so that no two of them disagree on what a
 * hostile name or header becomes. */
#include "text.h"

size_t text_utf8_len(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned lo, hi;
    if (n == 0)
        return 0;
    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (p[0] >= 0xe0 && p[0] <= 0xef) {
        lo = p[0] == 0xe0 ? 0xa0 : 0x80; /* 0xe0 0x80..0x9f: overlong */
        hi = p[0] == 0xed ? 0x9f : 0xbf; /* 0xed 0xa0..0xbf: surrogates */
        return n >= 3 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        lo = p[0] == 0xf0 ? 0x90 : 0x80; /* overlong */
        hi = p[0] == 0xf4 ? 0x8f : 0xbf; /* past U+10FFFF */
        return n >= 4 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
    }
    return 0;
}

size_t text_cut(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
        max--;
    return max;
}

/* The character at s (n > 0 bytes): its length in *len, and 1 when a
 * terminal may be shown it, 0 when not (a control byte, a C1 control a
 * terminal may act on, a byte that is not UTF-8). */
static int shows(const char *s, size_t n, int one_line, size_t *len)
{
    unsigned char b = (unsigned char)s[0];
    size_t k;
    *len = 1;
    if (b == '\n' || b == '\t')
        return !one_line;
    if (b < 0x20 || b == 0x7f)
        return 0;
    if ((k = text_utf8_len(s, n)) == 0)
        return 0;
    *len = k;
    return !(k == 2 && b == 0xc2 && (unsigned char)s[1] < 0xa0);
}

size_t text_safe_len(const char *s, size_t n)
{
    size_t i = 0, k;
    while (i < n && shows(s + i, n - i, 1, &k))
        i += k;
    return i;
}

size_t text_scrub(char *s, size_t n, int one_line)
{
    size_t i = 0, o = 0, k;
    while (i < n) {
        if (shows(s + i, n - i, one_line, &k)) {
            for (; k > 0; k--)
                s[o++] = s[i++];
        } else {
            s[o++] = '?';
            i += k;
        }
    }
    s[o] = '\0';
    return o;
}
