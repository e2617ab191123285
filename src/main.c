/* main.c - wires the command line to a run and its reports. The only place
 * that prints a fatal error or chooses an exit code. */
#include "cli.h"
#include "compare.h"
#include "engine.h"
#include "monitor.h"
#include "net.h"
#include "progress.h"
#include "report.h"
#include "report_load.h"
#include "serve.h"
#include "slo.h"
#include "sweep.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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

static int write_file(const char *path, const char *what, const struct config *cfg, const struct engine_result *r,
                      const struct slo *slo)
{
    FILE *f;
    int rc;
    if (strcmp(path, "-") == 0) {
        f = stdout;
    } else if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "rafale: cannot write %s to '%s': %s\n", what, path, strerror(errno));
        return -1;
    }
    if (strcmp(what, "JSON") == 0)
        rc = report_json(f, cfg, r, slo);
    else if (strcmp(what, "CSV") == 0)
        rc = report_csv(f, r);
    else if (strcmp(what, "HTML") == 0)
        rc = report_html(f, cfg, r);
    else
        rc = hist_print_hdr(f, &r->total.latency);
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
    printf("listening on %s%s\n", serve_address(srv), sc.tls_cert ? " (TLS)" : "");
    fflush(stdout);
    if (serve_wait(srv, &stop_flag, &counts, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale serve: %s\n", err);
        return 1;
    }
    fprintf(stderr, "rafale serve: %llu connections accepted, %llu requests served\n",
            (unsigned long long)counts.connections, (unsigned long long)counts.requests);
    return 0;
}

static void on_sweep_step(const struct sweep_step *s, void *arg)
{
    sweep_print_step(arg, s);
}

static int main_sweep(struct config *cfg)
{
    struct sweep_result sr;
    FILE *out = (cfg->json_path && strcmp(cfg->json_path, "-") == 0) ? stderr : stdout;
    char err[512];
    int rc = 0;

    sweep_print_header(out, cfg);
    if (sweep_run(cfg, &stop_flag, on_sweep_step, out, &sr, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        return 1;
    }
    sweep_print_summary(out, &sr);
    if (cfg->json_path) {
        FILE *f = strcmp(cfg->json_path, "-") == 0 ? stdout : fopen(cfg->json_path, "w");
        if (f == NULL) {
            fprintf(stderr, "rafale: cannot write JSON to '%s': %s\n", cfg->json_path, strerror(errno));
            return 1;
        }
        rc = sweep_json(f, cfg, &sr);
        if (f != stdout)
            rc |= fclose(f);
        if (rc != 0) {
            fprintf(stderr, "rafale: writing JSON to '%s' failed\n", cfg->json_path);
            return 1;
        }
    }
    if (sr.interrupted)
        return 130;
    return sr.knee > 0 ? 0 : 3;
}

/* rafale report [--html OUT] FILE.json...: the reports again, from saved
 * results; several files are laid side by side as a comparison. */
static int main_report(int argc, char **argv)
{
    const char *html = NULL;
    struct loaded_run *runs;
    const char **names;
    char err[512];
    int i, n = 0, rc = 0;

    runs = calloc((size_t)argc, sizeof(*runs));
    names = calloc((size_t)argc, sizeof(*names));
    if (runs == NULL || names == NULL) {
        free(runs);
        free(names);
        return 1;
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--html") == 0 && i + 1 < argc) {
            html = argv[++i];
            continue;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "rafale report: unknown option '%s' (rafale report [--html OUT] FILE.json...)\n", argv[i]);
            rc = 2;
            goto out;
        }
        if (report_load(argv[i], &runs[n], err, sizeof(err)) != 0) {
            fprintf(stderr, "rafale report: %s\n", err);
            rc = 1;
            goto out;
        }
        names[n++] = argv[i];
    }
    if (n == 0) {
        fprintf(stderr, "rafale report: no result file given (rafale report [--html OUT] FILE.json...)\n");
        rc = 2;
        goto out;
    }
    for (i = 0; i < n; i++) {
        if (n > 1)
            printf("%s== %s\n", i ? "\n" : "", names[i]);
        report_text(stdout, &runs[i].cfg, &runs[i].res);
    }
    if (html) {
        FILE *f = fopen(html, "w");
        if (f == NULL) {
            fprintf(stderr, "rafale report: cannot write '%s': %s\n", html, strerror(errno));
            rc = 1;
            goto out;
        }
        if (n == 1) {
            rc = report_html(f, &runs[0].cfg, &runs[0].res) != 0;
        } else {
            /* Side by side: one workload, each file a "server". */
            struct cmp_plan *plan = calloc(1, sizeof(*plan));
            struct cmp_result *cr = calloc(1, sizeof(*cr));
            int k = 0;
            if (plan && cr) {
                plan->repeat = 1;
                plan->nworkloads = 1;
                snprintf(plan->workloads[0].name, sizeof(plan->workloads[0].name), "saved runs");
                plan->workloads[0].path = (char *)"/";
                for (k = 0; k < n && k < CMP_MAX; k++) {
                    struct cmp_cell *c = &cr->cells[0][k];
                    const struct engine_result *r = &runs[k].res;
                    snprintf(plan->servers[k].name, sizeof(plan->servers[k].name), "%s",
                             strrchr(names[k], '/') ? strrchr(names[k], '/') + 1 : names[k]);
                    hist_init(&c->lat);
                    hist_merge(&c->lat, &r->total.latency);
                    c->runs = 1;
                    c->rps[0] = c->rps_median = r->elapsed_s > 0 ? (double)r->total.completed / r->elapsed_s : 0;
                    c->p50_ns = hist_percentile(&r->total.latency, 50);
                    c->p99_ns = hist_percentile(&r->total.latency, 99);
                    c->errors = stats_errors(&r->total);
                    c->completed = r->total.completed;
                    c->server_cpu_us = r->has_server && r->total.completed
                                           ? r->server.cpu_s * 1e6 / (double)r->total.completed : -1;
                    c->rss_peak = r->has_server ? r->server.rss_peak_bytes : 0;
                }
                plan->nservers = k;
                rc = cmp_html(f, plan, cr) != 0;
                for (i = 0; i < k; i++)
                    hist_fini(&cr->cells[0][i].lat);
            } else {
                rc = 1;
            }
            free(plan);
            free(cr);
        }
        if (fclose(f) != 0 || rc) {
            fprintf(stderr, "rafale report: writing '%s' failed\n", html);
            rc = 1;
        }
    }
out:
    for (i = 0; i < n; i++)
        report_load_free(&runs[i]);
    free(runs);
    free(names);
    return rc;
}

static void on_compare_line(const char *line, void *arg)
{
    fprintf(arg, "%s\n", line);
    fflush(arg);
}

static int main_compare(int argc, char **argv)
{
    struct compare_args a;
    struct cmp_plan plan;
    struct cmp_result *res;
    struct config base;
    char err[512];
    int rc = 0;

    switch (cli_parse_compare(argc, argv, &a, err, sizeof(err))) {
    case CLI_EXIT:
        return 0;
    case CLI_ERROR:
        fprintf(stderr, "rafale compare: %s\n", err);
        return 2;
    case CLI_OK:
        break;
    }
    if (cmp_parse(a.file, &plan, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale compare: %s\n", err);
        cmp_plan_free(&plan);
        return 2;
    }
    if (a.set.repeat)
        plan.repeat = a.set.repeat > 16 ? 16 : a.set.repeat;
    if (a.set.nserver_cpus) {
        memcpy(plan.server_cpus, a.set.server_cpus, sizeof(plan.server_cpus));
        plan.nserver_cpus = a.set.nserver_cpus;
    }
    if (a.set.nclient_cpus) {
        memcpy(plan.client_cpus, a.set.client_cpus, sizeof(plan.client_cpus));
        plan.nclient_cpus = a.set.nclient_cpus;
    }
    if (plan.nserver_cpus == 0 || plan.nclient_cpus == 0) {
        fprintf(stderr, "rafale compare: warning: servers and rafale are not pinned apart (server-cpus, client-cpus):"
                        " they compete for the same cores\n");
    } else {
        int i, j;
        for (i = 0; i < plan.nserver_cpus; i++)
            for (j = 0; j < plan.nclient_cpus; j++)
                if (plan.server_cpus[i] == plan.client_cpus[j]) {
                    fprintf(stderr, "rafale compare: warning: CPU %d is given to both the servers and rafale\n",
                            plan.server_cpus[i]);
                    i = plan.nserver_cpus;
                    break;
                }
    }
    /* Defaults for every run: the same as a plain `rafale URL`. */
    config_defaults(&base);
    net_raise_nofile(1 << 20);
    catch_signals();
    res = calloc(1, sizeof(*res));
    if (res == NULL) {
        fprintf(stderr, "rafale compare: out of memory\n");
        cmp_plan_free(&plan);
        return 1;
    }
    printf("rafale compare: %s, %d servers, %d workloads, %d repetitions\n", a.file, plan.nservers, plan.nworkloads,
           plan.repeat);
    fflush(stdout);
    if (cmp_run(&plan, &base, &stop_flag, on_compare_line, stdout, res, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale compare: %s\n", err);
        rc = 1;
    } else {
        FILE *f;
        cmp_print(stdout, &plan, res);
        if (a.set.json_path) {
            if ((f = fopen(a.set.json_path, "w")) == NULL || cmp_json(f, &plan, res) != 0) {
                fprintf(stderr, "rafale compare: cannot write '%s'\n", a.set.json_path);
                rc = 1;
            }
            if (f)
                fclose(f);
        }
        if (a.set.html_path) {
            if ((f = fopen(a.set.html_path, "w")) == NULL || cmp_html(f, &plan, res) != 0) {
                fprintf(stderr, "rafale compare: cannot write '%s'\n", a.set.html_path);
                rc = 1;
            }
            if (f)
                fclose(f);
        }
        if (rc == 0 && res->interrupted)
            rc = 130;
    }
    cmp_result_free(res, &plan);
    free(res);
    cmp_plan_free(&plan);
    return rc;
}

int main(int argc, char **argv)
{
    struct config cfg;
    struct engine_result res;
    struct progress prog;
    struct monitor *mon = NULL;
    char err[512], notes[256];
    uint64_t limit;
    int rc = 0, sweep = 0;
    FILE *text;

    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        return main_serve(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return main_compare(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return main_report(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "sweep") == 0) {
        sweep = 1;
        argc--;
        argv++;
    }

    switch (cli_parse(argc, argv, sweep, &cfg, err, sizeof(err), notes, sizeof(notes))) {
    case CLI_EXIT:
        config_free(&cfg);
        return 0;
    case CLI_ERROR:
        fprintf(stderr, "rafale: %s\n", err);
        config_free(&cfg);
        return 2;
    case CLI_OK:
        break;
    }
    if (notes[0])
        fprintf(stderr, "rafale: %s\n", notes);

    /* Every connection is a descriptor; a few more for epoll and files. */
    {
        uint32_t want = cfg.max_connections > cfg.connections ? cfg.max_connections : cfg.connections;
        limit = net_raise_nofile((uint64_t)want + 64);
        if (limit < (uint64_t)want + 64) {
            fprintf(stderr, "rafale: %u connections need %u open files but the limit is %llu: raise it with 'ulimit -n %u'\n",
                    want, want + 64, (unsigned long long)limit, want + 64);
            config_free(&cfg);
            return 2;
        }
    }
    catch_signals();
    if (cfg.sweep) {
        rc = main_sweep(&cfg);
        config_free(&cfg);
        return rc;
    }
    progress_init(&prog, stderr, &cfg);
    if (cfg.monitor_pid && monitor_start(cfg.monitor_pid, cfg.warmup_ns, &mon, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        config_free(&cfg);
        return 2;
    }
    if (engine_run(&cfg, &stop_flag, cfg.quiet ? NULL : progress_update, &prog, &res, err, sizeof(err)) != 0) {
        progress_done(&prog);
        if (mon)
            monitor_stop(mon, &res.server);
        fprintf(stderr, "rafale: %s\n", err);
        config_free(&cfg);
        return 1;
    }
    progress_done(&prog);
    if (mon) {
        monitor_stop(mon, &res.server);
        res.has_server = 1;
    }

    /* With --json - the JSON owns stdout and the text report goes to stderr. */
    text = (cfg.json_path && strcmp(cfg.json_path, "-") == 0) ? stderr : stdout;
    report_text(text, &cfg, &res);
    if (cfg.slo.n) {
        slo_eval(&cfg.slo, &res);
        slo_print(text, &cfg.slo);
    }
    fflush(text);
    if (cfg.json_path && write_file(cfg.json_path, "JSON", &cfg, &res, &cfg.slo) != 0)
        rc = 1;
    if (cfg.csv_path && write_file(cfg.csv_path, "CSV", &cfg, &res, NULL) != 0)
        rc = 1;
    if (cfg.html_path && write_file(cfg.html_path, "HTML", &cfg, &res, NULL) != 0)
        rc = 1;
    if (cfg.hdr_path && write_file(cfg.hdr_path, "HdrHistogram percentiles", &cfg, &res, NULL) != 0)
        rc = 1;
    if (rc == 0 && res.interrupted)
        rc = 130;
    else if (rc == 0 && cfg.slo.n) {
        int i;
        for (i = 0; i < cfg.slo.n; i++)
            if (!cfg.slo.c[i].pass)
                rc = 3;
    }
    engine_result_free(&res);
    config_free(&cfg);
    return rc;
}
