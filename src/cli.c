/* cli.c - the command line. Flags follow ab and wrk where they agree
 * (-n, -c, -t, -d, -k, -H, -p, -T) so their users feel at home. */
#include "cli.h"
#include "units.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RAFALE_VERSION "0.1.0"

enum {
    OPT_CLOSE = 256, OPT_TIMEOUT, OPT_CONNECT_TIMEOUT, OPT_BODY_FILE, OPT_RPC, OPT_JSON, OPT_CSV,
    OPT_LATENCY, OPT_NO_PROGRESS, OPT_KEEPALIVE, OPT_PIPELINE, OPT_ARRIVAL, OPT_WARMUP, OPT_SOURCE,
    OPT_HDR, OPT_SLO, OPT_START, OPT_MAX,
    OPT_INSECURE, OPT_CACERT, OPT_TLS_VERSION, OPT_CIPHERS, OPT_NO_TLS_RESUME, OPT_MAX_CONNS,
    OPT_MONITOR, OPT_HTML,
};

#define MAX_SOURCES 256

static const struct option long_opts[] = {
    { "arrival", required_argument, NULL, OPT_ARRIVAL },
    { "body", required_argument, NULL, 'b' },
    { "cacert", required_argument, NULL, OPT_CACERT },
    { "ciphers", required_argument, NULL, OPT_CIPHERS },
    { "body-file", required_argument, NULL, OPT_BODY_FILE },
    { "close", no_argument, NULL, OPT_CLOSE },
    { "connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT },
    { "connections", required_argument, NULL, 'c' },
    { "content-type", required_argument, NULL, 'T' },
    { "csv", required_argument, NULL, OPT_CSV },
    { "duration", required_argument, NULL, 'd' },
    { "hdr", required_argument, NULL, OPT_HDR },
    { "header", required_argument, NULL, 'H' },
    { "help", no_argument, NULL, 'h' },
    { "html", required_argument, NULL, OPT_HTML },
    { "insecure", no_argument, NULL, OPT_INSECURE },
    { "json", required_argument, NULL, OPT_JSON },
    { "keepalive", no_argument, NULL, OPT_KEEPALIVE },
    { "latency", no_argument, NULL, OPT_LATENCY },
    { "max", required_argument, NULL, OPT_MAX },
    { "max-connections", required_argument, NULL, OPT_MAX_CONNS },
    { "method", required_argument, NULL, 'm' },
    { "monitor", required_argument, NULL, OPT_MONITOR },
    { "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
    { "no-tls-resume", no_argument, NULL, OPT_NO_TLS_RESUME },
    { "pipeline", required_argument, NULL, OPT_PIPELINE },
    { "quiet", no_argument, NULL, 'q' },
    { "rate", required_argument, NULL, 'R' },
    { "requests", required_argument, NULL, 'n' },
    { "requests-per-connection", required_argument, NULL, OPT_RPC },
    { "slo", required_argument, NULL, OPT_SLO },
    { "source", required_argument, NULL, OPT_SOURCE },
    { "start", required_argument, NULL, OPT_START },
    { "threads", required_argument, NULL, 't' },
    { "timeout", required_argument, NULL, OPT_TIMEOUT },
    { "tls-version", required_argument, NULL, OPT_TLS_VERSION },
    { "version", no_argument, NULL, 'V' },
    { "warmup", required_argument, NULL, OPT_WARMUP },
    { NULL, 0, NULL, 0 },
};

void cli_usage(void)
{
    fputs(
"Usage: rafale [options] URL...          load-test one or more HTTP endpoints\n"
"       rafale serve [options]           run the built-in target server\n"
"\n"
"Load:\n"
"  -n, --requests N         stop after N requests ended (completed or failed)\n"
"  -d, --duration D         stop after D (10s, 1m, 500ms); default 10s without -n\n"
"  -c, --connections N      concurrent connections (default 10)\n"
"  -t, --threads N          worker threads (default: number of CPUs)\n"
"  -k, --keepalive          reuse connections (the default; accepted for ab users)\n"
"      --close              a new connection for every request (ab without -k)\n"
"      --requests-per-connection N   reconnect after N requests on a connection\n"
"      --timeout D          give up on a request after D (default 10s)\n"
"      --connect-timeout D  give up on a TCP handshake after D (default 5s)\n"
"      --pipeline N         keep N requests in flight per connection (HTTP/1.1 pipelining)\n"
"      --source A[-B]       spread connections over local IPv4 addresses A..B\n"
"\n"
"Constant rate (open loop):\n"
"  -R, --rate R             send R requests per second in total, on a fixed schedule;\n"
"                           latency counts from when each request was due\n"
"      --arrival uniform|poisson   spacing of the schedule (default uniform)\n"
"      --warmup D           send load for D before measuring\n"
"      --max-connections N  open up to N connections when the schedule falls behind\n"
"\n"
"TLS (https:// URLs):\n"
"      --insecure           do not verify the certificate (-k is ab's keep-alive)\n"
"      --cacert FILE        trust this CA instead of the system store\n"
"      --tls-version V      1.2 or 1.3 only;  --ciphers LIST  OpenSSL cipher list\n"
"      --no-tls-resume      a full handshake on every connection (resumption is on by default)\n"
"\n"
"Request:\n"
"  -m, --method M           HTTP method (default GET, or POST with a body)\n"
"  -H, --header 'N: v'      add a header (repeatable)\n"
"  -b, --body STRING        request body\n"
"      --body-file FILE     request body from FILE\n"
"  -p FILE                  POST the body in FILE (as ab does)\n"
"  -T, --content-type TYPE  Content-Type of the body\n"
"  Several URLs are used round-robin and reported one by one.\n"
"\n"
"Output:\n"
"      --json FILE          write all results as JSON (- for stdout)\n"
"      --csv FILE           write the percentile table in ab's -e format\n"
"      --hdr FILE           write the HdrHistogram percentile distribution (values in ms)\n"
"      --slo 'p99<50ms,errors<0.1%,rps>1000'   check thresholds; exit 3 when one fails\n"
"      --html FILE          a self-contained HTML report with charts\n"
"      --monitor PID        sample the server's process tree: CPU per request, memory\n"
"  -e FILE                  same as --csv (ab)\n"
"  -q, --quiet              no progress line on stderr\n"
"  -h, --help               this help;  -V, --version  the version\n"
"\n"
"Sweep: rafale sweep [options] --slo 'p99<50ms' URL\n"
"  finds the highest constant rate that meets the SLO: doubles the rate from\n"
"  --start R (100) up to --max R until a step fails, then bisects; each step\n"
"  has --warmup (1s) and -d (5s)\n"
"\n"
"Compare and report:\n"
"  rafale compare [--html F] [--json F] PLAN   several servers side by side (see README)\n"
"  rafale report [--html F] RESULT.json...    the reports again from saved results\n"
"\n"
"Serve (rafale serve --help for more):\n"
"  rafale serve --listen 127.0.0.1:8080 -t 2\n"
"\n"
"Examples:\n"
"  rafale -c 50 -d 10s http://127.0.0.1:8080/          like wrk -c 50 -d 10s\n"
"  rafale -n 10000 -c 20 --close http://127.0.0.1/     like ab -n 10000 -c 20\n",
        stdout);
}

static void serve_usage(void)
{
    fputs(
"Usage: rafale serve [options]\n"
"  --listen ADDR:PORT    where to listen (default 127.0.0.1:8080; port 0 picks a free one)\n"
"  -t, --threads N       threads, each with its own SO_REUSEPORT listener (default: CPUs)\n"
"  --access-log FILE     log every request (- for stdout)\n"
"  --files DIR           load DIR's files into memory and serve them at /random\n"
"  --redirect-to URL     default Location of /redirect (http://example.com)\n"
"  --tls-cert FILE --tls-key FILE   serve the same routes over TLS (https://)\n"
"Routes: /  /redirect[?to=URL]  /bytes/N  /chunked/N  /delay/MS  /status/CODE  /close  /json  /random\n"
"The first line on stdout is 'listening on ADDR:PORT'. SIGINT/SIGTERM stop it and\n"
"print the connections and requests it served on stderr.\n",
        stdout);
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

static int parse_u32(const char *s, uint32_t *out, uint32_t min)
{
    uint64_t v;
    if (units_parse_count(s, &v) != 0 || v < min || v > 0x7fffffff)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int read_file(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (f == NULL) {
        snprintf(err, errlen, "cannot read body file '%s': %s", path, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;
        if (n == cap) {
            char *nb;
            cap = cap ? cap * 2 : 4096;
            nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                snprintf(err, errlen, "body file '%s' is too large", path);
                return -1;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        snprintf(err, errlen, "cannot read body file '%s'", path);
        return -1;
    }
    fclose(f);
    *out = buf;
    *len = n;
    return 0;
}

static int valid_header(const char *h)
{
    const char *colon = strchr(h, ':');
    const char *p;
    if (colon == NULL || colon == h)
        return 0;
    for (p = h; p < colon; p++)
        if (*p <= ' ' || *p >= 0x7f)
            return 0;
    for (p = colon; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t')
            return 0;
    return 1;
}

static int valid_method(const char *m)
{
    if (*m == '\0')
        return 0;
    for (; *m; m++)
        if (!((*m >= 'A' && *m <= 'Z') || (*m >= 'a' && *m <= 'z') || *m == '-' || *m == '_'))
            return 0;
    return 1;
}

static int parse_rate(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return (errno || end == s || *end || !(*out > 0) || *out > 1e8) ? -1 : 0;
}

void cli_defaults(struct config *cfg)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    memset(cfg, 0, sizeof(*cfg));
    cfg->connections = 10;
    cfg->threads = ncpu > 0 ? (uint32_t)ncpu : 1;
    cfg->keepalive = 1;
    cfg->timeout_ns = 10 * 1000000000ULL;
    cfg->connect_timeout_ns = 5 * 1000000000ULL;
    cfg->method = "GET";
}

enum cli_result cli_parse(int argc, char **argv, int sweep, struct config *cfg, char *err, size_t errlen,
                          char *notes, size_t noteslen)
{
    int opt, i;
    const char *body_file = NULL;
    int method_given = 0, conns_given = 0;

    cli_defaults(cfg);
    notes[0] = '\0';
    cfg->headers = calloc((size_t)argc, sizeof(char *));
    if (cfg->headers == NULL)
        return fail(err, errlen, "out of memory");

    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":n:c:t:d:km:H:b:p:T:e:R:qhV", long_opts, NULL)) != -1) {
        switch (opt) {
        case 'n':
            if (units_parse_count(optarg, &cfg->requests) != 0 || cfg->requests == 0)
                return fail(err, errlen, "-n wants a positive number of requests, not '%s'", optarg);
            break;
        case 'c':
            if (parse_u32(optarg, &cfg->connections, 1) != 0)
                return fail(err, errlen, "-c wants a number of connections from 1 to 10000000, not '%s'", optarg);
            conns_given = 1;
            break;
        case 't':
            if (parse_u32(optarg, &cfg->threads, 1) != 0 || cfg->threads > 1024)
                return fail(err, errlen, "-t wants a number of threads from 1 to 1024, not '%s'", optarg);
            break;
        case 'd':
            if (units_parse_duration(optarg, &cfg->duration_ns) != 0 || cfg->duration_ns == 0)
                return fail(err, errlen, "-d wants a duration such as 10s, 1m or 500ms, not '%s'", optarg);
            break;
        case 'k':
        case OPT_KEEPALIVE:
            cfg->keepalive = 1;
            break;
        case OPT_CLOSE:
            cfg->keepalive = 0;
            break;
        case OPT_TIMEOUT:
            if (units_parse_duration(optarg, &cfg->timeout_ns) != 0 || cfg->timeout_ns < 1000000)
                return fail(err, errlen, "--timeout wants a duration of at least 1ms, not '%s'", optarg);
            break;
        case OPT_CONNECT_TIMEOUT:
            if (units_parse_duration(optarg, &cfg->connect_timeout_ns) != 0 || cfg->connect_timeout_ns < 1000000)
                return fail(err, errlen, "--connect-timeout wants a duration of at least 1ms, not '%s'", optarg);
            break;
        case 'm':
            if (!valid_method(optarg))
                return fail(err, errlen, "-m wants an HTTP method such as GET or POST, not '%s'", optarg);
            cfg->method = optarg;
            method_given = 1;
            break;
        case 'H':
            if (!valid_header(optarg))
                return fail(err, errlen, "-H wants 'Name: value', not '%s'", optarg);
            cfg->headers[cfg->nheaders++] = optarg;
            break;
        case 'b':
            free(cfg->body);
            cfg->body = strdup(optarg);
            cfg->body_len = strlen(optarg);
            cfg->has_body = 1;
            body_file = NULL;
            break;
        case 'p':
        case OPT_BODY_FILE:
            body_file = optarg;
            break;
        case 'T':
            cfg->content_type = optarg;
            break;
        case OPT_RPC: {
            uint64_t v;
            if (units_parse_count(optarg, &v) != 0 || v == 0)
                return fail(err, errlen, "--requests-per-connection wants a positive number, not '%s'", optarg);
            cfg->requests_per_conn = v;
            break;
        }
        case OPT_JSON:
            cfg->json_path = optarg;
            break;
        case 'e':
        case OPT_CSV:
            cfg->csv_path = optarg;
            break;
        case OPT_PIPELINE:
            if (parse_u32(optarg, &cfg->pipeline, 1) != 0 || cfg->pipeline > 1024)
                return fail(err, errlen, "--pipeline wants a depth from 1 to 1024, not '%s'", optarg);
            break;
        case 'R':
            if (parse_rate(optarg, &cfg->rate) != 0)
                return fail(err, errlen, "-R wants requests per second, a number above 0, not '%s'", optarg);
            break;
        case OPT_HDR:
            cfg->hdr_path = optarg;
            break;
        case OPT_MONITOR: {
            uint32_t pid;
            if (parse_u32(optarg, &pid, 1) != 0)
                return fail(err, errlen, "--monitor wants a process id, not '%s'", optarg);
            cfg->monitor_pid = (int)pid;
            break;
        }
        case OPT_HTML:
            cfg->html_path = optarg;
            break;
        case OPT_MAX_CONNS:
            if (parse_u32(optarg, &cfg->max_connections, 1) != 0)
                return fail(err, errlen, "--max-connections wants a number of connections, not '%s'", optarg);
            break;
        case OPT_INSECURE:
            cfg->tls.insecure = 1;
            break;
        case OPT_CACERT:
            if (access(optarg, R_OK) != 0)
                return fail(err, errlen, "--cacert: cannot read '%s': %s", optarg, strerror(errno));
            cfg->tls.cacert = optarg;
            break;
        case OPT_TLS_VERSION:
            if (strcmp(optarg, "1.2") == 0)
                cfg->tls.version = 12;
            else if (strcmp(optarg, "1.3") == 0)
                cfg->tls.version = 13;
            else
                return fail(err, errlen, "--tls-version wants 1.2 or 1.3, not '%s'", optarg);
            break;
        case OPT_CIPHERS:
            cfg->tls.ciphers = optarg;
            break;
        case OPT_NO_TLS_RESUME:
            cfg->tls.no_resume = 1;
            break;
        case OPT_SLO:
            if (slo_parse(optarg, &cfg->slo, err, errlen) != 0)
                return CLI_ERROR;
            break;
        case OPT_START:
        case OPT_MAX:
            if (!sweep)
                return fail(err, errlen, "%s is an option of 'rafale sweep'", opt == OPT_START ? "--start" : "--max");
            if (parse_rate(optarg, opt == OPT_START ? &cfg->sweep_start : &cfg->sweep_max) != 0)
                return fail(err, errlen, "%s wants requests per second, not '%s'", opt == OPT_START ? "--start" : "--max",
                            optarg);
            break;
        case OPT_ARRIVAL:
            if (strcmp(optarg, "poisson") == 0)
                cfg->poisson = 1;
            else if (strcmp(optarg, "uniform") == 0)
                cfg->poisson = 0;
            else
                return fail(err, errlen, "--arrival wants uniform or poisson, not '%s'", optarg);
            break;
        case OPT_WARMUP:
            if (units_parse_duration(optarg, &cfg->warmup_ns) != 0)
                return fail(err, errlen, "--warmup wants a duration such as 2s, not '%s'", optarg);
            break;
        case OPT_SOURCE: {
            int n;
            free(cfg->sources);
            cfg->sources = calloc(MAX_SOURCES, sizeof(*cfg->sources));
            if (cfg->sources == NULL)
                return fail(err, errlen, "out of memory");
            n = net_parse_sources(optarg, cfg->sources, MAX_SOURCES, err, errlen);
            if (n < 0)
                return CLI_ERROR;
            cfg->nsources = (uint32_t)n;
            break;
        }
        case OPT_LATENCY:
            break; /* wrk's flag: we always print the distribution */
        case 'q':
            cfg->quiet = 1;
            break;
        case OPT_NO_PROGRESS:
            cfg->no_progress = 1;
            break;
        case 'h':
            cli_usage();
            return CLI_EXIT;
        case 'V':
            printf("rafale %s\n", RAFALE_VERSION);
            return CLI_EXIT;
        case ':':
            return fail(err, errlen, "option '%s' needs a value (see rafale --help)", argv[optind - 1]);
        default:
            if (optopt)
                return fail(err, errlen, "unknown option '-%c' (see rafale --help)", optopt);
            return fail(err, errlen, "unknown option '%s' (see rafale --help)", argv[optind - 1]);
        }
    }

    if (body_file) {
        free(cfg->body);
        cfg->body = NULL;
        if (read_file(body_file, &cfg->body, &cfg->body_len, err, errlen) != 0)
            return CLI_ERROR;
        cfg->has_body = 1;
    }
    if (cfg->has_body && !method_given)
        cfg->method = "POST";

    if (optind >= argc)
        return fail(err, errlen, "no URL given (try: rafale -c 10 -d 5s http://127.0.0.1:8080/)");
    cfg->nurls = (uint32_t)(argc - optind);
    cfg->urls = calloc(cfg->nurls, sizeof(*cfg->urls));
    cfg->url_text = calloc(cfg->nurls, sizeof(char *));
    if (cfg->urls == NULL || cfg->url_text == NULL)
        return fail(err, errlen, "out of memory");
    for (i = optind; i < argc; i++) {
        uint32_t k = (uint32_t)(i - optind);
        cfg->url_text[k] = argv[i];
        if (url_parse(argv[i], &cfg->urls[k], err, errlen) != 0)
            return CLI_ERROR;
    }

    if (sweep) {
        cfg->sweep = 1;
        if (cfg->slo.n == 0)
            return fail(err, errlen, "rafale sweep needs --slo, e.g. --slo 'p99<50ms,errors<0.1%%'");
        if (cfg->rate > 0 || cfg->requests)
            return fail(err, errlen, "rafale sweep chooses the rates itself: drop -R and -n (use --start/--max, -d per step)");
        if (cfg->sweep_start == 0)
            cfg->sweep_start = 100;
        if (cfg->sweep_max == 0)
            cfg->sweep_max = 1e7;
        if (cfg->sweep_max < cfg->sweep_start)
            return fail(err, errlen, "--max is below --start");
        if (cfg->duration_ns == 0)
            cfg->duration_ns = 5 * 1000000000ULL;
        if (cfg->warmup_ns == 0)
            cfg->warmup_ns = 1000000000ULL;
    }
    if (cfg->requests == 0 && cfg->duration_ns == 0)
        cfg->duration_ns = 10 * 1000000000ULL;
    if (cfg->requests && cfg->requests < cfg->connections) {
        if (conns_given)
            snprintf(notes, noteslen, "-n %llu is below -c %u: using %llu connections",
                 (unsigned long long)cfg->requests, cfg->connections, (unsigned long long)cfg->requests);
        cfg->connections = (uint32_t)cfg->requests;
    }
    if (cfg->threads > cfg->connections)
        cfg->threads = cfg->connections;
    if (cfg->max_connections && cfg->rate <= 0)
        return fail(err, errlen, "--max-connections goes with -R: a closed loop never falls behind a schedule");
    if (cfg->max_connections && cfg->max_connections < cfg->connections)
        return fail(err, errlen, "--max-connections %u is below -c %u", cfg->max_connections, cfg->connections);
    if (cfg->pipeline > 1 && !cfg->keepalive)
        return fail(err, errlen, "--pipeline needs keep-alive: it cannot go with --close");
    if (cfg->nsources && cfg->urls[0].host_is_ipv6)
        return fail(err, errlen, "--source takes IPv4 addresses; the URL is IPv6");
    return CLI_OK;
}

void cli_free(struct config *cfg)
{
    uint32_t i;
    if (cfg->urls)
        for (i = 0; i < cfg->nurls; i++)
            url_free(&cfg->urls[i]);
    free(cfg->urls);
    free(cfg->url_text);
    free(cfg->headers);
    free(cfg->body);
    free(cfg->sources);
    memset(cfg, 0, sizeof(*cfg));
}

enum cli_result cli_parse_compare(int argc, char **argv, struct compare_args *a, char *err, size_t errlen)
{
    static const struct option opts[] = {
        { "client-cpus", required_argument, NULL, 'c' },
        { "help", no_argument, NULL, 'h' },
        { "html", required_argument, NULL, 'H' },
        { "json", required_argument, NULL, 'j' },
        { "repeat", required_argument, NULL, 'r' },
        { "server-cpus", required_argument, NULL, 's' },
        { NULL, 0, NULL, 0 },
    };
    int opt;
    memset(a, 0, sizeof(*a));
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (opt) {
        case 'H':
            a->html_path = optarg;
            break;
        case 'j':
            a->json_path = optarg;
            break;
        case 'r':
            a->repeat = atoi(optarg);
            if (a->repeat < 1 || a->repeat > 16)
                return fail(err, errlen, "--repeat wants 1 to 16, not '%s'", optarg);
            break;
        case 's':
            a->server_cpus = optarg;
            break;
        case 'c':
            a->client_cpus = optarg;
            break;
        case 'h':
            fputs("Usage: rafale compare [--html FILE] [--json FILE] [--repeat N] [--server-cpus L] [--client-cpus L] FILE\n"
                  "Runs the workloads of FILE against each server of FILE, repetitions interleaved, and\n"
                  "reports req/s, latency, errors, server CPU per request and memory side by side.\n"
                  "See the README for the file format.\n", stdout);
            return CLI_EXIT;
        case ':':
            return fail(err, errlen, "option '%s' needs a value (see rafale compare --help)", argv[optind - 1]);
        default:
            return fail(err, errlen, "unknown option '%s' for compare (see rafale compare --help)", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return fail(err, errlen, "rafale compare wants one plan file (see rafale compare --help)");
    a->file = argv[optind];
    return CLI_OK;
}

enum cli_result cli_parse_serve(int argc, char **argv, struct serve_config *sc, char *err, size_t errlen)
{
    static const struct option opts[] = {
        { "access-log", required_argument, NULL, 'a' },
        { "files", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { "listen", required_argument, NULL, 'l' },
        { "redirect-to", required_argument, NULL, 'r' },
        { "threads", required_argument, NULL, 't' },
        { "tls-cert", required_argument, NULL, 'C' },
        { "tls-key", required_argument, NULL, 'K' },
        { NULL, 0, NULL, 0 },
    };
    int opt;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

    memset(sc, 0, sizeof(*sc));
    sc->listen = "127.0.0.1:8080";
    sc->threads = ncpu > 0 ? (uint32_t)ncpu : 1;
    sc->redirect_to = "http://example.com";
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, ":t:l:h", opts, NULL)) != -1) {
        switch (opt) {
        case 't':
            if (parse_u32(optarg, &sc->threads, 1) != 0 || sc->threads > 1024)
                return fail(err, errlen, "-t wants a number of threads from 1 to 1024, not '%s'", optarg);
            break;
        case 'l':
            sc->listen = optarg;
            break;
        case 'a':
            sc->access_log = optarg;
            break;
        case 'f':
            sc->files_dir = optarg;
            break;
        case 'r':
            sc->redirect_to = optarg;
            break;
        case 'C':
            sc->tls_cert = optarg;
            break;
        case 'K':
            sc->tls_key = optarg;
            break;
        case 'h':
            serve_usage();
            return CLI_EXIT;
        case ':':
            return fail(err, errlen, "option '%s' needs a value (see rafale serve --help)", argv[optind - 1]);
        default:
            return fail(err, errlen, "unknown option '%s' for serve (see rafale serve --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return fail(err, errlen, "unexpected argument '%s' for serve", argv[optind]);
    if ((sc->tls_cert == NULL) != (sc->tls_key == NULL))
        return fail(err, errlen, "--tls-cert and --tls-key go together");
    return CLI_OK;
}
