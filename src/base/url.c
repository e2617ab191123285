/* url.c - parsing of http:// URLs given on the command line.
 * Strict on purpose: a typo in a benchmark URL should fail loudly at start,
 * not produce a run full of 404s or connection errors. */
#include "url.h"
#include "err.h"
#include "http_lex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int host_char_ok(int c)
{
    return isalnum(c) || c == '-' || c == '.' || c == '_';
}

int url_parse(const char *s, struct url *u, char *err, size_t errlen)
{
    const char *p, *host, *host_end, *port_s = NULL, *path;
    size_t hlen;

    memset(u, 0, sizeof(*u));
    if (s == NULL || *s == '\0') {
        err_set(err, errlen, NULL, "empty URL");
        return -1;
    }
    for (p = s; *p; p++) {
        if ((unsigned char)*p <= 0x20 || *p == 0x7f) {
            err_set(err, errlen, NULL, "URL '%s' contains a space or control character", s);
            return -1;
        }
        /* RFC 9112 §3.2 and RFC 3986 §2: a request-target is ASCII. */
        if ((unsigned char)*p >= 0x80) {
            err_set(err, errlen, NULL, "URL '%s' holds the byte 0x%02x, which is not ASCII: percent-encode it (%%%02X)",
                    s, (unsigned char)*p, (unsigned char)*p);
            return -1;
        }
    }
    p = strstr(s, "://");
    if (p != NULL) {
        size_t slen = (size_t)(p - s);
        if (slen == 5 && strncasecmp(s, "https", 5) == 0) {
            u->tls = 1;
        } else if (slen != 4 || strncasecmp(s, "http", 4) != 0) {
            err_set(err, errlen, NULL, "unsupported scheme '%.*s' in '%s' (http:// and https:// are)",
                    (int)(slen > 16 ? 16 : slen), s, s);
            return -1;
        }
        host = p + 3;
    } else {
        host = s;
    }
    strcpy(u->scheme, u->tls ? "https" : "http");

    if (strpbrk(host, "@") != NULL && (strchr(host, '/') == NULL || strchr(host, '@') < strchr(host, '/'))) {
        err_set(err, errlen, NULL, "user:password@ in URLs is not supported; send an Authorization header with -H");
        return -1;
    }

    if (*host == '[') {
        host++;
        host_end = strchr(host, ']');
        if (host_end == NULL) {
            err_set(err, errlen, NULL, "unterminated IPv6 address in '%s'", s);
            return -1;
        }
        for (p = host; p < host_end; p++) {
            if (!isxdigit((unsigned char)*p) && *p != ':' && *p != '.' && *p != '%') {
                err_set(err, errlen, NULL, "bad IPv6 address in '%s'", s);
                return -1;
            }
        }
        u->host_is_ipv6 = 1;
        p = host_end + 1;
    } else {
        for (p = host; *p && *p != ':' && *p != '/' && *p != '?' && *p != '#'; p++) {
            if (!host_char_ok((unsigned char)*p)) {
                err_set(err, errlen, NULL, "bad character '%c' in host name of '%s'", *p, s);
                return -1;
            }
        }
        host_end = p;
    }
    hlen = (size_t)(host_end - host);
    if (hlen == 0) {
        err_set(err, errlen, NULL, "no host name in '%s'", s);
        return -1;
    }
    if (hlen >= URL_HOST_MAX) {
        err_set(err, errlen, NULL, "host name too long in '%s'", s);
        return -1;
    }
    memcpy(u->host, host, hlen);
    u->host[hlen] = '\0';

    u->port = u->tls ? 443 : 80;
    if (*p == ':') {
        unsigned long port = 0;
        port_s = ++p;
        while (isdigit((unsigned char)*p)) {
            port = port * 10 + (unsigned long)(*p - '0');
            if (port > 65535)
                break;
            p++;
        }
        if (p == port_s || port == 0 || port > 65535 || (*p && *p != '/' && *p != '?' && *p != '#')) {
            err_set(err, errlen, NULL, "bad port in '%s' (want 1-65535)", s);
            return -1;
        }
        u->port = (uint16_t)port;
        u->port_explicit = 1;
    } else if (*p && *p != '/' && *p != '?' && *p != '#') {
        err_set(err, errlen, NULL, "malformed URL '%s'", s);
        return -1;
    }

    path = p;
    {
        /* The fragment never goes on the wire. */
        const char *hash = strchr(path, '#');
        size_t plen = hash ? (size_t)(hash - path) : strlen(path);
        int need_slash = (plen == 0 || path[0] != '/');
        u->target = malloc(plen + 2);
        if (u->target == NULL) {
            err_set(err, errlen, NULL, "out of memory");
            return -1;
        }
        if (need_slash)
            u->target[0] = '/';
        memcpy(u->target + need_slash, path, plen);
        u->target[plen + need_slash] = '\0';
    }
    return 0;
}

void url_free(struct url *u)
{
    free(u->target);
    u->target = NULL;
}

char *url_host_header(const struct url *u, char *buf, size_t len)
{
    const char *l = u->host_is_ipv6 ? "[" : "", *r = u->host_is_ipv6 ? "]" : "";
    if (u->port_explicit)
        snprintf(buf, len, "%s%s%s:%u", l, u->host, r, (unsigned)u->port);
    else
        snprintf(buf, len, "%s%s%s", l, u->host, r);
    return buf;
}

/* Does the authority [a, a+n) name u's host and port (the scheme's default
 * port when none is written)? */
static int same_authority(const struct url *u, const char *a, size_t n)
{
    size_t k = 0, hl = strlen(u->host), q;
    unsigned port = u->tls ? 443 : 80;
    if (n && a[0] == '[') {
        const char *rb = memchr(a, ']', n);
        k = rb ? (size_t)(rb - a) + 1 : n;
    }
    while (k < n && a[k] != ':')
        k++;
    if (k < n) {
        port = 0;
        if (k + 1 == n)
            return 0;
        for (q = k + 1; q < n; q++) {
            if (!lex_digit(a[q]) || port > 65535)
                return 0;
            port = port * 10 + (unsigned)(a[q] - '0');
        }
    }
    if (port != u->port)
        return 0;
    if (n && a[0] == '[')
        return k == hl + 2 && lex_eq_ci_n(a + 1, u->host, hl);
    return k == hl && lex_eq_ci_n(a, u->host, hl);
}

size_t url_same_origin(const struct url *u, const char *loc, size_t n, const char *cur, size_t curlen, char *path,
                       size_t cap)
{
    size_t o = 0, k, slen = strlen(u->scheme);
    const char *hier = NULL; /* after "//": an authority, then the path */

    while (n && lex_ows(loc[n - 1]))
        n--;
    for (k = 0; k < n; k++)
        if (loc[k] == '#')
            n = k; /* the fragment stays with the client */
    if (n >= 2 && loc[0] == '/' && loc[1] == '/') {
        hier = loc + 2;
    } else {
        for (k = 0; k < n && loc[k] != '/' && loc[k] != '?' && loc[k] != ':'; k++)
            ;
        if (k + 2 < n && loc[k] == ':' && loc[k + 1] == '/' && loc[k + 2] == '/') {
            if (!(k == slen && lex_eq_ci_n(loc, u->scheme, k)))
                return 0; /* scheme://authority/path, of another scheme */
            hier = loc + k + 3;
        }
    }
    if (hier) {
        size_t a = 0, rest = n - (size_t)(hier - loc);
        while (a < rest && hier[a] != '/' && hier[a] != '?')
            a++;
        if (!same_authority(u, hier, a))
            return 0;
        loc = hier + a;
        n = rest - a;
        if (n == 0 || loc[0] == '?')
            path[o++] = '/';
    } else if (n && loc[0] != '/') {
        /* Relative: from the current path's last '/' (or whole, for ?query). */
        size_t q = 0, last = 0;
        while (q < curlen && cur[q] != '?') {
            if (cur[q] == '/')
                last = q;
            q++;
        }
        k = loc[0] == '?' ? q : last + 1;
        if (k >= cap)
            return 0;
        memcpy(path, cur, k);
        o = k;
    }
    if (o + n + 1 > cap)
        return 0;
    memcpy(path + o, loc, n);
    return o + n;
}
