/* replay.c - rafale replay's log: a thread of its own reads it line by line
 * (bounded memory, whatever its size), parses each line (accesslog.c),
 * sorts them in a window of a few seconds (a server logs a request as it
 * ends, so lines come a little out of order), spreads a second-stamped
 * log's seconds evenly, and hands the requests to the workers in batches,
 * request i to worker i % n, a little ahead of their due times. The
 * workers' send path only reads a batch: the parse costs it nothing. */
#include "client.h"
#include "accesslog.h"
#include "clock.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define READ_BUF (1024 * 1024)  /* a line longer than this is unparseable; a pipe's head fits in it */
#define AHEAD_NS (100 * NS_PER_MS) /* requests are in the workers' rings this far ahead of their due time */
#define WINDOW_NS (2 * NS_PER_S)   /* lines this far out of order are put back in order */

_Static_assert(READ_BUF >= REPLAY_HEAD_MAX, "a pipe's head is the reader's first bytes");

/* A line in the sorting window. */
struct replay_rec {
    int64_t t;
    uint64_t seq;
    uint32_t target, len;
    uint8_t method, head;
    char *path;
};

/* A --pattern REGEX=NAME: its regex, its target. */
struct replay_user {
    regex_t re;
    uint32_t target;
};

static void pause_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };
    nanosleep(&ts, NULL);
}

/* FNV-1a: the targets' names looked up per line. */
static uint32_t name_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static const char *target_name(const struct config *cfg, uint32_t i)
{
    return cfg->targets && cfg->targets[i].name ? cfg->targets[i].name : "";
}

static uint32_t target_of(const struct replay *rp, const char *pat, size_t n)
{
    uint32_t k = name_hash(pat, n) & (rp->nnames - 1);
    for (; rp->names[k]; k = (k + 1) & (rp->nnames - 1)) {
        const char *name = target_name(rp->cfg, rp->names[k] - 1);
        if (strlen(name) == n && memcmp(name, pat, n) == 0)
            return rp->names[k] - 1;
    }
    return rp->other;
}

/* --- to the workers --- */

/* The batch ring r fills (the one at its head, made empty when first
 * taken), waiting for the worker to give one back when all are its.
 * Returns NULL when the run is over. */
static struct replay_batch *filling(struct replay *rp, struct replay_ring *r)
{
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    struct replay_batch *b;
    if (r->held)
        return r->b[head % REPLAY_RING];
    while (head - atomic_load_explicit(&r->tail, memory_order_acquire) >= REPLAY_RING) {
        if (atomic_load(&rp->quit))
            return NULL;
        if (!atomic_load(&rp->primed))
            atomic_store(&rp->primed, 1); /* the rings are full: the run may begin */
        pause_ns(100 * 1000);
    }
    b = r->b[head % REPLAY_RING];
    b->n = b->used = 0;
    b->last = 0;
    r->held = 1;
    return b;
}

/* The batch filled goes to the worker. */
static void publish(struct replay_ring *r)
{
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
    r->held = 0;
}

/* Every ring's batch being filled goes to its worker; last: the log ended,
 * each ring's last batch (empty or not) says so. */
static void publish_all(struct replay *rp, int last)
{
    uint32_t i;
    for (i = 0; i < rp->nrings; i++) {
        struct replay_ring *r = &rp->rings[i];
        struct replay_batch *b;
        if (!last && (!r->held || r->b[atomic_load_explicit(&r->head, memory_order_relaxed) % REPLAY_RING]->n == 0))
            continue;
        if ((b = filling(rp, r)) == NULL)
            return;
        b->last = (uint8_t)last;
        publish(r);
    }
}

/* Waits until a request due at due is within AHEAD_NS of now, the
 * batches being filled handed on first. Returns -1 when the run is over. */
static int keep_pace(struct replay *rp, uint64_t due)
{
    for (;;) {
        uint64_t t0 = atomic_load(&rp->t0), now;
        if (atomic_load(&rp->quit))
            return -1;
        if (t0 == 0 && due <= AHEAD_NS)
            return 0; /* the first requests: in the rings before the run starts */
        if (t0 == 0) {
            publish_all(rp, 0);
            atomic_store(&rp->primed, 1);
            pause_ns(NS_PER_MS);
            continue;
        }
        now = clock_ns();
        if (t0 + due <= now + AHEAD_NS)
            return 0;
        publish_all(rp, 0);
        pause_ns(t0 + due - now - AHEAD_NS < 20 * NS_PER_MS ? t0 + due - now - AHEAD_NS : 20 * NS_PER_MS);
    }
}

/* A request, in the log's order, to its worker (or dropped, before
 * --from); with --shard i/n, the window's requests i, i + n, ... only, at
 * their times. Returns -1 when the run is over or --limit is reached, 1
 * past --to. */
static int emit(struct replay *rp, const struct replay_rec *rec, int64_t t)
{
    struct replay_tally *ty = rp->tally;
    struct replay_ring *r = &rp->rings[ty->replayed % rp->nrings];
    struct replay_batch *b;
    struct replay_entry *e;
    uint64_t due, k;
    int last;
    if (!rp->have_base) {
        /* The window, once the log's first request says when it begins. */
        const struct replay_when *from = &rp->cfg->replay_from, *to = &rp->cfg->replay_to;
        rp->have_base = 1;
        rp->from_t = !from->set ? INT64_MIN : from->offset ? t + from->ns : from->ns;
        rp->to_t = !to->set ? INT64_MAX : to->offset ? t + to->ns : to->ns;
        rp->base_t = from->set ? rp->from_t : t; /* every shard's start */
    }
    if (t < rp->from_t) {
        ty->before += ty->passes <= 1; /* read, dropped: not waited for */
        return 0;
    }
    if (t >= rp->to_t)
        return 1; /* the window's end: this pass is over */
    if (rp->pass_n++ == 0)
        rp->pass_first = t;
    rp->pass_last = t;
    k = rp->nth++;
    last = k + 1 == rp->cfg->replay_limit; /* --limit counts the log's requests, whatever the shard */
    if (rp->cfg->shard_count && k % rp->cfg->shard_count != rp->cfg->shard_index)
        return last ? -1 : 0; /* another shard's */
    due = schedule_ns((double)(t - rp->base_t + rp->loop_add) / rp->speed);
    if (keep_pace(rp, due) != 0 || (b = filling(rp, r)) == NULL)
        return -1;
    if (b->n == REPLAY_BATCH || REPLAY_BYTES - b->used < rec->len) {
        publish(r);
        if ((b = filling(rp, r)) == NULL)
            return -1;
    }
    e = &b->e[b->n++];
    e->due = due;
    e->target = rec->target;
    e->method = rec->method;
    e->head = rec->head;
    e->off = b->used;
    e->len = rec->len;
    memcpy(b->bytes + b->used, rec->path, rec->len);
    b->used += rec->len;
    ty->span_s = (double)(t - rp->base_t + rp->loop_add) / 1e9;
    ty->replayed++;
    return last ? -1 : 0;
}

static int rec_cmp(const void *a, const void *b)
{
    const struct replay_rec *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The window sorted, and what the log is past by WINDOW_NS handed on (all
 * of it at the end). A second-stamped log's second goes whole, its
 * requests spread evenly over it. Returns -1 when the reader stops, 1 past
 * --to. */
static int flush(struct replay *rp, int final)
{
    int64_t cut;
    size_t i = 0, k;
    int rc = 0;
    qsort(rp->pend, rp->npend, sizeof(*rp->pend), rec_cmp);
    cut = final ? INT64_MAX : rp->max_t - (int64_t)WINDOW_NS;
    if (rp->whole && !final)
        cut -= cut % (int64_t)NS_PER_S;
    while (i < rp->npend && rp->pend[i].t < cut && rc == 0) {
        size_t j = i;
        while (j < rp->npend && rp->pend[j].t == rp->pend[i].t)
            j++;
        for (k = i; k < j && rc == 0; k++) {
            /* A second's k-th of n at k/n of it; a stamp finer than that as it is. */
            int64_t t = rp->whole ? rp->pend[k].t + (int64_t)((double)(k - i) * 1e9 / (double)(j - i)) : rp->pend[k].t;
            if (t < rp->last_t)
                t = rp->last_t;
            rp->last_t = t;
            rc = emit(rp, &rp->pend[k], t);
        }
        i = j;
    }
    for (k = 0; k < i; k++)
        free(rp->pend[k].path);
    if (rc != 0) {
        for (; k < rp->npend; k++)
            free(rp->pend[k].path);
        rp->npend = 0;
        return rc;
    }
    memmove(rp->pend, rp->pend + i, (rp->npend - i) * sizeof(*rp->pend));
    rp->npend -= i;
    /* Sorted again once it has doubled: O(log n) a line. */
    rp->emit_at = rp->npend * 2 > 4096 ? rp->npend * 2 : 4096;
    return 0;
}

/* --- from the file --- */

static void first_at(uint64_t *count, uint64_t *line, uint64_t at)
{
    if ((*count)++ == 0)
        *line = at;
}

/* Is m replayed (--methods)? Its index, or -1. */
static int method_of(const struct replay *rp, const char *m)
{
    uint32_t i;
    for (i = 0; i < rp->nmethods; i++)
        if (strcmp(rp->methods[i], m) == 0)
            return (int)i;
    return -1;
}

static void skip_method(struct replay_tally *ty, const char *m)
{
    uint32_t i;
    for (i = 0; i < ty->nskip && strcmp(ty->skip_method[i], m) != 0; i++)
        ;
    if (i == ty->nskip && ty->nskip < REPLAY_SKIP_METHODS)
        snprintf(ty->skip_method[ty->nskip++], sizeof(ty->skip_method[0]), "%s", m);
    if (i < ty->nskip)
        ty->skip_count[i]++;
    else
        ty->skip_other++;
}

/* The target of the first --pattern matching target's path, or UINT32_MAX. */
static uint32_t user_target(const struct replay *rp, const char *target, size_t n)
{
    static __thread char path[ALOG_TARGET_MAX + 1];
    uint32_t i;
    if (rp->nuser == 0)
        return UINT32_MAX;
    accesslog_path(target, n, path);
    for (i = 0; i < rp->nuser; i++)
        if (regexec(&rp->user[i].re, path, 0, NULL, 0) == 0)
            return rp->user[i].target;
    return UINT32_MAX;
}

/* One line (lineno, 1-based) into the window. Returns -1 when the reader
 * stops, 1 past --to. */
static int take_line(struct replay *rp, const char *line, size_t n, uint64_t lineno)
{
    static __thread char target[ALOG_TARGET_MAX];
    char pat[256];
    struct alog_req r;
    struct replay_tally *ty = rp->tally;
    struct replay_rec *rec;
    int rc, m;
    size_t plen;

    if (rp->format == ALOG_AUTO) {
        size_t k = 0;
        while (k < n && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r'))
            k++;
        if (k == n)
            return 0;
        rp->format = accesslog_detect(line, n);
        snprintf(rp->tally->format, sizeof(rp->tally->format), "%s", accesslog_format_name((enum alog_format)rp->format));
    }
    rc = accesslog_parse((enum alog_format)rp->format, line, n, &r, target);
    if (rc == ALOG_BLANK)
        return 0;
    ty->lines++;
    if (rc == ALOG_CONTROL) {
        first_at(&ty->control, &ty->control_line, lineno);
        return 0;
    }
    if (rc == ALOG_LONG) {
        first_at(&ty->too_long, &ty->long_line, lineno);
        return 0;
    }
    if (rc != ALOG_OK) {
        first_at(&ty->bad, &ty->bad_line, lineno);
        return 0;
    }
    if ((m = method_of(rp, r.method)) < 0) {
        skip_method(ty, r.method);
        return 0;
    }
    if (rp->seq == 0)
        rp->whole = r.whole_second;
    if (rp->npend == rp->pend_cap) {
        size_t cap = rp->pend_cap ? 2 * rp->pend_cap : 4096;
        struct replay_rec *p = realloc(rp->pend, cap * sizeof(*p));
        if (p == NULL)
            return -1;
        rp->pend = p;
        rp->pend_cap = cap;
    }
    if (rp->have_base && r.t_ns < rp->last_t)
        ty->late++; /* before what was sent already: it goes at once */
    rec = &rp->pend[rp->npend];
    if ((rec->path = malloc(r.target_len)) == NULL)
        return -1;
    memcpy(rec->path, target, r.target_len);
    rec->len = (uint32_t)r.target_len;
    rec->t = r.t_ns;
    rec->seq = rp->seq++;
    rec->method = (uint8_t)m;
    rec->head = strcmp(r.method, "HEAD") == 0;
    rec->target = user_target(rp, target, r.target_len);
    if (rec->target == UINT32_MAX) {
        plen = accesslog_pattern(target, r.target_len, pat, sizeof(pat));
        rec->target = target_of(rp, pat, plen);
    }
    rp->npend++;
    if (r.t_ns > rp->max_t)
        rp->max_t = r.t_ns;
    return rp->npend >= rp->emit_at ? flush(rp, 0) : 0;
}

/* The log read once, from where the file is, to its end (or --to).
 * Returns 0 at its end, 1 past --to, -1 when the reader stops. */
static int read_pass(struct replay *rp)
{
    uint64_t lineno = 0;
    int skipping = 0, rc = 0;

    rp->tally->passes++;
    while (rc == 0 && !atomic_load(&rp->quit)) {
        char *nl;
        ssize_t k;
        if (rp->boff < rp->blen && (nl = memchr(rp->buf + rp->boff, '\n', rp->blen - rp->boff)) != NULL) {
            size_t n = (size_t)(nl - (rp->buf + rp->boff));
            lineno++;
            if (skipping) /* the end of a line longer than the buffer */
                skipping = 0;
            else
                rc = take_line(rp, rp->buf + rp->boff, n, lineno);
            rp->boff += n + 1;
            continue;
        }
        if (rp->eof) {
            if (rp->boff < rp->blen && !skipping) /* a last line without its newline */
                rc = take_line(rp, rp->buf + rp->boff, rp->blen - rp->boff, ++lineno);
            break;
        }
        /* What is left of the buffer to its front, more read behind it. */
        memmove(rp->buf, rp->buf + rp->boff, rp->blen - rp->boff);
        rp->blen -= rp->boff;
        rp->boff = 0;
        if (rp->blen == READ_BUF) {
            /* A line longer than the buffer: unparseable, skipped to its end. */
            if (!skipping)
                first_at(&rp->tally->bad, &rp->tally->bad_line, lineno + 1);
            rp->tally->lines += !skipping;
            skipping = 1;
            rp->blen = 0;
        }
        k = read(rp->fd, rp->buf + rp->blen, READ_BUF - rp->blen);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            rp->tally->read_error = errno;
            return -1;
        }
        if (k == 0)
            rp->eof = 1;
        rp->blen += (size_t)k;
    }
    if (rc == 0 && atomic_load(&rp->quit))
        return -1;
    return rc == 0 ? flush(rp, 1) : rc;
}

/* --loop: the next pass from the file's start, its times after this
 * one's: its span (from the replay's start) and the mean gap between its
 * requests (a second for a pass of one). Returns 0, or -1 when there is
 * no next pass (the pass held nothing, or the file cannot be read again). */
static int again(struct replay *rp)
{
    int64_t gap = rp->pass_n > 1 ? (rp->pass_last - rp->pass_first) / (int64_t)(rp->pass_n - 1) : (int64_t)NS_PER_S;
    int64_t period = rp->pass_last - rp->base_t + gap;
    if (rp->pass_n == 0)
        return -1;
    if (lseek(rp->fd, 0, SEEK_SET) != 0) {
        rp->tally->read_error = errno;
        return -1;
    }
    rp->loop_add += period > (int64_t)NS_PER_MS ? period : (int64_t)NS_PER_MS;
    rp->pass_n = 0;
    rp->blen = rp->boff = 0;
    rp->eof = 0;
    rp->max_t = rp->last_t = INT64_MIN;
    rp->emit_at = 4096;
    return 0;
}

static void *reader_main(void *arg)
{
    struct replay *rp = arg;
    while (read_pass(rp) >= 0 && rp->cfg->replay_loop && !atomic_load(&rp->quit) && again(rp) == 0)
        ;
    publish_all(rp, 1);
    atomic_store(&rp->primed, 1);
    return NULL;
}

/* --- the run's side --- */

static int set_methods(struct replay *rp, const char *list, char *err, size_t errlen)
{
    const char *p = list && list[0] ? list : ALOG_METHODS_DEFAULT;
    while (*p) {
        size_t n = strcspn(p, ","), i;
        if (n == 0 || n >= sizeof(rp->methods[0]))
            return err_set(err, errlen, NULL, "--methods wants methods separated by commas (GET,HEAD), not '%s'", list);
        if (rp->nmethods == REPLAY_METHODS)
            return err_set(err, errlen, NULL, "--methods: at most %d methods", REPLAY_METHODS);
        for (i = 0; i < n; i++)
            if (!(p[i] >= 'A' && p[i] <= 'Z') && !(p[i] >= 'a' && p[i] <= 'z') && p[i] != '-' && p[i] != '_')
                return err_set(err, errlen, NULL, "--methods: '%.*s' is not a method", (int)n, p);
        memcpy(rp->methods[rp->nmethods], p, n);
        rp->methods[rp->nmethods][n] = '\0';
        rp->method_len[rp->nmethods++] = n;
        p += n + (p[n] == ',');
    }
    return 0;
}

/* The --pattern regexes, each with its target (its NAME's). */
static int compile_users(struct replay *rp, char *err, size_t errlen)
{
    const struct config *cfg = rp->cfg;
    if (cfg->nreplay_patterns == 0)
        return 0;
    if ((rp->user = calloc(cfg->nreplay_patterns, sizeof(*rp->user))) == NULL)
        return err_set(err, errlen, NULL, "out of memory");
    for (; rp->nuser < cfg->nreplay_patterns; rp->nuser++) {
        struct replay_user *u = &rp->user[rp->nuser];
        char name[256], why[300];
        if (accesslog_user_pattern(cfg->replay_patterns[rp->nuser], &u->re, name, sizeof(name), why, sizeof(why)))
            return err_set(err, errlen, NULL, "--pattern '%s': %s", cfg->replay_patterns[rp->nuser], why);
        u->target = target_of(rp, name, strlen(name));
    }
    return 0;
}

int replay_start(struct plan *pl, uint32_t nt, char *err, size_t errlen)
{
    const struct config *cfg = pl->cfg;
    struct replay *rp = calloc(1, sizeof(*rp));
    enum alog_format f = ALOG_AUTO;
    uint32_t i, k;

    if (rp == NULL)
        return err_set(err, errlen, NULL, "out of memory");
    pl->replay = rp;
    rp->fd = -1;
    rp->cfg = cfg;
    rp->tally = cfg->replay_tally;
    rp->speed = cfg->replay_speed > 0 ? cfg->replay_speed : 1;
    rp->emit_at = 4096;
    rp->max_t = INT64_MIN;
    rp->last_t = INT64_MIN;
    if (cfg->replay_format && accesslog_format_parse(cfg->replay_format, &f) != 0)
        return err_set(err, errlen, NULL, "--format wants auto, combined, common or json, not '%s'", cfg->replay_format);
    rp->format = f;
    if (f != ALOG_AUTO)
        snprintf(rp->tally->format, sizeof(rp->tally->format), "%s", accesslog_format_name(f));
    if (set_methods(rp, cfg->replay_methods, err, errlen) != 0)
        return -1;
    for (rp->nnames = 16; rp->nnames < 2 * cfg->ntargets; rp->nnames *= 2)
        ;
    rp->names = calloc(rp->nnames, sizeof(*rp->names));
    rp->rings = calloc(nt, sizeof(*rp->rings));
    rp->buf = malloc(READ_BUF);
    if (rp->names == NULL || rp->rings == NULL || rp->buf == NULL)
        return err_set(err, errlen, NULL, "out of memory");
    rp->nrings = nt;
    for (i = 0; i < nt; i++)
        for (k = 0; k < REPLAY_RING; k++)
            if ((rp->rings[i].b[k] = calloc(1, sizeof(struct replay_batch))) == NULL)
                return err_set(err, errlen, NULL, "out of memory");
    /* The targets are the patterns; the last one takes the others. */
    rp->other = cfg->ntargets - 1;
    for (i = 0; i < cfg->ntargets; i++) {
        const char *name = target_name(cfg, i);
        uint32_t h = name_hash(name, strlen(name)) & (rp->nnames - 1);
        while (rp->names[h])
            h = (h + 1) & (rp->nnames - 1);
        rp->names[h] = i + 1;
    }
    rp->other = target_of(rp, "other", 5); /* a --pattern named other is the last target no more */
    if (compile_users(rp, err, errlen) != 0)
        return -1;
    if (cfg->replay_head) {
        /* A pipe, read once: the reader goes on after what the patterns' scan read. */
        if (cfg->replay_head->fd < 0)
            return err_set(err, errlen, NULL, "%s: a pipe is read once, and it was", cfg->replay_path);
        rp->fd = cfg->replay_head->fd;
        cfg->replay_head->fd = -1;
        memcpy(rp->buf, cfg->replay_head->bytes, cfg->replay_head->len);
        rp->blen = cfg->replay_head->len;
    } else if ((rp->fd = open(cfg->replay_path, O_RDONLY | O_CLOEXEC)) < 0)
        return err_set(err, errlen, NULL, "%s: %s", cfg->replay_path, strerror(errno));
    posix_fadvise(rp->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (pthread_create(&rp->thread, NULL, reader_main, rp) != 0)
        return err_set(err, errlen, NULL, "cannot start the log's reader: %s", strerror(errno));
    rp->started = 1;
    return 0;
}

/* The requests replayed are those the workers scheduled, each sent or
 * counted due and unsent, and the log's span theirs: the reader hands
 * requests on up to AHEAD_NS before they are due, so a run that -d or
 * Ctrl-C ends holds some that never came due (a 500-ms -d run of 25 due
 * requests counted 30 to 32). */
static void settle(struct replay *rp, const struct worker *ws, uint32_t nt)
{
    uint64_t n = 0, last = 0;
    uint32_t i;
    for (i = 0; i < nt; i++) {
        n += ws[i].scheduled;
        if (ws[i].scheduled && ws[i].rp_due > last)
            last = ws[i].rp_due;
    }
    rp->tally->replayed = n;
    rp->tally->span_s = n ? (double)last * rp->speed / 1e9 : 0;
}

void replay_primed(const struct plan *pl, const atomic_int *stop)
{
    while (!atomic_load(&pl->replay->primed) && !atomic_load(stop))
        pause_ns(NS_PER_MS);
}

void replay_go(struct plan *pl, uint64_t t0)
{
    atomic_store(&pl->replay->t0, t0);
}

void replay_stop(struct plan *pl, const struct worker *ws, uint32_t nt)
{
    struct replay *rp = pl->replay;
    uint32_t i, k;
    if (rp == NULL)
        return;
    atomic_store(&rp->quit, 1);
    if (rp->started)
        pthread_join(rp->thread, NULL);
    if (ws)
        settle(rp, ws, nt);
    for (i = 0; i < rp->npend; i++)
        free(rp->pend[i].path);
    free(rp->pend);
    for (i = 0; rp->rings && i < rp->nrings; i++)
        for (k = 0; k < REPLAY_RING; k++)
            free(rp->rings[i].b[k]);
    free(rp->rings);
    free(rp->names);
    for (i = 0; i < rp->nuser; i++)
        regfree(&rp->user[i].re);
    free(rp->user);
    free(rp->buf);
    if (rp->fd >= 0)
        close(rp->fd);
    free(rp);
    pl->replay = NULL;
}

/* --- the worker's side: no lock, an atomic load a batch --- */

int replay_peek(struct worker *w, uint64_t *due)
{
    struct replay_ring *r = &w->plan->replay->rings[w->id];
    for (;;) {
        struct replay_batch *b;
        if (w->rp_sb == atomic_load_explicit(&r->head, memory_order_acquire))
            return 0;
        b = r->b[w->rp_sb % REPLAY_RING];
        if (w->rp_si < b->n) {
            *due = b->e[w->rp_si].due;
            return 1;
        }
        if (b->last)
            return -1;
        w->rp_sb++;
        w->rp_si = 0;
    }
}

void replay_pass(struct worker *w)
{
    w->rp_si++;
}

const struct replay_entry *replay_take(struct worker *w)
{
    struct replay_ring *r = &w->plan->replay->rings[w->id];
    struct replay_batch *b = r->b[w->rp_tb % REPLAY_RING];
    while (w->rp_ti >= b->n) {
        /* Every request of this batch was taken: it goes back. */
        w->rp_tb++;
        w->rp_ti = 0;
        atomic_store_explicit(&r->tail, w->rp_tb, memory_order_release);
        b = r->b[w->rp_tb % REPLAY_RING];
    }
    w->rp_cur = &b->e[w->rp_ti++];
    w->rp_path = b->bytes + w->rp_cur->off;
    return w->rp_cur;
}

size_t replay_request(const struct worker *w, const struct slot *s, char *buf)
{
    const struct replay *rp = w->plan->replay;
    const struct plan_target *pt = &w->plan->targets[s->target];
    const struct replay_entry *e = w->rp_cur;
    size_t ml = rp->method_len[e->method], o;
    memcpy(buf, rp->methods[e->method], ml);
    buf[ml] = ' ';
    memcpy(buf + ml + 1, w->rp_path, e->len);
    o = ml + 1 + e->len;
    if (w->plan->proto->fields)
        return o; /* :method and :path (replay_fields), the rest the target's fields */
    memcpy(buf + o, pt->req + pt->replay_rest, pt->len - pt->replay_rest);
    return o + pt->len - pt->replay_rest;
}
