/* progress.c - the live view: on a terminal one line redrawn four times a
 * second; otherwise (CI logs) a plain line every 5 seconds. It only reads
 * counters the workers publish, so it does not disturb the measurement. */
#include "progress.h"
#include "units.h"

#include <string.h>
#include <unistd.h>

void progress_init(struct progress *p, FILE *f, const struct config *cfg)
{
    memset(p, 0, sizeof(*p));
    p->f = f;
    p->cfg = cfg;
    p->tty = isatty(fileno(f));
    p->last_print_s = 0; /* the first plain line after 5 s */
}

/* A latency of the live view, or an en dash while it is not known: a 0ns
 * before the first second closes reads as a measurement. */
static const char *latency(char *buf, size_t len, double ns)
{
    return ns < 0 ? "–" : units_fmt_ns(buf, len, ns);
}

void progress_update(const struct engine_progress *e, void *arg)
{
    struct progress *p = arg;
    const struct config *cfg = p->cfg;
    char where[64], p50[32], p99[32];
    double dt = e->elapsed_s - p->last_elapsed_s;
    double cur = dt > 0 ? (double)(e->completed - p->last_completed) / dt : 0;
    double avg = e->elapsed_s > 0 ? (double)e->completed / e->elapsed_s : 0;

    p->last_elapsed_s = e->elapsed_s;
    p->last_completed = e->completed;
    if (!p->tty && e->elapsed_s - p->last_print_s < 5)
        return;
    p->last_print_s = e->elapsed_s;

    if (e->elapsed_s < 0) {
        snprintf(where, sizeof(where), "warm-up, %.1fs left", -e->elapsed_s);
    } else if (cfg->requests) {
        double frac = (double)(e->completed + e->errors) / (double)cfg->requests;
        int i, w = 20, fill = (int)(frac * w);
        char bar[32];
        for (i = 0; i < w; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[w] = '\0';
        snprintf(where, sizeof(where), "[%s] %3.0f%%", bar, 100 * frac);
    } else {
        double total = (double)cfg->duration_ns / 1e9;
        if (total > 0)
            snprintf(where, sizeof(where), "%.0fs / %.0fs", e->elapsed_s, total);
        else /* a replay: the log's end ends it */
            snprintf(where, sizeof(where), "%.0fs", e->elapsed_s);
    }
    fprintf(p->f, "%s%s  %.0f req/s now, %.0f avg  p50 %s p99 %s  errors %llu  open %u%s",
            p->tty ? "\r\033[K" : "", where, cur, avg, latency(p50, sizeof(p50), e->p50_ns),
            latency(p99, sizeof(p99), e->p99_ns), (unsigned long long)e->errors, e->open, p->tty ? "" : "\n");
    fflush(p->f);
    p->drawn = 1;
}

void progress_done(struct progress *p)
{
    if (p->tty && p->drawn) {
        fputs("\r\033[K", p->f);
        fflush(p->f);
    }
}
