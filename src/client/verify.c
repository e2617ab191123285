/* verify.c - what a response is checked for, and what is taken from it:
 * the bytes kept of it (verify_keep; HTTP/1.1's as the parser tells its
 * field lines and body data apart, verify_span) are its head, then its
 * body; each check of its target is evaluated and counted, and each
 * extraction sets a variable of the connection's session. Only targets with
 * checks or extractions keep anything. */
#include "client.h"

#include <stdlib.h>
#include <string.h>

#define HEAD_KEEP ((size_t)64 << 10)

/* As much as a body of --max-body needs, and more: what is past --max-body
 * is not read but says the body is longer. */
static size_t keep_limit(const struct plan *pl)
{
    uint64_t mb = pl->cfg->max_body;
    return HEAD_KEEP + (size_t)(mb + mb / 2) + 4096;
}

void verify_keep(struct capture *cp, const struct plan *pl, const char *buf, size_t n)
{
    size_t limit = keep_limit(pl), k; /* (one more byte is kept free: a NUL after the body, view()) */
    cp->total += n;
    k = cp->len < limit ? limit - cp->len : 0;
    if (k > n)
        k = n;
    if (k < n)
        cp->over |= 1;
    if (k == 0)
        return;
    if (cp->len + k + 1 > cp->cap) {
        /* Grown to the largest response its connection has seen, once. */
        size_t cap = cp->cap ? cp->cap : 4096;
        char *p;
        while (cap < cp->len + k + 1)
            cap *= 2;
        if (cap > limit + 1)
            cap = limit + 1;
        if ((p = realloc(cp->p, cap)) == NULL) {
            cp->over |= 1;
            return;
        }
        cp->p = p;
        cp->cap = cap;
    }
    memcpy(cp->p + cp->len, buf, k);
    cp->len += k;
}


void verify_span(struct capture *cp, const struct plan *pl, enum hp_span kind, const char *at, size_t n)
{
    verify_keep(cp, pl, at, n);
    if (kind == HP_SPAN_HEAD) {
        cp->head_len = cp->len;
        if (cp->over)
            cp->over |= CAPTURE_HEAD_CUT;
    }
}

void verify_reset(struct capture *cp)
{
    cp->len = cp->head_len = 0;
    cp->total = 0;
    cp->over = 0;
}

/* The check's view of cp: its head lines, then its body. */
static void view(struct capture *cp, const struct plan *pl, struct check_response *r)
{
    uint64_t max = pl->cfg->max_body;
    r->max_body = max;
    if (cp == NULL || cp->len == 0 || cp->p == NULL) {
        r->head = r->body = "";
        return;
    }
    if (cp->over & CAPTURE_HEAD_CUT) {
        /* A head longer than what is kept: neither part is checked. */
        r->head = r->body = "";
        r->head_over = r->body_over = 1;
        r->size_unknown = 1;
        return; /* ("" is not written to) */
    }
    r->head = cp->p;
    r->head_len = cp->head_len;
    r->body = cp->p + cp->head_len;
    r->body_len = cp->len - cp->head_len;
    r->body_size = cp->total - cp->head_len;
    r->body_over = cp->over || r->body_len > max;
    if (r->body_len > max)
        r->body_len = (size_t)max;
    /* A regex reads up to a NUL: one after the body, in the byte kept free. */
    ((char *)r->body)[r->body_len] = '\0';
}

static int set_var(struct conn *c, uint32_t v, const char *val, size_t n)
{
    const struct tpl_set *ts = c->w->plan->tset;
    if (c->vars == NULL) {
        if ((c->vars = calloc(1, sizeof(*c->vars))) == NULL)
            return -1;
        if ((c->vars->val = malloc((size_t)ts->nvars * TPL_VAR_MAX)) == NULL) {
            free(c->vars);
            c->vars = NULL;
            return -1;
        }
    }
    memcpy(c->vars->val + (size_t)v * TPL_VAR_MAX, val, n);
    c->vars->len[v] = (uint16_t)n;
    c->vars->set |= 1ULL << v;
    return 0;
}

int verify_response(struct conn *c, struct slot *s, unsigned status, struct capture *cp, uint64_t now)
{
    const struct plan *pl = c->w->plan;
    const struct plan_target *pt = &pl->targets[s->target];
    struct check_response r;
    char seen[CHECK_SEEN_MAX + 64], val[CHECK_VALUE_MAX];
    uint32_t k;
    int all = 1;

    memset(&r, 0, sizeof(r));
    r.status = status;
    r.duration_ns = now - s->t_due;
    view(pt->capture ? cp : NULL, pl, &r);
    for (k = 0; k < pt->nchecks; k++) {
        int ok;
        seen[0] = '\0';
        ok = check_eval(&pl->checks[pt->check0 + k], &r, seen, sizeof(seen));
        record_check(c, s, pt->check0 + k, ok, seen, now);
        all &= ok;
    }
    if (pt->nchecks)
        record_checked(c->w, s, all);
    /* Extractions run in warm-up too: a session's state is not a figure.
     * One that finds nothing unsets its variable, so what needed the value
     * (a failed login's token) is skipped, not sent stale. */
    for (k = 0; k < pt->nextracts; k++) {
        uint32_t v = pl->extract_var[pt->extract0 + k];
        ssize_t n = check_extract(&pl->extracts[pt->extract0 + k], &r, val);
        if (n >= 0 && set_var(c, v, val, (size_t)n) == 0)
            continue;
        if (c->vars)
            c->vars->set &= ~(1ULL << v);
    }
    if (cp)
        verify_reset(cp);
    return all;
}
