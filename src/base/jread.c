/* jread.c - a checked reader of JSON documents (through jansson): every
 * field taken is checked for its type and range, and the first problem is
 * said as "FILE: path.to.field: what is wrong"; see jread.h. */
#include "jread.h"
#include "text.h"
#include "err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jread_fail(struct jc *c, const char *key, const char *fmt, ...)
{
    char place[4400];
    va_list ap;
    if (c->failed)
        return -1;
    snprintf(place, sizeof(place), "%s: %s%s%s", c->path, c->at, c->at[0] && key[0] ? "." : "", key);
    va_start(ap, fmt);
    err_setv(c->err, c->errlen, place, fmt, ap);
    va_end(ap);
    c->failed = 1;
    return -1;
}

/* Enters a sub-object for messages; returns the previous length to restore. */
size_t jread_enter(struct jc *c, const char *fmt, ...)
{
    size_t n = strlen(c->at);
    va_list ap;
    if (n && n < sizeof(c->at) - 1 && fmt[0] != '[')
        c->at[n] = '.', c->at[n + 1] = '\0';
    va_start(ap, fmt);
    vsnprintf(c->at + strlen(c->at), sizeof(c->at) - strlen(c->at), fmt, ap);
    va_end(ap);
    return n;
}

void jread_leave(struct jc *c, size_t n)
{
    c->at[n] = '\0';
}

/* A number in [lo, hi]; absent is 0 (or an error when required). */
double jread_num(struct jc *c, json_t *o, const char *key, double lo, double hi, int required)
{
    json_t *v = json_object_get(o, key);
    double d;
    if (v == NULL || json_is_null(v)) {
        if (required)
            jread_fail(c, key, "missing");
        return 0;
    }
    if (!json_is_number(v)) {
        jread_fail(c, key, "not a number");
        return 0;
    }
    d = json_number_value(v);
    if (!isfinite(d) || d < lo || d > hi) {
        jread_fail(c, key, "%g is out of range (%g to %g)", d, lo, hi);
        return 0;
    }
    return d;
}

/* A count: a whole number from 0 to 2^53. */
uint64_t jread_count(struct jc *c, json_t *o, const char *key, int required)
{
    double d = jread_num(c, o, key, 0, MAX_COUNT, required);
    if (d != floor(d)) {
        jread_fail(c, key, "%g is not a whole number", d);
        return 0;
    }
    return (uint64_t)d;
}

/* Seconds in ns. */
uint64_t jread_ns(struct jc *c, json_t *o, const char *key, int required)
{
    return (uint64_t)(jread_num(c, o, key, 0, MAX_SECONDS, required) * 1e9 + 0.5);
}

const char *jread_str(struct jc *c, json_t *o, const char *key, int required)
{
    json_t *v = json_object_get(o, key);
    if (v == NULL || json_is_null(v)) {
        if (required)
            jread_fail(c, key, "missing");
        return NULL;
    }
    if (!json_is_string(v)) {
        jread_fail(c, key, "not a string");
        return NULL;
    }
    return json_string_value(v);
}

int jread_bool(struct jc *c, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (v && !json_is_boolean(v) && !json_is_null(v))
        jread_fail(c, key, "not true or false");
    return json_is_true(v);
}

json_t *jread_obj(struct jc *c, json_t *o, const char *key, int required)
{
    json_t *v = json_object_get(o, key);
    if ((v == NULL || json_is_null(v)) && !required)
        return NULL;
    if (!json_is_object(v)) {
        jread_fail(c, key, v ? "not an object" : "missing");
        return NULL;
    }
    return v;
}

json_t *jread_arr(struct jc *c, json_t *o, const char *key, int required)
{
    json_t *v = json_object_get(o, key);
    if ((v == NULL || json_is_null(v)) && !required)
        return NULL;
    if (!json_is_array(v)) {
        jread_fail(c, key, v ? "not a list" : "missing");
        return NULL;
    }
    return v;
}

void jread_copy(char *dst, size_t len, const char *s)
{
    snprintf(dst, len, "%s", s ? s : "");
}

char *jread_dup(struct jc *c, json_t *o, const char *k, const char *dflt)
{
    const char *s = jread_str(c, o, k, 0);
    if (s == NULL && dflt == NULL)
        return NULL;
    return strdup(s ? s : dflt);
}

/* A saved file's strings reach terminals and pages: each goes through
 * text_scrub (a control byte, an escape sequence, a bell, becomes '?';
 * newline and tab stay). */
void jread_scrub(json_t *j, int depth)
{
    const char *k;
    json_t *v;
    size_t i, n;
    if (depth > 64)
        return;
    if (json_is_string(j)) {
        const char *s = json_string_value(j);
        char *copy;
        n = json_string_length(j);
        if ((copy = malloc(n + 1)) == NULL)
            return;
        memcpy(copy, s, n);
        copy[n] = '\0';
        i = text_scrub(copy, n, 0);
        if (i != n || memcmp(copy, s, n) != 0)
            json_string_setn(j, copy, i);
        free(copy);
    } else if (json_is_object(j)) {
        json_object_foreach(j, k, v)
            jread_scrub(v, depth + 1);
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v)
            jread_scrub(v, depth + 1);
    }
}
