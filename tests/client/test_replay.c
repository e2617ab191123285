/* rafale replay's log (src/client/replay.c): its reader thread parses
 * each line, counts what it skips (a method not replayed, a line it cannot
 * read, by their first line), spreads a second-stamped log's second evenly
 * (over --speed), and hands the requests to the worker in order: their due
 * times, their methods and request-targets written before the target's own
 * fields; --limit stops it there. */
#include "fixture.h"

static char path[64];
static struct replay_tally tally;
static uint64_t limit;

static const char log_text[] =
    "127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] \"GET /a?x=1 HTTP/1.1\" 200 2326 \"-\" \"curl\"\n"
    "127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] \"HEAD /b HTTP/1.1\" 200 0 \"-\" \"curl\"\n"
    "127.0.0.1 - - [10/Oct/2023:13:55:36 +0000] \"POST /c HTTP/1.1\" 201 0 \"-\" \"curl\"\n"
    "not a line of an access log\n"
    "\n"
    "127.0.0.1 - - [10/Oct/2023:13:55:37 +0000] \"GET /d HTTP/1.1\" 404 0 \"-\" \"curl\"";

static void replayed(struct config *cfg)
{
    cfg->replay_path = path;
    cfg->replay_speed = 100;
    cfg->replay_limit = limit;
    cfg->replay_tally = &tally;
}

/* The log replayed to a worker of one connection: its reader started and
 * done reading (primed), the run's clock started. */
static void start(struct fix *f)
{
    FILE *fp;
    char err[256];
    atomic_int stop = 0;
    snprintf(path, sizeof(path), "/tmp/rafale_test_replay_%d.log", (int)getpid());
    fp = fopen(path, "w");
    CHECK(fp != NULL && fputs(log_text, fp) >= 0 && fclose(fp) == 0);
    memset(&tally, 0, sizeof(tally));
    fix_init(f, "/", &session_http1, 1, 0, replayed);
    CHECK(f->pl.templated && f->pl.targets[0].replay_rest > 0);
    CHECKF(replay_start(&f->pl, 1, err, sizeof(err)) == 0, "%s", err);
    replay_primed(&f->pl, &stop);
    replay_go(&f->pl, f->pl.t0);
}

static void stop(struct fix *f)
{
    replay_stop(&f->pl, NULL, 0);
    fix_free(f);
    unlink(path);
}

static void in_order(void)
{
    static const char *const want[] = { "GET /a?x=1 HTTP/1.1\r\nHost: 127.0.0.1:", "HEAD /b HTTP/1.1\r\nHost: ",
                                        "GET /d HTTP/1.1\r\nHost: " };
    /* 13:55:36 holds two requests: at 0 and half a second; 13:55:37's at
     * one second; over --speed 100. */
    static const uint64_t due[] = { 0, 5 * NS_PER_MS, 10 * NS_PER_MS };
    struct fix f;
    struct slot s;
    char buf[4096];
    uint64_t d;
    int k;
    limit = 0;
    start(&f);
    for (k = 0; k < 3; k++) {
        CHECKF(replay_peek(&f.w, &d) == 1 && d == due[k], "%d: %llu", k, (unsigned long long)d);
        replay_pass(&f.w);
    }
    CHECK(replay_peek(&f.w, &d) == -1);
    for (k = 0; k < 3; k++) {
        const struct replay_entry *e = replay_take(&f.w);
        size_t n;
        memset(&s, 0, sizeof(s));
        s.target = e->target;
        n = replay_request(&f.w, &s, buf);
        buf[n] = '\0';
        CHECKF(e->target == 0 && e->head == (k == 1) && strncmp(buf, want[k], strlen(want[k])) == 0 &&
               strcmp(buf + n - 4, "\r\n\r\n") == 0, "%s", buf);
    }
    /* What was read: six lines but the blank one; the POST and the line
     * that is none skipped, each counted with its first line. */
    CHECK(tally.lines == 5 && tally.replayed == 3 && tally.bad == 1 && tally.bad_line == 4);
    CHECK(tally.nskip == 1 && strcmp(tally.skip_method[0], "POST") == 0 && tally.skip_count[0] == 1);
    CHECK(tally.span_s == 1.0 && tally.late == 0 && tally.read_error == 0);
    stop(&f);
}

static void limited(void)
{
    struct fix f;
    uint64_t d;
    limit = 2;
    start(&f);
    CHECK(replay_peek(&f.w, &d) == 1 && d == 0);
    replay_pass(&f.w);
    CHECK(replay_peek(&f.w, &d) == 1 && d == 5 * NS_PER_MS);
    replay_pass(&f.w);
    CHECK(replay_peek(&f.w, &d) == -1);
    CHECK(tally.replayed == 2);
    stop(&f);
}

/* Stopped with its worker, the tally holds what came due: the worker
 * scheduled two of the three handed on (a -d run over before the third),
 * the second due at 5 ms, half a second of the log over --speed 100. */
static void came_due(void)
{
    struct fix f;
    uint64_t d;
    int k;
    limit = 0;
    start(&f);
    for (k = 0; k < 3; k++) {
        CHECK(replay_peek(&f.w, &d) == 1);
        replay_pass(&f.w);
    }
    CHECK(replay_peek(&f.w, &d) == -1 && tally.replayed == 3 && tally.span_s == 1.0);
    f.w.scheduled = 2;
    f.w.rp_due = 5 * NS_PER_MS;
    replay_stop(&f.pl, &f.w, 1);
    CHECKF(tally.replayed == 2 && tally.span_s == 0.5, "%llu %g", (unsigned long long)tally.replayed, tally.span_s);
    fix_free(&f);
    unlink(path);
}

int main(void)
{
    T_RUN(in_order);
    T_RUN(limited);
    T_RUN(came_due);
    T_END("test_replay");
}
