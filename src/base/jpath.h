/* jpath.h - the value at a path ($.a.b[2].c, $.items[0]['a key']) in JSON
 * text, found by a scan that skips what it does not need: nothing is built
 * and nothing allocated per response, so a check on a JSON field costs a
 * read of the bytes before it (RFC 8259 for the grammar). The text is not
 * checked past the value found. */
#ifndef RAFALE_JPATH_H
#define RAFALE_JPATH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JPATH_MAX_STEPS 32
#define JPATH_MAX_DEPTH 1024  /* nesting a scan goes through before it gives up */

enum jp_type { JP_NONE, JP_OBJECT, JP_ARRAY, JP_STRING, JP_NUMBER, JP_TRUE, JP_FALSE, JP_NULL, JP_BAD };

struct jp_step {
    char *key;            /* a member's name (decoded), or NULL for an index */
    size_t klen;
    uint32_t index;
};

struct jpath {
    struct jp_step step[JPATH_MAX_STEPS];
    uint32_t n;
};

/* Compiles "$", "$.a.b", "$.a[2]", "$['a b'].c". Returns 0, or -1 with
 * what is wrong in err. */
int jpath_compile(const char *s, size_t n, struct jpath *out, char *err, size_t errlen);
void jpath_free(struct jpath *p);

/* Finds the path in json (len bytes). Returns the value's type and its
 * bytes in *v, *vlen (a string with its quotes); JP_NONE when the path is
 * not there, JP_BAD when the text is not JSON up to it. */
enum jp_type jpath_find(const struct jpath *p, const char *json, size_t len, const char **v, size_t *vlen);

/* A string value (with its quotes, as jpath_find gives it), its escapes
 * decoded (\uXXXX to UTF-8), into out (cap bytes). Returns its length, or
 * -1 when it does not fit or is malformed. */
ssize_t jpath_string(const char *v, size_t vlen, char *out, size_t cap);

/* A number's text (RFC 8259 §6, all vlen bytes of it, any length) as the
 * nearest double, ±inf past the double's range. Returns 0; 1 when it is
 * not zero but nearer zero than the smallest double (then *out is a zero
 * of its sign); -1 when the text is not a JSON number. */
int jpath_number(const char *v, size_t vlen, double *out);

#endif
