/* cli.c - the command lines: the option table (opt.c) over argv, the
 * operands, the help pages. */
#include "cli.h"
#include "opt.h"
#include "serve_config.h"
#include "err.h"
#include "targets.h"
#include "patterns.h"
#include "accesslog.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_sweep_usage(FILE *f)
{
    fputs("  finds the highest constant rate that meets the SLO: doubles the rate from\n"
          "  --start R (100) up to --max R until a step fails, then bisects; each step\n"
          "  has --warmup (1s) and -d (5s)\n",
          f);
}

void cli_usage(FILE *f)
{
    opt_help(f, OPT_RUN);
    fputs("\n"
          "Several URLs are used round-robin and reported one by one. Durations take\n"
          "ms, s, m, h; counts take k and M (-n 100k).\n"
          "\n"
          "Sweep: rafale sweep [options] --slo 'p99<50ms' URL   (rafale sweep --help)\n",
          f);
    cli_sweep_usage(f);
    fputs("\n"
          "Compare: rafale compare [--html F] [--json F] FILE   (rafale compare --help)\n"
          "Serve:   rafale serve --listen 127.0.0.1:8080 -t 2    (rafale serve --help)\n"
          "\n"
          "Examples:\n"
          "  rafale -c 50 -d 10s http://127.0.0.1:8080/          like wrk -c 50 -d 10s\n"
          "  rafale -n 10000 -c 20 --close http://127.0.0.1/     like ab -n 10000 -c 20\n"
          "\n"
          "Exit status: 0 after a run (whatever the server answered); 4 when the server could not be\n"
          "reached or answered nothing (the first connects all failed: one line says where and why;\n"
          "no answer in the run; -n gave up); 3 when an --slo goal failed; 130 interrupted; 1 the\n"
          "run could not start, or the server does not speak its protocol; 2 bad usage.\n",
          f);
}

static void serve_usage(void)
{
    fputs("Usage: rafale serve [options]\n", stdout);
    opt_help(stdout, OPT_SERVE);
    fputs("Routes: /  /redirect[?to=URL]  /bytes/N  /chunked/N  /delay/MS  /delay/exp/MS  /status/CODE  /close  /json  /random\n"
          "The first line on stdout is 'listening on ADDR:PORT'. SIGINT/SIGTERM stop it and\n"
          "print the connections and requests it served on stderr.\n",
          stdout);
}

static void compare_usage(void)
{
    fputs("Usage: rafale compare [options] FILE\n"
          "Runs the workloads of the compare file FILE against each of its servers, repetitions\n"
          "interleaved, and reports req/s, latency, statuses, connections, server CPU per request\n"
          "and memory side by side. See the README for the compare file's format; every run option\n"
          "(-c, -n, -d, -m, -H, --expect, --slo, ...) is a workload key there.\n"
          "Exit status: 0 when every server gave a valid result for every workload; 1 when a server\n"
          "failed or a result is not valid (the report and JSON are still written in full); 2 for a\n"
          "usage or compare file error; 3 when a workload's slo failed; 130 when interrupted.\n",
          stdout);
    opt_help(stdout, OPT_COMPARE);
}

static enum cli_result from_opt(enum opt_result r, void (*usage)(void))
{
    switch (r) {
    case OPT_HELP:
        if (usage == NULL)
            return CLI_HELP; /* the caller's, from the subcommands' table */
        usage();
        return CLI_EXIT;
    case OPT_VERSION:
        printf("rafale %s\n", RAFALE_VERSION);
        return CLI_EXIT;
    case OPT_ERROR:
        return CLI_ERROR;
    default:
        return CLI_OK;
    }
}

enum cli_result cli_parse(int argc, char **argv, int sweep, struct config *cfg, char *err, size_t errlen,
                          char *notes, size_t noteslen)
{
    struct opt_dst d = { cfg, NULL, NULL, NULL };
    enum cli_result r;
    int first, i;

    config_defaults(cfg);
    notes[0] = '\0';
    r = from_opt(opt_parse_argv(argc, argv, sweep ? OPT_SWEEP : OPT_RUN, &d, &first, err, errlen), NULL);
    if (r != CLI_OK)
        return r;

    if (first >= argc && cfg->targets_path == NULL) {
        err_set(err, errlen, NULL, "no URL given (try: rafale -c 10 -d 5s http://127.0.0.1:8080/)");
        return CLI_ERROR;
    }
    /* The targets file first, then the URLs (the run's -m, -H, -b apply to these). */
    if (cfg->targets_path && targets_load(cfg, cfg->targets_path, NULL, err, errlen) != 0)
        return CLI_ERROR;
    for (i = first; i < argc; i++)
        if (targets_add_url(cfg, argv[i], err, errlen) != 0)
            return CLI_ERROR;

    if (sweep) {
        cfg->sweep = 1;
        if (cfg->slo.n == 0) {
            err_set(err, errlen, NULL, "rafale sweep needs --slo, e.g. --slo 'p99<50ms,errors<0.1%%'");
            return CLI_ERROR;
        }
        if (cfg->rate > 0 || cfg->requests || cfg->nstages) {
            err_set(err, errlen, NULL,
                    "rafale sweep chooses the rates itself: drop -R, -n and --stages (use --start/--max, -d per step)");
            return CLI_ERROR;
        }
        if (cfg->sweep_start == 0)
            cfg->sweep_start = 100;
        if (cfg->sweep_max == 0)
            cfg->sweep_max = 1e7;
        if (cfg->sweep_max < cfg->sweep_start) {
            err_set(err, errlen, NULL, "--max is below --start");
            return CLI_ERROR;
        }
        if (cfg->duration_ns == 0)
            cfg->duration_ns = 5 * 1000000000ULL;
        if (cfg->warmup_ns == 0)
            cfg->warmup_ns = 1000000000ULL;
    }
    if (cfg->monitor_pid && cfg->monitor_cgroup) {
        err_set(err, errlen, NULL,
                "--monitor and --monitor-cgroup do not go together: the cgroup already holds every process");
        return CLI_ERROR;
    }
    return config_finish(cfg, err, errlen, notes, noteslen) == 0 ? CLI_OK : CLI_ERROR;
}

int cli_replay_setup(struct config *cfg, const char *url, char *err, size_t errlen)
{
    const struct replay_when *from = &cfg->replay_from, *to = &cfg->replay_to;
    const char *p = cfg->replay_methods;
    while (p && *p) {
        size_t n = strcspn(p, ","), i;
        for (i = 0; i < n && ((p[i] >= 'A' && p[i] <= 'Z') || p[i] == '-' || p[i] == '_'); i++)
            ;
        if (n == 0 || i < n || n >= ALOG_METHOD_MAX)
            return err_set(err, errlen, NULL, "--methods wants methods in capitals separated by commas "
                           "(GET,HEAD,POST), not '%s'", cfg->replay_methods);
        p += n + (p[n] == ',');
    }
    /* Two times of the log, or two offsets, can be told apart now; a time
     * and an offset only once the log's first request is read. */
    if (from->set && to->set && from->offset == to->offset && to->ns <= from->ns)
        return err_set(err, errlen, NULL, "--to is not after --from: the window holds nothing");
    if (cfg->replay_loop && cfg->duration_ns == 0 && cfg->replay_limit == 0)
        return err_set(err, errlen, NULL, "--loop replays the log again and again: give -d or --limit to end it");
    if ((cfg->replay_tally = config_own(cfg, calloc(1, sizeof(*cfg->replay_tally)))) == NULL)
        return err_set(err, errlen, NULL, "out of memory");
    if (patterns_load(cfg, url, err, errlen) != 0)
        return -1;
    if (cfg->threads == 0)
        cfg->threads = 1;
    /* Connections open as the log's concurrency needs them, up to -c
     * (all shards': shard_apply splits it); one a thread to begin with. */
    cfg->max_connections = cfg->connections_given ? cfg->connections : 1024;
    cfg->connections = cfg->threads * (cfg->shard_count ? cfg->shard_count : 1);
    if (cfg->max_connections < cfg->connections)
        cfg->max_connections = cfg->connections;
    return 0;
}

enum cli_result cli_parse_replay(int argc, char **argv, struct config *cfg, char *err, size_t errlen, char *notes,
                                  size_t noteslen)
{
    struct opt_dst d = { cfg, NULL, NULL, NULL };
    struct url u;
    enum cli_result r;
    int first;

    config_defaults(cfg);
    cfg->threads = 0; /* not given: one, which keeps up with 50 000 requests a second */
    r = from_opt(opt_parse_argv(argc, argv, OPT_REPLAY, &d, &first, err, errlen), NULL);
    if (r != CLI_OK)
        return r;
    if (argc - first != 2) {
        err_set(err, errlen, NULL, "rafale replay wants an access log and a URL "
                                   "(try: rafale replay access.log http://127.0.0.1:8080)");
        return CLI_ERROR;
    }
    if (url_parse(argv[first + 1], &u, err, errlen) != 0)
        return CLI_ERROR;
    if (strcmp(u.target, "/") != 0) {
        err_set(err, errlen, NULL, "rafale replay: the URL gives the scheme, host and port (%s://%s:%u); "
                "the paths are the log's, not '%s'", u.tls ? "https" : "http", u.host, u.port, u.target);
        url_free(&u);
        return CLI_ERROR;
    }
    url_free(&u);
    cfg->replay_path = argv[first];
    if (cli_replay_setup(cfg, argv[first + 1], err, errlen) != 0)
        return CLI_ERROR;
    return config_finish(cfg, err, errlen, notes, noteslen) == 0 ? CLI_OK : CLI_ERROR;
}

enum cli_result cli_parse_compare(int argc, char **argv, struct compare_args *a, char *err, size_t errlen)
{
    struct opt_dst d = { NULL, NULL, &a->set, NULL };
    enum cli_result r;
    int first;

    memset(a, 0, sizeof(*a));
    r = from_opt(opt_parse_argv(argc, argv, OPT_COMPARE, &d, &first, err, errlen), compare_usage);
    if (r != CLI_OK)
        return r;
    if (first != argc - 1) {
        err_set(err, errlen, NULL, "rafale compare wants one compare file (see rafale compare --help)");
        return CLI_ERROR;
    }
    a->file = argv[first];
    return CLI_OK;
}

enum cli_result cli_parse_serve(int argc, char **argv, struct serve_config *sc, char *err, size_t errlen)
{
    struct opt_dst d = { NULL, sc, NULL, NULL };
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    enum cli_result r;
    int first;

    memset(sc, 0, sizeof(*sc));
    sc->listen = "127.0.0.1:8080";
    sc->threads = ncpu > 0 ? (uint32_t)ncpu : 1;
    sc->redirect_to = "http://example.com";
    /* nginx's client_header_timeout and keepalive_timeout. */
    sc->header_timeout_ns = 60 * 1000000000ULL;
    sc->idle_timeout_ns = 75 * 1000000000ULL;
    sc->h2_streams = 128;
    r = from_opt(opt_parse_argv(argc, argv, OPT_SERVE, &d, &first, err, errlen), serve_usage);
    if (r != CLI_OK)
        return r;
    if (first < argc) {
        err_set(err, errlen, NULL, "unexpected argument '%s' for serve", argv[first]);
        return CLI_ERROR;
    }
    if (sc->tls_client_ca && sc->tls_cert == NULL) {
        err_set(err, errlen, NULL,
                "--tls-client-ca asks for client certificates over TLS: give --tls-cert and --tls-key too");
        return CLI_ERROR;
    }
    if ((sc->tls_cert == NULL) != (sc->tls_key == NULL)) {
        err_set(err, errlen, NULL, "--tls-cert and --tls-key go together");
        return CLI_ERROR;
    }
    if (sc->key_pass_set && sc->tls_key == NULL) {
        err_set(err, errlen, NULL, "--key-pass goes with --tls-key: it is the pass phrase of that key");
        return CLI_ERROR;
    }
    return CLI_OK;
}

enum cli_result cli_parse_args(int argc, char **argv, unsigned where, const char *synopsis, int operands,
                               struct result_args *a, int *first, char *err, size_t errlen)
{
    struct opt_dst d = { NULL, NULL, NULL, a };
    const char *word = operands ? "option" : "argument";
    enum opt_result r = opt_parse_argv(argc, argv, where, &d, first, err, errlen);

    if (r == OPT_ERROR && *first >= 0) {
        /* Said with the synopsis: these commands have few options. */
        const char *a = argv[*first], *near = strncmp(a, "--", 2) == 0 ? opt_nearest(a, where) : NULL;
        if (near)
            err_set(err, errlen, NULL, "unknown %s '%s': did you mean --%s? (rafale %s)", word, a, near, synopsis);
        else
            err_set(err, errlen, NULL, "unknown %s '%s' (rafale %s)", word, a, synopsis);
        return CLI_ERROR;
    }
    if (r == OPT_HELP)
        return CLI_HELP;
    if (r != OPT_OK)
        return CLI_ERROR;
    if (operands == 0 && *first < argc) {
        err_set(err, errlen, NULL, "unknown argument '%s' (rafale %s)", argv[*first], synopsis);
        return CLI_ERROR;
    }
    return CLI_OK;
}
