/* url.h - parsing of http:// URLs given on the command line. */
#ifndef RAFALE_URL_H
#define RAFALE_URL_H

#include <stddef.h>
#include <stdint.h>

#define URL_HOST_MAX 256

struct url {
    char scheme[8];          /* "http" */
    char host[URL_HOST_MAX]; /* without brackets for IPv6 literals */
    uint16_t port;
    int host_is_ipv6;        /* the Host header needs brackets back */
    int port_explicit;       /* the Host header carries the port only if the user wrote it */
    int tls;                 /* https:// */
    char *target;            /* path and query, never empty ("/" at least); owned */
};

/* Parses s into u. Returns 0, or -1 with a one-line reason in err.
 * A URL without a scheme is taken as http://. On success the caller frees
 * u with url_free(). */
int url_parse(const char *s, struct url *u, char *err, size_t errlen);

/* Releases what url_parse allocated; safe on a zeroed struct. */
void url_free(struct url *u);

/* Writes "host[:port]" as the Host header wants it. Returns buf. */
char *url_host_header(const struct url *u, char *buf, size_t len);

/* The path (and query) that a Location (loc, n bytes) names on u's own
 * origin, resolved against the current request-target cur (RFC 3986 §5.2,
 * in the forms servers send: absolute, //authority, /path, relative), into
 * path (cap bytes). Returns its length, or 0 when it points to another
 * origin or does not fit. The fragment is dropped. */
size_t url_same_origin(const struct url *u, const char *loc, size_t n, const char *cur, size_t curlen, char *path,
                       size_t cap);

#endif
