/* accesslog.h - a web server's access log line, read for `rafale replay`:
 * nginx/Apache "combined" and "common", and JSON lines (nginx's
 * escape=json). A line is untrusted bytes: the parser never allocates,
 * writes only into the caller's buffer, and refuses a request-target that
 * holds a byte a request line cannot carry (a CR or LF would end the line
 * and begin a header or a second request). Its endpoint pattern groups
 * paths for the report. Pure functions: no clock, no I/O. */
#ifndef RAFALE_ACCESSLOG_H
#define RAFALE_ACCESSLOG_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

enum alog_format { ALOG_AUTO, ALOG_COMBINED, ALOG_COMMON, ALOG_JSON };

/* The longest request-target replayed; a longer one is refused (ALOG_LONG). */
#define ALOG_TARGET_MAX 8192
#define ALOG_METHOD_MAX 16

/* What a line says of its request. */
struct alog_req {
    char method[ALOG_METHOD_MAX]; /* NUL-terminated token */
    size_t target_len;            /* the request-target, in the caller's buffer */
    int64_t t_ns;                 /* when: ns since the Unix epoch */
    int whole_second;             /* stamped to the second (combined, common, ISO 8601 without a fraction) */
};

/* What became of a line. */
enum alog_status {
    ALOG_OK = 0,
    ALOG_BAD = -1,      /* not a line of the format: no time, no request */
    ALOG_CONTROL = -2,  /* the request-target holds a control byte, a space or DEL */
    ALOG_LONG = -3,     /* the request-target is longer than ALOG_TARGET_MAX */
    ALOG_BLANK = -4,    /* an empty line (or only spaces): nothing to say */
};

/* The format of a log from its first line: JSON when it begins with '{',
 * else combined when the request is followed by two quoted fields, else
 * common. */
enum alog_format accesslog_detect(const char *line, size_t n);
/* The format's name ("combined", "common", "json"), or NULL for a word that
 * names none ("auto" names ALOG_AUTO). */
const char *accesslog_format_name(enum alog_format f);
int accesslog_format_parse(const char *word, enum alog_format *f);

/* Parses the n bytes of a line (no newline; a CR before it is dropped) of
 * format f (not ALOG_AUTO) into r, the request-target into target (room
 * for ALOG_TARGET_MAX bytes, not NUL-terminated: r->target_len). Returns
 * an enum alog_status. */
int accesslog_parse(enum alog_format f, const char *line, size_t n, struct alog_req *r, char *target);

/* The endpoint pattern of a request-target, into out (cap bytes, NUL
 * terminated, cut at cap - 1): its path, each segment that is a number, a
 * UUID or a long hex id as {id}, the query dropped (folded into its
 * path's). Returns its length. */
size_t accesslog_pattern(const char *target, size_t n, char *out, size_t cap);
/* The path of a request-target of n bytes (not NUL terminated), its query
 * and fragment left out, into out (ALOG_TARGET_MAX + 1 bytes, NUL
 * terminated): what a --pattern's regular expression is matched with. */
void accesslog_path(const char *target, size_t n, char *out);

/* The methods rafale replay sends when --methods is not given: a log
 * holds no bodies, and a replayed POST or DELETE changes the server. */
#define ALOG_METHODS_DEFAULT "GET,HEAD,OPTIONS"
/* Is method m in list (methods separated by commas; NULL: the default)? */
int accesslog_method_in(const char *list, const char *m);

/* A time the user wrote (--from, --to): ISO 8601 (2026-11-24T10:15:00,
 * UTC unless a zone follows), a combined log's stamp (24/Nov/2026:10:15:00
 * +0000, in brackets or not) or seconds since the epoch (1700000000.25).
 * Returns 0 with ns since the epoch in *t, or -1. */
int accesslog_time(const char *s, int64_t *t);

/* --pattern REGEX=NAME (the name after the last '='): the regex compiled
 * (POSIX extended, matched against a request-target's path) into re, the
 * name into name (cap bytes). Returns 0, or -1 with why (nothing to free). */
int accesslog_user_pattern(const char *spec, regex_t *re, char *name, size_t cap, char *why, size_t whylen);

/* Days since 1970-01-01 of a date of the proleptic Gregorian calendar. */
int64_t accesslog_days(int64_t y, unsigned m, unsigned d);

#endif
