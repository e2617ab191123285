/* compare.h - `rafale compare`: several servers, the same workloads, runs
 * interleaved, each server's CPU and memory watched, one table and one HTML
 * report. The plan comes from a small hand-editable file:
 *
 *   [settings]            repeat = 3, warmup = 1s, grace = 3s, ready-timeout = 15s,
 *                         server-cpus = 0, client-cpus = 1, threads = 1
 *   [server NAME]         start = COMMAND (run by sh) | pid = PID,
 *                         url = http://127.0.0.1:8080, dir = DIR,
 *                         env = NAME=VALUE (repeatable), ready = /path
 *   [workload NAME]       path = /, connections = 50, duration = 5s,
 *                         requests = N, close = yes|no, rate = R
 *
 * '#' starts a comment; unknown sections or keys are errors with their line. */
#ifndef RAFALE_COMPARE_H
#define RAFALE_COMPARE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define CMP_MAX 16
#define CMP_ENV 16

struct cmp_server {
    char name[64];
    char *start;            /* shell command, or NULL with pid */
    int pid;                /* attach to this process instead of starting one */
    char *url;              /* base URL, e.g. http://127.0.0.1:8080 */
    char *dir;
    char *env[CMP_ENV];
    int nenv;
    char *ready;            /* path to GET until it answers, or NULL: TCP connect */
};

struct cmp_workload {
    char name[64];
    char *path;
    uint32_t connections;
    uint64_t duration_ns;
    uint64_t requests;
    int close;
    double rate;
};

struct cmp_plan {
    struct cmp_server servers[CMP_MAX];
    int nservers;
    struct cmp_workload workloads[CMP_MAX];
    int nworkloads;
    int repeat;
    uint64_t warmup_ns;
    uint64_t grace_ns;
    uint64_t ready_ns;      /* how long a server may take to answer after start */
    int server_cpus[64], nserver_cpus;
    int client_cpus[64], nclient_cpus;
    uint32_t threads;
};

/* Parses the compare file. Returns 0, or -1 with "FILE:LINE: reason" in err. */
int cmp_parse(const char *path, struct cmp_plan *p, char *err, size_t errlen);
void cmp_plan_free(struct cmp_plan *p);
/* Parses a CPU list ("0", "0,2", "1-3") into out (at most 64). Returns 0 or -1. */
int cmp_cpu_list(const char *v, int *out, int *n);

/* One (workload, server) cell of the results. */
struct cmp_cell {
    double rps[16];          /* per repetition */
    double cpu_runs[16];     /* server CPU us per request, per repetition */
    double rps_median;
    int runs;
    double p50_ns, p99_ns;   /* of the merged repetitions */
    uint64_t errors, completed;
    double server_cpu_us;    /* per request, median over repetitions; <0 unknown */
    uint64_t rss_peak;
    int client_bound;        /* rafale's own CPU was saturated in some run */
    struct hist lat;         /* merged latency of all repetitions */
};

struct cmp_result {
    struct cmp_cell cells[CMP_MAX][CMP_MAX];   /* [workload][server] */
    int failed[CMP_MAX];                       /* server could not be used */
    char failure[CMP_MAX][512];                /* why, with its last stderr lines */
    int interrupted;
};

typedef void (*cmp_log_fn)(const char *line, void *arg);

/* Runs the plan. log receives one line per run as it ends. Returns 0 (the
 * result may hold failed servers), or -1 with a reason in err. Every server
 * started is stopped before it returns, even when *stop was set. */
int cmp_run(const struct cmp_plan *p, const struct config *base, const atomic_int *stop, cmp_log_fn log, void *arg,
            struct cmp_result *out, char *err, size_t errlen);
void cmp_result_free(struct cmp_result *r, const struct cmp_plan *p);

/* Text tables, a self-contained HTML page, JSON. */
void cmp_print(FILE *f, const struct cmp_plan *p, const struct cmp_result *r);
int cmp_html(FILE *f, const struct cmp_plan *p, const struct cmp_result *r);
int cmp_json(FILE *f, const struct cmp_plan *p, const struct cmp_result *r);

#endif
