/* cmd_run.c - `rafale [options] URL...`, `rafale sweep` and `rafale
 * replay`: the command line into a run (or a sweep of runs, or a log's
 * requests replayed), the run watched, its result written. */
#include "cmd.h"
#include "calibrate.h"
#include "cli.h"
#include "metrics.h"
#include "monitor.h"
#include "net.h"
#include "observed.h"
#include "outputs.h"
#include "progress.h"
#include "report.h"
#include "shard.h"
#include "stop.h"
#include "sweep.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --metrics-listen: the engine's progress goes to the metrics thread too. */
struct live_out {
    struct metrics *m;
    struct progress *prog;       /* NULL: --quiet */
    struct tui *tui;             /* --tui on a terminal, or NULL */
    struct monitor *mon;         /* the server's monitor while the engine runs, NULL without --monitor */
};

static void progress_and_metrics(const struct engine_progress *p, void *arg)
{
    struct live_out *o = arg;
    if (p->live && o->m) {
        struct monitor_live server;
        struct monitor *mon = o->mon;
        if (mon)
            monitor_live(mon, &server);
        metrics_publish(o->m, p->live, mon ? &server : NULL);
    }
    if (o->tui)
        tui_update(o->tui, p);
    else if (o->prog)
        progress_update(p, o->prog);
}

/* The command line of a run or a sweep into cfg (--help: the usage lines
 * of all, or the sweep's own help), the open-file limit raised for it, the
 * signals caught. Returns -1 to go on, or the exit status. */
enum mode { M_RUN, M_SWEEP, M_REPLAY };

static int prepare(const struct cmd *self, const struct cmd *all, int argc, char **argv, enum mode mode,
                   struct config *cfg)
{
    char err[512], notes[256];
    uint64_t limit;
    enum cli_result r = mode == M_REPLAY ? cli_parse_replay(argc, argv, cfg, err, sizeof(err), notes, sizeof(notes))
                                         : cli_parse(argc, argv, mode == M_SWEEP, cfg, err, sizeof(err), notes,
                                                     sizeof(notes));

    switch (r) {
    case CLI_HELP:
        if (mode == M_REPLAY) {
            cmd_help(stdout, self);
        } else if (mode == M_SWEEP) {
            cmd_help(stdout, self);
            fputc('\n', stdout);
            cli_sweep_usage(stdout);
            fputs("  Exit status: 0 when a rate met the SLO, 3 when none did, 4 when the server could not be\n"
                  "  reached (its first connects all failed: one line says where and why), 1 when the\n"
                  "  sweep could not start or the server does not speak its protocol, 2 bad usage, 130\n"
                  "  interrupted.\n",
                  stdout);
        } else {
            cmd_usage(stdout, all);
        }
        /* fall through */
    case CLI_EXIT:
        config_free(cfg);
        return 0;
    case CLI_ERROR:
        fprintf(stderr, "rafale%s: %s\n", mode == M_REPLAY ? " replay" : "", err);
        config_free(cfg);
        return 2;
    case CLI_OK:
        break;
    }
    /* The files the result goes to, before any load: not lost after it. */
    if (outputs_ready(cfg->out, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        config_free(cfg);
        return 2;
    }
    if (notes[0])
        fprintf(stderr, "rafale: %s\n", notes);

    /* Every connection is a descriptor, every thread its epoll's, the
     * metrics port its own: counted before the load, not found missing. */
    {
        uint32_t conns = cfg->max_connections > cfg->connections ? cfg->max_connections : cfg->connections;
        unsigned long long want = cmd_open_files(cfg);
        limit = net_raise_nofile(want);
        if (limit < want) {
            fprintf(stderr, "rafale: %u connections need %llu open files but the limit is %llu: raise it with 'ulimit -n %llu'\n",
                    conns, want, (unsigned long long)limit, want);
            config_free(cfg);
            return 2;
        }
    }
    stop_catch(1);
    return -1;
}

static void on_sweep_step(const struct sweep_step *s, void *arg)
{
    sweep_print_step(arg, s);
}

int cmd_sweep(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    struct config cfg;
    struct sweep_result sr;
    FILE *out;
    char err[512];
    int rc = prepare(self, all, argc, argv, M_SWEEP, &cfg);

    if (rc >= 0)
        return rc;
    out = outputs_text(cfg.out);
    sweep_print_header(out, &cfg);
    if (sweep_run(&cfg, stop_flag(), on_sweep_step, out, &sr, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        config_free(&cfg);
        return sr.unreached ? 4 : 1;
    }
    sweep_print_summary(out, &sr);
    rc = sr.interrupted ? 130 : sr.knee > 0 ? 0 : 3;
    if (cfg.out[OUT_JSON]) {
        FILE *f = outputs_open(cfg.out, OUT_JSON, "rafale");
        if (f == NULL || outputs_close(cfg.out, OUT_JSON, f, sweep_json(f, &cfg, &sr), "rafale") != 0)
            rc = 1;
    }
    config_free(&cfg);
    return rc;
}

/* --start-at more than a second ahead: when the load begins, said once,
 * even with -q: a run that waits minutes in silence looks hung, and this
 * is one line on stderr, not the report -q keeps to itself. */
static void say_wait(const struct config *cfg)
{
    double begin = cfg->start_at - (double)cfg->warmup_ns / 1e9, left = begin - shard_now();
    time_t at = (time_t)begin, now = time(NULL);
    struct tm t, today;
    char when[64];
    if (left <= 1 || localtime_r(&at, &t) == NULL || localtime_r(&now, &today) == NULL)
        return;
    strftime(when, sizeof(when),
             t.tm_year == today.tm_year && t.tm_yday == today.tm_yday ? "%H:%M:%S %Z" : "%Y-%m-%d %H:%M:%S %Z", &t);
    fprintf(stderr, "rafale: waiting until %s (in %.0f s) for --start-at%s\n", when, left,
            cfg->warmup_ns ? " (its warm-up begins then)" : "");
}

static void say_line(FILE *f, const char *line)
{
    fprintf(f, "rafale replay: %s\n", line);
}

/* What the log's reader skipped, and why, after the report: the first line
 * of each reason at FILE:LINE. */
static void say_replay(const struct config *cfg)
{
    if (cfg->replay_tally)
        report_replay_lines(cfg, say_line, stderr);
}

static int run_body(const struct cmd *self, const struct cmd *all, int argc, char **argv, enum mode mode)
{
    static struct run_result res; /* 20 KiB of findings: off the stack */
    struct config cfg, share;
    struct progress prog;
    struct tui tui;
    struct machine_ref ref = { 0 };
    struct live_out live = { NULL, NULL, NULL, NULL };
    struct observed_in in = { 0 };
    char err[512];
    int rc = prepare(self, all, argc, argv, mode, &cfg);

    if (rc >= 0)
        return rc;
    /* This shard's share, computed once: the live view counts against it,
     * the engine runs it. */
    if (shard_apply(&cfg, &share, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        config_free(&cfg);
        return 2;
    }
    if (cfg.calibrate &&
        calibrate_get(stop_flag(), cfg.quiet ? NULL : cmd_log_line, stderr, &ref, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: calibrate: %s\n", err);
        config_free(&cfg);
        return atomic_load(stop_flag()) ? 130 : 1;
    }
    progress_init(&prog, stderr, &share);
    if (cfg.start_at > 0)
        say_wait(&cfg);
    if (cfg.start_at > 0 && shard_now() > cfg.start_at + 1)
        fprintf(stderr, "rafale: warning: --start-at was %.1fs ago: this shard begins late (its report says by how much)\n",
                shard_now() - cfg.start_at);
    if (cfg.metrics_listen && metrics_start(&cfg, &live.m, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        config_free(&cfg);
        return 2;
    }
    if (live.m && metrics_picked(live.m)) /* port 0: said even with -q, the only way to know it */
        fprintf(stderr, "rafale: metrics at http://%s/metrics\n", metrics_picked(live.m));
    live.prog = cfg.quiet ? NULL : &prog;
    if (cfg.tui && !cfg.quiet && tui_start(&tui, stderr, &share) == 0) {
        /* Its keys and a closed terminal stop the run; a second Ctrl-C
         * does not kill it: the terminal is put back on every way out. */
        live.tui = &tui;
        stop_catch(0);
        stop_catch_hangup();
    } else if (cfg.tui) {
        live.prog = NULL; /* not a terminal: the report alone, no escape byte */
        cfg.tui = share.tui = 0;
    }
    in.cfg = &cfg;
    in.share = &share;
    in.stop = stop_flag();
    in.progress = cfg.metrics_listen || live.tui ? progress_and_metrics : live.prog ? progress_update : NULL;
    in.arg = cfg.metrics_listen || live.tui ? (void *)&live : &prog;
    in.monitor_pid = (int)cfg.monitor_pid;
    in.monitor_cgroup = cfg.monitor_cgroup;
    in.monitor_required = 1;
    in.server_log = NULL;
    in.findings = !cfg.no_findings;
    in.watching = &live.mon;
    rc = observed_run(&in, &res, err, sizeof(err));
    if (live.tui)
        tui_done(live.tui);
    progress_done(&prog);
    if (rc != 0) {
        metrics_stop(live.m, stop_flag());
        fprintf(stderr, "rafale: %s\n", err);
        say_replay(&cfg);
        config_free(&cfg);
        /* The plan is built before any load: a mistake in it (or in
         * --monitor) is the user's, exit 2; Ctrl-C before the load, 130; a
         * server not reached, 4. */
        return rc == ENGINE_EPLAN ? 2 : rc == ENGINE_ESTOPPED ? 130 : rc == ENGINE_EDOWN ? 4 : 1;
    }
    res.ref = ref;
    /* With --json - (or another output on '-') it owns stdout and the text
     * report goes to stderr. */
    rc = outputs_finish(&cfg, &res, live.m);
    say_replay(&cfg);
    metrics_stop(live.m, stop_flag());
    result_free(&res);
    config_free(&cfg);
    return rc;
}

int cmd_run(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    return run_body(self, all, argc, argv, M_RUN);
}

int cmd_replay(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    return run_body(self, all, argc, argv, M_REPLAY);
}
