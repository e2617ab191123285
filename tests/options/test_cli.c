/* The command lines: argv of a run, sweep, replay, serve, compare and the
 * subcommands on saved results parsed into their settings, the checks that
 * need the operands, and every mistake said in one line. */
#include "cli.h"
#include "patterns.h"
#include "serve_config.h"
#include "../t.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char err[600], notes[600];

/* argv of a command line given as one string (space-separated), argv[0]
 * first; kept until the next call. */
static int split(const char *line, char **argv)
{
    static char buf[1024];
    char *tok, *save = NULL;
    int argc = 0;
    snprintf(buf, sizeof(buf), "%s", line);
    for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
        argv[argc++] = tok;
    argv[argc] = NULL;
    return argc;
}

static enum cli_result run(const char *line, int sweep, struct config *cfg)
{
    char *argv[32];
    int argc = split(line, argv);
    err[0] = '\0';
    return cli_parse(argc, argv, sweep, cfg, err, sizeof(err), notes, sizeof(notes));
}

/* A mistake: CLI_ERROR and err, one line, holding want. */
static void refused(enum cli_result r, const char *line, const char *want)
{
    CHECKF(r == CLI_ERROR && strstr(err, want) != NULL && strchr(err, '\n') == NULL, "%s: got %d '%s', want '%s'", line,
           r, err, want);
}

/* A run's (or sweep's) command line refused with want; its config freed. */
static void run_refused(const char *line, int sweep, const char *want)
{
    struct config c;
    refused(run(line, sweep, &c), line, want);
    config_free(&c);
}

static void a_run(void)
{
    struct config c;
    CHECKF(run("rafale -c 10 -n 100 http://127.0.0.1:8080/a http://127.0.0.1:8080/b", 0, &c) == CLI_OK, "%s", err);
    CHECK(c.connections == 10 && c.requests == 100 && c.ntargets == 2 && c.sweep == 0);
    CHECK(strcmp(c.urls[0].target, "/a") == 0 && strcmp(c.urls[1].target, "/b") == 0 && c.urls[1].port == 8080);
    config_free(&c);
    /* -n below -c: fewer connections, said in the notes. */
    CHECKF(run("rafale -c 10 -n 3 http://127.0.0.1:8080/", 0, &c) == CLI_OK, "%s", err);
    CHECK(c.connections == 3 && strstr(notes, "using 3 connections") != NULL);
    config_free(&c);
    run_refused("rafale -c 10", 0, "no URL given (try: rafale -c 10 -d 5s http://127.0.0.1:8080/)");
    run_refused("rafale ftp://127.0.0.1/", 0, "ftp://127.0.0.1/");
    run_refused("rafale -c 0 http://127.0.0.1/", 0, "-c wants a number of connections");
    run_refused("rafale --monitor 1 --monitor-cgroup /sys/fs/cgroup http://127.0.0.1/", 0,
                "--monitor and --monitor-cgroup do not go together");
    CHECK(run("rafale --help", 0, &c) == CLI_HELP);
    config_free(&c);
}

static void a_sweep(void)
{
    struct config c;
    CHECKF(run("sweep --slo p99<50ms http://127.0.0.1:8080/", 1, &c) == CLI_OK, "%s", err);
    /* Its defaults: from 100 req/s up to 10M, 5 s steps after 1 s of warm-up. */
    CHECK(c.sweep == 1 && c.sweep_start == 100 && c.sweep_max == 1e7 && c.duration_ns == 5000000000ULL &&
          c.warmup_ns == 1000000000ULL && c.slo.n == 1);
    config_free(&c);
    CHECKF(run("sweep --slo p99<50ms --start 500 --max 800 -d 2s http://127.0.0.1:8080/", 1, &c) == CLI_OK, "%s", err);
    CHECK(c.sweep_start == 500 && c.sweep_max == 800 && c.duration_ns == 2000000000ULL);
    config_free(&c);
    run_refused("sweep http://127.0.0.1:8080/", 1, "rafale sweep needs --slo");
    run_refused("sweep --slo p99<50ms -n 100 http://127.0.0.1:8080/", 1,
                "rafale sweep chooses the rates itself: drop -R, -n and --stages");
    run_refused("sweep --slo p99<50ms -R 100 http://127.0.0.1:8080/", 1, "drop -R");
    run_refused("sweep --slo p99<50ms --start 500 --max 100 http://127.0.0.1:8080/", 1, "--max is below --start");
}

static enum cli_result replay(const char *line, struct config *cfg)
{
    char *argv[32];
    int argc = split(line, argv);
    err[0] = '\0';
    return cli_parse_replay(argc, argv, cfg, err, sizeof(err), notes, sizeof(notes));
}

/* A replay's command line (fmt with the log's path) refused with want. */
static void replay_refused(const char *fmt, const char *path, const char *want)
{
    struct config c;
    char line[256];
    snprintf(line, sizeof(line), fmt, path);
    refused(replay(line, &c), line, want);
    config_free(&c);
}

static void a_replay(void)
{
    struct config c;
    char path[64], line[256];
    FILE *f;
    int fd;
    snprintf(path, sizeof(path), "/tmp/rafale-test-cli-XXXXXX");
    CHECK((fd = mkstemp(path)) >= 0 && (f = fdopen(fd, "w")) != NULL);
    fputs("h - - [10/Oct/2000:13:55:36 +0000] \"GET /users/1 HTTP/1.1\" 200 1 \"-\" \"-\"\n"
          "h - - [10/Oct/2000:13:55:37 +0000] \"GET /users/2 HTTP/1.1\" 200 1 \"-\" \"-\"\n",
          f);
    fclose(f);
    snprintf(line, sizeof(line), "replay %s http://127.0.0.1:8080", path);
    CHECKF(replay(line, &c) == CLI_OK, "%s", err);
    /* One thread; connections opened as the log needs them, up to 1024. */
    CHECK(c.replay_path && strcmp(c.replay_path, path) == 0 && c.replay_tally != NULL);
    CHECK(c.threads == 1 && c.connections == 1 && c.max_connections == 1024);
    CHECK(c.ntargets == 2 && strcmp(c.targets[0].name, "/users/{id}") == 0 &&
          strcmp(c.targets[1].name, PATTERN_OTHER) == 0);
    config_free(&c);
    snprintf(line, sizeof(line), "replay -c 50 -t 2 --methods GET,POST %s http://127.0.0.1:8080/", path);
    CHECKF(replay(line, &c) == CLI_OK, "%s", err);
    CHECK(c.threads == 2 && c.connections == 2 && c.max_connections == 50 && strcmp(c.replay_methods, "GET,POST") == 0);
    config_free(&c);

    replay_refused("replay http://127.0.0.1:8080", "",
                   "rafale replay wants an access log and a URL (try: rafale replay access.log http://127.0.0.1:8080)");
    replay_refused("replay %s http://127.0.0.1:8080/api", path,
                   "rafale replay: the URL gives the scheme, host and port (http://127.0.0.1:8080); the paths are the "
                   "log's, not '/api'");
    replay_refused("replay --methods get %s http://127.0.0.1:8080", path,
                   "--methods wants methods in capitals separated by commas (GET,HEAD,POST), not 'get'");
    replay_refused("replay --methods GET,,POST %s http://127.0.0.1:8080", path, "not 'GET,,POST'");
    replay_refused("replay --methods ABCDEFGHIJKLMNOPQRSTUVWXYZ %s http://127.0.0.1:8080", path,
                   "--methods wants methods in capitals");
    unlink(path);
    replay_refused("replay %s http://127.0.0.1:8080", path, "No such file or directory");
}

static enum cli_result serve(const char *line, struct serve_config *sc)
{
    char *argv[32];
    int argc = split(line, argv);
    err[0] = '\0';
    return cli_parse_serve(argc, argv, sc, err, sizeof(err));
}

static void a_serve(void)
{
    struct serve_config sc;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    CHECKF(serve("serve", &sc) == CLI_OK, "%s", err);
    CHECK(strcmp(sc.listen, "127.0.0.1:8080") == 0 && sc.threads == (uint32_t)(ncpu > 0 ? ncpu : 1));
    CHECK(sc.header_timeout_ns == 60000000000ULL && sc.idle_timeout_ns == 75000000000ULL && sc.h2_streams == 128);
    CHECKF(serve("serve --listen 127.0.0.1:0 -t 3", &sc) == CLI_OK, "%s", err);
    CHECK(strcmp(sc.listen, "127.0.0.1:0") == 0 && sc.threads == 3);
    refused(serve("serve extra", &sc), "operand", "unexpected argument 'extra' for serve");
    refused(serve("serve --tls-cert c.pem", &sc), "cert alone", "--tls-cert and --tls-key go together");
    refused(serve("serve --tls-key k.pem", &sc), "key alone", "--tls-cert and --tls-key go together");
    refused(serve("serve --tls-client-ca ca.pem", &sc), "client ca",
            "--tls-client-ca asks for client certificates over TLS: give --tls-cert and --tls-key too");
}

static void a_compare(void)
{
    struct compare_args a;
    char *argv[32];
    int argc = split("compare --repeat 4 plan.ini", argv);
    CHECKF(cli_parse_compare(argc, argv, &a, err, sizeof(err)) == CLI_OK, "%s", err);
    CHECK(a.file && strcmp(a.file, "plan.ini") == 0 && a.set.repeat == 4);
    argc = split("compare", argv);
    refused(cli_parse_compare(argc, argv, &a, err, sizeof(err)), "no file",
            "rafale compare wants one compare file (see rafale compare --help)");
    argc = split("compare a.ini b.ini", argv);
    refused(cli_parse_compare(argc, argv, &a, err, sizeof(err)), "two files", "wants one compare file");
}

static void subcommands_on_saved_results(void)
{
    struct result_args a;
    char *argv[32];
    int argc, first;
    memset(&a, 0, sizeof(a));
    argc = split("diff --threshold 10% --json d.json base.json new.json", argv);
    CHECKF(cli_parse_args(argc, argv, OPT_DIFF, "diff BASE NEW", 2, &a, &first, err, sizeof(err)) == CLI_OK, "%s", err);
    CHECK(first == 5 && a.threshold == 0.1 && strcmp(a.out[OUT_JSON], "d.json") == 0);
    /* An unknown option, said with the synopsis and the nearest one. */
    memset(&a, 0, sizeof(a));
    argc = split("report --hmtl r.html x.json", argv);
    refused(
        cli_parse_args(argc, argv, OPT_REPORT, "report [--html F] RESULT.json...", -1, &a, &first, err, sizeof(err)),
        "near", "unknown option '--hmtl': did you mean --html? (rafale report [--html F] RESULT.json...)");
    argc = split("report --zzzzzz x.json", argv);
    refused(cli_parse_args(argc, argv, OPT_REPORT, "report", -1, &a, &first, err, sizeof(err)), "far",
            "unknown option '--zzzzzz' (rafale report)");
    /* A command without operands: a word is an unknown argument. */
    argc = split("calibrate now", argv);
    refused(cli_parse_args(argc, argv, OPT_CALIBRATE, "calibrate [--json F]", 0, &a, &first, err, sizeof(err)),
            "operand", "unknown argument 'now' (rafale calibrate [--json F])");
    argc = split("calibrate --help", argv);
    CHECK(cli_parse_args(argc, argv, OPT_CALIBRATE, "calibrate", 0, &a, &first, err, sizeof(err)) == CLI_HELP);
}

int main(void)
{
    T_RUN(a_run);
    T_RUN(a_sweep);
    T_RUN(a_replay);
    T_RUN(a_serve);
    T_RUN(a_compare);
    T_RUN(subcommands_on_saved_results);
    T_END("cli");
}
