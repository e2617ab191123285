/* check.h - what a response must hold, and the values taken from it:
 *
 *   # check: status == 200                 status OP NUMBER
 *   # check: header Content-Type ~ json    header NAME OP TEXT, header NAME exists
 *   # check: body contains "welcome"       body contains|~|==|!= TEXT
 *   # check: json $.ok == true             json PATH OP VALUE (a JSON literal), json PATH exists
 *   # check: size < 16k                    the body's bytes (k = 1024, M = 1024 k)
 *   # check: duration < 200ms              the request's latency
 *   # extract: token = json $.token        json PATH, header NAME,
 *   # extract: csrf = body /value="([^"]+)"/   body /REGEX/ (its first group), cookie NAME
 *
 * Operators ==, !=, <, <=, >, >=, ~ (a POSIX extended regex), contains,
 * exists; TEXT is "quoted" (\" and \\ inside) or the rest of the line.
 * Compiled once, before the run; evaluated on each response of its target
 * with no allocation. */
#ifndef RAFALE_CHECK_H
#define RAFALE_CHECK_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jpath.h"

#define CHECK_SEEN_MAX 200     /* what a failure keeps of what was seen */
#define CHECK_VALUE_MAX 1024   /* an extracted value's longest */
#define CHECK_TEXT_MAX 240     /* an expression's longest */

enum check_subject { CK_STATUS, CK_HEADER, CK_BODY, CK_JSON, CK_SIZE, CK_DURATION, CK_COOKIE };
enum check_op { CO_EQ, CO_NE, CO_LT, CO_LE, CO_GT, CO_GE, CO_MATCH, CO_CONTAINS, CO_EXISTS, CO_NONE };
enum check_lit { CL_NUM, CL_STR, CL_TRUE, CL_FALSE, CL_NULL };

struct check {
    char text[CHECK_TEXT_MAX + 1]; /* as written: "json $.ok == true" */
    uint8_t subject, op, lit;
    char *name;                  /* header or cookie name; an extraction's variable */
    size_t nlen;
    struct jpath path;           /* CK_JSON */
    char *str;                   /* the operand's text (CL_STR) */
    size_t slen;
    double num;                  /* a number: status, bytes, ns, a JSON number */
    regex_t re;                  /* CO_MATCH; an extraction's body /REGEX/ */
    int has_re;
    char *var;                   /* an extraction: the variable it sets */
};

/* What a check sees of one response. */
struct check_response {
    unsigned status;
    const char *head;            /* the header lines ("Name: value\r\n"...), NULL when not kept */
    size_t head_len;
    const char *body;            /* the body (decoded), as far as it was kept */
    size_t body_len;
    uint64_t body_size;          /* its whole size */
    int body_over;               /* longer than --max-body: not all of it was kept */
    int head_over;               /* the head was longer than what is kept (64 KiB) */
    int size_unknown;            /* body_size is not known (a head longer than what was kept) */
    uint64_t max_body;           /* for the message */
    uint64_t duration_ns;
};

/* "json $.ok == true" into c. Returns 0, or -1 with what is wrong in err. */
int check_compile(const char *expr, struct check *c, char *err, size_t errlen);
/* "token = json $.token" into c (c->var the name). Returns 0 or -1 (err). */
int check_compile_extract(const char *expr, struct check *c, char *err, size_t errlen);
void check_free(struct check *c);

/* Does evaluating c need the head, or the body? */
int check_needs_head(const struct check *c);
int check_needs_body(const struct check *c);

/* 1 when r passes c, 0 when it fails (then seen, if not NULL, says what
 * was there, cut to CHECK_SEEN_MAX bytes, control bytes shown as '?'). */
int check_eval(const struct check *c, const struct check_response *r, char *seen, size_t seenlen);

/* The value an extraction takes from r, into out (CHECK_VALUE_MAX bytes).
 * Returns its length, or -1 when r does not have it. */
ssize_t check_extract(const struct check *c, const struct check_response *r, char *out);

/* The value of header name (n bytes) in head, its first occurrence,
 * trimmed; NULL when absent. */
const char *check_header(const char *head, size_t head_len, const char *name, size_t n, size_t *vlen);

#endif
