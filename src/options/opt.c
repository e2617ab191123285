/* opt.c - the option table and what reads it: getopt for the command line,
 * the help text, and single options for the compare file. Flags follow ab
 * and wrk where they agree (-n, -c, -t, -d, -k, -H, -p, -T) so their users
 * feel at home. */
#include "opt_int.h"
#include "compare_settings.h"
#include "serve_config.h"
#include "check.h"
#include "jread.h"
#include "err.h"
#include "suggest.h"
#include "units.h"
#include "http_lex.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum kind {
    K_FLAG,     /* int: set to fval ("yes") or !fval ("no") */
    K_U32,      /* uint32_t count in [min, max] */
    K_U64,      /* uint64_t count in [min, max] */
    K_DUR,      /* uint64_t ns, at least min ns */
    K_RATE,     /* double in (0, max] */
    K_TEXT,     /* const char *, any text */
    K_FIELD,    /* const char *, text sent in a header field: no control byte but HTAB (RFC 9110 §5.5) */
    K_CUSTOM,   /* handled by id in opt_value_set() (opt_value.c) */
};

enum dst { D_RUN, D_SERVE, D_CMP, D_RES };

enum section { S_NONE, S_LOAD, S_RATE, S_TLS, S_HTTP2, S_WORKLOAD, S_REQUEST, S_SHARD, S_OUTPUT, S_SWEEP, S_REPLAY, S_MISC };

struct opt_def {
    const char *name;
    char short_name;
    uint8_t kind;
    uint8_t dst;
    uint8_t section;
    unsigned where;
    const char *arg;        /* placeholder in the help ("N"); NULL for flags */
    const char *help;       /* one line; NULL hides the option from --help */
    const char *wants;      /* "<name> wants <wants>, not '<value>'" */
    double min, max;
    size_t off;             /* field in the destination struct */
    int fval;               /* what a flag stores */
    int id;
    const char *json;       /* its key in a result's "config" object, or NULL (opt_json_*) */
};

#define RUN(f) offsetof(struct config, f)
#define SRV(f) offsetof(struct serve_config, f)
#define CMP(f) offsetof(struct compare_settings, f)
#define RES(f) offsetof(struct result_args, f)

/* Options of a run that a compare workload may set too. */
#define LOADW (OPT_RUN | OPT_SWEEP | OPT_WORKLOAD | OPT_REPLAY)
#define LOAD (OPT_RUN | OPT_SWEEP | OPT_REPLAY)
#define REPLAYW (OPT_REPLAY | OPT_WORKLOAD) /* a compare workload's with replay = FILE */


static const struct opt_def table[] = {
    /* Load */
    { "requests", 'n', K_U64, D_RUN, S_LOAD, (LOADW & ~OPT_REPLAY), "N", "stop after N requests ended (completed or failed)",
      "a positive number of requests", 1, 1e15, RUN(requests), 0, 0, "requests" },
    { "duration", 'd', K_DUR, D_RUN, S_LOAD, LOADW, "D", "stop after D (10s, 1m, 500ms); default 10s without -n",
      "a duration such as 10s, 1m or 500ms", 1, 0, RUN(duration_ns), 0, 0, "duration_s" },
    { "connections", 'c', K_U32, D_RUN, S_LOAD, LOADW, "N", "concurrent connections (default 10)",
      "a number of connections from 1 to 10000000", 1, 10000000, RUN(connections), 0, I_CONNECTIONS, "connections" },
    { "threads", 't', K_U32, D_RUN, S_LOAD, LOADW, "N", "worker threads (default: number of CPUs)",
      "a number of threads from 1 to 1024", 1, 1024, RUN(threads), 0, 0, "threads" },
    { "keepalive", 'k', K_FLAG, D_RUN, S_LOAD, LOADW, NULL, "reuse connections (the default; accepted for ab users)",
      "yes or no", 0, 0, RUN(keepalive), 1, 0, "keepalive" },
    { "close", 0, K_FLAG, D_RUN, S_LOAD, LOADW, NULL, "a new connection for every request (ab without -k)",
      "yes or no", 0, 0, RUN(keepalive), 0, 0, NULL },
    { "requests-per-connection", 0, K_U64, D_RUN, S_LOAD, LOADW, "N", "reconnect after N requests on a connection",
      "a positive number", 1, 1e15, RUN(requests_per_conn), 0, 0, "requests_per_connection" },
    { "timeout", 0, K_DUR, D_RUN, S_LOAD, LOADW, "D", "give up on a request after D (default 10s)",
      "a duration of at least 1ms", 1e6, 0, RUN(timeout_ns), 0, 0, "timeout_s" },
    { "connect-timeout", 0, K_DUR, D_RUN, S_LOAD, LOADW, "D", "give up on a TCP handshake after D (default 5s)",
      "a duration of at least 1ms", 1e6, 0, RUN(connect_timeout_ns), 0, 0, "connect_timeout_s" },
    { "pipeline", 0, K_U32, D_RUN, S_LOAD, LOADW, "N", "keep N requests in flight per connection (HTTP/1.1 pipelining)",
      "a depth from 1 to 1024", 1, 1024, RUN(pipeline), 0, 0, "pipeline" },
    { "unix-socket", 0, K_TEXT, D_RUN, S_LOAD, LOADW, "PATH",
      "connect to this Unix socket instead of the URL's host (which still gives Host)", "a socket path", 0, 0,
      RUN(unix_socket), 0, 0, NULL },
    { "source", 0, K_CUSTOM, D_RUN, S_LOAD, LOADW, "A[-B]", "spread connections over local IPv4 addresses A..B",
      NULL, 0, 0, 0, 0, I_SOURCE, NULL },
    { "expect", 0, K_CUSTOM, D_RUN, S_LOAD, LOADW, "LIST",
      "statuses that count as good answers (default 2xx,3xx); others are 'bad status'", NULL, 0, 0, 0, 0, I_EXPECT, NULL },

    /* Constant rate */
    { "rate", 'R', K_RATE, D_RUN, S_RATE, (LOADW & ~OPT_REPLAY), "R",
      "send R requests per second in total, on a fixed schedule;\n"
      "latency counts from when each request was due",
      "a rate from 0.001 to 100000000 per second", RATE_MIN, RATE_MAX, RUN(rate), 0, 0, "rate" },
    { "arrival", 0, K_CUSTOM, D_RUN, S_RATE, (LOADW & ~OPT_REPLAY), "uniform|poisson", "spacing of the schedule (default uniform)",
      "uniform or poisson", 0, 0, 0, 0, I_ARRIVAL, NULL },
    { "stages", 0, K_CUSTOM, D_RUN, S_RATE, (LOADW & ~OPT_REPLAY), "LIST",
      "load stages 'DUR:RATE,...' (e.g. 30s:1000,1m:1000,30s:0): the rate moves linearly\n"
      "to each RATE over its DUR, from -R (or 0); 'DUR:Nc' ramps connections instead",
      "stages such as 30s:1000,1m:1000 or 30s:200c, each rate 0 or from 0.001 to 100000000 per second",
      0, 0, 0, 0, I_STAGES, NULL },
    { "warmup", 0, K_DUR, D_RUN, S_RATE, (LOADW & ~OPT_REPLAY), "D", "send load for D before measuring",
      "a duration such as 2s", 0, 0, RUN(warmup_ns), 0, 0, "warmup_s" },
    { "max-connections", 0, K_U32, D_RUN, S_RATE, (LOADW & ~OPT_REPLAY), "N", "open up to N connections when the schedule falls behind",
      "a number of connections", 1, 10000000, RUN(max_connections), 0, 0, NULL },

    /* TLS */
    { "insecure", 0, K_FLAG, D_RUN, S_TLS, LOADW, NULL, "do not verify the certificate (-k is ab's keep-alive)",
      "yes or no", 0, 0, RUN(tls.insecure), 1, 0, NULL },
    { "cert", 0, K_CUSTOM, D_RUN, S_TLS, LOADW, "FILE", "a client certificate (PEM, curl's --cert), for servers that ask",
      NULL, 0, 0, 0, 0, I_CERT, NULL },
    { "key", 0, K_CUSTOM, D_RUN, S_TLS, LOADW, "FILE", "its private key (PEM; default: in the --cert file)", NULL, 0, 0,
      0, 0, I_KEY, NULL },
    /* The phrase itself has no JSON key: no result, report or log holds it. */
    { "key-pass", 0, K_CUSTOM, D_RUN, S_TLS, LOADW, "SOURCE",
      "the key's pass phrase from env:NAME, file:PATH (its first line) or pass:PHRASE\n(without one an encrypted "
      "key is refused, never prompted for)", "env:NAME, file:PATH or pass:PHRASE", 0, 0, 0, 0, I_KEY_PASS, NULL },
    { "pass", 0, K_CUSTOM, D_RUN, S_TLS, LOADW, "PHRASE", "the key's pass phrase as written (curl's; ps shows it)",
      NULL, 0, 0, 0, 0, I_PASS, NULL },
    { "connect-to", 0, K_CUSTOM, D_RUN, S_TLS, LOADW, "H:P:H2:P2",
      "connections for H:P go to H2:P2, the URL's Host and SNI kept (curl's; repeatable)",
      "HOST:PORT:HOST2:PORT2 (an empty part matches any, or keeps the URL's)", 0, 0, 0, 0, I_CONNECT_TO, NULL },
    { "resolve", 0, K_CUSTOM, D_RUN, S_TLS, LOADW, "H:P:ADDR",
      "H:P resolves to ADDR, no lookup (curl's; repeatable)", "HOST:PORT:ADDRESS, such as example.com:443:127.0.0.1",
      0, 0, 0, 0, I_RESOLVE, NULL },
    { "cacert", 0, K_CUSTOM, D_RUN, S_TLS, LOADW, "FILE", "trust this CA instead of the system store", NULL, 0, 0, 0, 0,
      I_CACERT, NULL },
    { "tls-version", 0, K_CUSTOM, D_RUN, S_TLS, LOADW, "V", "1.2 or 1.3 only", "1.2 or 1.3", 0, 0, 0, 0, I_TLS_VERSION, NULL },
    { "ciphers", 0, K_TEXT, D_RUN, S_TLS, LOADW, "LIST", "OpenSSL cipher list", "a cipher list", 0, 0, RUN(tls.ciphers),
      0, 0, NULL },
    { "no-tls-resume", 0, K_FLAG, D_RUN, S_TLS, LOADW, NULL,
      "a full handshake on every connection (resumption is on by default)", "yes or no", 0, 0, RUN(tls.no_resume), 1, 0, NULL },

    /* HTTP/2 */
    { "http2", 0, K_FLAG, D_RUN, S_HTTP2, LOADW, NULL,
      "speak HTTP/2: prior knowledge (h2c) on http://, ALPN h2 on https://", "yes or no", 0, 0, RUN(proto_asked[PROTO_HTTP2]), 1, 0, "http2" },
    { "streams", 0, K_U32, D_RUN, S_HTTP2, LOADW, "N", "concurrent streams per HTTP/2 connection (h2load's -m; default 1)",
      "a number of streams from 1 to 1024", 1, 1024, RUN(streams), 0, 0, "streams" },
    { "http3", 0, K_FLAG, D_RUN, S_HTTP2, LOADW, NULL,
      "speak HTTP/3 (QUIC v1 over UDP, ALPN h3) on https:// URLs; --streams N per connection", "yes or no", 0, 0,
      RUN(proto_asked[PROTO_HTTP3]), 1, 0, "http3" },
    { "http3-0rtt", 0, K_FLAG, D_RUN, S_HTTP2, LOADW, NULL,
      "HTTP/3: send requests in 0-RTT when a connection resumes (they may be replayed: safe requests only)",
      "yes or no", 0, 0, RUN(http3_0rtt), 1, 0, "http3_0rtt" },
    { "h2-window", 0, K_U32, D_RUN, S_HTTP2, LOADW, "BITS",
      "HTTP/2 flow-control windows of 2^BITS-1 bytes, stream and connection (default 30)", "a number of bits from 14 to 30",
      14, 30, RUN(h2_window_bits), 0, 0, "h2_window_bits" },

    /* Workload */
    { "targets", 0, K_TEXT, D_RUN, S_WORKLOAD, (LOADW & ~OPT_REPLAY), "FILE",
      "requests from FILE (- for stdin): METHOD URL, headers, @FILE or < TEXT bodies,\n{{seq}} {{rand A B}} {{uuid}} "
      "{{conn}} {{csv FILE COL}} {{env NAME}} values", "a file name", 0, 0, RUN(targets_path), 0, 0, NULL },
    { "order", 0, K_CUSTOM, D_RUN, S_WORKLOAD, (LOADW & ~OPT_REPLAY), "MODE",
      "sequential (default with --targets), random, or session (each connection\nwalks the targets in order)",
      "sequential, random or session", 0, 0, 0, 0, I_ORDER, NULL },
    { "follow", 0, K_U32, D_RUN, S_WORKLOAD, (LOADW & ~OPT_REPLAY), "N",
      "follow up to N redirects on the same origin, the chain timed as one request", "a number of redirects from 0 to 20",
      0, 20, RUN(follow), 0, 0, "follow" },
    { "cookies", 0, K_FLAG, D_RUN, S_WORKLOAD, (LOADW & ~OPT_REPLAY), NULL,
      "each connection keeps the cookies it is sent and sends them back (a user's session)", "yes or no", 0, 0,
      RUN(cookies), 1, 0, "cookies" },
    { "check", 0, K_CUSTOM, D_RUN, S_WORKLOAD, LOADW, "EXPR",
      "what every response must hold (repeatable): status == 200, header Content-Type ~ json,\nbody contains \"ok\", "
      "json $.ok == true, size < 16k, duration < 200ms", "a check such as 'status == 200'", 0, 0, 0, 0, I_CHECK, NULL },
    { "max-body", 0, K_CUSTOM, D_RUN, S_WORKLOAD, LOADW, "SIZE",
      "bytes of a body kept for checks and # extract: (default 1M; longer fails its body checks)",
      "a size such as 64k or 1M", 0, 0, 0, 0, I_MAX_BODY, NULL },
    { "think", 0, K_CUSTOM, D_RUN, S_WORKLOAD, (LOADW & ~OPT_REPLAY), "D|D-D",
      "pause D (or a uniform D-D) after each answer before the connection's next request\n(closed loop; # think: per "
      "target)", "a duration or a range of them, such as 100ms or 1s-3s", 0, 0, 0, 0, I_THINK, NULL },
    { "seed", 0, K_CUSTOM, D_RUN, S_WORKLOAD, LOADW, "N", "seed of --order random and {{rand}}, {{uuid}}: a run repeats",
      "a number", 0, 0, 0, 0, I_SEED, NULL },

    /* Request */
    { "method", 'm', K_CUSTOM, D_RUN, S_REQUEST, (LOADW & ~OPT_REPLAY), "M", "HTTP method (default GET, or POST with a body)",
      "an HTTP method such as GET or POST", 0, 0, 0, 0, I_METHOD, NULL },
    { "header", 'H', K_CUSTOM, D_RUN, S_REQUEST, LOADW, "'N: v'", "add a header (repeatable)", "'Name: value'", 0, 0, 0,
      0, I_HEADER, NULL },
    { "body", 'b', K_CUSTOM, D_RUN, S_REQUEST, (LOADW & ~OPT_REPLAY), "STRING", "request body", NULL, 0, 0, 0, 0, I_BODY, NULL },
    { "body-file", 'p', K_CUSTOM, D_RUN, S_REQUEST, (LOADW & ~OPT_REPLAY), "FILE", "request body from FILE (-p: as ab does)", NULL, 0,
      0, 0, 0, I_BODY_FILE, NULL },
    { "content-type", 'T', K_FIELD, D_RUN, S_REQUEST, (LOADW & ~OPT_REPLAY), "TYPE", "Content-Type of the body",
      "a media type (no CR, LF or other control byte)", 0, 0,
      RUN(content_type), 0, 0, NULL },

    /* Shards */
    { "shard", 0, K_CUSTOM, D_RUN, S_SHARD, OPT_RUN | OPT_REPLAY, "I/N|auto",
      "be shard I of N (0-based): -c, -n, -R are totals, split; auto: from MPI, Slurm\nor a Kubernetes Indexed Job",
      "I/N with 0 <= I < N (such as 0/3), or auto", 0, 0, 0, 0, I_SHARD, NULL },
    { "start-at", 0, K_CUSTOM, D_RUN, S_SHARD, OPT_RUN | OPT_REPLAY, "TIME",
      "begin the measured phase at TIME (Unix seconds or 2026-12-01T10:00:00Z),\nwarm-up before it",
      "Unix seconds or an ISO 8601 UTC time such as 2026-12-01T10:00:00Z", 0, 0, 0, 0, I_START_AT, NULL },

    /* Output */
    { "json", 0, K_TEXT, D_RUN, S_OUTPUT, LOAD, "FILE", "write all results as JSON (- for stdout)", "a file name", 0,
      0, RUN(out[OUT_JSON]), 0, 0, NULL },
    { "csv", 'e', K_TEXT, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, "FILE", "write the percentile table in ab's -e format",
      "a file name", 0, 0, RUN(out[OUT_CSV]), 0, 0, NULL },
    { "hdr", 0, K_TEXT, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, "FILE", "write the HdrHistogram percentile distribution (ms)",
      "a file name", 0, 0, RUN(out[OUT_HDR]), 0, 0, NULL },
    { "html", 0, K_TEXT, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, "FILE", "a self-contained HTML report with charts", "a file name",
      0, 0, RUN(out[OUT_HTML]), 0, 0, NULL },
    { "slo", 0, K_CUSTOM, D_RUN, S_OUTPUT, LOADW, "SPEC",
      "goals the run must meet, e.g. 'p99<50ms,errors<0.1%,bad_status<1%,rps>1000';\nexit 3 when one fails", NULL,
      0, 0, 0, 0, I_SLO, NULL },
    { "precision", 0, K_CUSTOM, D_RUN, S_LOAD, LOADW, "GOAL",
      "run until the 95% intervals of req/s, p50 and p99 are within +-P% (5%), or of the\nfigures named ('p99:5%,rps:2%'), "
      "then stop; -d (default 60s then) or -n ends it first", NULL, 0, 0, 0, 0, I_PRECISION, NULL },
    { "log", 0, K_TEXT, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, "FILE",
      "a line per ended request, as it ends (CSV when FILE ends in .csv, JSON Lines\notherwise; - for stdout)",
      "a file name", 0, 0, RUN(out[OUT_LOG]), 0, 0, NULL },
    { "timestamps", 0, K_CUSTOM, D_RUN, S_OUTPUT, LOADW, "HOW",
      "kernel (default): an answer's times are when the kernel received it; user: when\nrafale read it (the client's "
      "own delay included)", "kernel or user", 0, 0, 0, 0, I_TIMESTAMPS, NULL },
    { "log-sample", 0, K_U32, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, "N", "--log: one request in N (default every one)",
      "a number from 1 to 1000000000", 1, 1000000000, RUN(log_sample), 0, 0, NULL },
    { "metrics-listen", 0, K_TEXT, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, "ADDR:PORT",
      "during the run, answer GET /metrics (OpenMetrics, for Prometheus) and\n/snapshot.json there (loopback only, "
      "unless --metrics-public)", "an address and port such as 127.0.0.1:9464", 0, 0, RUN(metrics_listen), 0, 0, NULL },
    { "metrics-public", 0, K_FLAG, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, NULL,
      "let --metrics-listen take an address other than loopback", "yes or no", 0, 0, RUN(metrics_public), 1, 0, NULL },
    { "metrics-linger", 0, K_DUR, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, "D",
      "after the run, --metrics-listen answers D more (the live page's final report, a last\nscrape; Ctrl-C ends it)",
      "a duration such as 15s", 0, 0, RUN(metrics_linger_ns), 0, 0, NULL },
    { "abort-on-fail", 0, K_FLAG, D_RUN, S_OUTPUT, LOADW, NULL,
      "with --slo: stop the run the second the SLO is lost (judged once a second on the\nfigures so far, after "
      "--abort-after), exit 3", "yes or no", 0, 0, RUN(abort_on_fail), 1, 0, "abort_on_fail" },
    { "abort-after", 0, K_DUR, D_RUN, S_OUTPUT, LOADW, "D",
      "--abort-on-fail judges nothing before D into the measured phase (default 5s)", "a duration such as 5s", 0, 0,
      RUN(abort_after_ns), 0, 0, NULL },
    { "monitor", 0, K_U32, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, "PID",
      "sample the server's process tree: CPU per request, memory (as if alone, PSS)", "a process id", 1, 2147483647.0,
      RUN(monitor_pid), 0, 0, NULL },
    { "monitor-cgroup", 0, K_TEXT, D_RUN, S_OUTPUT, OPT_RUN | OPT_REPLAY, "PATH",
      "the same for every process of a cgroup v2 (e.g. a systemd service)", "a cgroup directory", 0, 0,
      RUN(monitor_cgroup), 0, 0, NULL },
    { "findings", 0, K_CUSTOM, D_RUN, S_OUTPUT, LOADW, "yes|no",
      "say why the numbers look as they do: starved connections, a full accept queue,\nNagle stalls, queueing, CPU "
      "limits, logging... (default yes)", "yes or no", 0, 0, 0, 0, I_FINDINGS, NULL },
    { "no-probe", 0, K_FLAG, D_RUN, S_OUTPUT, LOADW, NULL,
      "no idle probe: before a -d run's load, up to 8 of each target's requests (GET,\nHEAD, OPTIONS only) one at a "
      "time on one connection, the server's own time", "yes or no", 0, 0, RUN(no_probe), 1, 0, NULL },
    { "calibrate", 0, K_CUSTOM, D_RUN, S_OUTPUT, OPT_RUN | OPT_WORKLOAD, "yes|no",
      "carry this machine's reference (rafale calibrate, measured first when this machine\nhas none stored) in "
      "the report and the JSON (default no)", "yes or no", 0, 0, 0, 0, I_CALIBRATE, NULL },
    { "quiet", 'q', K_FLAG, D_RUN, S_OUTPUT, LOAD, NULL, "no progress line on stderr", "yes or no", 0, 0, RUN(quiet),
      1, 0, NULL },
    { "verbose", 'v', K_CUSTOM, D_RUN, S_OUTPUT, OPT_RUN, NULL,
      "on stderr, each target's first exchange of the run (request and response heads, 1 KiB\nof "
      "bodies) and the first of each error kind and bad status; -vv: secrets shown too", NULL, 0, 0, 0, 0,
      I_VERBOSE, NULL },
    { "tui", 0, K_FLAG, D_RUN, S_OUTPUT, OPT_RUN, NULL,
      "a full-screen live view on the terminal (progress, req/s, latency histogram, status\ncodes, errors; q stops); "
      "not a terminal: the report alone", "yes or no", 0, 0, RUN(tui), 1, 0, NULL },
    { "brief", 0, K_FLAG, D_RUN, S_OUTPUT, OPT_RUN, NULL,
      "a short report: requests, throughput, p50/p99, status codes, errors and the\nfindings' one-liners (for runs in a loop)",
      "yes or no", 0, 0, RUN(brief), 1, 0, NULL },
    { "no-progress", 0, K_FLAG, D_RUN, S_OUTPUT, LOAD, NULL, NULL, "yes or no", 0, 0, RUN(no_progress), 1, 0, NULL },
    { "latency", 0, K_CUSTOM, D_RUN, S_OUTPUT, LOAD, NULL, NULL, NULL, 0, 0, 0, 0, I_LATENCY, NULL },

    /* rafale sweep */
    { "start", 0, K_RATE, D_RUN, S_SWEEP, OPT_SWEEP, "R", "first rate of the sweep (default 100)",
      "a rate from 0.001 to 100000000 per second", RATE_MIN, RATE_MAX, RUN(sweep_start), 0, 0, NULL },
    { "max", 0, K_RATE, D_RUN, S_SWEEP, OPT_SWEEP, "R", "highest rate the sweep tries",
      "a rate from 0.001 to 100000000 per second", RATE_MIN, RATE_MAX, RUN(sweep_max), 0, 0, NULL },

    /* rafale replay */
    { "speed", 0, K_RATE, D_RUN, S_REPLAY, REPLAYW, "X",
      "the log's time runs X times faster (2: its requests in half the time; default 1)",
      "a factor from 0.001 to 100000000", RATE_MIN, RATE_MAX, RUN(replay_speed), 0, 0, NULL },
    { "format", 0, K_TEXT, D_RUN, S_REPLAY, REPLAYW, "F",
      "the log's format: combined, common (nginx, Apache) or json (JSON lines: msec or\ntime, request_method and "
      "request_uri); default: told from its first line", "auto, combined, common or json", 0, 0, RUN(replay_format),
      0, 0, NULL },
    { "limit", 0, K_U64, D_RUN, S_REPLAY, REPLAYW, "N", "replay the log's first N requests only",
      "a positive number of requests", 1, 1e15, RUN(replay_limit), 0, 0, NULL },
    { "methods", 0, K_TEXT, D_RUN, S_REPLAY, REPLAYW, "LIST",
      "the methods replayed (default GET,HEAD,OPTIONS: a log holds no bodies, and a\nreplayed POST or DELETE changes "
      "the server); the others are skipped, counted", "methods separated by commas", 0, 0, RUN(replay_methods), 0, 0,
      NULL },
    { "from", 0, K_CUSTOM, D_RUN, S_REPLAY, REPLAYW, "T",
      "replay from T on: 2026-11-24T10:15:00 (UTC unless a zone follows), the log's own\nstamp, or +90s (after its "
      "first request); the requests before it are dropped,\nnot waited for", "a time such as 2026-11-24T10:15:00, "
      "24/Nov/2026:10:15:00 +0000, 1700000000.5 or +90s", 0, 0, 0, 0, I_FROM, NULL },
    { "to", 0, K_CUSTOM, D_RUN, S_REPLAY, REPLAYW, "T", "replay up to T (not included), written as --from's",
      "a time such as 2026-11-24T10:20:00, 24/Nov/2026:10:20:00 +0000, 1700000300 or +5m", 0, 0, 0, 0, I_TO, NULL },
    { "loop", 0, K_FLAG, D_RUN, S_REPLAY, REPLAYW, NULL, "at the log's end (or --to), again from its start, its "
      "times going on; ended by -d\nor --limit", "yes or no", 0, 0, RUN(replay_loop), 1, 0, NULL },
    { "pattern", 0, K_CUSTOM, D_RUN, S_REPLAY, REPLAYW, "REGEX=NAME", "a row NAME for the paths REGEX matches "
      "(POSIX extended; repeatable), tried before\nthe automatic patterns", "REGEX=NAME", 0, 0, 0, 0, I_PATTERN, NULL },

    /* rafale compare: [settings] keys and command-line flags */
    { "repeat", 0, K_CUSTOM, D_CMP, S_MISC, OPT_SETTINGS | OPT_COMPARE, "N|auto",
      "runs of each workload on each server, interleaved; auto (default): 5 rounds, then more\n"
      "until every verdict is decided (same, slower, faster), up to max-repeat; N < 3: no verdict",
      "a number of runs from 1 to 1000, or auto", 0, 0, 0, 0, I_REPEAT, NULL },
    { "max-repeat", 0, K_U32, D_CMP, S_MISC, OPT_SETTINGS | OPT_COMPARE, "N",
      "repeat = auto: at most N rounds (default 15)", "a number of rounds from 3 to 1000", 3, 1000, CMP(max_repeat), 0,
      0, NULL },
    { "max-duration", 0, K_DUR, D_CMP, S_MISC, OPT_SETTINGS | OPT_COMPARE, "D",
      "duration = auto: rounds of at most D (default 10s)", "a duration from 100ms such as 10s", 1e8, 0,
      CMP(max_duration_ns), 0, 0, NULL },
    { "same-within", 0, K_CUSTOM, D_CMP, S_MISC, OPT_SETTINGS | OPT_COMPARE, "P%",
      "two servers are the same only when the whole interval of their ratio is within P%\n"
      "either way (default 3%)", "a percentage from 0.1% to 50% such as 3%", 0, 0, 0, 0, I_SAME_WITHIN, NULL },
    { "discard", 0, K_U32, D_CMP, S_MISC, OPT_SETTINGS | OPT_COMPARE, "N",
      "leave the first N rounds out of the figures, as warm-up (default 0)", "a number of rounds from 0 to 100", 0, 100,
      CMP(discard), 0, 0, NULL },
    /* A workload key (the run's row above) whose compare default differs:
     * said here, and set for every workload from the command line. */
    { "warmup", 0, K_CUSTOM, D_CMP, S_MISC, OPT_COMPARE, "D",
      "load sent before each run and left out of its figures (default 1s; a compare\n"
      "file's warmup key sets its own, this sets every workload's)", "a duration such as 1s or 0s", 0, 0, 0, 0,
      I_CMP_WARMUP, NULL },
    { "grace", 0, K_DUR, D_CMP, S_MISC, OPT_SETTINGS, "D", "SIGTERM, then SIGKILL after D (default 3s)",
      "a duration such as 3s", 0, 0, CMP(grace_ns), 0, 0, NULL },
    { "ready-timeout", 0, K_DUR, D_CMP, S_MISC, OPT_SETTINGS, "D", "how long a server may take to answer (default 15s)",
      "a duration such as 15s", 1, 0, CMP(ready_ns), 0, 0, NULL },
    { "cgroups", 0, K_FLAG, D_CMP, S_MISC, OPT_SETTINGS, NULL,
      "run each server in a cgroup of its own, to follow and stop all of it (default yes)", "yes or no", 0, 0,
      CMP(cgroups), 1, 0, NULL },
    { "same", 0, K_CUSTOM, D_CMP, S_MISC, OPT_SETTINGS, "FIELDS",
      "what the servers must answer alike, checked once before the load: status, location, type, body\n"
      "(default status,location), or no", "status, location, type and body, comma-separated, or no", 0, 0, 0, 0,
      I_SAME, NULL },
    { "pin", 0, K_CUSTOM, D_CMP, S_MISC, OPT_SETTINGS | OPT_COMPARE, "auto|no",
      "auto (default): without server-cpus and client-cpus, give rafale a quarter of\nthe CPUs (at least one) and the "
      "servers the rest; no: pin nothing", "auto or no", 0, 0, 0, 0, I_PIN, NULL },
    { "server-cpus", 0, K_CUSTOM, D_CMP, S_MISC, OPT_SETTINGS | OPT_COMPARE, "LIST", "pin the servers to these CPUs",
      "CPU numbers such as 0 or 0-1", 0, 0, 0, 0, I_SERVER_CPUS, NULL },
    { "client-cpus", 0, K_CUSTOM, D_CMP, S_MISC, OPT_SETTINGS | OPT_COMPARE, "LIST", "pin rafale to these CPUs",
      "CPU numbers such as 1 or 2-3", 0, 0, 0, 0, I_CLIENT_CPUS, NULL },
    { "html", 0, K_TEXT, D_CMP, S_MISC, OPT_COMPARE, "FILE", "a self-contained HTML report with charts",
      "a file name", 0, 0, CMP(out[OUT_HTML]), 0, 0, NULL },
    { "json", 0, K_TEXT, D_CMP, S_MISC, OPT_COMPARE, "FILE", "every run's full result as JSON (rafale report reads it)",
      "a file name", 0, 0, CMP(out[OUT_JSON]), 0, 0, NULL },

    /* rafale serve */
    { "listen", 'l', K_TEXT, D_SERVE, S_MISC, OPT_SERVE, "ADDR:PORT",
      "where to listen (default 127.0.0.1:8080; port 0 picks a free one; unix:PATH)", "an address", 0, 0, SRV(listen),
      0, 0, NULL },
    { "threads", 't', K_U32, D_SERVE, S_MISC, OPT_SERVE, "N", "threads, each with its own SO_REUSEPORT listener",
      "a number of threads from 1 to 1024", 1, 1024, SRV(threads), 0, 0, NULL },
    { "access-log", 0, K_TEXT, D_SERVE, S_MISC, OPT_SERVE, "FILE", "log every request (- for stdout)", "a file name",
      0, 0, SRV(access_log), 0, 0, NULL },
    { "files", 0, K_TEXT, D_SERVE, S_MISC, OPT_SERVE, "DIR", "load DIR's files into memory and serve them at /random",
      "a directory", 0, 0, SRV(files_dir), 0, 0, NULL },
    { "redirect-to", 0, K_FIELD, D_SERVE, S_MISC, OPT_SERVE, "URL", "default Location of /redirect (http://example.com)",
      "a URL (no CR, LF or other control byte)", 0, 0, SRV(redirect_to), 0, 0, NULL },
    { "tls-cert", 0, K_TEXT, D_SERVE, S_MISC, OPT_SERVE, "FILE", "serve over TLS with this certificate (with --tls-key)",
      "a file name", 0, 0, SRV(tls_cert), 0, 0, NULL },
    { "tls-key", 0, K_TEXT, D_SERVE, S_MISC, OPT_SERVE, "FILE", "the certificate's private key", "a file name", 0, 0,
      SRV(tls_key), 0, 0, NULL },
    { "key-pass", 0, K_CUSTOM, D_SERVE, S_MISC, OPT_SERVE, "SOURCE",
      "the --tls-key's pass phrase from env:NAME, file:PATH (its first line) or pass:PHRASE",
      "env:NAME, file:PATH or pass:PHRASE", 0, 0, 0, 0, I_SERVE_KEY_PASS, NULL },
    { "http3", 0, K_FLAG, D_SERVE, S_MISC, OPT_SERVE, NULL,
      "HTTP/3 too, on UDP at the same address and port (TLS from --tls-cert, or a self-signed certificate)",
      "yes or no", 0, 0, SRV(http3), 1, 0, NULL },
    { "h2-streams", 0, K_U32, D_SERVE, S_MISC, OPT_SERVE, "N",
      "SETTINGS_MAX_CONCURRENT_STREAMS of HTTP/2 connections (default 128)", "a number of streams from 1 to 65536", 1,
      65536, SRV(h2_streams), 0, 0, NULL },
    { "tls-client-ca", 0, K_TEXT, D_SERVE, S_MISC, OPT_SERVE, "FILE",
      "require a client certificate signed by these CAs (PEM)", "a file name", 0, 0, SRV(tls_client_ca), 0, 0, NULL },
    { "header-timeout", 0, K_DUR, D_SERVE, S_MISC, OPT_SERVE, "D",
      "close a connection whose request does not arrive within D (default 60s; 408)", "a duration of at least 1ms",
      1e6, 0, SRV(header_timeout_ns), 0, 0, NULL },
    { "idle-timeout", 0, K_DUR, D_SERVE, S_MISC, OPT_SERVE, "D",
      "close an idle keep-alive connection, or one that stops reading, after D (default 75s)",
      "a duration of at least 1ms", 1e6, 0, SRV(idle_timeout_ns), 0, 0, NULL },

    /* rafale report, merge, diff, calibrate: saved results read, and written */
    { "html", 0, K_TEXT, D_RES, S_MISC, OPT_REPORT | OPT_MERGE | OPT_DIFF, "FILE",
      "write the report as a self-contained HTML page", "a file name", 0, 0, RES(out[OUT_HTML]), 0, 0, NULL },
    { "json", 0, K_TEXT, D_RES, S_MISC, OPT_MERGE | OPT_DIFF, "FILE", "write the result as JSON (- for stdout)",
      "a file name", 0, 0, RES(out[OUT_JSON]), 0, 0, NULL },
    { "json", 0, K_TEXT, D_RES, S_MISC, OPT_CALIBRATE, "FILE", "keep the reference in FILE too", "a file name", 0, 0,
      RES(out[OUT_JSON]), 0, 0, NULL },
    { "threshold", 0, K_CUSTOM, D_RES, S_MISC, OPT_DIFF, "P%",
      "a figure is worse only when it got worse by more than P% (default 5%)", "a percentage such as 5%", 0, 0, 0, 0,
      I_THRESHOLD, NULL },

    /* Everywhere on the command line */
    { "help", 'h', K_CUSTOM, D_RUN, S_MISC,
      OPT_RUN | OPT_SWEEP | OPT_COMPARE | OPT_SERVE | OPT_REPORT | OPT_MERGE | OPT_DIFF | OPT_CALIBRATE | OPT_COMPLETION |
          OPT_REPLAY, NULL,
      "this help", NULL, 0, 0, 0, 0, I_HELP, NULL },
    { "version", 'V', K_CUSTOM, D_RUN, S_MISC, OPT_RUN | OPT_SWEEP, NULL, "the version", NULL, 0, 0, 0, 0, I_VERSION, NULL },
};

#define NOPTS (sizeof(table) / sizeof(table[0]))

static const char *const section_names[] = {
    [S_LOAD] = "Load", [S_RATE] = "Constant rate (open loop)", [S_TLS] = "TLS (https:// URLs)", [S_HTTP2] = "HTTP/2 and HTTP/3", [S_WORKLOAD] = "Workload",
    [S_REQUEST] = "Request", [S_SHARD] = "Several machines (rafale merge joins the shards' --json)", [S_OUTPUT] = "Output", [S_SWEEP] = "Sweep", [S_REPLAY] = "Replay",
};


const struct opt_def *opt_find(const char *name, unsigned where)
{
    size_t i;
    for (i = 0; i < NOPTS; i++)
        if ((table[i].where & where) && strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

int opt_each(size_t i, struct opt_info *out)
{
    if (i >= NOPTS)
        return 0;
    out->name = table[i].name;
    out->short_name = table[i].short_name;
    out->where = table[i].where;
    /* As getopt_long is told: no placeholder, no value (--help, --version). */
    out->arg = table[i].kind == K_FLAG ? NULL : table[i].arg;
    out->wants = table[i].wants;
    out->help = table[i].help;
    out->section = table[i].section < S_MISC ? section_names[table[i].section] : NULL;
    return 1;
}

const char *opt_name(const struct opt_def *o)
{
    return o->name;
}

int opt_is_flag(const struct opt_def *o)
{
    return o->kind == K_FLAG;
}

static int yesno(const char *v, int *out)
{
    if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "on"))
        *out = 1;
    else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "off"))
        *out = 0;
    else
        return -1;
    return 0;
}

int opt_set(const struct opt_def *o, const struct opt_dst *d, const char *value, const char *shown, char *err,
            size_t errlen)
{
    void *base = o->dst == D_RUN     ? (void *)d->run
                 : o->dst == D_SERVE ? (void *)d->serve
                 : o->dst == D_CMP   ? (void *)d->cmp
                                     : (void *)d->res;
    char *field = (char *)base + o->off;
    uint64_t u;
    size_t k;

    if (base == NULL)
        return err_set(err, errlen, NULL, "%s cannot be set here", shown);
    if (o->kind != K_FLAG && o->arg && value == NULL)
        return err_set(err, errlen, NULL, "%s needs a value", shown);
    switch (o->kind) {
    case K_FLAG: {
        int yes = 1;
        if (value && yesno(value, &yes) != 0)
            return err_set(err, errlen, NULL, "%s wants yes or no, not '%s'", shown, value);
        *(int *)(void *)field = yes ? o->fval : !o->fval;
        return 0;
    }
    case K_U32:
    case K_U64:
        if (units_parse_count(value, &u) != 0 || (double)u < o->min || (double)u > o->max)
            break;
        if (o->kind == K_U32)
            *(uint32_t *)(void *)field = (uint32_t)u;
        else
            *(uint64_t *)(void *)field = u;
        if (o->id == I_CONNECTIONS)
            d->run->connections_given = 1;
        return 0;
    case K_DUR:
        if (units_parse_duration(value, &u) != 0 || (double)u < o->min)
            break;
        *(uint64_t *)(void *)field = u;
        return 0;
    case K_RATE: {
        const char *end;
        double r;
        if (units_parse_decimal(value, &r, &end) != 0 || *end || !(r >= o->min) || r > o->max)
            break;
        *(double *)(void *)field = r;
        return 0;
    }
    case K_FIELD:
        for (k = 0; value[k]; k++)
            if (!lex_field_char(value[k])) {
                /* Said in one line: the value's control bytes escaped. */
                char esc[200];
                size_t i, o2 = 0;
                for (i = 0; value[i] && o2 + 5 < sizeof(esc); i++)
                    o2 += (size_t)(lex_field_char(value[i]) ? snprintf(esc + o2, sizeof(esc) - o2, "%c", value[i])
                                                            : snprintf(esc + o2, sizeof(esc) - o2, "\\x%02x",
                                                                       (unsigned char)value[i]));
                return err_set(err, errlen, NULL, "%s wants %s, not '%s'", shown, o->wants, esc);
            }
        /* fall through */
    case K_TEXT: {
        const char *kept = value;
        if (o->dst == D_RUN && (kept = config_keep(d->run, value)) == NULL)
            return err_set(err, errlen, NULL, "out of memory");
        *(const char **)(void *)field = kept;
        return 0;
    }
    default:
        return opt_value_set(o->id, o->wants, d, value, shown, err, errlen);
    }
    return err_set(err, errlen, NULL, "%s wants %s, not '%s'", shown, o->wants, value);
}

void opt_suggest(struct suggest *s, unsigned where)
{
    size_t i;
    for (i = 0; i < NOPTS; i++)
        if (table[i].where & where)
            suggest_offer(s, table[i].name);
}

/* "--name=value" as its name alone. */
static void bare_name(const char *arg, char name[64])
{
    snprintf(name, 64, "%s", arg + strspn(arg, "-"));
    name[strcspn(name, "=")] = '\0';
}

const char *opt_nearest(const char *arg, unsigned where)
{
    struct suggest s;
    char name[64];
    bare_name(arg, name);
    suggest_init(&s, name);
    opt_suggest(&s, where);
    return s.best;
}

/* An unknown --name: say which command has it, if one does, or which of
 * where's it may be a typo of. */
static void unknown_long(const char *arg, unsigned where, char *err, size_t errlen)
{
    const char *near;
    static const struct { unsigned where; const char *cmd; } cmds[] = {
        { OPT_RUN, "rafale URL" }, { OPT_SWEEP, "rafale sweep" }, { OPT_REPLAY, "rafale replay" },
        { OPT_COMPARE, "rafale compare" },
        { OPT_SERVE, "rafale serve" }, { OPT_SETTINGS, "a compare file's [settings]" },
    };
    char name[64];
    size_t i, k;
    bare_name(arg, name);
    for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
        for (i = 0; i < NOPTS; i++)
            if ((table[i].where & cmds[k].where) && strcmp(table[i].name, name) == 0) {
                err_set(err, errlen, NULL, "--%s is an option of '%s'", name, cmds[k].cmd);
                return;
            }
    if ((near = opt_nearest(arg, where)) != NULL)
        err_set(err, errlen, NULL, "unknown option '%s': did you mean --%s? (see --help)", arg, near);
    else
        err_set(err, errlen, NULL, "unknown option '%s' (see --help)", arg);
}

enum opt_result opt_parse_argv(int argc, char **argv, unsigned where, const struct opt_dst *d, int *first_arg,
                               char *err, size_t errlen)
{
    struct option longs[NOPTS + 1];
    const struct opt_def *byidx[NOPTS];
    char shorts[2 * NOPTS + 2], shown[64];
    size_t i, nl = 0, ns = 0;
    int opt, li;

    /* ':' first: a missing value is reported as ':' rather than printed. */
    shorts[ns++] = ':';
    for (i = 0; i < NOPTS; i++) {
        const struct opt_def *o = &table[i];
        int has_arg = o->kind == K_FLAG || o->arg == NULL ? no_argument : required_argument;
        if (!(o->where & where))
            continue;
        longs[nl].name = o->name;
        longs[nl].has_arg = has_arg;
        longs[nl].flag = NULL;
        longs[nl].val = 0x1000 + (int)nl;
        byidx[nl++] = o;
        if (o->short_name) {
            shorts[ns++] = o->short_name;
            if (has_arg == required_argument)
                shorts[ns++] = ':';
        }
    }
    memset(&longs[nl], 0, sizeof(longs[nl]));
    shorts[ns] = '\0';

    *first_arg = -1;
    opterr = 0;
    optind = 0; /* 0, not 1: glibc starts afresh, forgetting a previous parse half done */
    for (;;) {
        const struct opt_def *o = NULL;
        li = -1;
        opt = getopt_long(argc, argv, shorts, longs, &li);
        if (opt == -1)
            break;
        if (opt == ':') {
            err_set(err, errlen, NULL, "option '%s' needs a value (see --help)", argv[optind - 1]);
            return OPT_ERROR;
        }
        if (opt == '?') {
            const char *eq = strchr(argv[optind - 1], '=');
            if (optopt && optopt < 0x1000)
                err_set(err, errlen, NULL, "unknown option '-%c' (see --help)", optopt);
            else if (optopt >= 0x1000 && (size_t)(optopt - 0x1000) < nl && eq)
                /* getopt's word for a flag given a value (--insecure=1) */
                err_set(err, errlen, NULL, "--%s takes no value, not '%s' (see --help)", byidx[optopt - 0x1000]->name,
                        eq + 1);
            else
                unknown_long(argv[optind - 1], where, err, errlen);
            *first_arg = optind - 1;
            return OPT_ERROR;
        }
        if (opt >= 0x1000) {
            int at = optarg && optind >= 2 && optarg == argv[optind - 1] ? optind - 2 : optind - 1;
            const char *tok = argv[at];
            size_t tl;
            o = byidx[opt - 0x1000];
            snprintf(shown, sizeof(shown), "--%s", o->name);
            /* getopt takes a unique prefix ("--start" for --start-at); not
             * when it is the full name of an option of another command. */
            if (strncmp(tok, "--", 2) == 0) {
                tok += 2;
                tl = strcspn(tok, "=");
                if (tl != strlen(o->name))
                    for (i = 0; i < NOPTS; i++)
                        if (strlen(table[i].name) == tl && strncmp(table[i].name, tok, tl) == 0) {
                            unknown_long(tok - 2, where, err, errlen);
                            *first_arg = at;
                            return OPT_ERROR;
                        }
            }
        } else {
            for (i = 0; i < nl; i++)
                if (byidx[i]->short_name == opt)
                    o = byidx[i];
            if (o == NULL) {
                err_set(err, errlen, NULL, "unknown option '-%c' (see --help)", opt);
                *first_arg = optind - 1;
                return OPT_ERROR;
            }
            snprintf(shown, sizeof(shown), "-%c", opt);
        }
        if (o->kind == K_CUSTOM && o->id == I_HELP)
            return OPT_HELP;
        if (o->kind == K_CUSTOM && o->id == I_VERSION)
            return OPT_VERSION;
        if (opt_set(o, d, o->kind == K_FLAG ? NULL : optarg, shown, err, errlen) != 0)
            return OPT_ERROR;
    }
    *first_arg = optind;
    return OPT_OK;
}

void opt_help(FILE *f, unsigned where)
{
    int s;
    for (s = S_NONE; s <= S_MISC; s++) {
        size_t i;
        int any = 0;
        for (i = 0; i < NOPTS; i++) {
            const struct opt_def *o = &table[i];
            char left[80];
            const char *h, *nl;
            if (!(o->where & where) || o->section != s || o->help == NULL)
                continue;
            if (!any && s < S_MISC && section_names[s])
                fprintf(f, "\n%s:\n", section_names[s]);
            else if (!any && s == S_MISC && (where & (OPT_RUN | OPT_SWEEP | OPT_REPLAY)))
                fputc('\n', f);
            any = 1;
            if (o->short_name)
                snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
                         o->arg ? o->arg : "");
            else
                snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
            /* Continuation lines of the help align under its first line. */
            for (h = o->help; h; h = nl ? nl + 1 : NULL) {
                nl = strchr(h, '\n');
                if (h == o->help && strlen(left) <= 25)
                    fprintf(f, "  %-25s %.*s\n", left, nl ? (int)(nl - h) : (int)strlen(h), h);
                else if (h == o->help)
                    fprintf(f, "  %s\n  %-25s %.*s\n", left, "", nl ? (int)(nl - h) : (int)strlen(h), h);
                else
                    fprintf(f, "  %-25s %.*s\n", "", nl ? (int)(nl - h) : (int)strlen(h), h);
            }
        }
    }
}

void opt_keys(unsigned where, char *buf, size_t len)
{
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < NOPTS && used + 1 < len; i++) {
        int w;
        if (!(table[i].where & where) || table[i].help == NULL)
            continue;
        w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", table[i].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (used >= len && len > 4)
        strcpy(buf + len - 4, "...");
}

/* --- a result's "config" object --- */

void opt_json_write(FILE *f, const struct config *cfg)
{
    size_t i;
    for (i = 0; i < NOPTS; i++) {
        const struct opt_def *o = &table[i];
        const char *field = (const char *)cfg + o->off;
        uint32_t u32;
        if (o->json == NULL || o->dst != D_RUN)
            continue;
        fprintf(f, ", \"%s\": ", o->json);
        switch (o->kind) {
        case K_U32:
            memcpy(&u32, field, sizeof(u32));
            /* 0 where 1 is the least (a depth, streams) means 1. */
            fprintf(f, "%u", u32 == 0 && o->min == 1 ? 1 : u32);
            break;
        case K_U64:
            fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)(const void *)field);
            break;
        case K_DUR:
            fprintf(f, "%.3f", (double)*(const uint64_t *)(const void *)field / 1e9);
            break;
        case K_RATE:
            fprintf(f, "%.3f", *(const double *)(const void *)field);
            break;
        case K_FLAG:
            fprintf(f, "%s", *(const int *)(const void *)field ? "true" : "false");
            break;
        default:
            fprintf(f, "null");
        }
    }
}

int opt_json_read(struct jc *c, json_t *o, struct config *cfg)
{
    size_t i;
    for (i = 0; i < NOPTS; i++) {
        const struct opt_def *d = &table[i];
        char *field = (char *)cfg + d->off;
        json_t *v;
        if (d->json == NULL || d->dst != D_RUN || (v = json_object_get(o, d->json)) == NULL || json_is_null(v))
            continue; /* absent: the default */
        switch (d->kind) {
        case K_U32:
            *(uint32_t *)(void *)field = (uint32_t)jread_num(c, o, d->json, 0, d->max, 0);
            break;
        case K_U64:
            *(uint64_t *)(void *)field = jread_count(c, o, d->json, 0);
            break;
        case K_DUR:
            *(uint64_t *)(void *)field = jread_ns(c, o, d->json, 0);
            break;
        case K_RATE:
            *(double *)(void *)field = jread_num(c, o, d->json, 0, d->max, 0);
            break;
        case K_FLAG:
            if (!json_is_boolean(v))
                jread_fail(c, d->json, "not true or false");
            *(int *)(void *)field = json_is_true(v);
            break;
        default:
            break;
        }
    }
    return c->failed ? -1 : 0;
}
