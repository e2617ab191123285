/* report_keys.h - the result JSON's plain objects as tables, private to
 * src/report/: a row per member (its key, where its value lives, how it is
 * written, the range it is read back in), so the writer (report_json_keys.c,
 * for report_json.c) and the reader (report_keys_read, for report_load*.c)
 * loop over the same rows and a key is typed once. The counters have
 * theirs (counters.h); the objects with variable keys (status, errors,
 * percentiles), a histogram's buckets, the per-URL and per-stage entries,
 * precision and the result's own top level are still written by hand.
 *
 * Adding a member is a row of its table (report_keys.c); a figure worked
 * out from others, or not one number, is an RK_FIG row: its case in
 * report_json_keys.c's writer and, when read back, in report_keys.c's
 * reader (the config's: report_load_config.c's, by report_keys_read_by).
 * Its key is a contract (see the README): add keys, never rename one. */
#ifndef RAFALE_REPORT_KEYS_H
#define RAFALE_REPORT_KEYS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jread.h"

#define MAX_US (3600.0 * 1e6 * 1.01)  /* latencies are clamped at 1 h */
/* The histogram keeps whole nanoseconds and the writer prints microseconds
 * to 3 decimals: a latency is 0 or 1 ns and more. Less came from no run, and
 * its logarithm (diff's intervals) runs off towards infinity. */
#define MIN_US 0.001
/* A run's duration must hold its requests at a rate no run reaches: 10^9
 * a second, a request a nanosecond, is thousands of times what rafale does
 * on a core and far above many machines' merged shards; below it, a
 * duration like 5e-324 s would make the throughput infinite. */
#define MAX_RPS 1e9

/* What a row's value is in its struct, and so how it is written and read. */
enum report_key_type {
    RK_COUNT, /* uint64_t, %llu; a whole number from 0 to 2^53 */
    RK_U32,   /* uint32_t, %u; in [lo, hi] */
    RK_INT,   /* int, %d; in [lo, hi] */
    RK_LL,    /* long long, %lld; in [lo, hi] */
    RK_NUM,   /* double, fmt; in [lo, hi] */
    RK_US,    /* double in unit, written in us %.3f; 0, or 1 ns to the 1 h clamp */
    RK_BOOL,  /* int, true or false */
    RK_TRI,   /* int: 1 true, 0 false, -1 null (unknown) */
    RK_STR,   /* char[size], a JSON string (RK_NULL_EMPTY: null when "") */
    RK_OBJ,   /* a struct holding the rows of sub, an object */
    RK_NS,    /* uint64_t ns, written in seconds with fmt; read as seconds (required or not) */
    RK_ENUM,  /* int indexing words[n], written as its word; read: absent -> absent, not a word -> other */
    RK_FIG    /* figure fig: written and read by its own code */
};

/* The RK_FIG rows' figures (their struct in brackets). */
enum report_key_fig {
    RKF_OPENED,          /* connections.opened: summary.connections_opened again, not read [run_figures] */
    RKF_STARVED,         /* connections.starved: up to clients [run_figures] */
    RKF_RTT_MEAN,        /* tcp.rtt_mean_us: rtt_sum_us / sampled [run_figures] */
    RKF_RTT_MIN,         /* tcp.rtt_min_us: 0 for none [run_figures] */
    RKF_SENT_RPS,        /* rate.sent_rps, not read [run_figures] */
    RKF_SHARD_ELAPSED,   /* a shard's elapsed_s, which must hold its requests [shard_info] */
    RKF_SHARD_RPS,       /* a shard's rps, not read [shard_info] */
    RKF_PORTS,           /* environment.ip_local_port_range: [lo, hi] [machine] */
    RKF_REF_CI,          /* calibration.rps_ci: [lo, hi] or null [machine_ref] */
    RKF_CPU_PER_REQUEST, /* server.cpu_us_per_request, not read [monitor_result; ctx: completed] */
    RKF_SKIPPED_METHODS, /* replay.skipped_methods: {"POST": n, ...} [replay_tally] */
    RKF_PROBE_TARGETS,   /* the probe's targets, report_keys_probe_target objects [run_probe] */
    RKF_LEVEL,           /* intervals.level: 0.95, not read [run_ci] */
    RKF_CI_COVERS,       /* intervals.covers: what they cover, in words, not read [run_ci] */
    RKF_FOREIGN_CPU,     /* noise.foreign_cpu_pct, null when not measured; its number says it was [machine_noise] */
    RKF_STEAL,           /* noise.steal_pct, null when not measured (read only when it was) [machine_noise] */
    RKF_THROTTLED,       /* noise.nr_throttled, null (-1) when not read [machine_noise] */
    RKF_EVIDENCE,        /* a finding's {"figure": number, ...}, null ones skipped [finding] */
    RKF_CHECK_TARGET,    /* a check's target, labelled, not read [run_check; ctx: config] */
    RKF_CHECK_INDEX,     /* a check's target_index: read in [0, the target the caller left there] [run_check] */
    RKF_FIRST_FAILURE,   /* what a failing check's first failure had, null when none failed [run_check] */
    /* The config's [config], read by report_load_config.c's report_load_config_fig. */
    RKF_URLS,            /* the URLs as typed, required */
    RKF_METHOD,          /* the run's method, a token, required */
    RKF_OPTIONS,         /* RK_MEMBERS: every option the options' table gives a key (opt_json_write) */
    RKF_BODY,            /* body_bytes: the body's length, 0 for none */
    RKF_HEADERS,         /* the -H lines */
    RKF_EXPECT,          /* --expect's status list */
    RKF_TARGETS,         /* --targets FILE, or null */
    RKF_THINK,           /* --think's [low, high] seconds */
    RKF_CHECKS,          /* the --check expressions */
    RKF_STAGES,          /* --stages: each a report_keys_stage object */
    RKF_CONTENT_TYPE,    /* -T */
    RKF_REPLAY           /* RK_MEMBERS: rafale replay's (report_replay.c) */
};

/* An RK_US value's unit in its struct. */
enum report_key_unit { RK_IN_US, RK_IN_S, RK_IN_NS };

/* Row flags. */
#define RK_REQ 1        /* the reader wants it (absent is an error) */
#define RK_NULL_EMPTY 2 /* RK_STR: "" is written null */
#define RK_WHEN 4       /* written when the int at `when` is set; read: set it to whether the key is there */
#define RK_IF 8         /* written when the uint32_t at `when` is not 0 (the reader reads it anyway) */
#define RK_IF_PTR 16    /* written when the pointer at `when` is not NULL (the reader reads it anyway) */
#define RK_KEEP 32      /* read: absent leaves the value as it was (a default) */
#define RK_MEMBERS 64   /* RK_FIG: writes members of its own, each after ", ", and has no key */
#define RK_STRICT 128   /* RK_ENUM: a string not among the words is an error */

struct report_keys;
struct report_key {
    const char *key;
    uint8_t type, unit;
    uint16_t flags;
    const char *fmt;  /* RK_NUM's */
    size_t off, size; /* the value's place in the struct; RK_STR: its room */
    double lo, hi;    /* RK_U32, RK_INT, RK_LL, RK_NUM: the reader's range */
    double dflt;      /* RK_NUM: the value when the key is absent */
    size_t when;      /* RK_WHEN: the int's place */
    const struct report_keys *sub; /* RK_OBJ */
    uint8_t fig;                   /* RK_FIG: enum report_key_fig */
    const char *const *words;      /* RK_ENUM: the values' words, by value */
    int8_t nwords, absent, other;  /* RK_ENUM: how many; the value when absent, when not a word */
};

/* A table: its object's key where one table makes it, and its rows in
 * the order they are written. */
struct report_keys {
    const char *name;
    const struct report_key *row;
    size_t n;
};

/* A reader of a table's RK_FIG rows of its own (report_keys_read_by). */
typedef void report_keys_fig_fn(struct jc *c, json_t *o, const struct report_key *k, void *base);

/* The tables (report_keys.c). Their struct, in brackets. */
extern const struct report_keys report_keys_client;    /* "client" [run_figures] */
extern const struct report_keys report_keys_conns;     /* "connections" [run_figures] */
extern const struct report_keys report_keys_tcp;       /* "tcp" [run_figures] */
extern const struct report_keys report_keys_rate;      /* "rate" [run_figures] */
extern const struct report_keys report_keys_aborted;   /* "aborted" [run_figures] */
extern const struct report_keys report_keys_gave_up;   /* "gave_up" [run_figures] */
extern const struct report_keys report_keys_second;    /* a "timeline" entry after t_s [tl_second] */
extern const struct report_keys report_keys_shard;     /* "shard", a "shards" entry [shard_info] */
extern const struct report_keys report_keys_shard_run; /* a "shards" entry's own figures after those [shard_info] */
extern const struct report_keys report_keys_env;       /* "environment" [machine] */
extern const struct report_keys report_keys_ref;       /* "calibration" [machine_ref] */
extern const struct report_keys report_keys_server;    /* "server" up to its arrays [monitor_result] */
extern const struct report_keys report_keys_proc;      /* a server's "tree" entry [monitor_proc] */
extern const struct report_keys report_keys_point;     /* a server's "memory_timeline" entry [monitor_point] */
extern const struct report_keys report_keys_replay;    /* "replay": what rafale replay read of its log [replay_tally] */
extern const struct report_keys report_keys_probe;     /* "probe": the idle probe before the load [run_probe] */
extern const struct report_keys report_keys_probe_target; /* a probe's "targets" entry [probe_target] */
extern const struct report_keys report_keys_ci;        /* "intervals": what the run's intervals rest on [run_ci] */
extern const struct report_keys report_keys_noise;     /* "noise": what else ran on the machine [machine_noise] */
extern const struct report_keys report_keys_finding;   /* a "findings" entry [finding] */
extern const struct report_keys report_keys_check;     /* a "checks" entry: a --check's passes and failures [run_check] */
extern const struct report_keys report_keys_config;    /* "config": the run's configuration [config] */
extern const struct report_keys report_keys_stage;     /* a "stages" entry of the config [report_stage] */

/* A histogram's summary before its percentiles and buckets (report_keys_hist,
 * its rows in this order: RKH names them for the reader's messages). */
struct report_hist_head {
    uint64_t count;
    double min_us, mean_us, stdev_us, max_us;
};
enum { RKH_COUNT, RKH_MIN, RKH_MEAN, RKH_STDEV, RKH_MAX };
#define RKH(i) (report_keys_hist.row[i].key)
extern const struct report_keys report_keys_hist; /* a histogram's count, min, mean, stdev, max [report_hist_head] */

/* A stage of the config as its table reads and writes it. */
struct report_stage {
    uint64_t dur_ns;
    double to;
};

/* The members of table t from base, each after ", " but the first when
 * first is set; ctx goes to its RK_FIG rows (report_json_keys.c). */
void report_json_keys(FILE *f, const struct report_keys *t, const void *base, const void *ctx, int first);

/* Reads the members of t from o into base, each checked (the errors at the
 * reader's place, which the caller enters). */
void report_keys_read(struct jc *c, json_t *o, const struct report_keys *t, void *base);
/* The same, its RK_FIG rows read by fig (the config's: report_load_config.c). */
void report_keys_read_by(struct jc *c, json_t *o, const struct report_keys *t, void *base, report_keys_fig_fn *fig);

/* A latency in microseconds: 0, or 1 ns to the 1 h clamp. */
double report_keys_us(struct jc *c, json_t *o, const char *key, int required);
/* A duration in seconds that can hold completed requests. */
double report_keys_elapsed(struct jc *c, json_t *o, const char *key, uint64_t completed, int required);

#endif
