/* main.c - wires the command line to a run and its reports. The only place
 * that prints a fatal error or chooses an exit code. */
#include "calibrate.h"
#include "completion.h"
#include "metrics.h"
#include "cli.h"
#include "compare.h"
#include "diff.h"
#include "engine.h"
#include "findings.h"
#include "machine.h"
#include "merge.h"
#include "mpi_glue.h"
#include "monitor.h"
#include "net.h"
#include "netstat.h"
#include "progress.h"
#include "report.h"
#include "compare_load.h"
#include "serve.h"
#include "shard.h"
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

/* Ctrl-C and SIGTERM set the stop flag. reset: a second one kills at once,
 * should a stop ever hang; compare and calibrate say 0: their stop is
 * bounded (grace, then cgroup.kill) and must not be cut short, or servers
 * they started would be left running. */
static void catch_signals(int reset)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = reset ? SA_RESETHAND : 0;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* A run's result, as every output takes it. */
struct run_out {
    const struct config *cfg;
    const struct engine_result *r;
    const struct monitor_result *server; /* or NULL */
    const struct slo *slo;               /* evaluated, or NULL */
    const struct findings *fs;           /* or NULL (--findings no) */
};

static int out_json(FILE *f, const struct run_out *o)
{
    return report_json(f, o->cfg, o->r, o->server, o->slo, o->fs);
}

static int out_csv(FILE *f, const struct run_out *o)
{
    return report_csv(f, o->r);
}

static int out_html(FILE *f, const struct run_out *o)
{
    return report_html(f, o->cfg, o->r, o->server, o->fs);
}

static int out_hdr(FILE *f, const struct run_out *o)
{
    return hist_print_hdr(f, &o->r->total.h[H_LATENCY]);
}

/* The files a run writes: what each is, and its writer. */
enum out_kind { OUT_JSON, OUT_CSV, OUT_HTML, OUT_HDR };
static const struct {
    const char *what;
    int (*write)(FILE *f, const struct run_out *o);
} writers[] = {
    [OUT_JSON] = { "JSON", out_json },
    [OUT_CSV] = { "CSV", out_csv },
    [OUT_HTML] = { "HTML", out_html },
    [OUT_HDR] = { "HdrHistogram percentiles", out_hdr },
};

static int write_file(const char *path, enum out_kind k, const struct run_out *o)
{
    FILE *f;
    int rc;
    if (strcmp(path, "-") == 0) {
        f = stdout;
    } else if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "rafale: cannot write %s to '%s': %s\n", writers[k].what, path, strerror(errno));
        return -1;
    }
    rc = writers[k].write(f, o);
    if (f != stdout)
        rc |= fclose(f);
    else
        fflush(f);
    if (rc != 0)
        fprintf(stderr, "rafale: writing %s to '%s' failed\n", writers[k].what, path);
    return rc;
}

/* The end of a run, one or merged from ranks: its findings (with what net
 * saw of the host around it, when it did), the text report (on stderr
 * when the JSON owns stdout), the SLO checks of opts (the command line's)
 * on the result, every file opts asks for. Returns the exit status: 1 when
 * a file could not be written, 130 when interrupted, 3 when an SLO failed,
 * else 0. */
static int finish_run(struct config *opts, const struct config *cfg, const struct engine_result *r,
                      const struct monitor_result *server, const struct netstat_obs *net, struct metrics *live)
{
    static struct findings fs; /* 20 KiB: off the stack */
    const struct findings_in fin = { cfg, r, server, net, -1 };
    const struct run_out o = { cfg, r, server, opts->slo.n ? &opts->slo : NULL, opts->no_findings ? NULL : &fs };
    const char *const paths[] = { [OUT_JSON] = opts->json_path, [OUT_CSV] = opts->csv_path,
                                  [OUT_HTML] = opts->html_path, [OUT_HDR] = opts->hdr_path };
    FILE *text = (opts->json_path && strcmp(opts->json_path, "-") == 0) ? stderr : stdout;
    int rc = 0, i;
    unsigned k;

    if (!opts->no_findings)
        findings_eval(&fin, &fs);
    report_text(text, cfg, r, server, o.fs);
    if (opts->slo.n) {
        slo_eval(&opts->slo, &r->total, r->elapsed_s);
        slo_print(text, &opts->slo);
    }
    if (fflush(text) != 0 || ferror(text)) {
        /* The report is what the run was for: its loss is said, never silent. */
        fprintf(stderr, "rafale: writing the report to standard %s failed: %s\n", text == stdout ? "output" : "error",
                strerror(errno));
        rc = 1;
    }
    for (k = 0; k < sizeof(paths) / sizeof(paths[0]); k++)
        if (paths[k] && write_file(paths[k], (enum out_kind)k, &o) != 0)
            rc = 1;
    if (live) {
        /* The live page shows the final report in its place. */
        char *html = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&html, &n);
        if (f) {
            report_html(f, cfg, r, server, o.fs);
            fclose(f);
            metrics_final(live, html, n);
        }
        free(html);
    }
    if (rc == 0 && r->interrupted)
        rc = 130;
    for (i = 0; rc == 0 && i < opts->slo.n; i++)
        if (!opts->slo.c[i].pass)
            rc = 3;
    if (rc == 0 && r->aborted)
        rc = 3; /* lost on the way, whatever the end's figures say */
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
    catch_signals(1);
    if (serve_start(&sc, &srv, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale serve: %s\n", err);
        return 1;
    }
    printf("listening on %s%s%s\n", serve_address(srv), sc.tls_cert ? " (TLS)" : "", sc.http3 ? " (and HTTP/3 on UDP)" : "");
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

/* Writes a compare's HTML page to path. Returns 0 or -1 (said). */
static int write_compare_html(const char *cmd, const char *path, const struct cmp_plan *p, const struct cmp_result *r)
{
    FILE *f = fopen(path, "w");
    int rc;
    if (f == NULL) {
        fprintf(stderr, "%s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        return -1;
    }
    rc = report_compare_html(f, p, r);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "%s: writing '%s' failed\n", cmd, path);
        return -1;
    }
    return 0;
}

/* Several saved runs side by side, as one workload of a compare whose
 * "servers" are the files. */
static int side_by_side(const char *html, struct loaded *runs, const char **names, int n)
{
    struct cmp_plan plan;
    struct cmp_result cr;
    int k, rc = compare_saved_init(&plan, &cr, &runs[0].run.cfg, n);

    for (k = 0; k < n && rc == 0; k++) {
        const char *base = strrchr(names[k], '/') ? strrchr(names[k], '/') + 1 : names[k];
        struct loaded_run *lr = &runs[k].run;
        rc = compare_saved_add(&plan, &cr, k, base, lr->cfg.nurls ? lr->cfg.url_text[0] : "", &lr->res,
                           lr->has_server ? &lr->server : NULL);
        lr->has_server = 0;
    }
    if (rc == 0) {
        compare_summarize(&plan, &cr);
        rc = write_compare_html("rafale report", html, &plan, &cr);
    } else {
        fprintf(stderr, "rafale report: out of memory\n");
    }
    compare_result_free(&cr);
    compare_file_free(&plan);
    return rc != 0;
}

/* rafale report [--html OUT] FILE.json...: the reports again, from saved
 * results (runs, or a whole compare); several runs are laid side by side. */
/* Results from different machines, reported together: each machine with
 * its reference (rafale calibrate), said to be no conversion. */
static void machines_block(const struct loaded *runs, const char **names, int n)
{
    int i, j, machines = 0;
    for (i = 0; i < n; i++) {
        for (j = 0; j < i && !machine_same(&runs[i].run.res.env, &runs[j].run.res.env); j++)
            ;
        machines += j == i;
    }
    if (machines < 2)
        return;
    printf("These results come from %d machines. Each one's reference, rafale calibrate's same work on each, stands "
           "beside its figures:\na reference, not a conversion (a server's figures do not scale with it).\n", machines);
    for (i = 0; i < n; i++) {
        const struct machine *m = &runs[i].run.res.env;
        const struct machine_ref *ref = &runs[i].run.res.ref;
        printf("  %s: %s, %d CPU%s, %s: ", names[i], m->cpu_model[0] ? m->cpu_model : "CPU unknown", m->cpus_online,
               m->cpus_online == 1 ? "" : "s", m->kernel[0] ? m->kernel : "kernel unknown");
        if (ref->known && machine_same(&ref->m, m))
            printf("rafale serve at %.0f req/s\n", ref->rps);
        else if (ref->known)
            printf("a reference from another machine (%s, %d CPUs): left out\n", ref->m.cpu_model, ref->m.cpus_online);
        else
            printf("no reference (run it with --calibrate yes)\n");
    }
    printf("\n");
}

static int main_report(int argc, char **argv)
{
    const char *html = NULL;
    struct loaded *runs;
    const char **names;
    char err[512];
    int i, n = 0, rc = 0, compares = 0;

    runs = calloc((size_t)argc, sizeof(*runs));
    names = calloc((size_t)argc, sizeof(*names));
    if (runs == NULL || names == NULL) {
        free(runs);
        free(names);
        fprintf(stderr, "rafale report: out of memory\n");
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
        names[n] = argv[i];
        if (compare_load(argv[i], &runs[n], err, sizeof(err)) != 0) {
            fprintf(stderr, "rafale report: %s\n", err);
            compare_load_free(&runs[n]);
            rc = 1;
            goto out;
        }
        compares += runs[n].is_compare;
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "rafale report: no result file given (rafale report [--html OUT] FILE.json...)\n");
        rc = 2;
        goto out;
    }
    if (compares && n > 1) {
        fprintf(stderr, "rafale report: a compare result is reported on its own: give one file\n");
        rc = 2;
        goto out;
    }
    if (n > 1 && !compares)
        machines_block(runs, names, n);
    for (i = 0; i < n; i++) {
        if (n > 1)
            printf("%s== %s\n", i ? "\n" : "", names[i]);
        if (runs[i].is_compare)
            report_compare_print(stdout, &runs[i].plan, &runs[i].cmp);
        else
            report_text(stdout, &runs[i].run.cfg, &runs[i].run.res, runs[i].run.has_server ? &runs[i].run.server : NULL,
                        runs[i].run.has_findings ? &runs[i].run.found : NULL);
    }
    if (html) {
        if (compares)
            rc = write_compare_html("rafale report", html, &runs[0].plan, &runs[0].cmp) != 0;
        else if (n > 1)
            rc = side_by_side(html, runs, names, n);
        else
        {
            const struct run_out o = { &runs[0].run.cfg, &runs[0].run.res,
                                       runs[0].run.has_server ? &runs[0].run.server : NULL, NULL,
                                       runs[0].run.has_findings ? &runs[0].run.found : NULL };
            rc = write_file(html, OUT_HTML, &o) != 0;
        }
    }
out:
    for (i = 0; i < n; i++)
        compare_load_free(&runs[i]);
    free(runs);
    free(names);
    return rc;
}

/* The relative step of a cell's duration-bound rounds' counts: connections
 * over requests, the mean over its rounds (0 when count-bound), as compare
 * takes it (compare.c). */
static double step(const struct compare_cell *c, const struct config *cfg)
{
    double sum = 0;
    int k, n = 0;
    for (k = 0; cfg->requests == 0 && k < c->nruns; k++)
        if (c->runs[k].res.total.completed) {
            sum += (double)(cfg->connections ? cfg->connections : 1) / (double)c->runs[k].res.total.completed;
            n++;
        }
    return n ? sum / n : 0;
}

/* Two compares: each workload and server of BASE found by name in NEW, its
 * rounds against the other's. Returns the exit status (3: a cell worse;
 * undecided cells are said, and exit 0). */
static int diff_compares(const struct loaded *in, const char *const files[2], double thr, const char *json,
                         const char *html)
{
    const struct cmp_plan *pb = &in[0].plan, *pn = &in[1].plan;
    FILE *jf = NULL;
    int w, s, w2, s2, k, worse = 0, cells = 0, rc = 0;
    if (html) {
        fprintf(stderr, "rafale diff: --html is for two runs; give --json for two compares\n");
        return 2;
    }
    if (json && (jf = strcmp(json, "-") == 0 ? stdout : fopen(json, "w")) == NULL) {
        fprintf(stderr, "rafale diff: cannot write %s: %s\n", json, strerror(errno));
        return 1;
    }
    if (jf)
        fprintf(jf, "[");
    for (w = 0; w < pb->nworkloads; w++)
        for (w2 = 0; w2 < pn->nworkloads; w2++) {
            if (strcmp(pb->workloads[w].name, pn->workloads[w2].name) != 0)
                continue;
            for (s = 0; s < pb->nservers; s++)
                for (s2 = 0; s2 < pn->nservers; s2++) {
                    const struct compare_cell *cb = compare_cell(&in[0].cmp, w, s), *cn = compare_cell(&in[1].cmp, w2, s2);
                    double *v = NULL;
                    const double *fb[3], *fn[3];
                    char lb[600], ln[600];
                    struct diff_result d;
                    if (strcmp(pb->servers[s].name, pn->servers[s2].name) != 0 || cb->nruns == 0 || cn->nruns == 0)
                        continue;
                    if ((v = calloc((size_t)(cb->nruns + cn->nruns) * 3, sizeof(double))) == NULL)
                        continue;
                    for (k = 0; k < 3; k++) {
                        fb[k] = v + k * cb->nruns;
                        fn[k] = v + 3 * cb->nruns + k * cn->nruns;
                    }
                    for (k = 0; k < cb->nruns + cn->nruns; k++) {
                        const struct compare_run *run = k < cb->nruns ? &cb->runs[k] : &cn->runs[k - cb->nruns];
                        double *at = k < cb->nruns ? v + k : v + 3 * cb->nruns + (k - cb->nruns);
                        int step = k < cb->nruns ? cb->nruns : cn->nruns;
                        at[0] = run->res.elapsed_s > 0 ? (double)run->res.total.completed / run->res.elapsed_s : 0;
                        at[step] = hist_percentile(&run->res.total.h[H_LATENCY], 50) / 1e3;
                        at[2 * step] = hist_percentile(&run->res.total.h[H_LATENCY], 99) / 1e3;
                    }
                    diff_rounds(fb, cb->nruns, fn, cn->nruns, thr,
                                step(cb, &pb->workloads[w].cfg) + step(cn, &pn->workloads[w2].cfg), &d);
                    snprintf(lb, sizeof(lb), "%s [%s on %s]", files[0], pb->workloads[w].name, pb->servers[s].name);
                    snprintf(ln, sizeof(ln), "%s [%s on %s]", files[1], pn->workloads[w2].name, pn->servers[s2].name);
                    diff_print(stdout, &d, lb, ln);
                    fputc('\n', stdout);
                    if (jf) {
                        if (cells)
                            fprintf(jf, ",\n");
                        diff_json(jf, &d, lb, ln);
                    }
                    worse += d.worse;
                    cells++;
                    free(v);
                }
        }
    if (jf) {
        fprintf(jf, "]\n");
        if (jf != stdout && fclose(jf) != 0)
            rc = 1;
    }
    if (cells == 0) {
        fprintf(stderr, "rafale diff: %s and %s share no workload and server by name\n", files[0], files[1]);
        return 2;
    }
    return rc ? rc : worse ? 3 : 0;
}

/* rafale diff [--threshold P%] [--json OUT] [--html OUT] BASE.json NEW.json:
 * each figure's change with its interval; exit 3 when one got significantly
 * worse by more than the threshold, 0 otherwise, 1 when a file cannot be
 * read, 2 for usage or results of different workloads. */
static int main_diff(int argc, char **argv)
{
    /* What may differ between two runs of one workload: their length, the
     * threads that made them, the server's address (before and after a
     * change, on another port or host). */
    static const char *const own[] = { "threads", "duration_s", "requests", "seed", "urls" };
    const char *files[2] = { NULL, NULL }, *json = NULL, *html = NULL, *diffkey;
    json_t *roots[2] = { NULL, NULL };
    struct loaded in[2];
    struct diff_result d;
    double thr = 0.05;
    char err[512];
    int i, n = 0, rc = 2;

    memset(in, 0, sizeof(in));
    for (i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "--html") == 0) && i + 1 < argc) {
            *(argv[i][2] == 'j' ? &json : &html) = argv[i + 1];
            i++;
        } else if (strcmp(argv[i], "--threshold") == 0 && i + 1 < argc) {
            char *end;
            thr = strtod(argv[++i], &end);
            if (end == argv[i] || (*end && strcmp(end, "%") != 0) || !(thr >= 0 && thr < 1000)) {
                fprintf(stderr, "rafale diff: --threshold wants a percentage such as 5%%, not '%s'\n", argv[i]);
                return 2;
            }
            thr /= 100;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "rafale diff: unknown option '%s' (rafale diff [--threshold 5%%] [--json OUT] "
                            "[--html OUT] BASE.json NEW.json)\n", argv[i]);
            return 2;
        } else if (n < 2) {
            files[n++] = argv[i];
        } else {
            n++;
        }
    }
    if (n != 2) {
        fprintf(stderr, "rafale diff: give two results, BASE.json and NEW.json (%d given)\n", n);
        return 2;
    }
    for (i = 0; i < 2; i++) {
        if ((roots[i] = report_load_json(files[i], err, sizeof(err))) == NULL ||
            compare_load_root(roots[i], files[i], &in[i], err, sizeof(err)) != 0) {
            fprintf(stderr, "rafale diff: %s\n", err);
            rc = 1;
            goto out;
        }
    }
    if (in[0].is_compare != in[1].is_compare) {
        fprintf(stderr, "rafale diff: %s is a compare result and %s is not: diff two of a kind\n",
                files[in[0].is_compare ? 0 : 1], files[in[0].is_compare ? 1 : 0]);
        goto out;
    }
    if (in[0].is_compare) {
        rc = diff_compares(in, files, thr, json, html);
        goto out;
    }
    if ((diffkey = merge_config_diff(json_object_get(roots[0], "config"), json_object_get(roots[1], "config"), own,
                                     sizeof(own) / sizeof(own[0])))) {
        fprintf(stderr, "rafale diff: %s and %s are not runs of the same workload: their '%s' differ\n", files[0],
                files[1], diffkey);
        goto out;
    }
    diff_results(&in[0].run.res, &in[1].run.res, thr, &d);
    diff_print(stdout, &d, files[0], files[1]);
    rc = d.worse ? 3 : 0;
    for (i = 0; i < 2; i++) {
        const char *path = i ? html : json;
        FILE *f;
        if (path == NULL)
            continue;
        if ((f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w")) == NULL ||
            (i ? diff_html(f, &d, files[0], files[1]) : diff_json(f, &d, files[0], files[1])) != 0 ||
            (f != stdout && fclose(f) != 0)) {
            fprintf(stderr, "rafale diff: cannot write %s: %s\n", path, strerror(errno));
            rc = 1;
        }
    }
out:
    for (i = 0; i < 2; i++) {
        compare_load_free(&in[i]);
        if (roots[i])
            json_decref(roots[i]);
    }
    return rc;
}

/* rafale merge [--json OUT] [--html OUT] SHARD.json...: the shards of one
 * run (--shard I/N) as the one result of the whole run. */
static int main_merge(int argc, char **argv)
{
    const char *json = NULL, *html = NULL;
    json_t **roots;
    const char **names;
    struct loaded_run m;
    char err[512];
    int i, n = 0, rc = 0;

    roots = calloc((size_t)argc, sizeof(*roots));
    names = calloc((size_t)argc, sizeof(*names));
    if (roots == NULL || names == NULL) {
        free(roots);
        free(names);
        fprintf(stderr, "rafale merge: out of memory\n");
        return 1;
    }
    for (i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "--html") == 0) && i + 1 < argc) {
            *(argv[i][2] == 'j' ? &json : &html) = argv[i + 1];
            i++;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "rafale merge: unknown option '%s' (rafale merge [--json OUT] [--html OUT] SHARD.json...)\n",
                    argv[i]);
            rc = 2;
            goto out;
        }
        names[n] = argv[i];
        if ((roots[n] = report_load_json(argv[i], err, sizeof(err))) == NULL) {
            fprintf(stderr, "rafale merge: %s\n", err);
            rc = 1;
            goto out;
        }
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "rafale merge: no shard results given (rafale merge [--json OUT] [--html OUT] SHARD.json...)\n");
        rc = 2;
        goto out;
    }
    if (merge_shards(roots, names, n, &m, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale merge: %s\n", err);
        rc = 1;
        goto out;
    }
    {
        /* The merged figures' own findings (the host counters stay with
         * each shard's). */
        static struct findings fs;
        const struct findings_in fin = { &m.cfg, &m.res, m.has_server ? &m.server : NULL, NULL, -1 };
        const struct run_out o = { &m.cfg, &m.res, m.has_server ? &m.server : NULL, NULL, &fs };
        findings_eval(&fin, &fs);
        report_text(json && strcmp(json, "-") == 0 ? stderr : stdout, &m.cfg, &m.res, o.server, &fs);
        if (json && write_file(json, OUT_JSON, &o) != 0)
            rc = 1;
        if (html && write_file(html, OUT_HTML, &o) != 0)
            rc = 1;
    }
    engine_result_free(&m.res);
    monitor_result_free(&m.server);
    config_free(&m.cfg);
out:
    for (i = 0; i < n; i++)
        json_decref(roots[i]);
    free(roots);
    free(names);
    return rc;
}

static void on_compare_line(const char *line, void *arg)
{
    fprintf(arg, "%s\n", line);
    fflush(arg);
}

/* "0-2,5": a CPU list as people write it. */
static void cpu_text(const int *cpus, int n, char *buf, size_t len)
{
    size_t at = 0;
    int i = 0;
    buf[0] = '\0';
    while (i < n && at + 24 < len) {
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        at += (size_t)snprintf(buf + at, len - at, "%s%d", at ? "," : "", cpus[i]);
        if (j > i)
            at += (size_t)snprintf(buf + at, len - at, "-%d", cpus[j]);
        i = j + 1;
    }
}

/* rafale calibrate [--json FILE]: this machine's reference, measured,
 * stored and printed. */
static int main_calibrate(int argc, char **argv)
{
    struct machine_ref ref;
    const char *json = NULL;
    char err[600], path[4096];
    int i;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: rafale calibrate [--json FILE]\n\nMeasures this machine's reference: rafale serve, pinned as "
                   "compare pins servers,\nwith always the same workload (%s),\nand keeps it in "
                   "$XDG_CACHE_HOME/rafale/calibration.json (or ~/.cache/rafale/).\nA run with --calibrate yes (compare: "
                   "calibrate = yes) carries it.\n", CALIBRATE_WORKLOAD);
            return 0;
        } else {
            fprintf(stderr, "rafale calibrate: unknown argument '%s' (rafale calibrate [--json FILE])\n", argv[i]);
            return 2;
        }
    }
    catch_signals(0);
    printf("rafale calibrate: %s\n", CALIBRATE_WORKLOAD);
    fflush(stdout);
    if (calibrate_run(&stop_flag, on_compare_line, stdout, &ref, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale calibrate: %s\n", err);
        return atomic_load(&stop_flag) ? 130 : 1;
    }
    printf("\n");
    report_ref_text(stdout, &ref, "");
    if (calibrate_path(path, sizeof(path)) != 0) {
        fprintf(stderr, "rafale calibrate: warning: neither XDG_CACHE_HOME nor HOME is set: the reference is not kept\n");
    } else if (calibrate_save(path, &ref, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale calibrate: %s\n", err);
        return 1;
    } else {
        printf("Kept in %s\n", path);
    }
    if (json && calibrate_save(json, &ref, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale calibrate: %s\n", err);
        return 1;
    }
    return 0;
}

static int main_compare(int argc, char **argv)
{
    struct compare_args a;
    struct cmp_plan plan;
    struct cmp_result res;
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
    if (compare_file_parse(a.file, &a.set, &plan, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale compare: %s\n", err);
        compare_file_free(&plan);
        return 2;
    }
    if (compare_ports_free(&plan, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale compare: %s\n", err);
        compare_file_free(&plan);
        return 2;
    }
    if (plan.set.pin == PIN_CHOSE) {
        char sv[200], cl[200];
        cpu_text(plan.set.server_cpus, plan.set.nserver_cpus, sv, sizeof(sv));
        cpu_text(plan.set.client_cpus, plan.set.nclient_cpus, cl, sizeof(cl));
        printf("rafale compare: pin = auto: servers on CPU%s %s, rafale on CPU%s %s (server-cpus and client-cpus "
               "choose, pin = no pins nothing)\n", plan.set.nserver_cpus > 1 ? "s" : "", sv,
               plan.set.nclient_cpus > 1 ? "s" : "", cl);
    } else if (plan.set.nserver_cpus == 0 || plan.set.nclient_cpus == 0) {
        fprintf(stderr, "rafale compare: warning: servers and rafale are not pinned apart (%s): they compete for the "
                        "same cores\n", plan.set.pin == PIN_NO ? "pin = no" : "server-cpus, client-cpus");
    } else {
        int i, j;
        for (i = 0; i < plan.set.nserver_cpus; i++)
            for (j = 0; j < plan.set.nclient_cpus; j++)
                if (plan.set.server_cpus[i] == plan.set.client_cpus[j]) {
                    fprintf(stderr, "rafale compare: warning: CPU %d is given to both the servers and rafale\n",
                            plan.set.server_cpus[i]);
                    i = plan.set.nserver_cpus;
                    break;
                }
    }
    net_raise_nofile(1 << 20);
    catch_signals(0);
    if (plan.set.repeat_auto)
        printf("rafale compare: %s, %d server%s, %d workload%s, repeat = auto (%d to %d rounds, until every verdict "
               "is decided)\n", a.file, plan.nservers, plan.nservers == 1 ? "" : "s", plan.nworkloads,
               plan.nworkloads == 1 ? "" : "s", plan.set.repeat < plan.set.max_repeat ? plan.set.repeat
               : plan.set.max_repeat, plan.set.max_repeat);
    else
        printf("rafale compare: %s, %d server%s, %d workload%s, %d repetition%s\n", a.file, plan.nservers,
               plan.nservers == 1 ? "" : "s", plan.nworkloads, plan.nworkloads == 1 ? "" : "s", plan.set.repeat,
               plan.set.repeat == 1 ? "" : "s");
    fflush(stdout);
    {
        /* calibrate = yes (a workload default): the reference once, first. */
        struct machine_ref ref;
        int i, want = 0;
        memset(&ref, 0, sizeof(ref));
        for (i = 0; i < plan.nworkloads; i++)
            want |= plan.workloads[i].cfg.calibrate;
        if (want && calibrate_get(&stop_flag, on_compare_line, stdout, &ref, err, sizeof(err)) != 0) {
            fprintf(stderr, "rafale compare: calibrate: %s\n", err);
            compare_file_free(&plan);
            return 1;
        }
        rc = compare_run(&plan, &stop_flag, on_compare_line, stdout, &res, err, sizeof(err));
        res.ref = ref;
    }
    if (rc != 0) {
        fprintf(stderr, "rafale compare: %s\n", err);
        rc = 1;
    } else {
        report_compare_print(stdout, &plan, &res);
        if (plan.set.json_path) {
            FILE *f = fopen(plan.set.json_path, "w");
            int wrc = f ? report_compare_json(f, &plan, &res) : -1;
            if (f && fclose(f) != 0)
                wrc = -1;
            if (wrc != 0) {
                fprintf(stderr, "rafale compare: cannot write '%s'\n", plan.set.json_path);
                rc = 1;
            }
        }
        if (plan.set.html_path && write_compare_html("rafale compare", plan.set.html_path, &plan, &res) != 0)
            rc = 1;
        /* The report is written whole in every case; the status says
         * whether it measured what was asked. */
        if (rc == 0)
            rc = compare_exit_status(&res);
    }
    compare_result_free(&res);
    compare_file_free(&plan);
    return rc;
}

#ifdef RAFALE_MPI
/* rafale-mpi, rank 0: every rank's result (JSON, as gathered), merged
 * exactly into the one report. Returns the exit status. */
static int mpi_report(struct config *cfg, int size, char **jsons, size_t *lens, char **whys)
{
    char err[512];
    int rc = 0, i;
    struct loaded_run mr;
    json_t **roots = calloc((size_t)size, sizeof(*roots));
    const char **names = calloc((size_t)size, sizeof(*names));
    char (*nm)[32] = calloc((size_t)size, sizeof(*nm));

    if (roots == NULL || names == NULL || nm == NULL) {
        fprintf(stderr, "rafale-mpi: out of memory for the ranks' results\n");
        rc = 1;
    }
    for (i = 0; i < size; i++)
        if (whys[i]) {
            fprintf(stderr, "rafale-mpi: rank %d: %s\n", i, whys[i]);
            rc = 1;
        }
    for (i = 0; rc == 0 && i < size; i++) {
        json_error_t je;
        snprintf(nm[i], sizeof(nm[i]), "rank %d", i);
        names[i] = nm[i];
        if ((roots[i] = json_loadb(jsons[i], lens[i], 0, &je)) == NULL) {
            fprintf(stderr, "rafale-mpi: rank %d's result is not JSON: %s\n", i, je.text);
            rc = 1;
        }
    }
    if (rc == 0 && merge_shards(roots, names, size, &mr, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale-mpi: %s\n", err);
        rc = 1;
    } else if (rc == 0) {
        /* One report for every rank, as a single process would print. */
        rc = finish_run(cfg, &mr.cfg, &mr.res, mr.has_server ? &mr.server : NULL, NULL, NULL);
        engine_result_free(&mr.res);
        monitor_result_free(&mr.server);
        config_free(&mr.cfg);
    }
    for (i = 0; i < size; i++) {
        if (roots && roots[i])
            json_decref(roots[i]);
        free(jsons[i]);
        free(whys[i]);
    }
    free(roots);
    free(names);
    free(nm);
    free(jsons);
    free(lens);
    free(whys);
    return rc;
}

/* rafale-mpi ARGS under mpiexec (or srun): each rank one shard of the run;
 * rank 0 prints the one merged report and writes the one --json/--html. */
static int main_mpi(int argc, char **argv)
{
    struct mpig m;
    struct config cfg;
    struct engine_result res;
    struct progress prog;
    struct monitor *mon = NULL;
    struct monitor_result server = { 0 };
    char err[512] = "", notes[256];
    char *json = NULL, **jsons = NULL, **whys = NULL;
    size_t jlen = 0, *lens = NULL;
    double start_at;
    int ok = 1, rc = 0, ran = 0;

    if (mpig_begin(&argc, &argv, &m) != 0)
        return 1;
    if (m.rank != 0) {
        /* One report, from rank 0; the other ranks' words reach it through
         * MPI. (Should /dev/null not open, they stay on the rank's own.) */
        FILE *o = freopen("/dev/null", "w", stdout), *e = freopen("/dev/null", "w", stderr);
        (void)o;
        (void)e;
    }
    memset(&cfg, 0, sizeof(cfg));
    if (argc > 1 && (strcmp(argv[1], "serve") == 0 || strcmp(argv[1], "compare") == 0 || strcmp(argv[1], "report") == 0 ||
                     strcmp(argv[1], "merge") == 0 || strcmp(argv[1], "sweep") == 0)) {
        snprintf(err, sizeof(err), "rafale-mpi runs load tests; use rafale for '%s'", argv[1]);
        ok = 0;
        rc = 2;
    } else {
        switch (cli_parse(argc, argv, 0, &cfg, err, sizeof(err), notes, sizeof(notes))) {
        case CLI_EXIT:
            config_free(&cfg);
            mpig_end(&m);
            return 0;
        case CLI_ERROR:
            ok = 0;
            rc = 2;
            break;
        case CLI_OK:
            if (cfg.shard_count) {
                snprintf(err, sizeof(err), "--shard is MPI's to set under rafale-mpi (rank and size)");
                ok = 0;
                rc = 2;
            }
            break;
        }
    }
    if (ok) {
        uint64_t want = (cfg.max_connections > cfg.connections ? cfg.max_connections : cfg.connections) + 64;
        cfg.shard_index = (uint32_t)m.rank;
        cfg.shard_count = (uint32_t)m.size;
        if (m.rank != 0) {
            /* The server and the outputs are rank 0's. */
            cfg.monitor_pid = 0;
            cfg.monitor_cgroup = NULL;
            cfg.json_path = cfg.csv_path = cfg.html_path = cfg.hdr_path = NULL;
        }
        if (net_raise_nofile(want) < want) {
            snprintf(err, sizeof(err), "%llu connections need more open files than the limit: raise it with 'ulimit -n'",
                     (unsigned long long)want - 64);
            ok = 0;
        } else if (engine_check(&cfg, 1, err, sizeof(err)) != 0) {
            /* A rank that cannot resolve or reach the server says so
             * before anything is sent, rather than run on errors alone. */
            ok = 0;
        }
        if (!ok)
            rc = 1;
    }
    if (m.rank == 0 && ok && notes[0])
        fprintf(stderr, "rafale-mpi: %s\n", notes);
    start_at = cfg.start_at;
    if (mpig_ready(&m, ok, err, &start_at) != 0) {
        config_free(&cfg);
        mpig_end(&m);
        return rc ? rc : 1;
    }
    /* A start rank 0 named is when the warm-up begins, all ranks together;
     * a --start-at given is when the measured phase does. */
    cfg.start_at = cfg.start_at > 0 ? start_at : start_at + (double)cfg.warmup_ns / 1e9;
    catch_signals(1);
    progress_init(&prog, stderr, &cfg);
    m.prog = m.rank == 0 ? &prog : NULL;
    if (m.rank == 0 && (cfg.monitor_pid || cfg.monitor_cgroup) &&
        monitor_start(cfg.monitor_pid, cfg.monitor_cgroup, cfg.warmup_ns, &mon, err, sizeof(err)) != 0)
        mon = NULL; /* said in the report: no server figures */
    if (engine_run(&cfg, &stop_flag, cfg.quiet ? NULL : mpig_progress, &m, &res, err, sizeof(err)) == 0) {
        machine_read(&res.env, RAFALE_VERSION);
        FILE *f = open_memstream(&json, &jlen);
        ran = 1;
        if (mon)
            monitor_stop(mon, &server);
        if (f == NULL || report_json(f, &cfg, &res, mon ? &server : NULL, NULL, NULL) != 0 || fclose(f) != 0) {
            snprintf(err, sizeof(err), "out of memory for its result");
            free(json);
            json = NULL;
        }
    } else if (mon) {
        monitor_stop(mon, &server);
    }
    if (m.rank == 0)
        progress_done(&prog);
    mpig_gather(&m, json, jlen, err, &jsons, &lens, &whys);
    if (m.rank == 0)
        rc = mpi_report(&cfg, m.size, jsons, lens, whys);
    if (ran)
        engine_result_free(&res);
    free(json);
    monitor_result_free(&server);
    config_free(&cfg);
    mpig_end(&m);
    return rc;
}
#endif

/* --metrics-listen: the engine's progress goes to the metrics thread too. */
struct live_out {
    struct metrics *m;
    struct progress *prog;       /* NULL: --quiet */
    struct monitor *mon;         /* NULL: no --monitor */
};

static void progress_and_metrics(const struct engine_progress *p, void *arg)
{
    struct live_out *o = arg;
    if (p->live) {
        struct monitor_live server;
        if (o->mon)
            monitor_live(o->mon, &server);
        metrics_publish(o->m, p->live, o->mon ? &server : NULL);
    }
    if (o->prog)
        progress_update(p, o->prog);
}

int main(int argc, char **argv)
{
    struct config cfg, share;
    struct engine_result res;
    struct progress prog;
    struct monitor *mon = NULL;
    struct monitor_result server = { 0 };
    struct netstat_obs net;
    struct machine_ref ref = { 0 };
    struct live_out live = { NULL, NULL, NULL };
    char err[512], notes[256];
    uint64_t limit;
    int rc = 0, sweep = 0;

#ifdef RAFALE_MPI
    return main_mpi(argc, argv);
#endif
    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        return main_serve(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return main_compare(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return main_report(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return main_merge(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return main_diff(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "calibrate") == 0)
        return main_calibrate(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "completion") == 0) {
        if (argc != 3 || completion_write(stdout, argv[2]) != 0) {
            fprintf(stderr, "rafale completion: give bash, zsh or fish (rafale completion bash)\n");
            return 2;
        }
        return 0;
    }
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
    catch_signals(1);
    if (cfg.sweep) {
        rc = main_sweep(&cfg);
        config_free(&cfg);
        return rc;
    }
    /* The live view counts against this shard's share. */
    if (shard_apply(&cfg, &share, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        config_free(&cfg);
        return 2;
    }
    if (cfg.calibrate &&
        calibrate_get(&stop_flag, cfg.quiet ? NULL : on_compare_line, stderr, &ref, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: calibrate: %s\n", err);
        config_free(&cfg);
        return atomic_load(&stop_flag) ? 130 : 1;
    }
    progress_init(&prog, stderr, &share);
    if (cfg.start_at > 0 && cfg.start_at - (double)cfg.warmup_ns / 1e9 - shard_now() > 1 && !cfg.quiet)
        fprintf(stderr, "rafale: waiting %.1fs for --start-at\n", cfg.start_at - (double)cfg.warmup_ns / 1e9 - shard_now());
    if (cfg.start_at > 0 && shard_now() > cfg.start_at + 1)
        fprintf(stderr, "rafale: warning: --start-at was %.1fs ago: this shard begins late (its report says by how much)\n",
                shard_now() - cfg.start_at);
    if ((cfg.monitor_pid || cfg.monitor_cgroup) &&
        monitor_start(cfg.monitor_pid, cfg.monitor_cgroup, cfg.warmup_ns, &mon, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        config_free(&cfg);
        return 2;
    }
    netstat_begin(&net, &cfg);
    if (cfg.metrics_listen && metrics_start(&cfg, &live.m, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale: %s\n", err);
        if (mon)
            monitor_stop(mon, &server);
        monitor_result_free(&server);
        config_free(&cfg);
        return 2;
    }
    live.prog = cfg.quiet ? NULL : &prog;
    live.mon = mon;
    rc = engine_run(&cfg, &stop_flag, cfg.metrics_listen ? progress_and_metrics : cfg.quiet ? NULL : progress_update,
                    cfg.metrics_listen ? (void *)&live : &prog, &res, err, sizeof(err));
    if (rc != 0) {
        metrics_stop(live.m);
        progress_done(&prog);
        if (mon) {
            monitor_stop(mon, &server);
            monitor_result_free(&server);
        }
        fprintf(stderr, "rafale: %s\n", err);
        config_free(&cfg);
        /* The plan is built before any load: a mistake in it is the
         * user's, exit 2. */
        return rc == ENGINE_EPLAN ? 2 : 1;
    }
    progress_done(&prog);
    netstat_end(&net);
    machine_read(&res.env, RAFALE_VERSION);
    res.ref = ref;
    if (mon)
        monitor_stop(mon, &server);
    netstat_noise(&net, res.client_cpu_s, res.elapsed_s, mon ? &server : NULL, &res.noise);

    /* With --json - the JSON owns stdout and the text report goes to stderr. */
    rc = finish_run(&cfg, &cfg, &res, mon ? &server : NULL, &net, live.m);
    metrics_stop(live.m);
    engine_result_free(&res);
    monitor_result_free(&server);
    config_free(&cfg);
    return rc;
}
