/* units.c - parsing and printing of durations, counts and byte sizes. */
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int units_parse_decimal(const char *s, double *v, const char **end)
{
    size_t whole, frac = 0;
    char buf[64];

    if (s == NULL)
        return -1;
    whole = strspn(s, "0123456789");
    if (s[whole] == '.' && (frac = strspn(s + whole + 1, "0123456789")) == 0)
        return -1; /* "1." or "." */
    if (s[whole] == '.')
        frac++;
    if (whole + frac == 0 || whole + frac >= sizeof(buf))
        return -1;
    /* strtod on the checked digits alone: what follows them is the
     * caller's (a unit), never read as an exponent. */
    memcpy(buf, s, whole + frac);
    buf[whole + frac] = '\0';
    *v = strtod(buf, NULL);
    *end = s + whole + frac;
    return 0;
}

int units_parse_duration(const char *s, uint64_t *ns)
{
    const char *end;
    double v;
    double mult;

    if (units_parse_decimal(s, &v, &end) != 0)
        return -1;
    if (strcmp(end, "") == 0 || strcmp(end, "s") == 0)
        mult = 1e9;
    else if (strcmp(end, "ms") == 0)
        mult = 1e6;
    else if (strcmp(end, "us") == 0)
        mult = 1e3;
    else if (strcmp(end, "ns") == 0)
        mult = 1;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        mult = 60e9;
    else if (strcmp(end, "h") == 0)
        mult = 3600e9;
    else
        return -1;
    v *= mult;
    if (v > 1e18)   /* about 31 years: surely a typo */
        return -1;
    *ns = (uint64_t)(v + 0.5);
    return 0;
}

int units_parse_count(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    uint64_t mult = 1;

    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    if (*end == 'k' || *end == 'K')
        mult = 1000, end++;
    else if (*end == 'm' || *end == 'M')
        mult = 1000000, end++;
    else if (*end == 'g' || *end == 'G')
        mult = 1000000000, end++;
    if (*end != '\0' || v > UINT64_MAX / mult)
        return -1;
    *out = (uint64_t)v * mult;
    return 0;
}

int units_parse_size(const char *s, double *out)
{
    const char *end;
    double v;
    if (units_parse_decimal(s, &v, &end) != 0 || v > 1e18)
        return -1;
    if (*end == 'k' || *end == 'K')
        v *= 1024, end++;
    else if (*end == 'M')
        v *= 1024.0 * 1024.0, end++;
    else if (*end == 'G')
        v *= 1024.0 * 1024.0 * 1024.0, end++;
    if (end[0] == 'i' && end[1] == 'B')
        end += 2;
    else if (*end == 'B')
        end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

size_t units_put_u64(char *out, uint64_t v)
{
    char tmp[20];
    size_t n = 0, i;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

char *units_fmt_ns(char *buf, size_t len, double ns)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.0fns", ns);
    else if (ns < 1e4)
        snprintf(buf, len, "%.2fus", ns / 1e3);
    else if (ns < 1e6)
        snprintf(buf, len, "%.0fus", ns / 1e3);
    else if (ns < 1e7)
        snprintf(buf, len, "%.2fms", ns / 1e6);
    else if (ns < 1e9)
        snprintf(buf, len, "%.1fms", ns / 1e6);
    else
        snprintf(buf, len, "%.2fs", ns / 1e9);
    return buf;
}

char *units_fmt_bytes(char *buf, size_t len, double b)
{
    if (b < 1024)
        snprintf(buf, len, "%.0fB", b);
    else if (b < 1024.0 * 1024)
        snprintf(buf, len, "%.1fKiB", b / 1024);
    else if (b < 1024.0 * 1024 * 1024)
        snprintf(buf, len, "%.2fMiB", b / (1024.0 * 1024));
    else
        snprintf(buf, len, "%.2fGiB", b / (1024.0 * 1024 * 1024));
    return buf;
}
