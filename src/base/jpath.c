/* jpath.c - a JSON value found by its path, with a scan (see jpath.h). */
#include "jpath.h"
#include "err.h"
#include "http_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *ws(const char *p, const char *end)
{
    while (p < end && is_ws(*p))
        p++;
    return p;
}


/* p at a '"': the byte after its closing quote, or NULL (RFC 8259 §7). */
static const char *scan_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c == '\\') {
            if (++p >= end)
                return NULL;
            if (*p == 'u') {
                int k;
                for (k = 1; k <= 4; k++)
                    if (p + k >= end || lex_hexval(p[k]) < 0)
                        return NULL;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
    }
    return NULL;
}

static const char *scan_number(const char *p, const char *end)
{
    const char *s = p;
    if (p < end && *p == '-')
        p++;
    if (p >= end || *p < '0' || *p > '9')
        return NULL;
    if (*p == '0')
        p++;
    else
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    if (p < end && *p == '.') {
        if (++p >= end || *p < '0' || *p > '9')
            return NULL;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return NULL;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    return p > s ? p : NULL;
}

static enum jp_type type_at(const char *p, const char *end)
{
    if (p >= end)
        return JP_BAD;
    switch (*p) {
    case '{': return JP_OBJECT;
    case '[': return JP_ARRAY;
    case '"': return JP_STRING;
    case 't': return end - p >= 4 && !memcmp(p, "true", 4) ? JP_TRUE : JP_BAD;
    case 'f': return end - p >= 5 && !memcmp(p, "false", 5) ? JP_FALSE : JP_BAD;
    case 'n': return end - p >= 4 && !memcmp(p, "null", 4) ? JP_NULL : JP_BAD;
    default: return *p == '-' || (*p >= '0' && *p <= '9') ? JP_NUMBER : JP_BAD;
    }
}

/* p at a value: the byte after it, or NULL. Containers are skipped without
 * recursion, their brackets matched on a stack of JPATH_MAX_DEPTH. */
static const char *skip_value(const char *p, const char *end)
{
    char stack[JPATH_MAX_DEPTH];
    int depth = 0;
    do {
        p = ws(p, end);
        if (p >= end)
            return NULL;
        switch (*p) {
        case '{':
        case '[':
            if (depth == JPATH_MAX_DEPTH)
                return NULL;
            stack[depth++] = *p == '{' ? '}' : ']';
            p++;
            break;
        case '}':
        case ']':
            if (depth == 0 || stack[depth - 1] != *p)
                return NULL;
            depth--;
            p++;
            break;
        case '"':
            if ((p = scan_string(p, end)) == NULL)
                return NULL;
            break;
        case ',':
        case ':':
            if (depth == 0)
                return NULL;
            p++;
            break;
        case 't':
        case 'f':
        case 'n': {
            enum jp_type t = type_at(p, end);
            if (t == JP_BAD)
                return NULL;
            p += t == JP_FALSE ? 5 : 4;
            break;
        }
        default:
            if ((p = scan_number(p, end)) == NULL)
                return NULL;
        }
    } while (depth > 0);
    return p;
}

/* Does the key (its raw bytes, quotes included) name the step's member? */
static int key_is(const char *k, const char *kend, const struct jp_step *st)
{
    char buf[512];
    ssize_t n;
    if (memchr(k, '\\', (size_t)(kend - k)) == NULL)
        return (size_t)(kend - k - 2) == st->klen && memcmp(k + 1, st->key, st->klen) == 0;
    n = jpath_string(k, (size_t)(kend - k), buf, sizeof(buf));
    return n >= 0 && (size_t)n == st->klen && memcmp(buf, st->key, st->klen) == 0;
}

enum jp_type jpath_find(const struct jpath *jp, const char *json, size_t len, const char **v, size_t *vlen)
{
    const char *p = json, *end = json + len, *after;
    uint32_t k;
    enum jp_type t;

    p = ws(p, end);
    for (k = 0; k < jp->n; k++) {
        const struct jp_step *st = &jp->step[k];
        if (p >= end)
            return JP_BAD;
        if (st->key) {
            if (*p != '{')
                return type_at(p, end) == JP_BAD ? JP_BAD : JP_NONE;
            p = ws(p + 1, end);
            if (p < end && *p == '}')
                return JP_NONE;
            for (;;) {
                const char *key = p, *kend;
                if (p >= end || *p != '"' || (kend = scan_string(p, end)) == NULL)
                    return JP_BAD;
                p = ws(kend, end);
                if (p >= end || *p != ':')
                    return JP_BAD;
                p = ws(p + 1, end);
                if (key_is(key, kend, st))
                    break;
                if ((p = skip_value(p, end)) == NULL)
                    return JP_BAD;
                p = ws(p, end);
                if (p < end && *p == '}')
                    return JP_NONE;
                if (p >= end || *p != ',')
                    return JP_BAD;
                p = ws(p + 1, end);
            }
        } else {
            uint32_t i;
            if (*p != '[')
                return type_at(p, end) == JP_BAD ? JP_BAD : JP_NONE;
            p = ws(p + 1, end);
            if (p < end && *p == ']')
                return JP_NONE;
            for (i = 0; i < st->index; i++) {
                if ((p = skip_value(p, end)) == NULL)
                    return JP_BAD;
                p = ws(p, end);
                if (p < end && *p == ']')
                    return JP_NONE;
                if (p >= end || *p != ',')
                    return JP_BAD;
                p = ws(p + 1, end);
            }
        }
    }
    if ((t = type_at(p, end)) == JP_BAD || (after = skip_value(p, end)) == NULL)
        return JP_BAD;
    *v = p;
    *vlen = (size_t)(after - p);
    return t;
}

/* Writes code point cp as UTF-8; returns its length, 0 when it does not fit. */
static size_t utf8(unsigned long cp, char *out, size_t room)
{
    if (cp < 0x80 && room >= 1) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800 && room >= 2) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000 && room >= 3) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp < 0x110000 && room >= 4) {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}

static long hex4(const char *p)
{
    long v = 0;
    int k;
    for (k = 0; k < 4; k++) {
        int h = lex_hexval(p[k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

ssize_t jpath_string(const char *v, size_t vlen, char *out, size_t cap)
{
    const char *p = v + 1, *end = v + vlen - 1;
    size_t o = 0;
    if (vlen < 2 || v[0] != '"' || v[vlen - 1] != '"')
        return -1;
    while (p < end) {
        char c = *p++;
        if (c != '\\') {
            if (o >= cap)
                return -1;
            out[o++] = c;
            continue;
        }
        if (p >= end)
            return -1;
        c = *p++;
        if (c == 'u') {
            long cp;
            size_t w;
            if (end - p < 4 || (cp = hex4(p)) < 0)
                return -1;
            p += 4;
            /* A surrogate pair makes one code point (RFC 8259 §7). */
            if (cp >= 0xD800 && cp <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                long lo = hex4(p + 2);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            if ((w = utf8((unsigned long)cp, out + o, cap - o)) == 0)
                return -1;
            o += w;
            continue;
        }
        if (o >= cap)
            return -1;
        switch (c) {
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case '"': case '\\': case '/': out[o++] = c; break;
        default: return -1;
        }
    }
    return (ssize_t)o;
}

/* Digits kept of a number's significand: past 17 they cannot change the
 * nearest double but for a tie, which a sticky digit after them breaks. */
#define NUM_DIGITS 40
#define NUM_EXP_CAP 1000000L /* far past the double's range, either way */

int jpath_number(const char *v, size_t vlen, double *out)
{
    const char *p = v, *end = v + vlen;
    char b[NUM_DIGITS + 32];
    size_t o = 0, kept = 0;
    long long point = 0; /* where the decimal point sits after the kept digits' first */
    long exp = 0;
    int sticky = 0, neg = 0, in_frac = 0;
    double x;

    if (scan_number(v, end) != end)
        return -1;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    b[o++] = neg ? '-' : '+';
    b[o++] = '.';
    /* The significant digits, from the first non-zero one, as 0.DDD... x
     * 10^point: no buffer holds the number's whole text (§6 sets no
     * length), so a digit past NUM_DIGITS only moves the point. */
    for (; p < end && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            in_frac = 1;
            continue;
        }
        if (kept == 0 && *p == '0') {
            if (in_frac)
                point--;
            continue;
        }
        if (!in_frac)
            point++;
        if (kept < NUM_DIGITS) {
            b[o++] = *p;
            kept++;
        } else if (*p != '0') {
            sticky = 1;
        }
    }
    if (kept == 0) {
        *out = neg ? -0.0 : 0.0;
        return 0;
    }
    if (sticky)
        b[o++] = '1';
    if (p < end) {
        int eneg = 0;
        if (*++p == '+' || *p == '-')
            eneg = *p++ == '-';
        for (; p < end; p++)
            if (exp < NUM_EXP_CAP)
                exp = exp * 10 + (*p - '0');
        if (eneg)
            exp = -exp;
    }
    point += exp;
    if (point > NUM_EXP_CAP)
        point = NUM_EXP_CAP;
    if (point < -NUM_EXP_CAP)
        point = -NUM_EXP_CAP;
    snprintf(b + o, sizeof(b) - o, "e%lld", point);
    x = strtod(b, NULL);
    *out = x;
    return x == 0 ? 1 : 0;
}

int jpath_compile(const char *s, size_t n, struct jpath *out, char *err, size_t errlen)
{
    size_t i = 1;
    memset(out, 0, sizeof(*out));
    if (n == 0 || s[0] != '$') {
        err_set(err, errlen, NULL, "a JSON path begins with $ ($.a.b[2].c), not '%.*s'", (int)(n > 40 ? 40 : n), s);
        return -1;
    }
    while (i < n) {
        struct jp_step *st;
        if (out->n == JPATH_MAX_STEPS) {
            err_set(err, errlen, NULL, "a JSON path of more than %d steps", JPATH_MAX_STEPS);
            goto fail;
        }
        st = &out->step[out->n];
        if (s[i] == '.') {
            size_t b = ++i;
            while (i < n && s[i] != '.' && s[i] != '[')
                i++;
            if (i == b) {
                err_set(err, errlen, NULL, "an empty member name in the JSON path '%.*s'", (int)n, s);
                goto fail;
            }
            if ((st->key = strndup(s + b, i - b)) == NULL)
                goto oom;
            st->klen = i - b;
        } else if (s[i] == '[' && i + 1 < n && (s[i + 1] == '\'' || s[i + 1] == '"')) {
            char q = s[i + 1];
            size_t b = i + 2;
            const char *close = memchr(s + b, q, n - b);
            if (close == NULL || (size_t)(close - s) + 1 >= n || close[1] != ']') {
                err_set(err, errlen, NULL, "[%c...%c] not closed in the JSON path '%.*s'", q, q, (int)n, s);
                goto fail;
            }
            if ((st->key = strndup(s + b, (size_t)(close - s) - b)) == NULL)
                goto oom;
            st->klen = (size_t)(close - s) - b;
            i = (size_t)(close - s) + 2;
        } else if (s[i] == '[') {
            unsigned long v = 0;
            size_t b = ++i;
            while (i < n && s[i] >= '0' && s[i] <= '9' && v < 100000000UL)
                v = v * 10 + (unsigned long)(s[i++] - '0');
            if (i == b || i >= n || s[i] != ']') {
                err_set(err, errlen, NULL, "[N] wants an index (a whole number) in the JSON path '%.*s'", (int)n, s);
                goto fail;
            }
            i++;
            st->index = (uint32_t)v;
        } else {
            err_set(err, errlen, NULL, "in the JSON path '%.*s': '.name' or '[N]' after '%.*s'", (int)n, s, (int)i, s);
            goto fail;
        }
        out->n++;
    }
    return 0;
oom:
    err_set(err, errlen, NULL, "out of memory");
fail:
    jpath_free(out);
    return -1;
}

void jpath_free(struct jpath *p)
{
    uint32_t k;
    for (k = 0; k < JPATH_MAX_STEPS; k++) {
        free(p->step[k].key);
        p->step[k].key = NULL;
    }
    p->n = 0;
}
