/* accesslog.c - an access log's line: its method, request-target and time
 * (accesslog.h). Untrusted bytes: every read is bounded by the line's end,
 * nothing is allocated, and the request-target is refused when it holds a
 * byte a request line cannot carry (RFC 9112 section 3: a request line is
 * method SP request-target SP version, ended by CRLF). */
#include "accesslog.h"
#include "http_lex.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = { [ALOG_AUTO] = "auto", [ALOG_COMBINED] = "combined", [ALOG_COMMON] = "common",
                                     [ALOG_JSON] = "json" };

const char *accesslog_format_name(enum alog_format f)
{
    return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : NULL;
}

int accesslog_format_parse(const char *word, enum alog_format *f)
{
    unsigned i;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(word, names[i]) == 0) {
            *f = (enum alog_format)i;
            return 0;
        }
    return -1;
}

int64_t accesslog_days(int64_t y, unsigned m, unsigned d)
{
    /* The civil calendar from March, so the leap day ends the year. */
    int64_t era;
    unsigned yoe, doy, doe;
    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}


/* n digits at p as a number, or -1. */
static int64_t digits(const char *p, const char *e, unsigned n)
{
    int64_t v = 0;
    unsigned i;
    if ((size_t)(e - p) < n)
        return -1;
    for (i = 0; i < n; i++) {
        if (!lex_digit(p[i]))
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* A date and time in ns since the epoch, or -1 when out of range. */
static int64_t stamp(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, int64_t s)
{
    static const unsigned mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || s > 60)
        return -1;
    return ((accesslog_days(y, (unsigned)mo, (unsigned)d) * 86400) + h * 3600 + mi * 60 + s) * 1000000000LL;
}

/* A zone "+hhmm", "+hh:mm" or "Z" at *pp: its offset east in seconds, or
 * INT64_MIN. */
static int64_t zone(const char **pp, const char *e)
{
    const char *p = *pp;
    int64_t h, m, sign;
    if (p < e && *p == 'Z') {
        *pp = p + 1;
        return 0;
    }
    if (p >= e || (*p != '+' && *p != '-'))
        return INT64_MIN;
    sign = *p == '-' ? -1 : 1;
    if ((h = digits(p + 1, e, 2)) < 0)
        return INT64_MIN;
    p += 3;
    if (p < e && *p == ':')
        p++;
    if ((m = digits(p, e, 2)) < 0 || h > 23 || m > 59)
        return INT64_MIN;
    *pp = p + 2;
    return sign * (h * 3600 + m * 60);
}

/* "10/Oct/2000:13:55:36 -0700" (strftime's %d/%b/%Y:%H:%M:%S %z). */
static int clf_time(const char *p, const char *e, int64_t *t)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    int64_t d = digits(p, e, 2), y, h, mi, s, z;
    int mo;
    if (d < 0 || e - p < 26 || p[2] != '/' || p[6] != '/' || p[11] != ':' || p[14] != ':' || p[17] != ':' ||
        p[20] != ' ')
        return -1;
    for (mo = 0; mo < 12 && memcmp(months + 3 * mo, p + 3, 3) != 0; mo++)
        ;
    y = digits(p + 7, e, 4);
    h = digits(p + 12, e, 2);
    mi = digits(p + 15, e, 2);
    s = digits(p + 18, e, 2);
    p += 21;
    if (mo == 12 || y < 0 || h < 0 || mi < 0 || s < 0 || (z = zone(&p, e)) == INT64_MIN)
        return -1;
    if ((*t = stamp(y, mo + 1, d, h, mi, s)) < 0)
        return -1;
    *t -= z * 1000000000LL;
    return 0;
}

/* "2024-01-02T03:04:05[.fff][Z|+hh:mm]" (nginx's $time_iso8601, with an
 * optional fraction). */
static int iso_time(const char *p, const char *e, int64_t *t, int *whole)
{
    int64_t y = digits(p, e, 4), mo, d, h, mi, s, z, frac = 0, scale = 1000000000LL;
    if (y < 0 || e - p < 19 || p[4] != '-' || p[7] != '-' || (p[10] != 'T' && p[10] != ' ') || p[13] != ':' ||
        p[16] != ':')
        return -1;
    mo = digits(p + 5, e, 2);
    d = digits(p + 8, e, 2);
    h = digits(p + 11, e, 2);
    mi = digits(p + 14, e, 2);
    s = digits(p + 17, e, 2);
    p += 19;
    *whole = 1;
    if (p < e && *p == '.') {
        *whole = 0;
        for (p++; p < e && lex_digit(*p); p++)
            if (scale > 1) {
                scale /= 10;
                frac += (*p - '0') * scale;
            }
    }
    z = p < e ? zone(&p, e) : 0;
    if (mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0 || z == INT64_MIN || p != e || (*t = stamp(y, mo, d, h, mi, s)) < 0)
        return -1;
    *t += frac - z * 1000000000LL;
    return 0;
}

/* "1700000000.123" (nginx's $msec): seconds with a fraction, to the ns,
 * read exactly (no double on the way). */
static int epoch_time(const char *p, const char *e, int64_t *t, int *whole)
{
    int64_t s = 0, frac = 0, scale = 1000000000LL;
    const char *b = p;
    for (; p < e && lex_digit(*p); p++) {
        if (s > 7000000000LL)
            return -1; /* past 2191: no log's */
        s = s * 10 + (*p - '0');
    }
    if (p == b)
        return -1;
    *whole = 1;
    if (p < e && *p == '.') {
        *whole = 0;
        for (p++; p < e && lex_digit(*p); p++)
            if (scale > 1) {
                scale /= 10;
                frac += (*p - '0') * scale;
            }
    }
    if (p != e)
        return -1;
    *t = s * 1000000000LL + frac;
    return 0;
}

/* The request-target's bytes, as decoded: refused when one could end the
 * request line or split it (RFC 9112 section 3). */
static int target_ok(const char *t, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c <= 0x20 || c == 0x7f)
            return ALOG_CONTROL;
    }
    /* origin-form, or OPTIONS's asterisk-form */
    if (n == 0 || (t[0] != '/' && !(n == 1 && t[0] == '*')))
        return ALOG_BAD;
    return ALOG_OK;
}

/* A request line "METHOD target [HTTP/x.y]" of n bytes (decoded already
 * when it needed it) into r and target. */
static int request_line(const char *p, size_t n, struct alog_req *r, char *target)
{
    const char *e = p + n, *m = p, *sp, *t;
    size_t k;
    while (p < e && lex_tchar(*p))
        p++;
    if (p == m || p >= e || *p != ' ' || (size_t)(p - m) >= ALOG_METHOD_MAX)
        return ALOG_BAD;
    memcpy(r->method, m, (size_t)(p - m));
    r->method[p - m] = '\0';
    t = ++p;
    /* The target ends at the last space before a version, or at the end:
     * a space inside it (a log that writes the request raw) is refused. */
    sp = e;
    if (e - t >= 9 && memcmp(e - 9, " HTTP/", 6) == 0)
        sp = e - 9;
    else if (e - t >= 7 && memcmp(e - 7, " HTTP/", 6) == 0) /* HTTP/2, HTTP/3 */
        sp = e - 7;
    k = (size_t)(sp - t);
    if (k > ALOG_TARGET_MAX)
        return ALOG_LONG;
    memcpy(target, t, k);
    r->target_len = k;
    return target_ok(target, k);
}

/* combined and common: host ident user [time] "request" status bytes ...
 * The request's quotes and control bytes are escaped as \xHH by nginx,
 * as \" and \\ by Apache: decoded here into buf (n bytes at most). */
static int clf_parse(const char *p, const char *e, struct alog_req *r, char *target)
{
    char req[ALOG_TARGET_MAX + 64];
    size_t k = 0;
    const char *b = memchr(p, '[', (size_t)(e - p)), *close;
    if (b == NULL || (close = memchr(b, ']', (size_t)(e - b))) == NULL || clf_time(b + 1, close, &r->t_ns) != 0)
        return ALOG_BAD;
    r->whole_second = 1;
    p = close + 1;
    if (e - p < 2 || p[0] != ' ' || p[1] != '"')
        return ALOG_BAD;
    for (p += 2; p < e && *p != '"'; p++) {
        char c = *p;
        if (c == '\\' && p + 1 < e) {
            if (p[1] == 'x' && e - p >= 4 && lex_hexval(p[2]) >= 0 && lex_hexval(p[3]) >= 0) {
                c = (char)(lex_hexval(p[2]) * 16 + lex_hexval(p[3]));
                p += 3;
            } else if (p[1] == '"' || p[1] == '\\') {
                c = *++p;
            }
        }
        if (k == sizeof(req))
            return ALOG_LONG;
        req[k++] = c;
    }
    if (p >= e)
        return ALOG_BAD;
    return request_line(req, k, r, target);
}

enum alog_format accesslog_detect(const char *line, size_t n)
{
    const char *e = line + n, *p = line, *q;
    int quotes = 0;
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    if (p < e && *p == '{')
        return ALOG_JSON;
    /* After "request": combined has "referer" "user-agent". */
    if ((q = memchr(p, ']', (size_t)(e - p))) == NULL)
        return ALOG_COMMON;
    for (p = q + 1; p < e; p++)
        if (*p == '"' && p[-1] != '\\')
            quotes++;
    return quotes >= 6 ? ALOG_COMBINED : ALOG_COMMON;
}

/* --- JSON lines: one object a line, its members read as they come --- */

static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

/* A string at *pp (at its opening quote), decoded into out (cap bytes;
 * NULL: skipped). Returns 0, ALOG_BAD or ALOG_LONG; *len its length. */
static int jstring(const char **pp, const char *e, char *out, size_t cap, size_t *len)
{
    const char *p = *pp + 1;
    size_t k = 0;
    int rc = 0;
    while (p < e && *p != '"') {
        unsigned long cp;
        char tmp[4];
        size_t w = 1, i;
        if ((unsigned char)*p < 0x20)
            return ALOG_BAD; /* RFC 8259 section 7: control bytes are escaped */
        if (*p != '\\') {
            tmp[0] = *p++;
        } else {
            if (p + 1 >= e)
                return ALOG_BAD;
            switch (p[1]) {
            case '"': case '\\': case '/': tmp[0] = p[1]; break;
            case 'b': tmp[0] = '\b'; break;
            case 'f': tmp[0] = '\f'; break;
            case 'n': tmp[0] = '\n'; break;
            case 'r': tmp[0] = '\r'; break;
            case 't': tmp[0] = '\t'; break;
            case 'u':
                if (e - p < 6 || lex_hexval(p[2]) < 0 || lex_hexval(p[3]) < 0 || lex_hexval(p[4]) < 0 || lex_hexval(p[5]) < 0)
                    return ALOG_BAD;
                cp = (unsigned long)(lex_hexval(p[2]) << 12 | lex_hexval(p[3]) << 8 | lex_hexval(p[4]) << 4 | lex_hexval(p[5]));
                p += 4;
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    unsigned long lo;
                    if (e - p < 8 || p[2] != '\\' || p[3] != 'u' || lex_hexval(p[4]) < 0 || lex_hexval(p[5]) < 0 ||
                        lex_hexval(p[6]) < 0 || lex_hexval(p[7]) < 0)
                        return ALOG_BAD;
                    lo = (unsigned long)(lex_hexval(p[4]) << 12 | lex_hexval(p[5]) << 8 | lex_hexval(p[6]) << 4 | lex_hexval(p[7]));
                    if (lo < 0xdc00 || lo > 0xdfff)
                        return ALOG_BAD;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p += 6;
                } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                    return ALOG_BAD;
                }
                if (cp < 0x80) {
                    tmp[0] = (char)cp;
                } else if (cp < 0x800) {
                    tmp[0] = (char)(0xc0 | cp >> 6);
                    tmp[1] = (char)(0x80 | (cp & 0x3f));
                    w = 2;
                } else if (cp < 0x10000) {
                    tmp[0] = (char)(0xe0 | cp >> 12);
                    tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                    tmp[2] = (char)(0x80 | (cp & 0x3f));
                    w = 3;
                } else {
                    tmp[0] = (char)(0xf0 | cp >> 18);
                    tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
                    tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
                    tmp[3] = (char)(0x80 | (cp & 0x3f));
                    w = 4;
                }
                break;
            default:
                return ALOG_BAD;
            }
            p += 2;
        }
        for (i = 0; out && i < w; i++) {
            if (k == cap) {
                rc = ALOG_LONG; /* read on to the end: the line's form is still checked */
                break;
            }
            out[k++] = tmp[i];
        }
    }
    if (p >= e)
        return ALOG_BAD;
    *pp = p + 1;
    *len = k;
    return rc;
}

/* Any value at *pp: skipped, nesting bounded. */
static int jskip(const char **pp, const char *e)
{
    const char *p = *pp;
    size_t len, depth = 0;
    do {
        p = skip_ws(p, e);
        if (p >= e)
            return ALOG_BAD;
        if (*p == '"') {
            if (jstring(&p, e, NULL, 0, &len) != 0)
                return ALOG_BAD;
        } else if (*p == '{' || *p == '[') {
            if (++depth > 64)
                return ALOG_BAD;
            p++;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0)
                return ALOG_BAD;
            depth--;
            p++;
        } else if (*p == ',' || *p == ':') {
            if (depth == 0)
                return ALOG_BAD;
            p++;
        } else {
            const char *b = p;
            while (p < e && (lex_digit(*p) || (*p >= 'a' && *p <= 'z') || *p == '-' || *p == '+' || *p == '.' ||
                             *p == 'E'))
                p++;
            if (p == b)
                return ALOG_BAD;
        }
    } while (depth > 0);
    *pp = p;
    return 0;
}

/* A time member's value: a number or a string of one, or ISO 8601. */
static int jtime(const char **pp, const char *e, struct alog_req *r)
{
    char buf[64];
    size_t n;
    const char *p = *pp, *b = p;
    if (*p == '"') {
        if (jstring(&p, e, buf, sizeof(buf), &n) != 0)
            return ALOG_BAD;
    } else {
        while (p < e && (lex_digit(*p) || *p == '.'))
            p++;
        n = (size_t)(p - b);
        if (n == 0 || n > sizeof(buf))
            return ALOG_BAD;
        memcpy(buf, b, n);
    }
    *pp = p;
    if (epoch_time(buf, buf + n, &r->t_ns, &r->whole_second) == 0)
        return 0;
    return iso_time(buf, buf + n, &r->t_ns, &r->whole_second) == 0 ? 0 : ALOG_BAD;
}

enum jkey { J_OTHER, J_MSEC, J_TIME, J_METHOD, J_URI, J_REQUEST };

static enum jkey jkey_of(const char *k, size_t n)
{
    static const struct { const char *name; enum jkey key; } keys[] = {
        { "msec", J_MSEC }, { "time", J_TIME }, { "timestamp", J_TIME }, { "request_method", J_METHOD },
        { "method", J_METHOD }, { "request_uri", J_URI }, { "uri", J_URI }, { "request", J_REQUEST },
    };
    size_t i;
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strlen(keys[i].name) == n && memcmp(keys[i].name, k, n) == 0)
            return keys[i].key;
    return J_OTHER;
}

static int json_parse(const char *p, const char *e, struct alog_req *r, char *target)
{
    char key[32], req[ALOG_TARGET_MAX + 64], method[ALOG_METHOD_MAX];
    size_t klen, reqlen = 0, mlen = 0;
    int have_t = 0, have_uri = 0, have_req = 0, rc, long_uri = 0;
    int64_t msec_t = 0;
    int have_msec = 0;
    p = skip_ws(p, e);
    if (p >= e || *p != '{')
        return ALOG_BAD;
    p = skip_ws(p + 1, e);
    if (p < e && *p == '}')
        return ALOG_BAD;
    for (;;) {
        enum jkey k;
        if (p >= e || *p != '"')
            return ALOG_BAD;
        rc = jstring(&p, e, key, sizeof(key), &klen);
        if (rc == ALOG_BAD)
            return ALOG_BAD;
        k = rc == ALOG_LONG ? J_OTHER : jkey_of(key, klen);
        p = skip_ws(p, e);
        if (p >= e || *p != ':')
            return ALOG_BAD;
        p = skip_ws(p + 1, e);
        if (p >= e)
            return ALOG_BAD;
        switch (k) {
        case J_MSEC:
        case J_TIME:
            if (jtime(&p, e, r) != 0)
                return ALOG_BAD;
            if (k == J_MSEC) { /* $msec wins over a coarser time beside it */
                have_msec = 1;
                msec_t = r->t_ns;
            }
            have_t = 1;
            break;
        case J_METHOD:
            if (*p != '"' || (rc = jstring(&p, e, method, sizeof(method) - 1, &mlen)) == ALOG_BAD)
                return ALOG_BAD;
            if (rc == ALOG_LONG)
                mlen = sizeof(method); /* too long: refused below */
            break;
        case J_URI:
            if (*p != '"' || (rc = jstring(&p, e, target, ALOG_TARGET_MAX, &r->target_len)) == ALOG_BAD)
                return ALOG_BAD;
            long_uri = rc == ALOG_LONG;
            have_uri = 1;
            break;
        case J_REQUEST:
            if (*p != '"' || (rc = jstring(&p, e, req, sizeof(req), &reqlen)) == ALOG_BAD)
                return ALOG_BAD;
            if (rc == ALOG_LONG)
                return ALOG_LONG;
            have_req = 1;
            break;
        default:
            if (jskip(&p, e) != 0)
                return ALOG_BAD;
        }
        p = skip_ws(p, e);
        if (p < e && *p == ',') {
            p = skip_ws(p + 1, e);
            continue;
        }
        if (p < e && *p == '}')
            break;
        return ALOG_BAD;
    }
    if (skip_ws(p + 1, e) != e || !have_t)
        return ALOG_BAD;
    if (have_msec) {
        r->t_ns = msec_t;
        r->whole_second = 0;
    }
    if (have_uri && mlen > 0) {
        size_t i;
        if (mlen >= sizeof(method))
            return ALOG_BAD;
        for (i = 0; i < mlen; i++)
            if (!lex_tchar(method[i]))
                return ALOG_BAD;
        memcpy(r->method, method, mlen);
        r->method[mlen] = '\0';
        return long_uri ? ALOG_LONG : target_ok(target, r->target_len);
    }
    if (have_req)
        return request_line(req, reqlen, r, target);
    return ALOG_BAD;
}

int accesslog_parse(enum alog_format f, const char *line, size_t n, struct alog_req *r, char *target)
{
    const char *e = line + n, *p = line;
    memset(r, 0, sizeof(*r));
    if (n > 0 && e[-1] == '\r')
        e--;
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    if (p == e)
        return ALOG_BLANK;
    if (f == ALOG_AUTO)
        f = accesslog_detect(p, (size_t)(e - p));
    return f == ALOG_JSON ? json_parse(p, e, r, target) : clf_parse(p, e, r, target);
}

/* --- endpoint patterns --- */

/* Is the segment an id: a number, a UUID, or 16 hex digits or more (some
 * of them digits)? */
static int is_id(const char *s, size_t n)
{
    size_t i, digit = 0, hex = 0;
    if (n == 0)
        return 0;
    if (n == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-') {
        for (i = 0; i < n; i++)
            if (i != 8 && i != 13 && i != 18 && i != 23 && lex_hexval(s[i]) < 0)
                return 0;
        return 1;
    }
    for (i = 0; i < n; i++) {
        digit += lex_digit(s[i]);
        hex += lex_hexval(s[i]) >= 0;
    }
    return digit == n || (n >= 16 && hex == n && digit > 0);
}

size_t accesslog_pattern(const char *target, size_t n, char *out, size_t cap)
{
    size_t i = 0, k = 0;
    if (cap == 0)
        return 0;
    while (i < n && target[i] != '?' && target[i] != '#') {
        size_t b = i, len;
        const char *seg;
        while (i < n && target[i] != '/' && target[i] != '?' && target[i] != '#')
            i++;
        seg = is_id(target + b, i - b) ? "{id}" : target + b;
        len = seg == target + b ? i - b : 4;
        if (len > cap - 1 - k)
            len = cap - 1 - k;
        memcpy(out + k, seg, len);
        k += len;
        if (i < n && target[i] == '/') {
            if (k < cap - 1)
                out[k++] = '/';
            i++;
        }
    }
    out[k] = '\0';
    return k;
}

int accesslog_method_in(const char *list, const char *m)
{
    const char *p = list && list[0] ? list : ALOG_METHODS_DEFAULT;
    size_t n = strlen(m);
    while (*p) {
        size_t k = strcspn(p, ",");
        if (k == n && memcmp(p, m, n) == 0)
            return 1;
        p += k + (p[k] == ',');
    }
    return 0;
}

/* --- what the user writes --- */

int accesslog_time(const char *s, int64_t *t)
{
    size_t n = strlen(s);
    int whole;
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        s++;
        n -= 2;
    }
    if (iso_time(s, s + n, t, &whole) == 0 || epoch_time(s, s + n, t, &whole) == 0)
        return 0;
    /* clf_time reads its zone and no further: nothing may follow it. */
    return n == 26 && clf_time(s, s + n, t) == 0 ? 0 : -1;
}

int accesslog_user_pattern(const char *spec, regex_t *re, char *name, size_t cap, char *why, size_t whylen)
{
    const char *eq = strrchr(spec, '=');
    char rx[1024];
    int rc;
    if (eq == NULL || eq == spec || eq[1] == '\0') {
        snprintf(why, whylen, "wants REGEX=NAME (^/api/v[0-9]+/users=users)");
        return -1;
    }
    if ((size_t)(eq - spec) >= sizeof(rx) || strlen(eq + 1) >= cap) {
        snprintf(why, whylen, "too long: at most %zu bytes of regex, %zu of name", sizeof(rx) - 1, cap - 1);
        return -1;
    }
    memcpy(rx, spec, (size_t)(eq - spec));
    rx[eq - spec] = '\0';
    if ((rc = regcomp(re, rx, REG_EXTENDED | REG_NOSUB)) != 0) {
        char msg[200];
        regerror(rc, re, msg, sizeof(msg));
        snprintf(why, whylen, "'%s' is not an extended regex: %s", rx, msg);
        return -1;
    }
    snprintf(name, cap, "%s", eq + 1);
    return 0;
}

void accesslog_path(const char *target, size_t n, char *out)
{
    size_t k;
    for (k = 0; k < n && k < ALOG_TARGET_MAX && target[k] != '?' && target[k] != '#'; k++)
        out[k] = target[k];
    out[k] = '\0';
}
