/* show.c - -v: on stderr, the run's first exchange of each target (the
 * request as sent, the response's status, fields and the first KiB of its
 * body), then the first error of each kind and the first answer of each bad
 * status. It sends nothing of its own: what it shows is the run's. A
 * worker captures its answers only until every target has been shown (or
 * SHOW_TRIES answers later); afterwards an error or a bad status costs a
 * flag's test, on their own paths. Authorization and cookies are shown as
 * their length unless -vv. */
#include "client.h"
#include "status.h"

#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define SHOW_BODY 1024
/* The answers a worker captures at most while a target is still unseen
 * (one never asked for leaves the others' capture bounded). */
#define SHOW_TRIES 4096

struct show {
    pthread_mutex_t mu;         /* one exchange written whole before another */
    atomic_uint left;           /* targets not shown yet */
    atomic_uchar *target;       /* per target: shown */
    atomic_uchar status[STATUS_MAX]; /* per bad status: shown */
    _Atomic uint64_t kinds;     /* per error kind, a bit: shown */
};

int show_init(struct plan *pl)
{
    struct show *s;
    if (pl->cfg->verbose == 0)
        return 0;
    if ((s = calloc(1, sizeof(*s))) == NULL || (s->target = calloc(pl->ntargets, 1)) == NULL) {
        free(s);
        return -1;
    }
    pthread_mutex_init(&s->mu, NULL);
    atomic_store(&s->left, pl->ntargets);
    pl->show = s;
    return 0;
}

void show_free(struct plan *pl)
{
    if (pl->show == NULL)
        return;
    pthread_mutex_destroy(&pl->show->mu);
    free(pl->show->target);
    free(pl->show);
    pl->show = NULL;
}

/* A secret's value stays out unless -vv (RFC 9110 §11.6.2, RFC 6265 §4). */
static int secret(const char *name, size_t n)
{
    static const char *const names[] = { "authorization", "proxy-authorization", "cookie", "set-cookie" };
    size_t i;
    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strlen(names[i]) == n && strncasecmp(names[i], name, n) == 0)
            return 1;
    return 0;
}

/* Bytes as text: control bytes but tab as \xNN, so a body cannot move the
 * terminal's cursor. */
static void put_text(FILE *f, const char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
            fprintf(f, "\\x%02x", ch);
        else
            fputc(ch, f);
    }
}

/* One field line, its value masked when it is a secret. */
static void put_field(FILE *f, const char *mark, const char *name, size_t nlen, const char *value, size_t vlen,
                      int verbose)
{
    fputs(mark, f);
    put_text(f, name, nlen);
    fputs(": ", f);
    if (verbose < 2 && secret(name, nlen))
        fprintf(f, "<%zu bytes>", vlen);
    else
        put_text(f, value, vlen);
    fputc('\n', f);
}

/* "name: value\r\n" lines (an HTTP/1.1 head's, or a capture's). */
static void put_lines(FILE *f, const char *mark, const char *p, size_t n, int verbose)
{
    while (n > 0) {
        const char *eol = memchr(p, '\n', n), *colon;
        size_t len = eol ? (size_t)(eol - p) : n, l = len;
        if (l && p[l - 1] == '\r')
            l--;
        colon = memchr(p, ':', l);
        if (colon) {
            const char *v = colon + 1;
            while (v < p + l && (*v == ' ' || *v == '\t'))
                v++;
            put_field(f, mark, p, (size_t)(colon - p), v, (size_t)(p + l - v), verbose);
        } else {
            fputs(mark, f);
            put_text(f, p, l);
            fputc('\n', f);
        }
        if (eol == NULL)
            break;
        n -= len + 1;
        p += len + 1;
    }
}

/* A body's first SHOW_BODY bytes, line by line under mark; n of them
 * kept, total in all. */
static void put_body(FILE *f, const char *mark, const char *p, size_t n, uint64_t total)
{
    size_t shown = n < SHOW_BODY ? n : SHOW_BODY, i = 0;
    if (total == 0)
        return;
    while (i < shown) {
        const char *eol = memchr(p + i, '\n', shown - i);
        size_t len = eol ? (size_t)(eol - (p + i)) : shown - i;
        fputs(mark, f);
        put_text(f, p + i, len && p[i + len - 1] == '\r' ? len - 1 : len);
        fputc('\n', f);
        i += len + (eol != NULL);
    }
    if (total > shown)
        fprintf(f, "%s(%llu bytes in all, the first %zu shown)\n", mark, (unsigned long long)total, shown);
}

/* The request as it went: HTTP/1.1's bytes; HTTP/2's and HTTP/3's fields,
 * pseudo-fields first, and body. */
static void put_request(FILE *f, const struct plan *pl, const struct slot *s, int verbose)
{
    const struct plan_target *pt = &pl->targets[s->target];
    if (!pl->sess->multiplexed) {
        const char *p = s->req, *end = p ? memmem(p, s->req_len, "\r\n\r\n", 4) : NULL;
        const char *eol;
        size_t hl;
        if (end == NULL) {
            fprintf(f, "> (the request's bytes are not kept)\n");
            return;
        }
        hl = (size_t)(end - p) + 2;
        eol = memchr(p, '\n', hl);
        fputs("> ", f);
        put_text(f, p, (size_t)(eol - p) - 1); /* the request line */
        fputc('\n', f);
        put_lines(f, "> ", eol + 1, hl - (size_t)(eol + 1 - p), verbose);
        fputs(">\n", f);
        put_body(f, "> ", end + 4, s->req_len - (hl + 2), s->req_len - (hl + 2));
        return;
    }
    {
        const nghttp2_nv *nv = pt->h2nv;
        size_t k;
        for (k = 0; nv && k < pt->h2nnv; k++)
            put_field(f, "> ", (const char *)nv[k].name, nv[k].namelen, (const char *)nv[k].value, nv[k].valuelen,
                      verbose);
        fputs(">\n", f);
        if (pt->body_tpl && s->req) /* its expansion */
            put_body(f, "> ", s->req, s->req_len, s->req_len);
        else if (pt->has_body)
            put_body(f, "> ", pt->body, pt->body_len, pt->body_len);
    }
}

/* Writes what f gathered in one write(2): exchanges of several threads do
 * not interleave. */
static void flush_out(struct show *sh, char *buf, size_t n)
{
    size_t off = 0;
    pthread_mutex_lock(&sh->mu);
    while (off < n) {
        ssize_t w = write(STDERR_FILENO, buf + off, n - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    pthread_mutex_unlock(&sh->mu);
}

static void stop_showing(struct worker *w)
{
    const struct plan *pl = w->plan;
    uint32_t i;
    w->showing = 0;
    w->capturing = w->afters = 0;
    for (i = 0; i < pl->ntargets; i++) {
        w->capturing |= pl->targets[i].capture != 0;
        w->afters |= pl->targets[i].after != 0;
    }
}

void show_exchange(struct conn *c, const struct slot *s, unsigned status, int minor, struct capture *cp)
{
    struct worker *w = c->w;
    const struct plan *pl = w->plan;
    struct show *sh = pl->show;
    unsigned char no = 0;
    char *buf = NULL;
    size_t n = 0;
    FILE *f;

    if (atomic_compare_exchange_strong(&sh->target[s->target], &no, 1) &&
        (f = open_memstream(&buf, &n)) != NULL) {
        fprintf(f, "rafale: -v: the first exchange of %s (%s)\n", pl->cfg->url_text[s->target], pl->proto->label);
        put_request(f, pl, s, pl->cfg->verbose);
        if (pl->sess->multiplexed) {
            fprintf(f, "< :status: %u\n", status);
        } else {
            fprintf(f, "< HTTP/1.%d %u\n", minor, status);
        }
        if (cp && cp->len) {
            put_lines(f, "< ", cp->p, cp->head_len, pl->cfg->verbose);
            fputs("<\n", f);
            put_body(f, "< ", cp->p + cp->head_len, cp->len - cp->head_len, cp->total - cp->head_len);
        } else {
            fputs("<\n", f);
        }
        fputc('\n', f);
        fclose(f);
        flush_out(sh, buf, n);
        free(buf);
        atomic_fetch_sub(&sh->left, 1);
    }
    if (atomic_load(&sh->left) == 0 || ++w->show_seen >= SHOW_TRIES)
        stop_showing(w);
}

void show_status(struct worker *w, const struct slot *s, unsigned status)
{
    const struct plan *pl = w->plan;
    struct show *sh = pl->show;
    unsigned char no = 0;
    char line[600];
    int n;
    if (status >= STATUS_MAX || !atomic_compare_exchange_strong(&sh->status[status], &no, 1))
        return;
    n = snprintf(line, sizeof(line), "rafale: -v: the first %u (outside --expect %s) answered %s\n", status,
                 pl->cfg->expect.text, pl->cfg->url_text[s->target]);
    flush_out(sh, line, n > 0 && (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

void show_error(struct worker *w, const struct slot *s, enum err_kind k, const char *detail)
{
    const struct plan *pl = w->plan;
    struct show *sh = pl->show;
    uint64_t bit = 1ULL << k;
    char line[700];
    int n;
    if (atomic_fetch_or(&sh->kinds, bit) & bit)
        return;
    n = snprintf(line, sizeof(line), "rafale: -v: the first %s error, of %s: %s%s%s\n", stats_err_name(k),
                 pl->cfg->url_text[s->target], stats_err_explain(k, pl->proto), detail ? ": " : "",
                 detail ? detail : "");
    flush_out(sh, line, n > 0 && (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}
