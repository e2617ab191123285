/* cmd_mpi.c - rafale-mpi's run (built with -DRAFALE_MPI, mpi_glue.h): each
 * rank one shard of the run; rank 0 prints the one merged report and
 * writes the one --json/--html. */
#ifdef RAFALE_MPI
#include "err.h"
#include "cmd.h"
#include "cli.h"
#include "engine.h"
#include "findings.h"
#include "merge.h"
#include "observed.h"
#include "shard.h"
#include "mpi_glue.h"
#include "net.h"
#include "outputs.h"
#include "progress.h"
#include "report.h"
#include "stop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rafale-mpi, rank 0: every rank's result (JSON, as gathered), merged
 * exactly into the one report. Returns the exit status. */
static int mpi_report(struct config *cfg, int size, char **jsons, size_t *lens, char **whys)
{
    char err[512];
    int rc = 0, i;
    static struct run_result mr; /* 20 KiB of findings: off the stack */
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
        if (!cfg->no_findings) {
            findings_eval(&mr, &mr.found);
            mr.has_findings = 1;
        }
        rc = outputs_finish(cfg, &mr, NULL);
        result_free(&mr);
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

/* The command line, as every rank reads it: 0, 2 for a usage error (err
 * says it), -1 when it asked for no run (--help, --version). */
static int mpi_args(const struct cmd *all, int argc, char **argv, struct config *cfg, char *err, size_t errlen,
                    char *notes, size_t nlen)
{
    if (argc > 1 && cmd_find(all, argv[1]) && !cmd_find(all, argv[1])->mpi) {
        err_set(err, errlen, NULL, "rafale-mpi runs load tests; use rafale for '%s'", argv[1]);
        return 2;
    }
    switch (cli_parse(argc, argv, 0, cfg, err, errlen, notes, nlen)) {
    case CLI_HELP:
        cmd_usage(stdout, all);
        /* fall through */
    case CLI_EXIT:
        return -1;
    case CLI_ERROR:
        return 2;
    case CLI_OK:
        break;
    }
    if (cfg->shard_count) {
        err_set(err, errlen, NULL, "--shard is MPI's to set under rafale-mpi (rank and size)");
        return 2;
    }
    if (outputs_stdout(cfg->out, err, errlen) != 0)
        return 2; /* every rank reads the same command line: a usage error, 2 on each */
    return 0;
}

/* This rank's share of the run, checked before any load: 0, or -1 (err
 * says why; the rank's exit status is 1). */
static int mpi_share(const struct mpig *m, struct config *cfg, struct config *share, char *err, size_t errlen)
{
    uint64_t want = cmd_open_files(cfg);
    cfg->shard_index = (uint32_t)m->rank;
    cfg->shard_count = (uint32_t)m->size;
    if (m->rank != 0) {
        /* The server and the outputs are rank 0's. */
        cfg->monitor_pid = 0;
        cfg->monitor_cgroup = NULL;
        cfg->out[OUT_JSON] = cfg->out[OUT_CSV] = cfg->out[OUT_HDR] = cfg->out[OUT_HTML] = NULL;
    }
    /* Rank 0's outputs, checked before any load. Its exit status is
     * every rank's 1, as for a preflight that failed: mpiexec would
     * merge a 2 on rank 0 and a 1 elsewhere into 3, an SLO's. */
    if (outputs_ready(cfg->out, 0, err, errlen) != 0)
        return -1;
    if (net_raise_nofile(want) < want) {
        err_set(err, errlen, NULL, "%u connections need %llu open files, more than the limit: raise it with "
                "'ulimit -n %llu'", cfg->connections, (unsigned long long)want, (unsigned long long)want);
        return -1;
    }
    /* A rank that cannot resolve or reach the server says so before
     * anything is sent, rather than run on errors alone. */
    if (shard_apply(cfg, share, err, errlen) != 0 || engine_preflight(share, 1, err, errlen) != 0)
        return -1;
    return 0;
}

/* rafale-mpi ARGS under mpiexec (or srun): each rank one shard of the run;
 * rank 0 prints the one merged report and writes the one --json/--html. */
int cmd_mpi(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    (void)self;
    struct mpig m;
    struct config cfg;
    struct config share;
    static struct run_result ob; /* 20 KiB of findings: off the stack */
    struct observed_in in = { 0 };
    struct progress prog;
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
    rc = mpi_args(all, argc, argv, &cfg, err, sizeof(err), notes, sizeof(notes));
    if (rc < 0) {
        config_free(&cfg);
        mpig_end(&m);
        return 0;
    }
    ok = rc == 0 && mpi_share(&m, &cfg, &share, err, sizeof(err)) == 0;
    if (!ok && rc == 0)
        rc = 1;
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
    stop_catch(1);
    progress_init(&prog, stderr, &cfg);
    m.prog = m.rank == 0 ? &prog : NULL;
    share.start_at = cfg.start_at;
    in.cfg = &cfg;
    in.share = &share;
    in.stop = stop_flag();
    in.progress = cfg.quiet ? NULL : mpig_progress;
    in.arg = &m;
    /* Rank 0's monitor, when it can (said in the report otherwise: no
     * server figures); the host counters and findings come after the merge. */
    in.monitor_pid = m.rank == 0 ? (int)cfg.monitor_pid : 0;
    in.monitor_cgroup = m.rank == 0 ? cfg.monitor_cgroup : NULL;
    in.no_netstat = 1;
    if (observed_run(&in, &ob, err, sizeof(err)) == 0) {
        FILE *f = open_memstream(&json, &jlen);
        ran = 1;
        if (f == NULL || report_json(f, &ob) != 0 ||
            fclose(f) != 0) {
            err_set(err, sizeof(err), NULL, "out of memory for its result");
            free(json);
            json = NULL;
        }
    }
    if (m.rank == 0)
        progress_done(&prog);
    mpig_gather(&m, json, jlen, err, &jsons, &lens, &whys);
    if (m.rank == 0)
        rc = mpi_report(&cfg, m.size, jsons, lens, whys);
    if (ran)
        result_free(&ob);
    free(json);
    config_free(&cfg);
    mpig_end(&m);
    return rc;
}
#endif
