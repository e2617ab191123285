/* status.c - sets of HTTP status codes, and their reason phrases. */
#include "status.h"
#include "err.h"

#include <stdio.h>
#include <string.h>

static void add_range(struct status_set *s, unsigned lo, unsigned hi)
{
    unsigned c;
    for (c = lo; c <= hi && c < STATUS_MAX; c++)
        s->bits[c / 64] |= 1ULL << (c % 64);
}

void status_set_default(struct status_set *s)
{
    memset(s, 0, sizeof(*s));
    add_range(s, 200, 399);
    snprintf(s->text, sizeof(s->text), "2xx,3xx");
}

/* One code of three digits, 100..599. Returns it, or -1. */
static int code3(const char *p, size_t n)
{
    if (n != 3 || p[0] < '1' || p[0] > '5' || p[1] < '0' || p[1] > '9' || p[2] < '0' || p[2] > '9')
        return -1;
    return (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
}

int status_set_parse(const char *spec, struct status_set *s, char *err, size_t errlen)
{
    const char *p = spec;
    memset(s, 0, sizeof(*s));
    if (*spec == '\0')
        goto bad;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *dash = memchr(p, '-', n);
        int a, b;
        if (n == 3 && p[0] >= '1' && p[0] <= '5' && (p[1] == 'x' || p[1] == 'X') && (p[2] == 'x' || p[2] == 'X')) {
            a = (p[0] - '0') * 100;
            b = a + 99;
        } else if (dash) {
            a = code3(p, (size_t)(dash - p));
            b = code3(dash + 1, n - (size_t)(dash - p) - 1);
            if (a < 0 || b < a)
                goto bad;
        } else {
            a = b = code3(p, n);
        }
        if (a < 0)
            goto bad;
        add_range(s, (unsigned)a, (unsigned)b);
        if (end == NULL)
            break;
        p = end + 1;
        if (*p == '\0')
            goto bad;
    }
    if (strlen(spec) >= sizeof(s->text))
        snprintf(s->text, sizeof(s->text), "%.59s...", spec);
    else
        snprintf(s->text, sizeof(s->text), "%s", spec);
    return 0;
bad:
    memset(s, 0, sizeof(*s));
    err_set(err, errlen, NULL, "status codes such as 200, 200,302, 2xx,3xx or 200-299");
    return -1;
}

int status_set_has(const struct status_set *s, unsigned code)
{
    return code >= 100 && code < STATUS_MAX && (s->bits[code / 64] >> (code % 64) & 1);
}

/* RFC 9110 §15's phrases for the codes we answer with or are asked for. */
const char *status_reason(int code)
{
    switch (code) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
    }
}
