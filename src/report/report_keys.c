/* report_keys.c - the tables of the result JSON's plain objects (see
 * report_keys.h) and the checked reader's loop over them; the writer's is
 * report_json.c's. A key is typed here once, for both. */
#include "report_keys.h"
#include "config.h"
#include "figures.h"
#include "machine.h"
#include "monitor.h"
#include "result.h"

#include <math.h>
#include <string.h>

/* A row's place in struct st, refused by the compiler unless field is a T
 * (the conditional's pointers must agree). */
#define AT(st, field, T) .off = offsetof(struct st, field) + 0 * sizeof(1 ? (T *)0 : &((struct st *)0)->field)
#define COUNT(st, field, k, fl) { .key = k, .type = RK_COUNT, .flags = fl, AT(st, field, uint64_t) }
#define U32(st, field, k, l, h, fl) { .key = k, .type = RK_U32, .flags = fl, AT(st, field, uint32_t), .lo = l, .hi = h }
#define INT(st, field, k, l, h, fl) { .key = k, .type = RK_INT, .flags = fl, AT(st, field, int), .lo = l, .hi = h }
#define LL(st, field, k, l, h) { .key = k, .type = RK_LL, AT(st, field, long long), .lo = l, .hi = h }
#define NUM(st, field, k, fm, l, h, fl) \
    { .key = k, .type = RK_NUM, .flags = fl, .fmt = fm, AT(st, field, double), .lo = l, .hi = h }
#define US(st, field, k, u) { .key = k, .type = RK_US, .unit = u, AT(st, field, double) }
#define BOOL(st, field, k) { .key = k, .type = RK_BOOL, AT(st, field, int) }
#define TRI(st, field, k) { .key = k, .type = RK_TRI, AT(st, field, int) }
#define STR(st, field, k, fl)                                                                                        \
    { .key = k, .type = RK_STR, .flags = fl, .off = offsetof(struct st, field) +                                   \
      0 * sizeof(1 ? (char *)0 : ((struct st *)0)->field), .size = sizeof(((struct st *)0)->field) }
#define OBJ(st, field, k, T, t, fl) { .key = k, .type = RK_OBJ, .flags = fl, AT(st, field, struct T), .sub = &t }
#define FIG(k, f) { .key = k, .type = RK_FIG, .fig = f }
#define NS(st, field, k, fm, fl) { .key = k, .type = RK_NS, .flags = fl, .fmt = fm, AT(st, field, uint64_t) }
#define ENUM(st, field, k, w, a, o, fl)                                                                              \
    { .key = k, .type = RK_ENUM, .flags = fl, AT(st, field, int), .words = w,                                        \
      .nwords = sizeof(w) / sizeof(w[0]), .absent = a, .other = o }
/* A row written only when the config's member `field` is set (RK_IF, RK_IF_PTR). */
#define IF_CFG(fl, field) .flags = fl, .when = offsetof(struct config, field)
#define TABLE(var, name, rows) const struct report_keys var = { name, rows, sizeof(rows) / sizeof(rows[0]) }

/* rafale replay's log: its lines replayed or skipped, by reason (the
 * first line of each, 1-based: FILE:LINE with config.replay.log). */
static const struct report_key replay_rows[] = {
    COUNT(replay_tally, lines, "lines", RK_REQ),
    COUNT(replay_tally, replayed, "replayed", RK_REQ),
    COUNT(replay_tally, before, "before_from", 0),
    U32(replay_tally, passes, "passes", 0, 4294967295.0, 0),
    FIG("skipped_methods", RKF_SKIPPED_METHODS),
    COUNT(replay_tally, skip_other, "skipped_other_methods", 0),
    COUNT(replay_tally, bad, "unparseable", 0),
    COUNT(replay_tally, bad_line, "unparseable_first_line", 0),
    COUNT(replay_tally, control, "control", 0),
    COUNT(replay_tally, control_line, "control_first_line", 0),
    COUNT(replay_tally, too_long, "too_long", 0),
    COUNT(replay_tally, long_line, "too_long_first_line", 0),
    COUNT(replay_tally, late, "out_of_order", 0),
    NUM(replay_tally, span_s, "log_span_s", "%.6f", 0, MAX_SECONDS, 0),
    INT(replay_tally, read_error, "read_errno", 0, 4095, 0),
};
TABLE(report_keys_replay, "replay", replay_rows);

/* A histogram's summary (its buckets follow by hand: report_json.c's
 * jhist_open, report_load.c's load_hist). */
static const struct report_key hist_rows[] = {
    COUNT(report_hist_head, count, "count", RK_REQ),
    US(report_hist_head, min_us, "min_us", RK_IN_US),
    US(report_hist_head, mean_us, "mean_us", RK_IN_US),
    US(report_hist_head, stdev_us, "stdev_us", RK_IN_US),
    US(report_hist_head, max_us, "max_us", RK_IN_US),
};
TABLE(report_keys_hist, NULL, hist_rows);

/* The idle probe before the load (client/probe.c). */
static const struct report_key probe_target_rows[] = {
    COUNT(probe_target, answered, "answered", RK_REQ),
    { .key = "latency_p50_us", .type = RK_US, .unit = RK_IN_NS, .flags = RK_REQ, AT(probe_target, p50_ns, double) },
    US(probe_target, min_ns, "latency_min_us", RK_IN_NS),
};
TABLE(report_keys_probe_target, "targets", probe_target_rows);

static const struct report_key probe_rows[] = {
    COUNT(run_probe, sent, "requests", RK_REQ), /* first: the answers and failures are not more (report_load.c) */
    COUNT(run_probe, answered, "answered", RK_REQ),
    COUNT(run_probe, failed, "failed", 0),
    COUNT(run_probe, bad, "bad", 0),
    NUM(run_probe, elapsed_s, "elapsed_s", "%.6f", 0, MAX_SECONDS, 0),
    { .key = "latency_p50_us", .type = RK_US, .unit = RK_IN_NS, .flags = RK_REQ, AT(run_probe, p50_ns, double) },
    US(run_probe, min_ns, "latency_min_us", RK_IN_NS),
    FIG("targets", RKF_PROBE_TARGETS),
};
TABLE(report_keys_probe, "probe", probe_rows);

/* What the run's intervals rest on (the figures' own are beside them). */
static const struct report_key ci_rows[] = {
    FIG("level", RKF_LEVEL),
    U32(run_ci, batches, "batches", 1, 1e9, RK_REQ),
    NUM(run_ci, batch_s, "batch_s", "%.6f", 0, MAX_SECONDS, RK_REQ),
    FIG("covers", RKF_CI_COVERS),
};
TABLE(report_keys_ci, "intervals", ci_rows);

/* What else ran on the machine meanwhile (null: not measured). */
static const struct report_key noise_rows[] = {
    FIG("foreign_cpu_pct", RKF_FOREIGN_CPU),
    FIG("steal_pct", RKF_STEAL),
    FIG("nr_throttled", RKF_THROTTLED),
};
TABLE(report_keys_noise, "noise", noise_rows);

/* What the findings said, and the checks (--check, # check:). */
static const char *const severity_words[] = { "info", "warning" };

static const struct report_key finding_rows[] = {
    STR(finding, id, "id", RK_REQ),
    ENUM(finding, warning, "severity", severity_words, 0, 0, RK_REQ | RK_STRICT),
    STR(finding, summary, "summary", RK_REQ),
    FIG("evidence", RKF_EVIDENCE),
    STR(finding, advice, "advice", 0),
};
TABLE(report_keys_finding, "findings", finding_rows);

static const struct report_key check_rows[] = {
    FIG("target", RKF_CHECK_TARGET),
    FIG("target_index", RKF_CHECK_INDEX),
    STR(run_check, text, "check", RK_REQ),
    COUNT(run_check, passed, "passed", RK_REQ),
    COUNT(run_check, failed, "failed", RK_REQ),
    FIG("first_failure", RKF_FIRST_FAILURE),
};
TABLE(report_keys_check, "checks", check_rows);

/* The run's configuration: the options' table gives most of its keys
 * (RKF_OPTIONS); the rest are here. The words are the options' values. */
static const char *const arrival_words[] = { "uniform", "poisson" };
static const char *const timestamps_words[] = { "kernel", "user" };
static const char *const order_words[] = { "per-connection", "sequential", "random", "session" }; /* order_mode */
static const char *const stages_of_words[] = { "rate", "connections" };

static const struct report_key config_rows[] = {
    FIG("urls", RKF_URLS),
    FIG("method", RKF_METHOD),
    { .type = RK_FIG, .flags = RK_MEMBERS, .fig = RKF_OPTIONS },
    FIG("body_bytes", RKF_BODY),
    FIG("headers", RKF_HEADERS),
    ENUM(config, poisson, "arrival", arrival_words, 0, 0, 0),
    FIG("expect", RKF_EXPECT),
    /* Results saved before kernel timestamps were user time. */
    ENUM(config, user_timestamps, "timestamps", timestamps_words, 1, 0, 0),
    ENUM(config, order_mode, "order", order_words, ORDER_DEFAULT, ORDER_DEFAULT, 0),
    FIG("targets", RKF_TARGETS),
    FIG("think_s", RKF_THINK),
    COUNT(config, max_body, "max_body", RK_KEEP),
    FIG("checks", RKF_CHECKS),
    { .key = "seed", .type = RK_COUNT, .flags = RK_WHEN | RK_KEEP, AT(config, seed, uint64_t),
      .when = offsetof(struct config, seed_given) },
    { .key = "stages_of", .type = RK_ENUM, IF_CFG(RK_IF, nstages), AT(config, stages_conns, int),
      .words = stages_of_words, .nwords = 2 },
    { .key = "stage_start", .type = RK_NUM, IF_CFG(RK_IF, nstages), .fmt = "%.3f", AT(config, stage_start, double),
      .hi = 1e8 },
    { .key = "stages", .type = RK_FIG, IF_CFG(RK_IF, nstages), .fig = RKF_STAGES },
    { .key = "content_type", .type = RK_FIG, IF_CFG(RK_IF_PTR, content_type), .fig = RKF_CONTENT_TYPE },
    { .type = RK_FIG, .flags = RK_MEMBERS, .fig = RKF_REPLAY },
};
TABLE(report_keys_config, "config", config_rows);

static const struct report_key stage_rows[] = {
    NS(report_stage, dur_ns, "duration_s", "%.9f", RK_REQ),
    NUM(report_stage, to, "to", "%.3f", 0, 1e8, RK_REQ),
};
TABLE(report_keys_stage, NULL, stage_rows);

/* A latency in microseconds: 0, or 1 ns to the 1 h clamp. */
double report_keys_us(struct jc *c, json_t *o, const char *key, int required)
{
    double v = jread_num(c, o, key, 0, MAX_US, required);
    if (!c->failed && v > 0 && v < MIN_US)
        jread_fail(c, key, "%g us is below 1 ns, the least latency a run records", v);
    return v;
}

/* A duration in seconds that can hold completed requests. */
double report_keys_elapsed(struct jc *c, json_t *o, const char *key, uint64_t completed, int required)
{
    double v = jread_num(c, o, key, 0, MAX_SECONDS, required);
    if (!c->failed && completed && v < (double)completed / MAX_RPS)
        jread_fail(c, key, "%g s cannot hold %llu requests (more than %.0e a second)", v,
                   (unsigned long long)completed, MAX_RPS);
    return v;
}

/* The tables. A run's own figures first. */

static const struct report_key client_rows[] = {
    NUM(run_figures, client_cpu_s, "cpu_s", "%.6f", 0, MAX_SECONDS, 0),
    /* -1: not told (a result saved before it was). */
    { .key = "all_connected_s", .type = RK_NUM, .fmt = "%.6f", AT(run_figures, all_connected_s, double), .lo = -1,
      .hi = MAX_SECONDS, .dflt = -1 },
};
TABLE(report_keys_client, "client", client_rows);

static const struct report_key conns_rows[] = {
    FIG("opened", RKF_OPENED),
    U32(run_figures, conns.clients, "clients", 0, 4294967295.0, 0),
    COUNT(run_figures, conns.req_min, "requests_min", 0),
    COUNT(run_figures, conns.req_median, "requests_median", 0),
    COUNT(run_figures, conns.req_max, "requests_max", 0),
    FIG("starved", RKF_STARVED),
    US(run_figures, conns.longest_wait_s, "longest_wait_us", RK_IN_S),
    US(run_figures, conns.starved_wait_s, "starved_wait_us", RK_IN_S),
    US(run_figures, conns.wait_limit_s, "wait_limit_us", RK_IN_S),
    COUNT(run_figures, conns.server_ended, "server_ended", 0),
    COUNT(run_figures, conns.ended_mode, "server_ended_mode", 0),
    COUNT(run_figures, conns.ended_mode_count, "server_ended_mode_count", 0),
};
TABLE(report_keys_conns, "connections", conns_rows);

static const struct report_key tcp_rows[] = {
    COUNT(run_figures, tcp.sampled, "sampled", 0),
    COUNT(run_figures, tcp.segs_out, "segments_out", 0),
    COUNT(run_figures, tcp.retrans, "retransmits", 0),
    FIG("rtt_mean_us", RKF_RTT_MEAN),
    FIG("rtt_min_us", RKF_RTT_MIN),
};
TABLE(report_keys_tcp, "tcp", tcp_rows);

static const struct report_key rate_rows[] = {
    NUM(run_figures, target_rate, "target_rps", "%.3f", 0, 1e8, 0),
    FIG("sent_rps", RKF_SENT_RPS),
    COUNT(run_figures, queued, "queued", 0),
    U32(run_figures, extra_connections, "extra_connections", 0, 10000000, 0),
};
TABLE(report_keys_rate, "rate", rate_rows);

static const struct report_key aborted_rows[] = {
    NUM(run_figures, aborted_at_s, "at_s", "%.3f", 0, MAX_SECONDS, RK_REQ),
    STR(run_figures, aborted_why, "why", RK_REQ),
};
TABLE(report_keys_aborted, "aborted", aborted_rows);

static const struct report_key gave_up_rows[] = {
    NUM(run_figures, gave_up_s, "after_s", "%.3f", 0, MAX_SECONDS, RK_REQ),
    STR(run_figures, gave_up_why, "why", RK_REQ),
};
TABLE(report_keys_gave_up, "gave_up", gave_up_rows);

static const struct report_key second_rows[] = {
    COUNT(tl_second, completed, "requests", RK_REQ),
    COUNT(tl_second, errors, "errors", 0),
    US(tl_second, p50_ns, "p50_us", RK_IN_NS),
    US(tl_second, p99_ns, "p99_us", RK_IN_NS),
    US(tl_second, max_ns, "max_us", RK_IN_NS),
};
TABLE(report_keys_second, NULL, second_rows);

static const struct report_key shard_rows[] = {
    U32(shard_info, index, "index", 0, 100000, RK_REQ), /* and below count (report_load.c) */
    U32(shard_info, count, "count", 1, 100000, RK_REQ),
    STR(shard_info, host, "host", 0),
    NUM(shard_info, start_unix_s, "start_unix_s", "%.6f", 0, 1e11, 0),
    NUM(shard_info, late_s, "late_s", "%.6f", 0, MAX_SECONDS, 0),
    U32(shard_info, threads, "threads", 0, 1024, 0),
};
TABLE(report_keys_shard, "shard", shard_rows);

static const struct report_key shard_run_rows[] = {
    COUNT(shard_info, completed, "requests", RK_REQ),
    COUNT(shard_info, errors, "errors", 0),
    FIG("elapsed_s", RKF_SHARD_ELAPSED),
    FIG("rps", RKF_SHARD_RPS),
    US(shard_info, p99_ns, "p99_us", RK_IN_NS),
    NUM(shard_info, client_cpu_s, "client_cpu_s", "%.6f", 0, MAX_SECONDS, 0),
};
TABLE(report_keys_shard_run, NULL, shard_run_rows);

/* The machine, and rafale calibrate's reference measured on one. */

static const struct report_key env_rows[] = {
    STR(machine, cpu_model, "cpu_model", 0),
    INT(machine, cpus_online, "cpus_online", 1, 1e6, RK_REQ),
    STR(machine, governor, "governor", RK_NULL_EMPTY),
    TRI(machine, boost, "boost"),
    STR(machine, kernel, "kernel", 0),
    STR(machine, version, "rafale_version", 0),
    STR(machine, build, "build", 0),
    LL(machine, somaxconn, "somaxconn", -1, 1e12),
    FIG("ip_local_port_range", RKF_PORTS),
};
TABLE(report_keys_env, "environment", env_rows);

static const struct report_key ref_rows[] = {
    NUM(machine_ref, when_unix_s, "when_unix_s", "%.0f", 0, 1e11, RK_REQ),
    STR(machine_ref, workload, "workload", RK_REQ),
    STR(machine_ref, pin, "pin", 0),
    NUM(machine_ref, rps, "rps", "%.1f", 0, 1e12, RK_REQ),
    FIG("rps_ci", RKF_REF_CI),
    US(machine_ref, p50_us, "p50_us", RK_IN_US),
    US(machine_ref, p99_us, "p99_us", RK_IN_US),
    OBJ(machine_ref, m, "environment", machine, report_keys_env, RK_REQ),
};
TABLE(report_keys_ref, "calibration", ref_rows);

/* The server's figures (--monitor). */

static const struct report_key server_rows[] = {
    INT(monitor_result, pid, "pid", 0, 2147483647.0, 0),
    STR(monitor_result, cgroup, "cgroup", 0),
    NUM(monitor_result, cpu_s, "cpu_s", "%.6f", 0, MAX_SECONDS, RK_REQ),
    BOOL(monitor_result, cpu_exact, "cpu_exact"),
    FIG("cpu_us_per_request", RKF_CPU_PER_REQUEST),
    BOOL(monitor_result, has_pss, "has_pss"),
    COUNT(monitor_result, pss_peak_bytes, "pss_peak_bytes", 0),
    COUNT(monitor_result, pss_mean_bytes, "pss_mean_bytes", 0),
    COUNT(monitor_result, uss_peak_bytes, "uss_peak_bytes", 0),
    COUNT(monitor_result, rss_peak_bytes, "rss_peak_bytes", 0),
    COUNT(monitor_result, rss_mean_bytes, "rss_mean_bytes", 0),
    COUNT(monitor_result, cg_memory_peak_bytes, "cgroup_memory_peak_bytes", 0),
    U32(monitor_result, processes, "processes", 0, 4294967295.0, 0),
    U32(monitor_result, threads, "threads", 0, 4294967295.0, 0),
    U32(monitor_result, samples, "samples", 0, 4294967295.0, 0),
    BOOL(monitor_result, gone, "exited"),
    NUM(monitor_result, cpus, "cpus", "%.3f", 0, 1e6, 0),
    BOOL(monitor_result, has_alone, "has_alone"),
    COUNT(monitor_result, alone_peak_bytes, "alone_peak_bytes", 0),
    COUNT(monitor_result, alone_mean_bytes, "alone_mean_bytes", 0),
    STR(monitor_result, pss_note, "pss_note", 0),
    { .key = "write_bytes", .type = RK_COUNT, .flags = RK_WHEN, AT(monitor_result, write_bytes, uint64_t),
      .when = offsetof(struct monitor_result, has_io) },
    { .key = "wchar_bytes", .type = RK_COUNT, .flags = RK_WHEN, AT(monitor_result, wchar, uint64_t),
      .when = offsetof(struct monitor_result, has_wchar) },
    /* (io_read_unix_s, an array, follows it by hand: report_json_server, report_load_server) */
    { .key = "syscw", .type = RK_COUNT, .flags = RK_WHEN, AT(monitor_result, syscw, uint64_t),
      .when = offsetof(struct monitor_result, has_syscw) },
};
TABLE(report_keys_server, "server", server_rows);

static const struct report_key proc_rows[] = {
    INT(monitor_proc, pid, "pid", 0, 2147483647.0, 0),
    INT(monitor_proc, ppid, "ppid", 0, 2147483647.0, 0),
    STR(monitor_proc, command, "command", 0),
    NUM(monitor_proc, cpu_s, "cpu_s", "%.6f", 0, MAX_SECONDS, 0),
    COUNT(monitor_proc, rss_peak_bytes, "rss_peak_bytes", 0),
    COUNT(monitor_proc, pss_peak_bytes, "pss_peak_bytes", 0),
    COUNT(monitor_proc, uss_peak_bytes, "uss_peak_bytes", 0),
    COUNT(monitor_proc, alone_peak_bytes, "alone_peak_bytes", 0),
    NUM(monitor_proc, first_seen_s, "first_seen_s", "%.3f", 0, MAX_SECONDS, 0),
    BOOL(monitor_proc, exited, "exited"),
};
TABLE(report_keys_proc, "tree", proc_rows);

static const struct report_key point_rows[] = {
    NUM(monitor_point, t_s, "t_s", "%.3f", 0, MAX_SECONDS, RK_REQ),
    COUNT(monitor_point, pss_bytes, "pss_bytes", 0),
    COUNT(monitor_point, alone_bytes, "alone_bytes", 0),
    COUNT(monitor_point, rss_bytes, "rss_bytes", 0),
    U32(monitor_point, processes, "processes", 0, 4294967295.0, 0),
    U32(monitor_point, threads, "threads", 0, 4294967295.0, 0),
};
TABLE(report_keys_point, "memory_timeline", point_rows);

/* An RK_US value from microseconds (report_json.c writes it back). */
static double us_to(const struct report_key *k, double us)
{
    return k->unit == RK_IN_S ? us / 1e6 : k->unit == RK_IN_NS ? us * 1e3 : us;
}

/* replay.skipped_methods: {"POST": n, ...}, each a method (a token, as
 * rafale writes them); past the tally's room, counted as the others. */
static void read_methods(struct jc *c, json_t *a, const char *key, struct replay_tally *t)
{
    const char *m;
    json_t *v;
    if (a == NULL)
        return;
    if (!json_is_object(a)) {
        jread_fail(c, key, "not an object");
        return;
    }
    json_object_foreach(a, m, v) {
        size_t n = strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_");
        uint64_t k = jread_count(c, a, m, 1);
        if (n == 0 || m[n] || n >= sizeof(t->skip_method[0])) {
            jread_fail(c, key, "'%.40s' is not a method", m);
            return;
        }
        if (t->nskip == REPLAY_SKIP_METHODS) {
            t->skip_other += k;
            continue;
        }
        memcpy(t->skip_method[t->nskip], m, n + 1);
        t->skip_count[t->nskip++] = k;
    }
}

/* The probe's targets: 1 to PROBE_TARGETS of them. */
static void read_probe_targets(struct jc *c, json_t *o, const char *key, struct run_probe *p)
{
    json_t *arr = jread_arr(c, o, key, 1), *e;
    size_t i;
    if (arr == NULL || c->failed)
        return;
    if (json_array_size(arr) == 0 || json_array_size(arr) > PROBE_TARGETS) {
        jread_fail(c, key, "1 to %d of them", PROBE_TARGETS);
        return;
    }
    json_array_foreach(arr, i, e) {
        size_t at = jread_enter(c, "%s[%zu]", key, i);
        report_keys_read(c, e, &report_keys_probe_target, &p->target[i]);
        jread_leave(c, at);
    }
    p->ntargets = (uint32_t)json_array_size(arr);
}

/* A finding's evidence: each figure a finite number (null: one that
 * could not be had, skipped), as many as it holds. */
static void read_evidence(struct jc *c, json_t *o, const char *key, struct finding *f)
{
    json_t *ev = jread_obj(c, o, key, 0), *v;
    const char *k;
    if (ev == NULL)
        return;
    json_object_foreach(ev, k, v) {
        if (f->nev == FINDING_EV_MAX)
            break;
        if (json_is_null(v))
            continue;
        if (!json_is_number(v) || !isfinite(json_number_value(v))) {
            jread_fail(c, k, "not a number");
            break;
        }
        jread_copy(f->ev[f->nev].key, sizeof(f->ev[f->nev].key), k);
        f->ev[f->nev++].v = json_number_value(v);
    }
}

/* The RK_FIG rows read back (the others are not). */
static void read_fig(struct jc *c, json_t *o, const char *key, enum report_key_fig fig, void *base)
{
    struct run_figures *r = base;
    struct machine *m = base;
    struct machine_ref *ref = base;
    struct shard_info *sh = base;
    struct run_check *ck = base;
    struct machine_noise *no = base;
    json_t *a = json_object_get(o, key);
    double mn;
    switch (fig) {
    case RKF_STARVED:
        r->conns.starved = (uint32_t)jread_num(c, o, key, 0, r->conns.clients, 0);
        break;
    case RKF_RTT_MEAN:
        r->tcp.rtt_sum_us = report_keys_us(c, o, key, 0) * (double)r->tcp.sampled;
        break;
    case RKF_RTT_MIN:
        mn = report_keys_us(c, o, key, 0);
        r->tcp.min_rtt_us = mn > 0 ? (uint32_t)mn : UINT32_MAX;
        break;
    case RKF_SHARD_ELAPSED:
        sh->elapsed_s = report_keys_elapsed(c, o, key, sh->completed, 0);
        break;
    case RKF_PORTS:
        /* Two integers, or unknown (-1 both). */
        m->port_lo = m->port_hi = -1;
        if (json_is_array(a) && json_array_size(a) == 2 && json_is_integer(json_array_get(a, 0)) &&
            json_is_integer(json_array_get(a, 1))) {
            m->port_lo = json_integer_value(json_array_get(a, 0));
            m->port_hi = json_integer_value(json_array_get(a, 1));
        }
        break;
    case RKF_REF_CI:
        /* [low, high] with 0 <= low <= high, or unknown (NaN both). */
        ref->rps_ci[0] = ref->rps_ci[1] = NAN;
        if (json_is_array(a) && json_array_size(a) == 2 && json_is_number(json_array_get(a, 0)) &&
            json_is_number(json_array_get(a, 1))) {
            ref->rps_ci[0] = json_number_value(json_array_get(a, 0));
            ref->rps_ci[1] = json_number_value(json_array_get(a, 1));
            if (!(ref->rps_ci[0] >= 0 && ref->rps_ci[0] <= ref->rps_ci[1] && ref->rps_ci[1] <= 1e12))
                jread_fail(c, key, "wants [low, high] with 0 <= low <= high");
        }
        break;
    case RKF_SKIPPED_METHODS:
        read_methods(c, a, key, base);
        break;
    case RKF_EVIDENCE:
        read_evidence(c, o, key, base);
        break;
    case RKF_PROBE_TARGETS:
        read_probe_targets(c, o, key, base);
        break;
    case RKF_FOREIGN_CPU: /* its number says the noise was measured */
        if ((no->known = json_is_number(a)) != 0)
            no->foreign_cpu_pct = jread_num(c, o, key, 0, 100000, 0);
        break;
    case RKF_STEAL:
        if (no->known)
            no->steal_pct = jread_num(c, o, key, 0, 100000, 0);
        break;
    case RKF_THROTTLED:
        no->nr_throttled = json_is_number(a) ? (long long)jread_num(c, o, key, 0, 1e15, 0) : -1;
        break;
    case RKF_CHECK_INDEX:
        ck->target = (uint32_t)jread_num(c, o, key, 0, ck->target, 1);
        break;
    case RKF_FIRST_FAILURE:
        if (json_is_string(a))
            jread_copy(ck->first_failure, sizeof(ck->first_failure), jread_str(c, o, key, 0));
        break;
    default:
        break; /* worked out from others: nothing to read */
    }
}

/* An RK_ENUM row: its word's index. */
static int read_enum(struct jc *c, json_t *o, const struct report_key *k)
{
    const char *s = jread_str(c, o, k->key, k->flags & RK_REQ);
    int i;
    if (s == NULL)
        return k->absent;
    for (i = 0; i < k->nwords; i++)
        if (strcmp(s, k->words[i]) == 0)
            return i;
    if (k->flags & RK_STRICT) /* two words, said last first */
        jread_fail(c, k->key, "neither %s nor %s", k->words[1], k->words[0]);
    return k->other;
}

void report_keys_read(struct jc *c, json_t *o, const struct report_keys *t, void *base)
{
    report_keys_read_by(c, o, t, base, NULL);
}

void report_keys_read_by(struct jc *c, json_t *o, const struct report_keys *t, void *base, report_keys_fig_fn *fig)
{
    char *b = base;
    size_t i;
    for (i = 0; i < t->n; i++) {
        const struct report_key *k = &t->row[i];
        void *v = b + k->off;
        int req = k->flags & RK_REQ;
        json_t *j = k->key ? json_object_get(o, k->key) : NULL, *sub;
        size_t at;
        if (k->flags & RK_WHEN)
            *(int *)(void *)(b + k->when) = j != NULL;
        if ((k->flags & RK_KEEP) && j == NULL)
            continue;
        switch ((enum report_key_type)k->type) {
        case RK_COUNT:
            *(uint64_t *)v = jread_count(c, o, k->key, req);
            break;
        case RK_U32:
            *(uint32_t *)v = (uint32_t)jread_num(c, o, k->key, k->lo, k->hi, req);
            break;
        case RK_INT:
            *(int *)v = (int)jread_num(c, o, k->key, k->lo, k->hi, req);
            break;
        case RK_LL:
            *(long long *)v = (long long)jread_num(c, o, k->key, k->lo, k->hi, req);
            break;
        case RK_NUM:
            *(double *)v = j == NULL && !req ? k->dflt : jread_num(c, o, k->key, k->lo, k->hi, req);
            break;
        case RK_US:
            *(double *)v = us_to(k, report_keys_us(c, o, k->key, req));
            break;
        case RK_BOOL:
            *(int *)v = jread_bool(c, o, k->key);
            break;
        case RK_TRI:
            *(int *)v = j == NULL || json_is_null(j) ? -1 : jread_bool(c, o, k->key);
            break;
        case RK_STR:
            jread_copy(v, k->size, jread_str(c, o, k->key, req));
            break;
        case RK_OBJ:
            if ((sub = jread_obj(c, o, k->key, req)) != NULL) {
                at = jread_enter(c, "%s", k->key);
                report_keys_read(c, sub, k->sub, v);
                jread_leave(c, at);
            }
            break;
        case RK_NS:
            *(uint64_t *)v = jread_ns(c, o, k->key, req);
            break;
        case RK_ENUM:
            *(int *)v = read_enum(c, o, k);
            break;
        case RK_FIG:
            if (fig)
                fig(c, o, k, base);
            else
                read_fig(c, o, k->key, (enum report_key_fig)k->fig, base);
            break;
        }
    }
}
