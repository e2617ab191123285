/* cookie.h - a connection's cookie jar (--cookies): what Set-Cookie stored
 * (RFC 6265 §5.2: name, value, Path, Expires/Max-Age, Secure), sent back as
 * one Cookie field on the same connection's later requests (§5.4). The jar
 * is a fixed block, allocated once per connection; the Domain attribute is
 * not needed, every request of a connection goes to one host. Private to
 * src/client/. */
#ifndef RAFALE_COOKIE_H
#define RAFALE_COOKIE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define JAR_MAX 32          /* cookies per connection */
#define JAR_TEXT 4096       /* their names, values and paths together */
#define JAR_HEADER_MAX (JAR_TEXT + 4 * JAR_MAX) /* the longest Cookie value */

struct jar_entry {
    uint16_t off, nlen, vlen, plen; /* name, value, path, one after the other at off */
    uint8_t secure;
    time_t expires;                 /* 0: until the end of the run */
};

struct jar {
    uint16_t n, used;
    struct jar_entry e[JAR_MAX];
    char text[JAR_TEXT];
};

/* Stores what a Set-Cookie value (n bytes) says, at wall-clock time now:
 * a new or changed cookie, or one removed (expired). A cookie that does
 * not fit is dropped. request_path is the path of the request it answered
 * (its default Path, §5.1.4). */
void cookie_set(struct jar *j, const char *v, size_t n, const char *request_path, size_t plen, time_t now);

/* Writes "a=1; b=2", the cookies for path (plen bytes) at time now, to out
 * (JAR_HEADER_MAX bytes at least). Returns the length, 0 when none applies. */
size_t cookie_header(const struct jar *j, const char *path, size_t plen, int https, time_t now, char *out);

#endif
