/* main.c - wires the command line to a run and its reports. The only place
 * that prints a fatal error or chooses an exit code. */
#include "cli.h"
#include "engine.h"
#include "net.h"
#include "report.h"
#include "serve.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* The one global: set by SIGINT/SIGTERM, polled by the worker threads. */
static atomic_int stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_flag, 1);
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    /* A second Ctrl-C kills at once, should a stop ever hang. */
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static int write_file(const char *path, const char *what, const struct config *cfg, const struct engine_result *r)
{
    FILE *f;
    int rc;
    if (strcmp(path, "-") == 0) {
        f = stdout;
    } else if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "rafale: cannot write %s to '%s': %s\n", what, path, strerror(errno));
        return -1;
    }
    rc = strcmp(what, "JSON") == 0 ? report_json(f, cfg, r) : report_csv(f, r);
    if (f != stdout)
        rc |= fclose(f);
    else
        fflush(f);
    if (rc != 0)
        fprintf(stderr, "rafale: writing %s to '%s' failed\n", what, path);
    return rc;
}

static int main_serve(int argc, char **argv)
{
    struct serve_config sc;
    struct serve *srv;
    struct serve_counts counts;
    char err[256];

    switch (cli_parse_serve(argc, argv, &sc, err, sizeof(err))) {
    case CLI_EXIT:
        return 0;
    case CLI_ERROR:
        fprintf(stderr, "rafale serve: %s\n", err);
        return 2;
    case CLI_OK:
        break;
    }
    net_raise_nofile(1 << 20);
    catch_signals();
    if (serve_start(&sc, &srv, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale serve: %s\n", err);
        return 1;
    }
    printf("listening on %s\n", serve_address(srv));
    fflush(stdout);
    if (serve_wait(srv, &stop_flag, &counts, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale serve: %s\n", err);
        return 1;
    }
    fprintf(stderr, "rafale serve: %llu connections accepted, %llu requests served\n",
            (unsigned long long)counts.connections, (unsigned long long)counts.requests);
    return 0;
}

int main(int argc, char **argv)
{
    struct config cfg;
    struct engine_result res;
    char err[512], notes[256];
    uint64_t limit;
    int rc = 0;
    FILE *text;

    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        return main_serve(argc - 1, argv + 1);

    switch (cli_parse(argc, argv, &cfg, err, sizeof(err), notes, sizeof(notes))) {
    case CLI_EXIT:
        cli_free(&cfg);
        return 0;
    case CLI_ERROR:
        fprintf(stderr, "rafale: %s\n", err);
        cli_free(&cfg);
        return 2;
    case CLI_OK:
        break;
    }
    if (notes[0])
        fprintf(stderr, "rafale: %s\n", notes);

    /* Every connection is a descriptor; a few more for epoll and files. */
    limit = net_raise_nofile((uint64_t)cfg.connections + 64);
    if (limit < (uint64_t)cfg.connections + 64) {
        fprintf(stderr, "rafale: -c %u needs %u open files but the limit is %llu: raise it with 'ulimit -n %u'\n",
                cfg.connections, cfg.connections + 64, (unsigned long long)limit, cfg.connections + 64);
        cli_free(&cfg);
        return 2;
    }

    catch_signals();
    if (engine_run(&cfg, &stop_flag, &res, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        cli_free(&cfg);
        return 1;
    }

    /* With --json - the JSON owns stdout and the text report goes to stderr. */
    text = (cfg.json_path && strcmp(cfg.json_path, "-") == 0) ? stderr : stdout;
    report_text(text, &cfg, &res);
    fflush(text);
    if (cfg.json_path && write_file(cfg.json_path, "JSON", &cfg, &res) != 0)
        rc = 1;
    if (cfg.csv_path && write_file(cfg.csv_path, "CSV", &cfg, &res) != 0)
        rc = 1;
    if (rc == 0 && res.interrupted)
        rc = 130;
    engine_result_free(&res);
    cli_free(&cfg);
    return rc;
}
