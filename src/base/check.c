/* check.c - checks on a response and values taken from it (see check.h):
 * an expression is parsed once into a struct check; evaluating it reads
 * the response where it lies. */
#include "check.h"
#include "err.h"
#include "text.h"
#include "units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* The next word of *s (up to a blank, or a byte of stop), into w; *s
 * moves past it. */
static size_t word_until(const char **s, char *w, size_t cap, const char *stop)
{
    const char *p = skip_ws(*s), *b = p;
    size_t n;
    /* A JSON path's ['a key'] may hold blanks. */
    while (*p && *p != ' ' && *p != '\t' && !(stop && strchr(stop, *p))) {
        if (p[0] == '[' && (p[1] == '\'' || p[1] == '"')) {
            const char *close = strchr(p + 2, p[1]);
            if (close && close[1] == ']') {
                p = close + 2;
                continue;
            }
        }
        p++;
    }
    n = (size_t)(p - b);
    if (n >= cap)
        n = cap - 1;
    memcpy(w, b, n);
    w[n] = '\0';
    *s = p;
    return (size_t)(p - b);
}

static size_t word(const char **s, char *w, size_t cap)
{
    return word_until(s, w, cap, NULL);
}

/* An operator: ==, !=, <, <=, >, >=, ~ (written with or without blanks
 * around it), or contains, exists. */
static size_t op_word(const char **s, char *w, size_t cap)
{
    const char *p = skip_ws(*s), *b = p;
    size_t n;
    if (*p && strchr("=!<>~", *p)) {
        while (*p && strchr("=!<>", *p) && p - b < 2)
            p++;
        if (p == b)
            p++; /* ~ */
        n = (size_t)(p - b) < cap - 1 ? (size_t)(p - b) : cap - 1;
        memcpy(w, b, n);
        w[n] = '\0';
        *s = p;
        return n;
    }
    return word(s, w, cap);
}

static int parse_op(const char *w, uint8_t *op)
{
    static const char *const names[] = { "==", "!=", "<", "<=", ">", ">=", "~", "contains", "exists" };
    int i;
    for (i = 0; i < 9; i++)
        if (strcmp(w, names[i]) == 0) {
            *op = (uint8_t)i;
            return 0;
        }
    return -1;
}

/* The operand: "quoted" (with \" and \\) or the rest of the line, into a
 * fresh string. Returns 0, or -1 with err. */
static int operand(const char *s, char **out, size_t *len, int *quoted, char *err, size_t errlen)
{
    size_t n, o = 0;
    char *v;
    s = skip_ws(s);
    n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if ((v = malloc(n + 1)) == NULL) {
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    *quoted = n && s[0] == '"';
    if (*quoted) {
        size_t i;
        ssize_t d;
        for (i = 1; i < n && s[i] != '"'; i++) {
            if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\'))
                i++;
            else if (s[i] == '\\' && i + 1 < n)
                v[o++] = s[i++]; /* kept, with what it escapes: \. in a regex */
            v[o++] = s[i];
        }
        if (i != n - 1) {
            free(v);
            err_set(err, errlen, NULL,
                    i >= n ? "a quoted value without its closing quote" : "something after the quoted value");
            return -1;
        }
        /* JSON's escapes (\n, \t, \u00e9...) when it is written as JSON; a
         * regex's own (\. \d) stay as they are, but \" and \\. */
        if ((d = jpath_string(s, n, v, n)) >= 0)
            o = (size_t)d;
    } else {
        memcpy(v, s, n);
        o = n;
    }
    v[o] = '\0';
    *out = v;
    *len = o;
    return 0;
}

static int compile_re(struct check *c, const char *re, int groups, char *err, size_t errlen)
{
    int rc = regcomp(&c->re, re, REG_EXTENDED | (groups ? 0 : REG_NOSUB));
    if (rc != 0) {
        char why[200];
        regerror(rc, &c->re, why, sizeof(why));
        err_set(err, errlen, NULL, "bad regular expression '%.60s': %s", re, why);
        return -1;
    }
    c->has_re = 1;
    return 0;
}

static int fail(char *err, size_t errlen, const char *fmt, const char *a)
{
    err_set(err, errlen, NULL, fmt, a);
    return -1;
}

/* The value after the operator, read as the subject wants it (a status
 * code, a size, a duration, a JSON literal, a pattern). Returns 0, or -1
 * with c freed and the reason in err. */
static int compile_value(struct check *c, const char *subj, const char *ow, int quoted, char *err, size_t errlen)
{
    c->lit = CL_STR;
    switch (c->subject) {
    case CK_STATUS:
        if (c->op == CO_CONTAINS)
            goto bad_op;
        if (c->op != CO_MATCH) {
            char *end;
            c->num = strtod(c->str, &end);
            if (*end || c->num < 100 || c->num > 999 || c->num != floor(c->num)) {
                fail(err, errlen, "status wants a status code (100 to 999), not '%.40s'", c->str);
                check_free(c);
                return -1;
            }
            c->lit = CL_NUM;
        }
        break;
    case CK_SIZE:
        if (c->op >= CO_MATCH || units_parse_size(c->str, &c->num) != 0) {
            check_free(c);
            return fail(err, errlen, "size wants <, <=, >, >=, == or != and a size (512, 16k, 1M), in '%.60s'", c->text);
        }
        c->lit = CL_NUM;
        break;
    case CK_DURATION: {
        uint64_t ns;
        if (c->op >= CO_MATCH || units_parse_duration(c->str, &ns) != 0) {
            check_free(c);
            return fail(err, errlen, "duration wants <, <=, >, >=, == or != and a duration (200ms, 1s), in '%.60s'",
                        c->text);
        }
        c->num = (double)ns;
        c->lit = CL_NUM;
        break;
    }
    case CK_BODY:
        if (c->op != CO_CONTAINS && c->op != CO_MATCH && c->op != CO_EQ && c->op != CO_NE)
            goto bad_op;
        break;
    case CK_HEADER:
        if (c->op >= CO_LT && c->op <= CO_GE) {
            char *end;
            c->num = strtod(c->str, &end);
            if (*end || end == c->str) {
                check_free(c);
                return fail(err, errlen, "<, <=, >, >= compare numbers: '%.60s'", c->text);
            }
            c->lit = CL_NUM;
        }
        break;
    case CK_JSON:
        if (c->op == CO_MATCH || c->op == CO_CONTAINS)
            break;
        if (quoted) {
            c->lit = CL_STR;
        } else if (strcmp(c->str, "true") == 0) {
            c->lit = CL_TRUE;
        } else if (strcmp(c->str, "false") == 0) {
            c->lit = CL_FALSE;
        } else if (strcmp(c->str, "null") == 0) {
            c->lit = CL_NULL;
        } else {
            char *end;
            c->num = strtod(c->str, &end);
            if (*end || end == c->str || !isfinite(c->num)) {
                fail(err, errlen, "json compares with a JSON value: a number, \"text\", true, false or null, "
                                  "not '%.60s'", c->str);
                check_free(c);
                return -1;
            }
            c->lit = CL_NUM;
        }
        if (c->op >= CO_LT && c->op <= CO_GE && c->lit != CL_NUM) {
            check_free(c);
            return fail(err, errlen, "<, <=, >, >= compare numbers: '%.60s'", c->text);
        }
        break;
    }
    if (c->op == CO_MATCH && compile_re(c, c->str, 0, err, errlen) != 0) {
        check_free(c);
        return -1;
    }
    return 0;
bad_op:
    err_set(err, errlen, NULL, "%s does not take '%s' (%s)", subj, ow,
            c->subject == CK_BODY ? "body: contains, ~, == or !=" : "status: ==, !=, <, <=, >, >= or ~");
    check_free(c);
    return -1;
}

int check_compile(const char *expr, struct check *c, char *err, size_t errlen)
{
    const char *s = expr;
    char subj[32], w[CHECK_TEXT_MAX + 1], ow[32];
    int quoted = 0;
    size_t n = strlen(expr);

    memset(c, 0, sizeof(*c));
    while (n && (expr[n - 1] == ' ' || expr[n - 1] == '\t'))
        n--;
    if (n > CHECK_TEXT_MAX)
        return fail(err, errlen, "a check of more than %s characters", "240");
    snprintf(c->text, sizeof(c->text), "%.*s", (int)n, skip_ws(expr));
    word_until(&s, subj, sizeof(subj), "=!<>~");
    if (strcmp(subj, "status") == 0)
        c->subject = CK_STATUS;
    else if (strcmp(subj, "header") == 0)
        c->subject = CK_HEADER;
    else if (strcmp(subj, "body") == 0)
        c->subject = CK_BODY;
    else if (strcmp(subj, "json") == 0)
        c->subject = CK_JSON;
    else if (strcmp(subj, "size") == 0)
        c->subject = CK_SIZE;
    else if (strcmp(subj, "duration") == 0)
        c->subject = CK_DURATION;
    else
        return fail(err, errlen, "a check begins with status, header, body, json, size or duration, not '%.40s'",
                    subj);
    if (c->subject == CK_HEADER) {
        size_t k;
        if (word(&s, w, sizeof(w)) == 0)
            return fail(err, errlen, "%s", "'header' wants a header name: header Content-Type ~ json");
        for (k = 0; w[k]; k++)
            if (!isalnum((unsigned char)w[k]) && !strchr("!#$%&'*+-.^_`|~", w[k]))
                return fail(err, errlen, "'%.60s' is not a header name", w);
        if ((c->name = strdup(w)) == NULL)
            goto oom;
        c->nlen = strlen(w);
    } else if (c->subject == CK_JSON) {
        if (word_until(&s, w, sizeof(w), "=!<>~") == 0)
            return fail(err, errlen, "%s", "'json' wants a path: json $.ok == true");
        if (jpath_compile(w, strlen(w), &c->path, err, errlen) != 0)
            return -1;
    }
    if (op_word(&s, ow, sizeof(ow)) == 0 || parse_op(ow, &c->op) != 0) {
        check_free(c);
        return fail(err, errlen, "expected an operator (==, !=, <, <=, >, >=, ~, contains, exists) after '%.60s'",
                    c->text);
    }
    if (c->op == CO_EXISTS) {
        if (*skip_ws(s)) {
            check_free(c);
            return fail(err, errlen, "'exists' takes no value: '%.60s'", c->text);
        }
        if (c->subject != CK_HEADER && c->subject != CK_JSON) {
            check_free(c);
            return fail(err, errlen, "%s", "'exists' is for a header or a JSON path");
        }
        return 0;
    }
    if (operand(s, &c->str, &c->slen, &quoted, err, errlen) != 0) {
        check_free(c);
        return -1;
    }
    if (c->slen == 0 && !quoted) {
        check_free(c);
        return fail(err, errlen, "'%.60s' wants a value after its operator", c->text);
    }
    return compile_value(c, subj, ow, quoted, err, errlen);
oom:
    err_set(err, errlen, NULL, "out of memory");
    check_free(c);
    return -1;
}

int check_compile_extract(const char *expr, struct check *c, char *err, size_t errlen)
{
    const char *eq = strchr(expr, '='), *s;
    char name[64], subj[32], w[CHECK_TEXT_MAX + 1];
    size_t k, n;

    memset(c, 0, sizeof(*c));
    c->op = CO_NONE;
    if (eq == NULL)
        return fail(err, errlen, "%s", "an extraction is NAME = json PATH, header NAME, body /REGEX/ or cookie NAME");
    s = skip_ws(expr);
    n = (size_t)(eq - s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n == 0 || n >= sizeof(name))
        return fail(err, errlen, "%s", "an extraction's variable wants a name (letters, digits, _ and -, 1 to 63)");
    memcpy(name, s, n);
    name[n] = '\0';
    for (k = 0; k < n; k++)
        if (!isalnum((unsigned char)name[k]) && name[k] != '_' && name[k] != '-')
            return fail(err, errlen, "'%.60s' is not a variable name (letters, digits, _ and -)", name);
    snprintf(c->text, sizeof(c->text), "%.*s", CHECK_TEXT_MAX, skip_ws(expr));
    if ((c->var = strdup(name)) == NULL)
        goto oom;
    s = eq + 1;
    word(&s, subj, sizeof(subj));
    if (strcmp(subj, "json") == 0) {
        c->subject = CK_JSON;
        if (word(&s, w, sizeof(w)) == 0 || jpath_compile(w, strlen(w), &c->path, err, errlen) != 0) {
            if (w[0] == '\0')
                err_set(err, errlen, NULL, "'json' wants a path: %s = json $.token", name);
            check_free(c);
            return -1;
        }
    } else if (strcmp(subj, "header") == 0 || strcmp(subj, "cookie") == 0) {
        c->subject = subj[0] == 'h' ? CK_HEADER : CK_COOKIE;
        if (word(&s, w, sizeof(w)) == 0) {
            check_free(c);
            return fail(err, errlen, "'%s' wants a name", subj);
        }
        if ((c->name = strdup(w)) == NULL)
            goto oom;
        c->nlen = strlen(w);
    } else if (strcmp(subj, "body") == 0) {
        const char *p = skip_ws(s);
        size_t len = strlen(p);
        char *re;
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len < 3 || p[0] != '/' || p[len - 1] != '/') {
            check_free(c);
            return fail(err, errlen, "%s", "'body' wants a regular expression between slashes: body /value=\"([^\"]+)\"/");
        }
        if ((re = strndup(p + 1, len - 2)) == NULL)
            goto oom;
        k = (size_t)compile_re(c, re, 1, err, errlen);
        free(re);
        if (k != 0) {
            check_free(c);
            return -1;
        }
        c->subject = CK_BODY;
        return 0;
    } else {
        check_free(c);
        return fail(err, errlen, "an extraction takes json, header, body or cookie, not '%.40s'", subj);
    }
    if (*skip_ws(s)) {
        check_free(c);
        return fail(err, errlen, "something after the extraction: '%.60s'", skip_ws(s));
    }
    return 0;
oom:
    err_set(err, errlen, NULL, "out of memory");
    check_free(c);
    return -1;
}

void check_free(struct check *c)
{
    free(c->name);
    free(c->str);
    free(c->var);
    jpath_free(&c->path);
    if (c->has_re)
        regfree(&c->re);
    c->name = c->str = c->var = NULL;
    c->has_re = 0;
}

int check_needs_head(const struct check *c)
{
    return c->subject == CK_HEADER || c->subject == CK_COOKIE;
}

int check_needs_body(const struct check *c)
{
    /* size counts the body's bytes as they come (kept or not). */
    return c->subject == CK_BODY || c->subject == CK_JSON || c->subject == CK_SIZE;
}

const char *check_header(const char *head, size_t head_len, const char *name, size_t n, size_t *vlen)
{
    const char *p = head, *end = head + head_len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *v;
        if ((size_t)(le - p) > n && p[n] == ':' && strncasecmp(p, name, n) == 0) {
            v = p + n + 1;
            while (v < le && (*v == ' ' || *v == '\t'))
                v++;
            while (le > v && (le[-1] == '\r' || le[-1] == ' ' || le[-1] == '\t'))
                le--;
            *vlen = (size_t)(le - v);
            return v;
        }
        p = nl ? nl + 1 : end;
    }
    return NULL;
}

/* What was seen, for the first failure: cut, and shown as a terminal may
 * show it (text_scrub). */
static void seen_put(char *seen, size_t cap, const char *prefix, const char *v, size_t n)
{
    size_t o;
    if (seen == NULL || cap == 0)
        return;
    o = (size_t)snprintf(seen, cap, "%s", prefix);
    if (o >= cap)
        o = cap - 1;
    if (n > CHECK_SEEN_MAX)
        n = CHECK_SEEN_MAX;
    if (n > cap - 1 - o)
        n = cap - 1 - o;
    memcpy(seen + o, v, n);
    text_scrub(seen + o, n, 1);
}

static int num_cmp(uint8_t op, double a, double b)
{
    switch (op) {
    case CO_EQ: return a == b;
    case CO_NE: return a != b;
    case CO_LT: return a < b;
    case CO_LE: return a <= b;
    case CO_GT: return a > b;
    case CO_GE: return a >= b;
    default: return 0;
    }
}

/* ==, !=, contains, ~ on text v (n bytes; for ~, a NUL must follow it
 * somewhere in its buffer: regexec reads to one, REG_STARTEND or not). */
static int text_cmp(const struct check *c, const char *v, size_t n)
{
    regmatch_t m;
    switch (c->op) {
    case CO_EQ: return n == c->slen && memcmp(v, c->str, n) == 0;
    case CO_NE: return !(n == c->slen && memcmp(v, c->str, n) == 0);
    case CO_CONTAINS: return c->slen == 0 || (n >= c->slen && memmem(v, n, c->str, c->slen) != NULL);
    case CO_MATCH:
        /* REG_STARTEND: the bytes where they lie, NULs and all (glibc). */
        m.rm_so = 0;
        m.rm_eo = (regoff_t)n;
        return regexec(&c->re, v, 1, &m, REG_STARTEND) == 0;
    default: return 0;
    }
}

/* Does the number written v (n bytes) pass op against the literal? Any
 * length of JSON number (RFC 8259 §6); past the double's range it is
 * ±inf, and one nearer zero than any double is below every positive
 * literal and above every negative one, not equal to 0. Other text (a
 * header's) as strtod reads it. 1 passes, 0 fails, -1 not a number. */
static int num_test(uint8_t op, const char *v, size_t n, double lit)
{
    char b[512], *end;
    double x;
    int r = jpath_number(v, n, &x);
    if (r == 1)
        return num_cmp(op, lit != 0 ? (lit > 0 ? -1.0 : 1.0) : signbit(x) ? -1.0 : 1.0, 0.0);
    if (r == 0)
        return num_cmp(op, x, lit);
    if (n == 0 || n >= sizeof(b))
        return -1;
    memcpy(b, v, n);
    b[n] = '\0';
    x = strtod(b, &end);
    return *end == '\0' ? num_cmp(op, x, lit) : -1;
}

/* A header check: 1 passed, 0 failed (what was seen in seen). */
static int eval_header(const struct check *c, const struct check_response *r, char *seen, size_t seenlen)
{
    size_t n = 0;
    const char *v = r->head ? check_header(r->head, r->head_len, c->name, c->nlen, &n) : NULL;
    char pre[80];
    if (r->head_over) {
        seen_put(seen, seenlen, "the head is longer than the 64 KiB kept: not checked", "", 0);
        return 0;
    }
    if (v == NULL) {
        snprintf(pre, sizeof(pre), "no %.60s header", c->name);
        seen_put(seen, seenlen, pre, "", 0);
        return 0;
    }
    if (c->op == CO_EXISTS)
        return 1;
    if (c->op == CO_MATCH) {
        /* The value where a NUL can follow it (a head line is at most
         * 8 KiB long). */
        char line[8200];
        size_t k = n < sizeof(line) - 1 ? n : sizeof(line) - 1;
        memcpy(line, v, k);
        line[k] = '\0';
        if (text_cmp(c, line, k))
            return 1;
    } else if (c->lit == CL_NUM ? num_test(c->op, v, n, c->num) == 1 : text_cmp(c, v, n)) {
        return 1;
    }
    snprintf(pre, sizeof(pre), "%.60s: ", c->name);
    seen_put(seen, seenlen, pre, v, n);
    return 0;
}

/* A JSON path check: 1 passed, 0 failed (what was seen in seen). */
static int eval_json(const struct check *c, const struct check_response *r, char *seen, size_t seenlen)
{
    const char *v = NULL;
    size_t n = 0;
    enum jp_type t;
    char txt[CHECK_VALUE_MAX], pre[CHECK_TEXT_MAX + 40];
    ssize_t sl;
    int ok;
    if (r->body_over) {
        snprintf(pre, sizeof(pre), "the body is longer than --max-body (%llu bytes): not checked",
                 (unsigned long long)r->max_body);
        seen_put(seen, seenlen, pre, "", 0);
        return 0;
    }
    t = jpath_find(&c->path, r->body ? r->body : "", r->body_len, &v, &n);
    if (t == JP_NONE || t == JP_BAD) {
        seen_put(seen, seenlen, t == JP_NONE ? "no such value in: " : "not JSON: ", r->body ? r->body : "",
                 r->body_len);
        return 0;
    }
    if (c->op == CO_EXISTS)
        return 1;
    sl = t == JP_STRING ? jpath_string(v, n, txt, sizeof(txt) - 1) : -1;
    if (sl >= 0) {
        txt[sl] = '\0';
    } else if (t == JP_STRING && memchr(v, '\\', n) == NULL) {
        /* Longer than the buffer, without escapes: its bytes as they lie,
         * between the quotes. */
        v++;
        n -= 2;
        t = JP_NUMBER; /* compared as raw text from here on */
        sl = -2;
    } else if (t == JP_STRING) {
        snprintf(pre, sizeof(pre), "%.*s: a string of more than 1 KiB with escapes, not compared",
                 (int)(strcspn(c->text + 5, " =!<>~")), c->text + 5);
        seen_put(seen, seenlen, pre, "", 0);
        return 0;
    }
    switch (c->op) {
    case CO_MATCH:
    case CO_CONTAINS:
        ok = sl >= 0 ? text_cmp(c, txt, (size_t)sl) : text_cmp(c, v, n);
        break;
    default: {
        int eq;
        if (c->lit == CL_NUM) {
            /* (sl == -2: a long string's text, never a number) */
            if (t == JP_NUMBER && sl == -1 && (ok = num_test(c->op, v, n, c->num)) >= 0)
                break;
            eq = 0;
        } else if (c->lit == CL_STR) {
            eq = sl >= 0 ? (size_t)sl == c->slen && memcmp(txt, c->str, c->slen) == 0
                         : sl == -2 && n == c->slen && memcmp(v, c->str, n) == 0;
        } else {
            eq = (c->lit == CL_TRUE && t == JP_TRUE) || (c->lit == CL_FALSE && t == JP_FALSE) ||
                 (c->lit == CL_NULL && t == JP_NULL);
        }
        ok = c->op == CO_EQ ? eq : c->op == CO_NE ? !eq : 0;
    }
    }
    if (ok)
        return 1;
    snprintf(pre, sizeof(pre), "%.*s: ", (int)(strcspn(c->text + 5, " =!<>~")), c->text + 5);
    seen_put(seen, seenlen, pre, v, n);
    return 0;
}

int check_eval(const struct check *c, const struct check_response *r, char *seen, size_t seenlen)
{
    char b[64];
    switch (c->subject) {
    case CK_STATUS:
        if (c->op == CO_MATCH) {
            int n = snprintf(b, sizeof(b), "%u", r->status);
            if (text_cmp(c, b, (size_t)n))
                return 1;
        } else if (num_cmp(c->op, (double)r->status, c->num)) {
            return 1;
        }
        snprintf(b, sizeof(b), "status %u", r->status);
        seen_put(seen, seenlen, b, "", 0);
        return 0;
    case CK_SIZE:
        if (r->size_unknown) {
            seen_put(seen, seenlen, "size not known: the head is longer than the bytes kept", "", 0);
            return 0;
        }
        if (num_cmp(c->op, (double)r->body_size, c->num))
            return 1;
        snprintf(b, sizeof(b), "size %llu", (unsigned long long)r->body_size);
        seen_put(seen, seenlen, b, "", 0);
        return 0;
    case CK_DURATION:
        if (num_cmp(c->op, (double)r->duration_ns, c->num))
            return 1;
        units_fmt_ns(b, sizeof(b), (double)r->duration_ns);
        seen_put(seen, seenlen, "duration ", b, strlen(b));
        return 0;
    case CK_HEADER:
        return eval_header(c, r, seen, seenlen);
    case CK_BODY:
        if (r->body_over) {
            char pre[120];
            snprintf(pre, sizeof(pre), "the body is longer than --max-body (%llu bytes): not checked",
                     (unsigned long long)r->max_body);
            seen_put(seen, seenlen, pre, "", 0);
            return 0;
        }
        if (text_cmp(c, r->body ? r->body : "", r->body_len))
            return 1;
        seen_put(seen, seenlen, "body: ", r->body ? r->body : "", r->body_len);
        return 0;
    case CK_JSON:
        return eval_json(c, r, seen, seenlen);
    default:
        return 0;
    }
}

ssize_t check_extract(const struct check *c, const struct check_response *r, char *out)
{
    const char *v = NULL;
    size_t n = 0;
    switch (c->subject) {
    case CK_JSON: {
        enum jp_type t;
        if (r->body_over || r->body == NULL)
            return -1;
        t = jpath_find(&c->path, r->body, r->body_len, &v, &n);
        if (t == JP_NONE || t == JP_BAD)
            return -1;
        if (t == JP_STRING)
            return jpath_string(v, n, out, CHECK_VALUE_MAX);
        break;
    }
    case CK_HEADER:
        if (r->head == NULL || (v = check_header(r->head, r->head_len, c->name, c->nlen, &n)) == NULL)
            return -1;
        break;
    case CK_COOKIE: {
        /* Set-Cookie: NAME=VALUE; attributes (RFC 6265 §4.1). */
        const char *p = r->head, *end = r->head ? r->head + r->head_len : NULL;
        while (p && p < end) {
            size_t vl;
            const char *sc = check_header(p, (size_t)(end - p), "set-cookie", 10, &vl), *nl;
            if (sc == NULL)
                return -1;
            if (vl > c->nlen && sc[c->nlen] == '=' && memcmp(sc, c->name, c->nlen) == 0) {
                v = sc + c->nlen + 1;
                n = strcspn(v, ";\r\n");
                if (n > (size_t)(sc + vl - v))
                    n = (size_t)(sc + vl - v);
                break;
            }
            nl = memchr(sc, '\n', (size_t)(end - sc));
            p = nl ? nl + 1 : end;
        }
        if (v == NULL)
            return -1;
        break;
    }
    case CK_BODY: {
        regmatch_t m[2];
        if (r->body_over || r->body == NULL)
            return -1;
        m[0].rm_so = 0;
        m[0].rm_eo = (regoff_t)r->body_len;
        if (regexec(&c->re, r->body, 2, m, REG_STARTEND) != 0)
            return -1;
        if (m[1].rm_so < 0)
            m[1] = m[0];
        v = r->body + m[1].rm_so;
        n = (size_t)(m[1].rm_eo - m[1].rm_so);
        break;
    }
    default:
        return -1;
    }
    if (n > CHECK_VALUE_MAX)
        return -1;
    memcpy(out, v, n);
    return (ssize_t)n;
}
