/* template.h - values that change per request, written {{...}} in a target's
 * URL path and query, header values and body:
 *
 *   {{seq}}              0, 1, 2, ... over the whole run, every value once
 *   {{rand A B}}         a uniform integer in [A, B]
 *   {{uuid}}             a random (version 4) UUID
 *   {{conn}}             the connection's number
 *   {{csv FILE COLUMN}}  COLUMN of the next row of FILE (a header line names
 *                        the columns; rows in order, cycled)
 *   {{env NAME}}         the environment variable, read once at start
 *   {{var NAME}}         the value "# extract: NAME = ..." took from an
 *                        earlier answer on this connection (its session)
 *
 * A template is compiled once, before the run; expanding it is a copy into a
 * buffer of at least tpl.max_len bytes, with no allocation. One request's
 * templates share its {{seq}} and its CSV row. */
#ifndef RAFALE_TEMPLATE_H
#define RAFALE_TEMPLATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define TPL_MAX_CSV 8
#define TPL_MAX_VARS 64
#define TPL_VAR_MAX 1024      /* a variable's longest value (check.h's CHECK_VALUE_MAX) */

/* A CSV file read once: its cells, and the next row to hand out. */
struct tpl_csv {
    char *path;
    char *data;            /* the file, cells NUL-cut in place */
    const char **cells;    /* [row * ncols + col] */
    uint32_t *lens;
    uint32_t nrows, ncols; /* data rows, after the header line */
    const char **names;    /* the header line */
    uint32_t max_cell;
    _Atomic uint64_t next;
};

/* What the templates of a run share. */
struct tpl_set {
    struct tpl_csv csv[TPL_MAX_CSV];
    uint32_t ncsv;
    _Atomic uint64_t seq;
    /* Shard i of n (--shard) takes turns i, i+n, i+2n... of {{seq}} and of
     * the CSV rows, so the shards together use every value once. */
    uint64_t stride, offset;
    /* {{var NAME}}: the names "# extract:" sets, an index each; vars_any:
     * any name goes (a targets file checked before its run's plan). */
    const char *var_names[TPL_MAX_VARS];
    uint32_t nvars;
    int vars_any;
};

enum tpl_kind { TPL_LIT, TPL_SEQ, TPL_RAND, TPL_UUID, TPL_CONN, TPL_CSV, TPL_VAR };

struct tpl_part {
    uint8_t kind;
    uint32_t off, len;     /* TPL_LIT: bytes of tpl.text */
    int64_t a, b;          /* TPL_RAND: bounds */
    uint32_t csv, col;     /* TPL_CSV; TPL_VAR: col is the variable */
    uint8_t where;         /* TPL_VAR: where its value goes (enum tpl_where) */
};

struct tpl {
    struct tpl_part *parts;
    uint32_t nparts;
    char *text;            /* the literal bytes */
    size_t max_len;        /* the longest expansion */
    uint64_t vars;         /* the variables it uses, a bit each */
};

/* A connection's variables (its session's): values of up to TPL_VAR_MAX
 * bytes, set by "# extract:". */
struct tpl_vars {
    uint64_t set;          /* a bit per variable that has a value */
    uint16_t len[TPL_MAX_VARS];
    char *val;             /* nvars * TPL_VAR_MAX bytes */
};

/* The per-request state of an expansion. Set seq and rows to TPL_UNSET
 * before a request's first expansion. */
#define TPL_UNSET UINT64_MAX
struct tpl_ctx {
    uint64_t seq;
    uint64_t rows[TPL_MAX_CSV];
    uint64_t conn;
    uint64_t *rng;         /* the thread's generator */
    const struct tpl_vars *vars; /* the connection's, or NULL */
    uint32_t bad_var;      /* after an expansion: 1 + a variable whose value held a byte that cannot stand
                            * where it went (the request must not be sent), or 0 */
};

/* Does s (n bytes) hold a template? */
int template_has(const char *s, size_t n);

/* Where an expansion goes, which decides the bytes its values may hold
 * (every value is known when the template is compiled: {{env}} is read
 * then, a CSV file is read whole, the rest are digits and hex):
 *   TPL_BODY    anything
 *   TPL_FIELD   a header field value: no CR, LF, NUL, DEL or other control
 *               but HTAB (RFC 9110 §5.5)
 *   TPL_TARGET  a request-target: visible ASCII, no space (RFC 9112 §3.2)
 *   TPL_HEAD    a whole HTTP/1.1 head: TPL_TARGET up to the first CRLF (the
 *               request line), TPL_FIELD after it
 * A value that breaks its rule could end the header early and start a
 * second request (request smuggling), so it is refused here. */
enum tpl_where { TPL_BODY, TPL_FIELD, TPL_TARGET, TPL_HEAD };

/* Compiles s (n bytes), whose expansion goes where says. CSV files are read
 * into set (paths relative to basedir, which may be NULL). Returns 0, or -1
 * with what is wrong in err (the caller adds the file and line). */
int template_compile(const char *s, size_t n, enum tpl_where where, struct tpl_set *set, const char *basedir,
                struct tpl *out, char *err, size_t errlen);

/* The first byte of [s, s+n) that may not stand where says (TPL_FIELD or
 * TPL_TARGET), or NULL when there is none. */
const char *template_bad_byte(const char *s, size_t n, enum tpl_where where);
void template_free(struct tpl *t);
void template_set_free(struct tpl_set *set);

/* Writes the expansion of t into out (tpl.max_len bytes at least); returns
 * its length. */
size_t template_expand(const struct tpl *t, struct tpl_set *set, struct tpl_ctx *ctx, char *out);

static inline void template_ctx_start(struct tpl_ctx *ctx, uint64_t conn, uint64_t *rng)
{
    uint32_t i;
    ctx->seq = TPL_UNSET;
    for (i = 0; i < TPL_MAX_CSV; i++)
        ctx->rows[i] = TPL_UNSET;
    ctx->conn = conn;
    ctx->rng = rng;
    ctx->vars = NULL;
    ctx->bad_var = 0;
}

/* xorshift64*: the generator behind {{rand}}, {{uuid}} and --order random. */
static inline uint64_t template_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

#endif
