/* report_keys: the tables of the result JSON's plain objects. Their
 * invariants (keys unique and snake_case, every row's value inside its
 * struct, no two rows on the same bytes, ranges and formats set), every
 * key of every table read back into its place from an object of distinct
 * values, every required key refused when absent, and the writer's output
 * of the server's, its processes', its memory points', the calibration's
 * and the machine's tables read back to the values written. A row added
 * to a table is checked here with nothing more said. */
#include "report.h"
#include "report_keys.h"
#include "../t.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const struct report_keys *t;
    size_t size; /* its struct's */
} tables[] = {
    { &report_keys_client, sizeof(struct run_figures) },  { &report_keys_conns, sizeof(struct run_figures) },
    { &report_keys_tcp, sizeof(struct run_figures) },     { &report_keys_rate, sizeof(struct run_figures) },
    { &report_keys_aborted, sizeof(struct run_figures) }, { &report_keys_gave_up, sizeof(struct run_figures) },
    { &report_keys_second, sizeof(struct tl_second) },    { &report_keys_shard, sizeof(struct shard_info) },
    { &report_keys_shard_run, sizeof(struct shard_info) }, { &report_keys_env, sizeof(struct machine) },
    { &report_keys_ref, sizeof(struct machine_ref) },     { &report_keys_server, sizeof(struct monitor_result) },
    { &report_keys_proc, sizeof(struct monitor_proc) },   { &report_keys_point, sizeof(struct monitor_point) },
    { &report_keys_stage, sizeof(struct report_stage) },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static size_t struct_size(const struct report_keys *t)
{
    size_t i;
    for (i = 0; i < NTABLES; i++)
        if (tables[i].t == t)
            return tables[i].size;
    return 0;
}

/* The bytes a row's value takes (0 for a figure of its own). */
static size_t value_size(const struct report_key *k)
{
    switch ((enum report_key_type)k->type) {
    case RK_COUNT: case RK_LL: case RK_NUM: case RK_US: case RK_NS:
        return 8;
    case RK_U32: case RK_INT: case RK_BOOL: case RK_TRI: case RK_ENUM:
        return 4;
    case RK_STR:
        return k->size;
    case RK_OBJ:
        return struct_size(k->sub);
    case RK_FIG:
        break;
    }
    return 0;
}

static int snake(const char *s)
{
    size_t i;
    if (!s || !s[0] || s[0] == '_')
        return 0;
    for (i = 0; s[i]; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

static void invariants(void)
{
    size_t ti, i, j;
    for (ti = 0; ti < NTABLES; ti++) {
        const struct report_keys *t = tables[ti].t;
        const char *tn = t->name ? t->name : "(unnamed)";
        CHECKF(t->n > 0 && t->row != NULL, "%s: no rows", tn);
        CHECKF(t->name == NULL || snake(t->name), "%s", tn);
        for (i = 0; i < t->n; i++) {
            const struct report_key *k = &t->row[i];
            size_t sz = value_size(k);
            CHECKF(snake(k->key), "%s: key '%s'", tn, k->key ? k->key : "(null)");
            CHECKF(k->type <= RK_FIG, "%s.%s: type %u", tn, k->key, k->type);
            for (j = 0; j < i; j++)
                CHECKF(strcmp(k->key, t->row[j].key) != 0, "%s.%s twice", tn, k->key);
            if (k->type == RK_FIG)
                continue;
            CHECKF(sz > 0 && k->off + sz <= tables[ti].size, "%s.%s: bytes %zu+%zu of %zu", tn, k->key, k->off, sz,
                   tables[ti].size);
            /* No two rows write the same bytes. */
            for (j = 0; j < i; j++) {
                const struct report_key *o = &t->row[j];
                if (o->type != RK_FIG)
                    CHECKF(k->off >= o->off + value_size(o) || o->off >= k->off + sz, "%s.%s on %s's bytes", tn,
                           k->key, o->key);
            }
            if (k->type == RK_NUM)
                CHECKF(k->fmt && k->fmt[0] == '%' && k->lo <= k->dflt && k->dflt <= k->hi, "%s.%s: fmt, range",
                       tn, k->key);
            if (k->type == RK_U32 || k->type == RK_INT || k->type == RK_LL)
                CHECKF(k->lo <= k->hi, "%s.%s: range", tn, k->key);
            if (k->type == RK_STR)
                CHECKF(k->size > 1, "%s.%s: room", tn, k->key);
            if (k->type == RK_OBJ)
                CHECKF(k->sub && struct_size(k->sub) > 0, "%s.%s: table", tn, k->key);
            if (k->flags & RK_WHEN)
                CHECKF(k->when + sizeof(int) <= tables[ti].size &&
                           (k->when >= k->off + sz || k->off >= k->when + sizeof(int)),
                       "%s.%s: its flag", tn, k->key);
        }
    }
}

/* Row i's distinct value, in its range: v for numbers. */
static double row_value(const struct report_key *k, size_t i)
{
    double v = 2 + (double)i;
    if (k->type == RK_COUNT || k->type == RK_US)
        return v;
    return k->lo <= v && v <= k->hi ? v : k->lo;
}

/* Sets every row of t in base (a distinct value each), or, with o, in o
 * as JSON (base NULL). */
static void fill(const struct report_keys *t, void *base, json_t *o)
{
    char *b = base;
    size_t i;
    for (i = 0; i < t->n; i++) {
        const struct report_key *k = &t->row[i];
        void *v = b + k->off;
        double x = row_value(k, i);
        char s[32];
        snprintf(s, sizeof(s), "%s %zu", k->key, i);
        if ((k->flags & RK_WHEN) && !o)
            *(int *)(void *)(b + k->when) = 1;
        switch ((enum report_key_type)k->type) {
        case RK_COUNT:
            o ? json_object_set_new(o, k->key, json_integer((json_int_t)x)) : (void)(*(uint64_t *)v = (uint64_t)x);
            break;
        case RK_U32:
            o ? json_object_set_new(o, k->key, json_integer((json_int_t)x)) : (void)(*(uint32_t *)v = (uint32_t)x);
            break;
        case RK_INT:
            o ? json_object_set_new(o, k->key, json_integer((json_int_t)x)) : (void)(*(int *)v = (int)x);
            break;
        case RK_LL:
            o ? json_object_set_new(o, k->key, json_integer((json_int_t)x)) : (void)(*(long long *)v = (long long)x);
            break;
        case RK_NUM:
            o ? json_object_set_new(o, k->key, json_real(x)) : (void)(*(double *)v = x);
            break;
        case RK_US: /* x us */
            o ? json_object_set_new(o, k->key, json_real(x))
              : (void)(*(double *)v = k->unit == RK_IN_S ? x / 1e6 : k->unit == RK_IN_NS ? x * 1e3 : x);
            break;
        case RK_BOOL:
            o ? json_object_set_new(o, k->key, json_boolean(i % 2)) : (void)(*(int *)v = (int)(i % 2));
            break;
        case RK_TRI:
            o ? json_object_set_new(o, k->key, json_boolean(1)) : (void)(*(int *)v = 1);
            break;
        case RK_STR:
            s[k->size - 1 < sizeof(s) - 1 ? k->size - 1 : sizeof(s) - 1] = '\0';
            o ? json_object_set_new(o, k->key, json_string(s)) : (void)snprintf(v, k->size, "%s", s);
            break;
        case RK_NS: /* x s */
            o ? json_object_set_new(o, k->key, json_real(x)) : (void)(*(uint64_t *)v = (uint64_t)(x * 1e9));
            break;
        case RK_ENUM:
            o ? json_object_set_new(o, k->key, json_string(k->words[i % (size_t)k->nwords]))
              : (void)(*(int *)v = (int)(i % (size_t)k->nwords));
            break;
        case RK_OBJ:
            if (o) {
                json_t *sub = json_object();
                fill(k->sub, NULL, sub);
                json_object_set_new(o, k->key, sub);
            } else {
                fill(k->sub, v, NULL);
            }
            break;
        case RK_FIG: /* 1 is in range for each one read (a shard's elapsed_s must hold its requests) */
            if (o)
                json_object_set_new(o, k->key, json_real(1.0));
            break;
        }
    }
}

/* Rows of t that differ between a and b (numbers within the writer's
 * precision when approx), named in bad. */
static int differ(const struct report_keys *t, const void *a, const void *b, int approx, char *bad, size_t n)
{
    const char *x = a, *y = b;
    size_t i;
    int d = 0;
    for (i = 0; i < t->n; i++) {
        const struct report_key *k = &t->row[i];
        int same;
        if (k->type == RK_FIG)
            continue;
        if (k->type == RK_OBJ) {
            same = differ(k->sub, x + k->off, y + k->off, approx, bad, n) == 0;
        } else if (k->type == RK_NUM || k->type == RK_US) {
            double p = *(const double *)(const void *)(x + k->off), q = *(const double *)(const void *)(y + k->off);
            same = approx ? fabs(p - q) <= 1e-9 * fabs(p) : p == q;
        } else if (k->type == RK_STR) {
            same = strcmp(x + k->off, y + k->off) == 0;
        } else {
            same = memcmp(x + k->off, y + k->off, value_size(k)) == 0;
        }
        if (!same) {
            snprintf(bad, n, "%s", k->key);
            d++;
        }
    }
    return d;
}

static void read_back(void)
{
    size_t ti, i;
    for (ti = 0; ti < NTABLES; ti++) {
        const struct report_keys *t = tables[ti].t;
        size_t sz = tables[ti].size;
        char *want = calloc(1, sz), *got = calloc(1, sz), err[512] = "", bad[64] = "";
        json_t *o = json_object();
        struct jc c = { "t.json", err, sizeof(err), 0, "" };
        fill(t, want, NULL);
        fill(t, NULL, o);
        report_keys_read(&c, o, t, got);
        CHECKF(!c.failed, "%s: %s", t->name ? t->name : "(unnamed)", err);
        CHECKF(differ(t, want, got, 0, bad, sizeof(bad)) == 0, "%s.%s not read back", t->name ? t->name : "", bad);
        /* Each required key absent: refused, naming it. */
        for (i = 0; i < t->n; i++) {
            const struct report_key *k = &t->row[i];
            json_t *less;
            char key[64];
            if (!(k->flags & RK_REQ))
                continue;
            less = json_deep_copy(o);
            json_object_del(less, k->key);
            memset(&c, 0, sizeof(c));
            c.path = "t.json", c.err = err, c.errlen = sizeof(err);
            report_keys_read(&c, less, t, got);
            snprintf(key, sizeof(key), "t.json: %s: missing", k->key);
            CHECKF(c.failed && strcmp(err, key) == 0, "'%s'", err);
            json_decref(less);
        }
        json_decref(o);
        free(want);
        free(got);
    }
}

/* What the writer wrote for t's struct, read back by t. */
static void written_read_back(void)
{
    struct monitor_result m, mb;
    struct monitor_proc p[2], pb;
    struct monitor_point pt[1], ptb;
    struct machine_ref ref, refb;
    char *text = NULL, err[512] = "", bad[64] = "";
    size_t len;
    json_t *root, *e;
    FILE *f;
    struct jc c = { "w.json", err, sizeof(err), 0, "" };

    memset(&m, 0, sizeof(m));
    memset(p, 0, sizeof(p));
    memset(pt, 0, sizeof(pt));
    fill(&report_keys_server, &m, NULL);
    fill(&report_keys_proc, &p[1], NULL);
    fill(&report_keys_point, &pt[0], NULL);
    m.procs = p;
    m.nprocs = 2;
    m.series = pt;
    m.npoints = 1;
    f = open_memstream(&text, &len);
    report_json_server(f, &m, 1000);
    fclose(f);
    root = json_loads(text, 0, NULL);
    CHECKF(root != NULL, "%s", text);
    memset(&mb, 0, sizeof(mb));
    report_keys_read(&c, root, &report_keys_server, &mb);
    CHECKF(!c.failed && differ(&report_keys_server, &m, &mb, 1, bad, sizeof(bad)) == 0, "server.%s %s", bad, err);
    e = json_array_get(json_object_get(root, report_keys_proc.name), 1);
    memset(&pb, 0, sizeof(pb));
    report_keys_read(&c, e, &report_keys_proc, &pb);
    CHECKF(!c.failed && differ(&report_keys_proc, &p[1], &pb, 1, bad, sizeof(bad)) == 0, "tree.%s %s", bad, err);
    e = json_array_get(json_object_get(root, report_keys_point.name), 0);
    memset(&ptb, 0, sizeof(ptb));
    report_keys_read(&c, e, &report_keys_point, &ptb);
    CHECKF(!c.failed && differ(&report_keys_point, &pt[0], &ptb, 1, bad, sizeof(bad)) == 0, "point.%s", bad);
    /* A flag not set: its key not written, and read back as not set. */
    m.has_io = 0;
    free(text);
    f = open_memstream(&text, &len);
    report_json_server(f, &m, 1000);
    fclose(f);
    CHECK(strstr(text, "\"write_bytes\"") == NULL && strstr(text, "\"wchar_bytes\"") != NULL);
    json_decref(root);
    root = json_loads(text, 0, NULL);
    mb.has_io = 1;
    report_keys_read(&c, root, &report_keys_server, &mb);
    CHECK(!c.failed && mb.has_io == 0 && mb.write_bytes == 0 && mb.has_wchar == 1);
    json_decref(root);
    free(text);

    /* The calibration, and the machine within it. */
    memset(&ref, 0, sizeof(ref));
    fill(&report_keys_ref, &ref, NULL);
    ref.rps_ci[0] = 10.5, ref.rps_ci[1] = 12.5;
    ref.m.port_lo = 32768, ref.m.port_hi = 60999;
    f = open_memstream(&text, &len);
    report_json_ref(f, &ref);
    fclose(f);
    root = json_loads(text, 0, NULL);
    CHECKF(root != NULL, "%s", text);
    memset(&refb, 0, sizeof(refb));
    report_keys_read(&c, root, &report_keys_ref, &refb);
    CHECKF(!c.failed && differ(&report_keys_ref, &ref, &refb, 1, bad, sizeof(bad)) == 0, "calibration.%s %s", bad,
           err);
    /* Its figures of their own: the interval and the port range. */
    CHECK(refb.rps_ci[0] == 10.5 && refb.rps_ci[1] == 12.5 && refb.m.port_lo == 32768 && refb.m.port_hi == 60999);
    json_decref(root);
    free(text);
}

int main(void)
{
    T_RUN(invariants);
    T_RUN(read_back);
    T_RUN(written_read_back);
    T_END("test_report_keys");
}
