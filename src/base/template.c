/* template.c - {{...}} values in requests: compiled once, expanded per
 * request by copying. See template.h. */
#include "template.h"
#include "err.h"
#include "buf.h"
#include "http_lex.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int template_has(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i + 1 < n; i++)
        if (s[i] == '{' && s[i + 1] == '{')
            return 1;
    return 0;
}

const char *template_bad_byte(const char *s, size_t n, enum tpl_where where)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (where == TPL_TARGET ? !lex_vchar(s[i]) : where == TPL_FIELD && !lex_field_char(s[i]))
            return s + i;
    return NULL;
}

/* What byte c is, in words, for a message. */
static const char *byte_name(char c, char *buf, size_t n)
{
    switch (c) {
    case '\r': return "a CR";
    case '\n': return "an LF";
    case '\0': return "a NUL";
    case ' ': return "a space";
    case 0x7f: return "a DEL";
    default: snprintf(buf, n, "the byte 0x%02x", (unsigned char)c); return buf;
    }
}

static const char *where_name(enum tpl_where where)
{
    return where == TPL_TARGET ? "a request-target (RFC 9112 section 3.2)"
                               : "a header field (RFC 9110 section 5.5)";
}

/* --- CSV files --- */

/* Splits the file in place into rows of cells (RFC 4180: commas, quoted
 * cells with "" for a quote, CRLF or LF line ends). */
static int csv_load(struct tpl_csv *c, const char *path, char *err, size_t errlen)
{
    struct buf b = { 0 };
    size_t i, ncells = 0, cap = 0;
    char *w;
    uint32_t row_cells = 0;

    if (buf_read_file(&b, path, (size_t)256 << 20) != 0) {
        err_set(err, errlen, NULL, "cannot read CSV file '%s': %s", path, strerror(errno));
        buf_free(&b);
        return -1;
    }
    if (buf_put(&b, "\n", 1) != 0) {
        buf_free(&b);
        err_set(err, errlen, NULL, "out of memory");
        return -1;
    }
    c->data = b.p;
    c->path = strdup(path);
    /* Cells are rewritten in place (quotes removed), never longer. */
    for (i = 0, w = b.p; i < b.len;) {
        char *cell = w;
        if (b.p[i] == '"') {
            i++;
            while (i < b.len) {
                if (b.p[i] == '"') {
                    if (i + 1 < b.len && b.p[i + 1] == '"') {
                        *w++ = '"';
                        i += 2;
                        continue;
                    }
                    i++; /* the closing quote */
                    break;
                }
                *w++ = b.p[i++];
            }
        } else {
            while (i < b.len && b.p[i] != ',' && b.p[i] != '\n' && b.p[i] != '\r')
                *w++ = b.p[i++];
        }
        if (ncells == cap) {
            size_t nc = cap ? cap * 2 : 64;
            const char **n1 = realloc(c->cells, nc * sizeof(*n1));
            uint32_t *n2;
            if (n1 == NULL)
                goto oom;
            c->cells = n1;
            n2 = realloc(c->lens, nc * sizeof(*n2));
            if (n2 == NULL)
                goto oom;
            c->lens = n2;
            cap = nc;
        }
        c->cells[ncells] = cell;
        c->lens[ncells] = (uint32_t)(w - cell);
        ncells++;
        row_cells++;
        if (i < b.len && b.p[i] == ',') {
            i++;
            *w++ = '\0';
            continue;
        }
        /* The end of a line. */
        while (i < b.len && b.p[i] == '\r')
            i++;
        if (i < b.len && b.p[i] == '\n')
            i++;
        *w++ = '\0';
        if (row_cells == 1 && c->lens[ncells - 1] == 0) {
            ncells--; /* a blank line */
        } else if (c->ncols == 0) {
            c->ncols = row_cells;
        } else if (row_cells != c->ncols) {
            err_set(err, errlen, NULL, "CSV file '%s': row %zu has %u cells, the header line %u", path,
                    ncells / c->ncols + 1, row_cells, c->ncols);
            return -1;
        }
        row_cells = 0;
    }
    if (c->ncols == 0 || ncells <= c->ncols) {
        err_set(err, errlen, NULL, "CSV file '%s' has no row after its header line", path);
        return -1;
    }
    c->names = c->cells;
    c->cells += c->ncols;
    c->lens += c->ncols;
    c->nrows = (uint32_t)(ncells / c->ncols - 1);
    for (i = 0; i < (size_t)c->nrows * c->ncols; i++)
        if (c->lens[i] > c->max_cell)
            c->max_cell = c->lens[i];
    return 0;
oom:
    err_set(err, errlen, NULL, "out of memory");
    return -1;
}

static int csv_find(struct tpl_set *set, const char *path, char *err, size_t errlen)
{
    uint32_t i;
    for (i = 0; i < set->ncsv; i++)
        if (strcmp(set->csv[i].path, path) == 0)
            return (int)i;
    if (set->ncsv == TPL_MAX_CSV) {
        err_set(err, errlen, NULL, "more than %d CSV files", TPL_MAX_CSV);
        return -1;
    }
    memset(&set->csv[set->ncsv], 0, sizeof(set->csv[0]));
    if (csv_load(&set->csv[set->ncsv], path, err, errlen) != 0) {
        /* Failed before its cells were split into names and rows. */
        struct tpl_csv *c = &set->csv[set->ncsv];
        free(c->data);
        free(c->path);
        free((void *)c->cells);
        free(c->lens);
        return -1;
    }
    return (int)set->ncsv++;
}

void template_set_free(struct tpl_set *set)
{
    uint32_t i;
    for (i = 0; i < set->ncsv; i++) {
        struct tpl_csv *c = &set->csv[i];
        free(c->data);
        free(c->path);
        free((void *)c->names);
        free(c->lens - c->ncols);
    }
    set->ncsv = 0;
}

/* --- compiling --- */

static int add_part(struct tpl *t, const struct tpl_part *p)
{
    struct tpl_part *n = realloc(t->parts, (t->nparts + 1) * sizeof(*n));
    if (n == NULL)
        return -1;
    t->parts = n;
    t->parts[t->nparts++] = *p;
    return 0;
}

static int parse_int(const char *s, int64_t *v)
{
    char *end;
    long long x;
    errno = 0;
    x = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *v = x;
    return 0;
}

/* One {{...}}: its words in w[0..n). */
static int compile_one(char **w, int n, enum tpl_where where, struct tpl_set *set, const char *basedir,
                       struct tpl_part *p, size_t *maxlen, char *lit, size_t *litlen, char *err, size_t errlen)
{
    const char *bad;
    char bn[24];
    memset(p, 0, sizeof(*p));
    if (n == 1 && strcmp(w[0], "seq") == 0) {
        p->kind = TPL_SEQ;
        *maxlen = 20;
    } else if (n == 1 && strcmp(w[0], "uuid") == 0) {
        p->kind = TPL_UUID;
        *maxlen = 36;
    } else if (n == 1 && strcmp(w[0], "conn") == 0) {
        p->kind = TPL_CONN;
        *maxlen = 20;
    } else if (strcmp(w[0], "rand") == 0) {
        /* Any A <= B: the span is taken in unsigned arithmetic, where even
         * the whole int64 range (a span of 2^64, wrapping to 0) is exact. */
        if (n != 3 || parse_int(w[1], &p->a) != 0 || parse_int(w[2], &p->b) != 0 || p->a > p->b) {
            err_set(err, errlen, NULL, "{{rand A B}} wants two integers, A <= B");
            return -1;
        }
        p->kind = TPL_RAND;
        *maxlen = 20;
    } else if (strcmp(w[0], "env") == 0) {
        const char *v;
        if (n != 2) {
            err_set(err, errlen, NULL, "{{env NAME}} wants one variable name");
            return -1;
        }
        v = getenv(w[1]);
        if (v == NULL) {
            err_set(err, errlen, NULL, "{{env %s}}: %s is not set", w[1], w[1]);
            return -1;
        }
        *litlen = strlen(v);
        if (*litlen > 4096) {
            err_set(err, errlen, NULL, "{{env %s}}: longer than 4096 bytes", w[1]);
            return -1;
        }
        if ((bad = template_bad_byte(v, *litlen, where)) != NULL) {
            err_set(err, errlen, NULL, "{{env %s}}: the value holds %s, which cannot go in %s", w[1],
                    byte_name(*bad, bn, sizeof(bn)), where_name(where));
            return -1;
        }
        memcpy(lit, v, *litlen);
        p->kind = TPL_LIT;
        *maxlen = *litlen;
    } else if (strcmp(w[0], "csv") == 0) {
        char path[4096];
        int k;
        uint32_t col;
        if (n != 3) {
            err_set(err, errlen, NULL, "{{csv FILE COLUMN}} wants a file and a column name");
            return -1;
        }
        if (w[1][0] == '/' || basedir == NULL)
            snprintf(path, sizeof(path), "%s", w[1]);
        else
            snprintf(path, sizeof(path), "%s/%s", basedir, w[1]);
        if ((k = csv_find(set, path, err, errlen)) < 0)
            return -1;
        for (col = 0; col < set->csv[k].ncols; col++)
            if (strcmp(set->csv[k].names[col], w[2]) == 0)
                break;
        if (col == set->csv[k].ncols) {
            err_set(err, errlen, NULL, "{{csv %s %s}}: the file has no column '%s'", w[1], w[2], w[2]);
            return -1;
        }
        if (where != TPL_BODY) {
            const struct tpl_csv *c = &set->csv[k];
            uint32_t r;
            for (r = 0; r < c->nrows; r++)
                if ((bad = template_bad_byte(c->cells[r * c->ncols + col], c->lens[r * c->ncols + col], where)) != NULL) {
                    err_set(err, errlen, NULL, "{{csv %s %s}}: data row %u holds %s, which cannot go in %s", w[1], w[2],
                            r + 1, byte_name(*bad, bn, sizeof(bn)), where_name(where));
                    return -1;
                }
        }
        p->kind = TPL_CSV;
        p->csv = (uint32_t)k;
        p->col = col;
        *maxlen = set->csv[k].max_cell;
    } else if (strcmp(w[0], "var") == 0) {
        uint32_t k;
        if (n != 2) {
            err_set(err, errlen, NULL, "{{var NAME}} wants one variable name");
            return -1;
        }
        for (k = 0; k < set->nvars; k++)
            if (strcmp(set->var_names[k], w[1]) == 0)
                break;
        if (k == set->nvars && !set->vars_any) {
            err_set(err, errlen, NULL, "{{var %s}}: no '# extract: %s = ...' sets it", w[1], w[1]);
            return -1;
        }
        p->kind = TPL_VAR;
        p->col = k < TPL_MAX_VARS ? k : 0;
        p->where = (uint8_t)where;
        *maxlen = TPL_VAR_MAX;
    } else {
        err_set(err, errlen, NULL,
                "unknown template {{%s}} (seq, rand A B, uuid, conn, csv FILE COLUMN, env NAME, var NAME)", w[0]);
        return -1;
    }
    return 0;
}

int template_compile(const char *s, size_t n, enum tpl_where where, struct tpl_set *set, const char *basedir,
                struct tpl *out, char *err, size_t errlen)
{
    struct buf text = { 0 };
    size_t i = 0;
    /* A head's request line ends at its first CRLF; its fields follow. */
    const char *crlf = where == TPL_HEAD ? memmem(s, n, "\r\n", 2) : NULL;
    char *lit = malloc(4096);

    memset(out, 0, sizeof(*out));
    if (lit == NULL)
        goto oom;
    while (i < n) {
        const char *open = NULL, *close;
        size_t j;
        for (j = i; j + 1 < n; j++)
            if (s[j] == '{' && s[j + 1] == '{') {
                open = s + j;
                break;
            }
        if (open == NULL)
            j = n;
        if (j > i) {
            struct tpl_part p = { TPL_LIT, (uint32_t)text.len, (uint32_t)(j - i), 0, 0, 0, 0, 0 };
            if (buf_put(&text, s + i, j - i) != 0 || add_part(out, &p) != 0)
                goto oom;
            out->max_len += j - i;
        }
        if (open == NULL)
            break;
        close = NULL;
        for (j = (size_t)(open - s) + 2; j + 1 < n; j++)
            if (s[j] == '}' && s[j + 1] == '}') {
                close = s + j;
                break;
            }
        if (close == NULL || close - open > 4200) {
            err_set(err, errlen, NULL, "'{{' without '}}'");
            goto fail;
        }
        {
            char inner[4200], *w[8];
            int nw = 0;
            char *q;
            struct tpl_part p;
            size_t maxlen = 0, litlen = 0;
            memcpy(inner, open + 2, (size_t)(close - open - 2));
            inner[close - open - 2] = '\0';
            for (q = strtok(inner, " \t"); q && nw < 8; q = strtok(NULL, " \t"))
                w[nw++] = q;
            if (nw == 0) {
                err_set(err, errlen, NULL, "an empty {{}}");
                goto fail;
            }
            enum tpl_where here = where != TPL_HEAD ? where : crlf == NULL || open < crlf ? TPL_TARGET : TPL_FIELD;
            if (compile_one(w, nw, here, set, basedir, &p, &maxlen, lit, &litlen, err, errlen) != 0)
                goto fail;
            if (p.kind == TPL_LIT) {
                /* {{env}}: a literal from here on. */
                p.off = (uint32_t)text.len;
                p.len = (uint32_t)litlen;
                if (buf_put(&text, lit, litlen) != 0)
                    goto oom;
            }
            if (add_part(out, &p) != 0)
                goto oom;
            if (p.kind == TPL_VAR)
                out->vars |= 1ULL << p.col;
            out->max_len += maxlen;
        }
        i = (size_t)(close - s) + 2;
    }
    out->text = text.p ? text.p : calloc(1, 1);
    free(lit);
    return out->text ? 0 : -1;
oom:
    err_set(err, errlen, NULL, "out of memory");
fail:
    free(lit);
    free(text.p);
    free(out->parts);
    memset(out, 0, sizeof(*out));
    return -1;
}

void template_free(struct tpl *t)
{
    free(t->parts);
    free(t->text);
    memset(t, 0, sizeof(*t));
}

/* --- expanding --- */


/* The k-th turn of this process: of the whole run's, with --shard. */
static inline uint64_t tpl_turn(const struct tpl_set *set, uint64_t k)
{
    return set->stride > 1 ? k * set->stride + set->offset : k;
}

size_t template_expand(const struct tpl *t, struct tpl_set *set, struct tpl_ctx *ctx, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    uint32_t i;

    for (i = 0; i < t->nparts; i++) {
        const struct tpl_part *p = &t->parts[i];
        switch (p->kind) {
        case TPL_LIT:
            memcpy(out + o, t->text + p->off, p->len);
            o += p->len;
            break;
        case TPL_SEQ:
            if (ctx->seq == TPL_UNSET)
                ctx->seq = tpl_turn(set, atomic_fetch_add_explicit(&set->seq, 1, memory_order_relaxed));
            o += units_put_u64(out + o, ctx->seq);
            break;
        case TPL_CONN:
            o += units_put_u64(out + o, ctx->conn);
            break;
        case TPL_RAND: {
            uint64_t span = (uint64_t)p->b - (uint64_t)p->a + 1, r = template_rand(ctx->rng);
            /* v = a + offset, in two's complement: a negative a plus an
             * offset past INT64_MAX lands where it should, with no signed
             * overflow on the way. */
            uint64_t v = (uint64_t)p->a + (span ? r % span : r);
            if (v >> 63) {
                out[o++] = '-';
                o += units_put_u64(out + o, (uint64_t)0 - v);
            } else {
                o += units_put_u64(out + o, v);
            }
            break;
        }
        case TPL_UUID: {
            /* RFC 9562 §5.4: version 4, variant 10. */
            uint64_t hi = template_rand(ctx->rng), lo = template_rand(ctx->rng);
            unsigned char b[16];
            int k;
            for (k = 0; k < 8; k++) {
                b[k] = (unsigned char)(hi >> (8 * k));
                b[8 + k] = (unsigned char)(lo >> (8 * k));
            }
            b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
            b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
            for (k = 0; k < 16; k++) {
                if (k == 4 || k == 6 || k == 8 || k == 10)
                    out[o++] = '-';
                out[o++] = hex[b[k] >> 4];
                out[o++] = hex[b[k] & 15];
            }
            break;
        }
        case TPL_CSV: {
            struct tpl_csv *c = &set->csv[p->csv];
            uint64_t row;
            if (ctx->rows[p->csv] == TPL_UNSET)
                ctx->rows[p->csv] = tpl_turn(set, atomic_fetch_add_explicit(&c->next, 1, memory_order_relaxed));
            row = ctx->rows[p->csv] % c->nrows;
            memcpy(out + o, c->cells[row * c->ncols + p->col], c->lens[row * c->ncols + p->col]);
            o += c->lens[row * c->ncols + p->col];
            break;
        }
        case TPL_VAR: {
            /* Set before the request was taken (the caller skips one whose
             * variable is not); a value that cannot stand where it goes
             * (a CR in a header: a second request) is not written. */
            const struct tpl_vars *v = ctx->vars;
            const char *val;
            if (v == NULL || !(v->set >> p->col & 1)) {
                ctx->bad_var = p->col + 1;
                break;
            }
            val = v->val + (size_t)p->col * TPL_VAR_MAX;
            if (p->where != TPL_BODY && template_bad_byte(val, v->len[p->col], (enum tpl_where)p->where) != NULL) {
                ctx->bad_var = p->col + 1;
                break;
            }
            memcpy(out + o, val, v->len[p->col]);
            o += v->len[p->col];
            break;
        }
        default:
            break;
        }
    }
    return o;
}
