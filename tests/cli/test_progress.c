/* The live view: on a terminal one line redrawn in place (cleared before
 * the report), elsewhere a plain line every 5 seconds; the rate now and on
 * average, -n's bar, the warm-up's countdown, a dash for a latency not
 * known yet. */
#include "progress.h"
#include "../t.h"

#include <stdlib.h>
#include <string.h>

static char *text;
static size_t len;

static struct engine_progress at(double s, uint64_t completed, uint64_t errors, double p50_ns)
{
    struct engine_progress e;
    memset(&e, 0, sizeof(e));
    e.elapsed_s = s;
    e.completed = completed;
    e.errors = errors;
    e.open = 10;
    e.p50_ns = p50_ns;
    e.p99_ns = p50_ns < 0 ? -1 : 4 * p50_ns;
    return e;
}

static void a_log_every_five_seconds(void)
{
    struct config cfg;
    struct progress p;
    struct engine_progress e;
    FILE *f = open_memstream(&text, &len);
    double s;
    config_defaults(&cfg);
    cfg.duration_ns = 30 * 1000000000ULL;
    progress_init(&p, f, &cfg);
    CHECK(!p.tty);
    /* A quarter of a second at a time, 1000 answers each. */
    for (s = 0.25; s <= 10.01; s += 0.25) {
        e = at(s, (uint64_t)(s * 4000), 3, 1500000);
        progress_update(&e, &p);
    }
    progress_done(&p);
    fclose(f);
    /* Two lines, at 5 s and 10 s; the rate now over the last quarter. */
    CHECKF(strcmp(text, "5s / 30s  4000 req/s now, 4000 avg  p50 1.50ms p99 6.00ms  errors 3  open 10\n"
                        "10s / 30s  4000 req/s now, 4000 avg  p50 1.50ms p99 6.00ms  errors 3  open 10\n") == 0,
           "%s", text);
    free(text);
}

/* A replay has no -d nor -n: the log's end ends it, and the line says the
 * time gone alone (it said "5s / 0s"). */
static void no_end_but_the_log(void)
{
    struct config cfg;
    struct progress p;
    struct engine_progress e;
    FILE *f = open_memstream(&text, &len);
    config_defaults(&cfg);
    progress_init(&p, f, &cfg);
    e = at(5, 20000, 0, 1500000);
    progress_update(&e, &p);
    progress_done(&p);
    fclose(f);
    CHECKF(strcmp(text, "5s  4000 req/s now, 4000 avg  p50 1.50ms p99 6.00ms  errors 0  open 10\n") == 0, "%s", text);
    free(text);
}

static void a_terminal_line_in_place(void)
{
    struct config cfg;
    struct progress p;
    struct engine_progress e;
    FILE *f = open_memstream(&text, &len);
    config_defaults(&cfg);
    cfg.requests = 1000;
    progress_init(&p, f, &cfg);
    p.tty = 1;
    /* Warm-up: its countdown, no latency known yet. */
    e = at(-1.5, 0, 0, -1);
    progress_update(&e, &p);
    CHECKF(strstr(text, "\r\033[Kwarm-up, 1.5s left  0 req/s now, 0 avg  p50 – p99 –  errors 0  open 10") == text, "%s",
           text);
    /* -n 1000: 250 ended of 1000, the bar a quarter full. */
    e = at(0.5, 240, 10, 900000);
    progress_update(&e, &p);
    progress_done(&p);
    fclose(f);
    CHECKF(strstr(text, "\r\033[K[#####...............]  25%  ") != NULL && strstr(text, "p50 900us p99 3.60ms") &&
               strstr(text, "errors 10  open 10\r\033[K") != NULL,
           "%s", text);
    /* Nothing after the last clearing: the report starts on a clean line. */
    CHECK(strcmp(text + len - 4, "\r\033[K") == 0);
    free(text);
}

static void nothing_drawn_nothing_cleared(void)
{
    struct config cfg;
    struct progress p;
    FILE *f = open_memstream(&text, &len);
    config_defaults(&cfg);
    progress_init(&p, f, &cfg);
    p.tty = 1;
    progress_done(&p);
    fclose(f);
    CHECK(len == 0);
    free(text);
}

int main(void)
{
    T_RUN(a_log_every_five_seconds);
    T_RUN(no_end_but_the_log);
    T_RUN(a_terminal_line_in_place);
    T_RUN(nothing_drawn_nothing_cleared);
    T_END("progress");
}
