/* config.h - what the user asked for, as plain data. Filled from the
 * command line or a compare file through the option table (opt.c), read
 * (const) by everything else. */
#ifndef RAFALE_CONFIG_H
#define RAFALE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "proto.h"
#include "precision.h"
#include "slo.h"
#include "status.h"
#include "tls.h"
#include "url.h"

/* One request of the run: a URL (urls[i]) with its own method, headers and
 * body when it came from --targets. */
struct target {
    const char *name;            /* "# name: NAME", or NULL */
    const char **checks;         /* "# check: EXPR" lines before it (kept by the config) */
    uint32_t nchecks;
    const char **extracts;       /* "# extract: NAME = EXPR" lines */
    uint32_t nextracts;
    uint64_t think_lo_ns, think_hi_ns; /* "# think: D" or "D-D"; has_think: given */
    int has_think;
    const char *method;          /* NULL: the run's -m */
    const char **headers;        /* own: its header lines (kept by the config) */
    uint32_t nheaders;
    const char *body;            /* own: its body */
    size_t body_len;
    int has_body;
    int own;                     /* from --targets: -m, -H, -b and -T do not apply */
    const char *file;            /* where it was written, for messages */
    uint32_t line;               /* its request line; header k is on line + 1 + k (a blank or # line ends a target) */
};

/* rafale replay: what the log's reader saw (written by its thread alone,
 * read once the run is over). A line is replayed, or skipped for one
 * reason, counted; the first line of each reason is kept for its message. */
#define REPLAY_SKIP_METHODS 8
struct replay_tally {
    uint64_t lines;              /* read, blank ones aside */
    uint64_t replayed;           /* came due in the run: each sent, or counted due and unsent */
    uint64_t bad, control, too_long, late; /* unparseable; a control byte in its target; a target too long;
                                  * more than the sorting window out of order (sent at once) */
    uint64_t bad_line, control_line, long_line; /* the first of each, 1-based */
    /* Skipped for their method (not --methods), by method; the rest as one. */
    char skip_method[REPLAY_SKIP_METHODS][16];
    uint64_t skip_count[REPLAY_SKIP_METHODS];
    uint32_t nskip;
    uint64_t skip_other;
    double span_s;               /* the log's time from its first request replayed to its last, in the log's seconds */
    uint64_t before;             /* before --from: read and dropped */
    uint32_t passes;             /* --loop: the passes begun over the log */
    int read_error;              /* errno of a failed read, 0 none */
    char format[12];             /* the log's format: --format's, or told from its first line ("": no line) */
};

/* --from / --to: a time of the log (ns since the epoch), or with offset
 * one from the log's first request (+90s); set 0: not given. */
struct replay_when {
    int64_t ns;
    int set, offset;
};

/* rafale replay: a log that is not a file (a pipe, a FIFO: <(zcat
 * access.log.gz)) is read once. The patterns' scan keeps what it read of
 * it, and the descriptor; the reader takes both and goes on from there. */
#define REPLAY_HEAD_MAX (1024 * 1024)
struct replay_head {
    int fd;                      /* -1 once the reader took it */
    size_t len;
    char bytes[REPLAY_HEAD_MAX];
};

enum order_mode { ORDER_DEFAULT, ORDER_SEQUENTIAL, ORDER_RANDOM, ORDER_SESSION };

/* --connect-to HOST:PORT:HOST2:PORT2 and --resolve HOST:PORT:ADDR, as curl
 * spells them: where a URL's connections go, its Host and SNI unchanged.
 * An empty host or port (port 0) matches any, or keeps the URL's. */
#define HOST_MAP_MAX 16
struct host_map {
    char host[128];
    uint16_t port;
    char to[128];
    uint16_t to_port;
};

/* The files a command writes, an output each: a run's (struct config),
 * compare's (struct compare_settings) and the saved results' commands'
 * (struct result_args) out[] hold their paths ("-": standard output; NULL:
 * not asked). In the order the rule on "-" names them; what each is and
 * how it is written: src/cli/outputs.c's table. */
enum out_kind { OUT_LOG, OUT_JSON, OUT_CSV, OUT_HDR, OUT_HTML, OUT__COUNT };

struct config {
    struct url *urls;            /* parsed, in command-line order (--targets first) */
    const char **url_text;       /* as typed, for reports */
    struct target *targets;      /* ntargets entries, parallel to urls */
    uint32_t ntargets;
    uint32_t *order;             /* the sequence of targets: one written twice is there twice */
    uint32_t norder;
    int order_mode;              /* --order; ORDER_DEFAULT: round-robin per connection */
    uint64_t seed;               /* --seed: --order random and {{rand}} repeat with it */
    int seed_given;
    const char *targets_path;    /* --targets FILE */

    uint64_t requests;           /* -n: total requests to end, 0 for no limit */
    uint64_t duration_ns;        /* -d: 0 when -n alone bounds the run */
    uint32_t connections;        /* -c */
    int connections_given;       /* -c was given (a note when -n lowers it) */
    uint32_t max_connections;    /* --max-connections (rate mode): 0 or at least -c */
    uint32_t threads;            /* -t */
    int keepalive;               /* 0 with --close */
    int user_timestamps;         /* --timestamps user: answers stamped as read, not as the kernel got them */
    uint64_t requests_per_conn;  /* 0: unlimited */
    uint64_t timeout_ns;
    uint64_t connect_timeout_ns;
    uint32_t pipeline;           /* requests in flight per connection, 1: no pipelining */
    double rate;                 /* -R: requests per second in total; 0: closed loop */
    int poisson;                 /* --arrival poisson */
    uint64_t warmup_ns;          /* --warmup: load sent before the measured phase */
    /* --stages 'DUR:VALUE,...': the rate (or, with a 'c' after the values,
     * the connections) moves linearly to each VALUE over its DUR. */
    uint64_t stage_dur[64];
    double stage_val[64];
    uint32_t nstages;
    int stages_conns;            /* the values are connections (closed loop) */
    double stage_start;          /* where the first stage starts from: -R / -c, or 0 */
    /* rafale replay LOG URL: the log's requests at their logged times
     * (src/client/replay.c). The schedule is the log's: open loop, as -R. */
    const char *replay_path;     /* NULL: not a replay */
    const char *replay_format;   /* --format: auto, combined, common or json */
    double replay_speed;         /* --speed: the log's time divided by it (default 1) */
    uint64_t replay_limit;       /* --limit N: its first N requests replayed (0: all) */
    const char *replay_methods;  /* --methods: the methods replayed (default GET,HEAD,OPTIONS) */
    struct replay_tally *replay_tally; /* the caller's, filled by the run */
    struct replay_when replay_from, replay_to; /* the window of the log replayed: [from, to) */
    int replay_loop;             /* --loop: at the log's end, again from its start */
    const char **replay_patterns; /* --pattern REGEX=NAME, tried before the automatic grouping (kept) */
    uint32_t nreplay_patterns;
    struct replay_head *replay_head;   /* owned; NULL: the log is a file, opened again by the reader */
    const char *unix_socket;     /* --unix-socket PATH: every connection goes there */
    /* --shard I/N: this process is shard I (0-based) of N. -c, -n, -R,
     * --max-connections and the stage values stay the totals here; the
     * engine takes this shard's share (shard.c). shard_count 0: not a shard. */
    uint32_t shard_index, shard_count;
    const char *shard_from;      /* where --shard auto found them ("SLURM_PROCID", ...) */
    double start_at;             /* --start-at: Unix time the measured phase begins; 0: at once */
    struct net_addr *sources;    /* --source: local addresses, round-robin; owned */
    struct host_map connect_to[HOST_MAP_MAX], resolve[HOST_MAP_MAX];
    uint32_t nconnect_to, nresolve;
    uint32_t nsources;
    struct tls_options tls;      /* for https:// URLs */
    /* The protocol's option given (--http2, --http3), by its row
     * (proto.h); none: HTTP/1.1. config_proto() says which. */
    int proto_asked[PROTO__COUNT];
    int http3_0rtt;              /* --http3-0rtt: requests in 0-RTT when resuming (client/http3_early.c) */
    int cookies;                 /* --cookies: a cookie jar per connection */
    const char **check_exprs;    /* --check EXPR, on every request (kept) */
    uint32_t ncheck_exprs;
    uint64_t max_body;           /* --max-body: bytes of a body kept for checks and extraction */
    uint64_t think_lo_ns, think_hi_ns; /* --think D or D-D: the pause after each answer (closed loop) */
    int abort_on_fail;           /* --abort-on-fail: stop once the --slo is lost */
    const char *metrics_listen;  /* --metrics-listen ADDR:PORT: OpenMetrics during the run */
    int metrics_public;          /* --metrics-public: another address than loopback may be given */
    uint64_t metrics_linger_ns;  /* --metrics-linger: it answers that long after the run (0: it ends with it) */
    uint32_t log_sample;         /* --log-sample N: one request in N (0, 1: all) */
    uint64_t abort_after_ns;     /* --abort-after: not before this far into the measured phase */
    uint32_t follow;             /* --follow N: redirects followed on the same origin */
    uint32_t streams;            /* --streams: concurrent streams per HTTP/2 connection */
    uint32_t h2_window_bits;     /* --h2-window: flow-control windows of 2^bits - 1 */
    struct status_set expect;    /* --expect: statuses that count as good answers */

    const char *method;
    int method_given;            /* -m was given: a body does not turn GET into POST */
    const char **headers;        /* "Name: value"; the array is owned */
    uint32_t nheaders;
    char *body;                  /* owned, may hold NUL bytes */
    size_t body_len;
    int has_body;
    const char *content_type;    /* -T */

    const char *out[OUT__COUNT]; /* --log, --json, --csv, --hdr, --html FILE (enum out_kind); "-": stdout */
    int monitor_pid;             /* --monitor PID: the server's process tree, 0 when none */
    const char *monitor_cgroup;  /* --monitor-cgroup PATH: every process of a cgroup v2 */
    struct slo slo;              /* --slo goals, slo.n == 0 when none */
    struct precision precision;  /* --precision goals, precision.n == 0 when none */
    int sweep;                   /* rafale sweep */
    double sweep_start, sweep_max; /* --start, --max req/s */
    int quiet;
    int no_progress;
    int no_probe;                /* --no-probe: no idle probe before the load (client/probe.c) */
    int brief;                   /* --brief: the report's headline lines only */
    int tui;                     /* --tui: the full-screen live view (on a terminal) */
    int verbose;                 /* -v: 1, -vv: 2 (Authorization and cookies shown) */
    int no_findings;             /* --findings no: no findings section, nor "findings" in the JSON */
    int calibrate;               /* --calibrate yes: the result carries this machine's reference */

    char **owned;                /* copies of option values the config keeps alive */
    uint32_t nowned, owned_cap;
    /* Room in urls/url_text/targets and in order (grown geometrically: a
     * targets file may hold 100 000 targets), and the hash of the targets
     * (index + 1, 0 empty) that finds one written before in O(1). */
    uint32_t urls_cap, order_cap;
    uint32_t *tindex, tindex_cap;
};

/* Where connections to host:port go: --connect-to first (the first rule
 * that matches, host compared without case), then --resolve, then a
 * lookup. Returns 0, or -1 with the reason in err. */
int config_resolve(const struct config *cfg, const char *host, uint16_t port, struct net_addr *a, char *err,
                   size_t errlen);

/* The defaults of a plain `rafale URL` run, without URLs. */
void config_defaults(struct config *cfg);
/* Keeps a copy of s for as long as cfg lives. Returns it, or NULL when out
 * of memory. */
const char *config_keep(struct config *cfg, const char *s);
/* Makes room for need elements of elem bytes in *arr (a pointer to the
 * array pointer), whose room is *cap, doubling it. Returns 0 or -1. */
int config_grow(void *arr, uint32_t *cap, uint32_t need, size_t elem);
/* Takes p (from malloc) to be freed with the config. Returns p, or NULL
 * (p freed) when out of memory. */
void *config_own(struct config *cfg, void *p);
/* Appends a --check expression (kept). Returns 0 or -1 (memory). */
int config_add_check(struct config *cfg, const char *expr);
/* Appends a --pattern REGEX=NAME (kept). Returns 0 or -1. */
int config_add_pattern(struct config *cfg, const char *spec);
/* Appends a header line ("Name: value", kept). Returns 0 or -1 (memory). */
int config_add_header(struct config *cfg, const char *h);
/* A deep copy of src, which must have no URLs yet. Returns 0 or -1. */
int config_copy(struct config *dst, const struct config *src);
/* Checks that the options go together and settles what follows from them
 * (POST with a body, -c lowered to -n, threads to connections). Returns 0,
 * or -1 with a reason in err. notes receives remarks for the user. */
int config_finish(struct config *cfg, char *err, size_t errlen, char *notes, size_t noteslen);
/* The first TLS-only option cfg sets, by its long name ("insecure",
 * "cacert", "cert", "tls-version", "ciphers", "no-tls-resume"; --key and
 * the pass phrase go with --cert), or NULL: none has a use on http://. */
const char *config_tls_given(const struct config *cfg);
/* Releases what the config owns; safe on a zeroed struct. */
void config_free(struct config *cfg);
/* The requests a connection keeps in flight: --streams over a protocol
 * that takes them (HTTP/2, HTTP/3), --pipeline with keep-alive, else 1. */
uint32_t config_depth(const struct config *cfg);
/* Open loop: requests go when they are due (-R, or the log's times of
 * rafale replay), not when a connection is free. */
static inline int config_open_loop(const struct config *cfg)
{
    return cfg->rate > 0 || cfg->replay_path != NULL;
}
/* The protocol cfg speaks: its option's row, or the default's (HTTP/1.1). */
const struct proto *config_proto(const struct config *cfg);

struct req_spec;
/* The spec of target i of cfg (cfg->targets may be NULL: the run's). */
void config_request(const struct config *cfg, uint32_t i, struct req_spec *rs);

#endif
