/* http_lex.h - the character classes and small lexers of HTTP/1.x (RFC 9110
 * §5.6, RFC 9112), shared by the response parser and serve's request
 * parser so both read tokens, numbers and Connection lists the same way. */
#ifndef RAFALE_HTTP_LEX_H
#define RAFALE_HTTP_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* RFC 9110 §5.6.2 tchar: a token's characters. A table: the response
 * parser asks for every byte of every header name. */
static const uint8_t lex_tchar_table[256] = {
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1,
    ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
    ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
    ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
    ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
    ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
    ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1,
};

static inline int lex_tchar(char c)
{
    return lex_tchar_table[(unsigned char)c];
}

/* A hex digit's value, or -1. */
static inline int lex_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static inline int lex_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Visible ASCII, no space: a request target's characters. */
static inline int lex_vchar(char c)
{
    return (unsigned char)c > 0x20 && (unsigned char)c < 0x7f;
}

/* OWS: space or horizontal tab. */
static inline int lex_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* A field value's or reason phrase's characters: HTAB, SP, VCHAR, obs-text. */
static inline int lex_field_char(char c)
{
    unsigned char u = (unsigned char)c;
    return u == '\t' || (u >= 0x20 && u != 0x7f);
}

/* The end of a run of field characters starting at s[i] (n at most): eight
 * bytes at a time while none is a control character or DEL; in the word
 * that holds one, the bytes before the first are skipped at once (the
 * flags are exact per byte), and from it on byte by byte (HTAB is one). */
static inline size_t lex_field_run(const char *s, size_t i, size_t n)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, highs = 0x8080808080808080ULL;
    while (i + 8 <= n) {
        uint64_t x, lt, del, stop;
        memcpy(&x, s + i, 8);
        /* Per byte, without carries from one byte into the next (no sum
         * passes 0xdf): high bit of lt clear where the byte is below 0x20;
         * high bit of del set where it is 0x7f. */
        lt = ((x & low7) + 0x6060606060606060ULL) | x;
        del = ((x & low7) + 0x0101010101010101ULL) & ~x;
        stop = ((~lt) | del) & highs;
        if (stop) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            i += (size_t)__builtin_ctzll(stop) >> 3;
#endif
            break;
        }
        i += 8;
    }
    while (i < n && lex_field_char(s[i]))
        i++;
    return i;
}

/* Is [s, s+n) the token name (lower case letters and '-') in any case? s
 * holds tchars only, so OR-ing 0x20 into each byte lowers letters and
 * leaves '-' alone without making any other tchar equal to either: a
 * compare of eight bytes at a time. n is name's length, at least 8. */
static inline int lex_eq_name8(const char *s, const char *name, size_t n)
{
    const uint64_t low = 0x2020202020202020ULL;
    uint64_t a, b;
    size_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        memcpy(&a, s + i, 8);
        memcpy(&b, name + i, 8);
        if ((a | low) != b)
            return 0;
    }
    if (i < n) { /* the last eight, overlapping */
        memcpy(&a, s + n - 8, 8);
        memcpy(&b, name + n - 8, 8);
        if ((a | low) != b)
            return 0;
    }
    return 1;
}

static inline int lex_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* Does [s, s+n) equal word (lower case), ignoring case? */
static inline int lex_eq_ci(const char *s, size_t n, const char *word)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (word[i] == '\0' || lex_lower((unsigned char)s[i]) != word[i])
            return 0;
    return word[n] == '\0';
}

/* Do a and b, n bytes each, match ignoring ASCII case? */
static inline int lex_eq_ci_n(const char *a, const char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (lex_lower((unsigned char)a[i]) != lex_lower((unsigned char)b[i]))
            return 0;
    return 1;
}

/* Does [s, s+n) start with word (lower case), ignoring case? */
static inline int lex_prefix_ci(const char *s, size_t n, const char *word)
{
    size_t i;
    for (i = 0; word[i]; i++)
        if (i >= n || lex_lower((unsigned char)s[i]) != word[i])
            return 0;
    return 1;
}

/* 1*DIGIT filling [s, s+n), at most max. Returns 0, or -1. */
static inline int lex_number(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;
    if (n == 0 || n > 19)
        return -1;
    for (i = 0; i < n; i++) {
        if (!lex_digit(s[i]))
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

/* A Connection value (RFC 9110 §7.6.1): a comma list of tokens; sets *close
 * and *keep when "close" or "keep-alive" is among them. */
static inline void lex_connection(const char *v, size_t n, int *close, int *keep)
{
    const char *a = v, *end = v + n;
    while (a < end) {
        const char *b = a, *e;
        while (b < end && *b != ',')
            b++;
        e = b;
        while (a < e && lex_ows(*a))
            a++;
        while (e > a && lex_ows(e[-1]))
            e--;
        if (lex_eq_ci(a, (size_t)(e - a), "close"))
            *close = 1;
        else if (lex_eq_ci(a, (size_t)(e - a), "keep-alive"))
            *keep = 1;
        a = b + 1;
    }
}

#endif
