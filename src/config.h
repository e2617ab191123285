/* config.h - what the user asked for, as plain data. Filled by cli.c, read
 * (const) by everything else. */
#ifndef RAFALE_CONFIG_H
#define RAFALE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "slo.h"
#include "tls.h"
#include "url.h"

struct config {
    struct url *urls;            /* parsed, in command-line order */
    const char **url_text;       /* as typed, for reports */
    uint32_t nurls;

    uint64_t requests;           /* -n: total requests to end, 0 for no limit */
    uint64_t duration_ns;        /* -d: 0 when -n alone bounds the run */
    uint32_t connections;        /* -c */
    uint32_t max_connections;    /* --max-connections (rate mode): 0 or at least -c */
    uint32_t threads;            /* -t */
    int keepalive;               /* 0 with --close */
    uint64_t requests_per_conn;  /* 0: unlimited */
    uint64_t timeout_ns;
    uint64_t connect_timeout_ns;
    uint32_t pipeline;           /* requests in flight per connection, 1: no pipelining */
    double rate;                 /* -R: requests per second in total; 0: closed loop */
    int poisson;                 /* --arrival poisson */
    uint64_t warmup_ns;          /* --warmup: load sent before the measured phase */
    struct net_addr *sources;    /* --source: local addresses, round-robin */
    uint32_t nsources;
    struct tls_options tls;      /* for https:// URLs */

    const char *method;
    const char **headers;        /* "Name: value" */
    uint32_t nheaders;
    char *body;                  /* owned, may hold NUL bytes */
    size_t body_len;
    int has_body;
    const char *content_type;    /* -T */

    const char *json_path;       /* --json FILE or "-" */
    const char *csv_path;        /* --csv FILE */
    const char *hdr_path;        /* --hdr FILE: HdrHistogram percentile text */
    const char *html_path;       /* --html FILE: a self-contained report with charts */
    int monitor_pid;             /* --monitor PID: the server's process tree, 0 when none */
    struct slo slo;              /* --slo checks, slo.n == 0 when none */
    int sweep;                   /* rafale sweep */
    double sweep_start, sweep_max; /* --start, --max req/s */
    int quiet;
    int no_progress;
};

/* Options of `rafale serve`. */
struct serve_config {
    const char *listen;          /* "127.0.0.1:8080" */
    uint32_t threads;
    const char *access_log;      /* NULL, "-" or a file */
    const char *files_dir;
    const char *redirect_to;     /* default Location for /redirect */
    const char *tls_cert, *tls_key; /* serve over TLS */
};

#endif
