/* text.h - bytes that came from a file or a server, made fit for where they
 * go: UTF-8 checked for every output that promises it (JSON, the request
 * log, Prometheus labels), control bytes kept from terminals. */
#ifndef RAFALE_TEXT_H
#define RAFALE_TEXT_H

#include <stddef.h>

/* U+FFFD, what an output writes for a byte that is not UTF-8. */
#define TEXT_REPLACEMENT "\xef\xbf\xbd"
#define TEXT_REPLACEMENT_LEN 3

/* The length of the well-formed UTF-8 sequence at s (n bytes readable; RFC
 * 3629 §4: no overlong forms, no surrogates, nothing past U+10FFFF), or 0. */
size_t text_utf8_len(const char *s, size_t n);

/* The length of s (n bytes) cut to at most max bytes on a character's start,
 * never inside a UTF-8 sequence. */
size_t text_cut(const char *s, size_t n, size_t max);

/* How many bytes of s (n bytes) a terminal may be shown as they are, on
 * one line: n, or where the first byte text_scrub would change stands. */
size_t text_safe_len(const char *s, size_t n);

/* Makes s (n bytes, s[n] writable) safe for a terminal, in place: a control
 * byte (C0, DEL), a C1 control (U+0080..U+009F) or a byte that is not UTF-8
 * becomes '?'; newline and tab stay unless one_line. NUL-terminates it;
 * returns its new length (<= n). */
size_t text_scrub(char *s, size_t n, int one_line);

#endif
