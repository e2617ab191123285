/* tui.c - --tui: a full-screen live view on the terminal's alternate
 * screen, in plain ANSI (no library: a frame is a few dozen lines of text
 * redrawn in place four times a second, and the terminal is put back by
 * three escape sequences and one tcsetattr, which ncurses would hide but
 * not spare). It reads the figures the one-line view and the metrics port
 * read (engine_progress and its live figures), in the main thread: nothing
 * of the workers'. q stops the run as Ctrl-C does. */
#include "tui.h"
#include "report.h"
#include "stop.h"
#include "stats.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define ENTER "\033[?1049h\033[?25l"
#define LEAVE "\033[?25h\033[?1049l"

int tui_start(struct tui *t, FILE *f, const struct config *cfg)
{
    memset(t, 0, sizeof(*t));
    t->f = f;
    t->cfg = cfg;
    if (!isatty(fileno(f)))
        return -1;
    /* Keys one at a time, not echoed; Ctrl-C still a signal. */
    if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &t->saved) == 0) {
        struct termios raw = t->saved;
        raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
        raw.c_cc[VMIN] = 0;
        raw.c_cc[VTIME] = 0;
        if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0)
            t->keys = 1;
    }
    fputs(ENTER, f);
    fflush(f);
    t->on = 1;
    return 0;
}

void tui_done(struct tui *t)
{
    if (!t->on)
        return;
    fputs(LEAVE, t->f);
    fflush(t->f);
    if (t->keys)
        tcsetattr(STDIN_FILENO, TCSANOW, &t->saved);
    t->on = 0;
}

/* The run's length in seconds (-d, or the stages'), 0 when -n bounds it. */
static double length_s(const struct config *cfg)
{
    double s = (double)cfg->duration_ns / 1e9;
    uint32_t i;
    if (s == 0 && cfg->nstages)
        for (i = 0; i < cfg->nstages; i++)
            s += (double)cfg->stage_dur[i] / 1e9;
    return s;
}

static void progress_row(FILE *o, const struct tui *t, const struct engine_progress *e, int cols)
{
    const struct config *cfg = t->cfg;
    double frac, total = length_s(cfg);
    int i, w = cols - 40 < 10 ? 10 : cols - 40 > 60 ? 60 : cols - 40, fill;
    char left[64];
    if (e->elapsed_s < 0) {
        fprintf(o, "Warm-up    %.1fs left\033[K\n", -e->elapsed_s);
        return;
    }
    if (cfg->requests && (total == 0 || (double)(e->completed + e->errors) / (double)cfg->requests >
                                            e->elapsed_s / total)) {
        frac = (double)(e->completed + e->errors) / (double)cfg->requests;
        snprintf(left, sizeof(left), "%llu of %llu requests", (unsigned long long)(e->completed + e->errors),
                 (unsigned long long)cfg->requests);
    } else {
        frac = total > 0 ? e->elapsed_s / total : 0;
        snprintf(left, sizeof(left), "%.1fs of %.0fs, %.1fs left", e->elapsed_s, total,
                 total > e->elapsed_s ? total - e->elapsed_s : 0);
    }
    if (frac > 1)
        frac = 1;
    fill = (int)(frac * w);
    fputs("Progress   [", o);
    for (i = 0; i < w; i++)
        fputc(i < fill ? '#' : '.', o);
    fprintf(o, "] %3.0f%%  %s\033[K\n", 100 * frac, left);
}

/* The last seconds' req/s, one block character each. */
static void sparkline(FILE *o, const struct tui *t, int cols)
{
    static const char *const bars[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
    uint32_t n = t->nsec < TUI_SECONDS ? t->nsec : TUI_SECONDS, k, show = (uint32_t)(cols > 30 ? cols - 30 : 1);
    double most = 0;
    if (show > n)
        show = n;
    for (k = n - show; k < n; k++) {
        double v = t->rps[(t->nsec - n + k) % TUI_SECONDS];
        if (v > most)
            most = v;
    }
    fprintf(o, "           ");
    for (k = n - show; k < n; k++) {
        double v = t->rps[(t->nsec - n + k) % TUI_SECONDS];
        fputs(bars[most > 0 ? (int)lround(v / most * 8) : 0], o);
    }
    fprintf(o, "  (req/s, the last %us)\033[K\n", show);
}

static const char *ns_or_dash(char *b, size_t n, double ns)
{
    return ns < 0 ? "–" : units_fmt_ns(b, n, ns);
}

/* The frame: everything into a buffer, then written at once (no flicker). */
void tui_update(struct tui *t, const struct engine_progress *e)
{
    const struct engine_live *l = e->live;
    struct winsize ws;
    int cols = 80, rows = 24, i, k;
    char *buf = NULL, a[32], b[32], c[32], key[16];
    size_t n = 0, used = 0;
    double dt = e->elapsed_s - t->last_s, now = dt > 0 ? (double)(e->completed - t->last_done) / dt : 0;
    FILE *o;
    ssize_t got;

    if (!t->on)
        return;
    if (t->keys && (got = read(STDIN_FILENO, key, sizeof(key))) > 0)
        for (i = 0; i < got; i++)
            if (key[i] == 'q' || key[i] == 'Q')
                stop_now();
    if (ioctl(fileno(t->f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        cols = ws.ws_col;
        rows = ws.ws_row;
    }
    /* Each whole second gone: its requests, for the sparkline. */
    while (e->elapsed_s >= 0 && (double)(t->nsec + 1) <= e->elapsed_s) {
        t->rps[t->nsec % TUI_SECONDS] = (double)(e->completed - t->sec_done);
        t->sec_done = e->completed;
        t->nsec++;
    }
    t->last_s = e->elapsed_s;
    t->last_done = e->completed;
    if ((o = open_memstream(&buf, &n)) == NULL)
        return;
    fputs("\033[H", o);
    fprintf(o, "rafale --tui  %s%s  (q: stop)\033[K\n", t->cfg->url_text[0],
            t->cfg->ntargets > 1 ? " and others" : "");
    progress_row(o, t, e, cols);
    fprintf(o, "Requests   %llu completed, %llu errors, %u connections open\033[K\n",
            (unsigned long long)e->completed, (unsigned long long)e->errors, e->open);
    fprintf(o, "Req/s      %.0f now, %.0f average\033[K\n", now,
            e->elapsed_s > 0 ? (double)e->completed / e->elapsed_s : 0.0);
    sparkline(o, t, cols);
    fprintf(o, "Latency    last second: p50 %s  p90 %s  p99 %s\033[K\n", ns_or_dash(a, sizeof(a), e->p50_ns),
            ns_or_dash(b, sizeof(b), e->p90_ns), ns_or_dash(c, sizeof(c), e->p99_ns));
    if (l && l->latency.total) {
        fprintf(o, "           the run:     p50 %s  p90 %s  p99 %s\033[K\n",
                units_fmt_ns(a, sizeof(a), hist_percentile(&l->latency, 50)),
                units_fmt_ns(b, sizeof(b), hist_percentile(&l->latency, 90)),
                units_fmt_ns(c, sizeof(c), hist_percentile(&l->latency, 99)));
        report_hist_rows(o, &l->latency, rows > 30 ? 10 : 6, cols - 40 < 10 ? 10 : cols - 40 > 50 ? 50 : cols - 40,
                         "  ");
    } else {
        fprintf(o, "           the run:     p50 –  p90 –  p99 –\033[K\n");
    }
    if (l) {
        int any = 0;
        fputs("Status    ", o);
        for (k = 0; k < STATUS_MAX; k++)
            if (l->status[k]) {
                fprintf(o, "%s%d: %llu", any++ ? ", " : " ", k, (unsigned long long)l->status[k]);
            }
        fprintf(o, "%s\033[K\n", any ? "" : " none yet");
        any = 0;
        fputs("Errors    ", o);
        for (k = 0; k < ERR__COUNT; k++)
            if (l->errors[k])
                fprintf(o, "%s%s: %llu", any++ ? ", " : " ", stats_err_name((enum err_kind)k),
                        (unsigned long long)l->errors[k]);
        fprintf(o, "%s\033[K\n", any ? "" : " none");
        if (t->cfg->ntargets > 1) {
            int w = cols - 20 < 10 ? 10 : cols - 20 > 60 ? 60 : cols - 20;
            fputs("Targets   (answers and errors, as of the last second)\033[K\n", o);
            for (k = 0; k < (int)l->ntargets && k <= ENGINE_LIVE_FIGS; k++)
                fprintf(o, "  %-*.*s %llu\033[K\n", w, w, k < ENGINE_LIVE_FIGS ? t->cfg->url_text[k] : "(the others)",
                        (unsigned long long)l->targets[k]);
        }
    }
    fputs("\033[J", o);
    fclose(o);
    /* Not past the screen's last row: a frame that scrolled would leave its
     * top behind. */
    for (i = 0, k = 0; (size_t)k < n; k++)
        if (buf[k] == '\n' && ++i >= rows) {
            used = (size_t)k;
            break;
        }
    fwrite(buf, 1, used ? used : n, t->f);
    if (used)
        fputs("\033[J", t->f);
    fflush(t->f);
    free(buf);
}
