/* jread.h - a checked reader of JSON documents: saved results are input
 * like any other (hand-edited, truncated, hostile), so every field is
 * checked before it is used (its type, numbers finite and in range, never
 * a double cast to an integer it cannot hold) and the first problem is said
 * as "FILE: path.to.field: what is wrong". A reader keeps where it is
 * (jread_enter/jread_leave); once one check failed, the others stay silent. */
#ifndef RAFALE_JREAD_H
#define RAFALE_JREAD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_COUNT 9007199254740992.0  /* 2^53: every count up to it is exact in a double */
#define MAX_SECONDS 1e9               /* about 31 years */

/* Where the reader is, for error messages: "per_url[3].latency". */
struct jc {
    const char *path;
    char *err;
    size_t errlen;
    int failed;
    char at[160];
};

/* Says what is wrong with key (at the reader's place). Returns -1. */
int jread_fail(struct jc *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Enters a sub-object for messages; returns the length to restore with
 * jread_leave. */
size_t jread_enter(struct jc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void jread_leave(struct jc *c, size_t n);
/* A number in [lo, hi]; absent is 0 (or a failure when required). */
double jread_num(struct jc *c, json_t *o, const char *key, double lo, double hi, int required);
/* A count: a whole number from 0 to 2^53. */
uint64_t jread_count(struct jc *c, json_t *o, const char *key, int required);
/* Seconds, in ns. */
uint64_t jread_ns(struct jc *c, json_t *o, const char *key, int required);
/* A string, a boolean, an object, a list (NULL, false when absent). */
const char *jread_str(struct jc *c, json_t *o, const char *key, int required);
int jread_bool(struct jc *c, json_t *o, const char *key);
json_t *jread_obj(struct jc *c, json_t *o, const char *key, int required);
json_t *jread_arr(struct jc *c, json_t *o, const char *key, int required);
/* s (or "" for NULL) into dst, cut to len. */
void jread_copy(char *dst, size_t len, const char *s);
/* A copy of string k, or of dflt when absent (NULL when both are). */
char *jread_dup(struct jc *c, json_t *o, const char *k, const char *dflt);
/* Every string of j with a control byte (but newline and tab) shown as
 * '?': a saved file cannot write to a terminal. */
void jread_scrub(json_t *j, int depth);

#endif
