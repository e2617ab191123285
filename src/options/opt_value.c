/* opt_value.c - the values of the options that are more than a type (a
 * count, a duration, a rate, a text): methods, header fields, bodies, source
 * addresses, curl's host maps, pass phrases, stages, CPU lists, compare's
 * settings. opt.c's table names each by its id (opt_int.h). */
#include "opt_int.h"
#include "accesslog.h"
#include "compare_settings.h"
#include "serve_config.h"
#include "check.h"
#include "err.h"
#include "precision.h"
#include "shard.h"
#include "buf.h"
#include "units.h"
#include "http_lex.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int valid_header(const char *h)
{
    const char *colon = strchr(h, ':');
    const char *p;
    if (colon == NULL || colon == h)
        return 0;
    /* RFC 9110 §5.1: a field name is a token, no space before the colon;
     * §5.5: a value holds no CR, LF, NUL, DEL or other control but HTAB. */
    for (p = h; p < colon; p++)
        if (!lex_tchar(*p))
            return 0;
    for (p = colon + 1; *p; p++)
        if (!lex_field_char(*p))
            return 0;
    return 1;
}

static int valid_method(const char *m)
{
    /* RFC 9110 §9.1: a method is a token; letters, '-' and '_' in practice. */
    if (*m == '\0' || strlen(m) > 32)
        return 0;
    for (; *m; m++)
        if (!((*m >= 'A' && *m <= 'Z') || (*m >= 'a' && *m <= 'z') || *m == '-' || *m == '_'))
            return 0;
    return 1;
}

static int read_body_file(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
    struct buf b = { 0 };
    if (buf_read_file(&b, path, (size_t)1 << 31) != 0) {
        int e = errno;
        buf_free(&b);
        if (e == EFBIG || e == ENOMEM)
            return err_set(err, errlen, NULL, "body file '%s' is too large", path);
        return err_set(err, errlen, NULL, "cannot read body file '%s': %s", path, strerror(e));
    }
    *out = b.p ? b.p : malloc(1);
    *len = b.len;
    return *out ? 0 : err_set(err, errlen, NULL, "out of memory");
}

/* "0", "0,2", "1-3" into out (at most CMP_MAX_CPUS). Returns 0 or -1. */
static int cpu_list(const char *v, int *out, int *n)
{
    const char *p = v;
    *n = 0;
    while (*p) {
        char *end;
        long a, b;
        a = strtol(p, &end, 10);
        if (end == p || a < 0)
            return -1;
        b = a;
        if (*end == '-') {
            p = end + 1;
            b = strtol(p, &end, 10);
            if (end == p || b < a)
                return -1;
        }
        if (b > 1023 || (*end != ',' && *end != '\0'))
            return -1;
        for (; a <= b && *n < CMP_MAX_CPUS; a++)
            out[(*n)++] = (int)a;
        p = *end == ',' ? end + 1 : end;
        if (*end == ',' && *p == '\0')
            return -1;
    }
    return *n > 0 ? 0 : -1;
}

/* --stages 'DUR:RATE,...' or 'DUR:Nc,...' into cfg. Returns 0, or -1
 * (nothing set) when v is not such a list. */
static int parse_stages(struct config *cfg, const char *v)
{
    char copy[2048], *tok, *save = NULL;
    int conns = -1;
    if (strlen(v) >= sizeof(copy))
        return -1;
    strcpy(copy, v);
    cfg->nstages = 0;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        const char *end;
        double val;
        int c;
        if (colon == NULL || cfg->nstages == 64)
            goto bad;
        *colon = '\0';
        if (units_parse_duration(tok, &cfg->stage_dur[cfg->nstages]) != 0 || cfg->stage_dur[cfg->nstages] == 0)
            goto bad;
        if (units_parse_decimal(colon + 1, &val, &end) != 0)
            goto bad;
        c = *end == 'c';
        /* A rate stage goes to 0 or to a rate -R could have; a
         * connections stage to a whole number. */
        if ((c ? end[1] != '\0' : *end != '\0') || val > RATE_MAX ||
            (!c && val > 0 && val < RATE_MIN) || (c && val != floor(val)) || (conns >= 0 && c != conns))
            goto bad;
        conns = c;
        cfg->stage_val[cfg->nstages++] = val;
    }
    if (cfg->nstages == 0)
        return -1;
    cfg->stages_conns = conns;
    return 0;
bad:
    cfg->nstages = 0;
    return -1;
}

/* -b TEXT, or --body-file FILE (read whole). Returns 0, or -1 with why. */
static int set_body(struct config *cfg, int from_file, const char *v, char *err, size_t errlen)
{
    char *b = NULL;
    size_t n = 0;
    if (from_file) {
        if (read_body_file(v, &b, &n, err, errlen) != 0)
            return -1;
    } else {
        n = strlen(v);
        if ((b = malloc(n + 1)) == NULL)
            return err_set(err, errlen, NULL, "out of memory");
        memcpy(b, v, n + 1);
    }
    free(cfg->body);
    cfg->body = b;
    cfg->body_len = n;
    cfg->has_body = 1;
    return 0;
}

/* --source: local addresses to connect from, round-robin. */
static int set_sources(struct config *cfg, const char *v, const char *shown, char *err, size_t errlen)
{
    enum { MAX_SOURCES = 256 };
    struct net_addr *a = calloc(MAX_SOURCES, sizeof(*a));
    char why[200];
    int n, i;
    if (a == NULL)
        return err_set(err, errlen, NULL, "out of memory");
    n = net_parse_sources(v, a, MAX_SOURCES, why, sizeof(why));
    if (n < 0) {
        free(a);
        return err_set(err, errlen, NULL, "%s wants %s, not '%s'", shown, why, v);
    }
    /* An address this host does not have fails every connect's bind
     * (EADDRNOTAVAIL, local ports' own error): said now, not as ports run out. */
    for (i = 0; i < n; i++) {
        int e = net_bindable(&a[i]);
        if (e == EADDRNOTAVAIL) {
            char s[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &((const struct sockaddr_in *)&a[i].ss)->sin_addr, s, sizeof(s));
            free(a);
            return err_set(err, errlen, NULL, "%s: %s is not an address of this host (%s)", shown, s, strerror(e));
        }
    }
    free(cfg->sources);
    cfg->sources = a;
    cfg->nsources = (uint32_t)n;
    return 0;
}

/* One host of a --connect-to/--resolve spec, up to the next ':' (or the
 * end when last): a name or address, or [IPv6] as a URL writes it, kept
 * without its brackets. A bracket anywhere else, or [], is refused.
 * Returns 0 and moves *s past it, or -1. */
static int take_host(const char **s, int last, char *out, size_t len)
{
    const char *b = *s, *e;
    size_t n;
    if (*b == '[') {
        e = strchr(b, ']');
        if (e == NULL || e == b + 1 || (e[1] != ':' && !(last && e[1] == '\0')))
            return -1;
        b++;
        *s = e + 1;
    } else {
        e = last ? b + strlen(b) : strchr(b, ':');
        if (e == NULL)
            return -1;
        *s = e;
    }
    n = (size_t)(e - b);
    if (n >= len || memchr(b, '[', n) || memchr(b, ']', n))
        return -1;
    memcpy(out, b, n);
    out[n] = '\0';
    return 0;
}

/* A port of decimal digits only (none: 0), up to the next ':' or the end.
 * Returns 0 and moves *s past it, or -1. */
static int take_port(const char **s, uint16_t *port)
{
    unsigned long n = 0;
    const char *p = *s;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((n = n * 10 + (unsigned long)(*p - '0')) > 65535)
            return -1;
    if (*p != ':' && *p != '\0')
        return -1;
    *port = (uint16_t)n;
    *s = p;
    return 0;
}

/* curl's --connect-to HOST:PORT:HOST2:PORT2 (HOST or PORT empty: any;
 * HOST2 or PORT2 empty: the same) and --resolve HOST:PORT:ADDRESS. */
static int host_map_parse(const char *v, int connect_to, struct host_map *m)
{
    memset(m, 0, sizeof(*m));
    if (take_host(&v, 0, m->host, sizeof(m->host)) != 0 || *v++ != ':' || take_port(&v, &m->port) != 0 ||
        *v++ != ':')
        return -1;
    if (!connect_to)
        return m->host[0] && m->port && take_host(&v, 1, m->to, sizeof(m->to)) == 0 && m->to[0] ? 0 : -1;
    if (take_host(&v, 0, m->to, sizeof(m->to)) != 0 || *v++ != ':' || take_port(&v, &m->to_port) != 0 || *v)
        return -1;
    return 0;
}

/* A key's pass phrase into out (TLS_PASS_MAX + 1 bytes): --pass PHRASE as
 * written (source 0), or --key-pass SOURCE in openssl's -passin words
 * (env:NAME, file:PATH its first line, pass:PHRASE). Read now, so a
 * missing variable or file is said before any load. An error never shows
 * what follows "pass:", nor a value without a known prefix: it may be the
 * phrase itself. */
static int read_pass(int source, const char *v, const char *shown, char *out, char *err, size_t errlen)
{
    char line[TLS_PASS_MAX + 2];
    const char *phrase = v;
    int rc = 0;

    if (source && strncmp(v, "env:", 4) == 0) {
        if (v[4] == '\0')
            return err_set(err, errlen, NULL, "%s env:NAME wants the name of a variable", shown);
        if ((phrase = getenv(v + 4)) == NULL)
            return err_set(err, errlen, NULL, "%s %s: the variable %s is not set", shown, v, v + 4);
    } else if (source && strncmp(v, "file:", 5) == 0) {
        FILE *f = fopen(v + 5, "r");
        size_t n;
        if (f == NULL)
            return err_set(err, errlen, NULL, "%s %s: cannot read it: %s", shown, v, strerror(errno));
        if (fgets(line, sizeof(line), f) == NULL) {
            line[0] = '\0';
            if (ferror(f))
                rc = err_set(err, errlen, NULL, "%s %s: cannot read it: %s", shown, v, strerror(errno));
        }
        fclose(f);
        n = strcspn(line, "\r\n");
        if (rc == 0 && n > TLS_PASS_MAX)
            rc = err_set(err, errlen, NULL, "%s %s: a first line of more than %d bytes is no pass phrase", shown, v,
                         TLS_PASS_MAX);
        line[n] = '\0';
        phrase = line;
    } else if (source && strncmp(v, "pass:", 5) == 0) {
        phrase = v + 5;
    } else if (source) {
        const char *colon = strchr(v, ':');
        if (colon && colon - v < 16)
            return err_set(err, errlen, NULL, "%s wants env:NAME, file:PATH or pass:PHRASE, not '%.*s...'", shown,
                           (int)(colon - v + 1), v);
        return err_set(err, errlen, NULL, "%s wants env:NAME, file:PATH or pass:PHRASE (what was given is not "
                       "shown: it may be the phrase)", shown);
    }
    if (rc == 0 && strlen(phrase) > TLS_PASS_MAX)
        rc = err_set(err, errlen, NULL, "%s: a pass phrase of more than %d bytes", shown, TLS_PASS_MAX);
    if (rc == 0)
        memcpy(out, phrase, strlen(phrase) + 1);
    explicit_bzero(line, sizeof(line));
    return rc;
}

/* The client's --pass or --key-pass, kept by the config. */
static int set_pass(struct config *cfg, int source, const char *v, const char *shown, char *err, size_t errlen)
{
    char phrase[TLS_PASS_MAX + 1];
    int rc = read_pass(source, v, shown, phrase, err, errlen);
    if (rc == 0 && (cfg->tls.pass = config_keep(cfg, phrase)) == NULL)
        rc = err_set(err, errlen, NULL, "out of memory");
    explicit_bzero(phrase, sizeof(phrase));
    return rc;
}

/* "status,location,type,body" (any of them) or "no" (0). Returns 0, or -1. */
static int same_parse(const char *spec, unsigned *fields)
{
    char buf[128], *tok, *save;
    *fields = 0;
    if (strcmp(spec, "no") == 0)
        return 0;
    snprintf(buf, sizeof(buf), "%s", spec);
    for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        if (strcmp(tok, "status") == 0)
            *fields |= ALIKE_STATUS;
        else if (strcmp(tok, "location") == 0)
            *fields |= ALIKE_LOCATION;
        else if (strcmp(tok, "type") == 0)
            *fields |= ALIKE_TYPE;
        else if (strcmp(tok, "body") == 0)
            *fields |= ALIKE_BODY;
        else
            return -1;
    }
    return *fields ? 0 : -1;
}

/* The request, its connection and TLS, and what answers must be. Returns 0, -1 with why in err, 1 for a value it
 * does not take (said with the option's `wants`), or 2 for another's id. */
static int set_request(int id, struct config *cfg, const char *v, const char *shown, char *err, size_t errlen)
{
    char why[200];

    switch (id) {
    case I_METHOD:
        if (!valid_method(v))
            break;
        if ((cfg->method = config_keep(cfg, v)) == NULL)
            return err_set(err, errlen, NULL, "out of memory");
        cfg->method_given = 1;
        return 0;
    case I_HEADER:
        if (!valid_header(v))
            break;
        if (config_add_header(cfg, v) != 0)
            return err_set(err, errlen, NULL, "out of memory");
        return 0;
    case I_BODY:
    case I_BODY_FILE:
        return set_body(cfg, id == I_BODY_FILE, v, err, errlen);
    case I_SOURCE:
        return set_sources(cfg, v, shown, err, errlen);
    case I_ARRIVAL:
        if (strcmp(v, "poisson") == 0)
            cfg->poisson = 1;
        else if (strcmp(v, "uniform") == 0)
            cfg->poisson = 0;
        else
            break;
        return 0;
    case I_TLS_VERSION:
        if (strcmp(v, "1.2") == 0)
            cfg->tls.version = 12;
        else if (strcmp(v, "1.3") == 0)
            cfg->tls.version = 13;
        else
            break;
        return 0;
    case I_CONNECT_TO:
    case I_RESOLVE: {
        struct host_map m;
        if (host_map_parse(v, id == I_CONNECT_TO, &m) != 0)
            break;
        if (id == I_CONNECT_TO ? cfg->nconnect_to == HOST_MAP_MAX : cfg->nresolve == HOST_MAP_MAX)
            return err_set(err, errlen, NULL, "%s: at most %d of them", shown, HOST_MAP_MAX);
        if (id == I_CONNECT_TO)
            cfg->connect_to[cfg->nconnect_to++] = m;
        else
            cfg->resolve[cfg->nresolve++] = m;
        return 0;
    }
    case I_CERT:
    case I_KEY:
        if (access(v, R_OK) != 0)
            return err_set(err, errlen, NULL, "%s: cannot read '%s': %s", shown, v, strerror(errno));
        if ((*(id == I_CERT ? &cfg->tls.cert : &cfg->tls.key) = config_keep(cfg, v)) == NULL)
            return err_set(err, errlen, NULL, "out of memory");
        return 0;
    case I_PASS:
    case I_KEY_PASS:
        return set_pass(cfg, id == I_KEY_PASS, v, shown, err, errlen);
    case I_CACERT:
        if (access(v, R_OK) != 0)
            return err_set(err, errlen, NULL, "%s: cannot read '%s': %s", shown, v, strerror(errno));
        if ((cfg->tls.cacert = config_keep(cfg, v)) == NULL)
            return err_set(err, errlen, NULL, "out of memory");
        return 0;
    case I_SLO:
        return slo_parse(v, &cfg->slo, err, errlen);
    case I_PRECISION:
        return precision_parse(v, &cfg->precision, err, errlen);
    case I_EXPECT:
        if (status_set_parse(v, &cfg->expect, why, sizeof(why)) != 0)
            return err_set(err, errlen, NULL, "%s wants %s, not '%s'", shown, why, v);
        return 0;
    default:
        return 2;
    }
    return 1;
}

/* The workload, the shards and the outputs. Returns 0, -1 with why in err, 1 for a value it
 * does not take (said with the option's `wants`), or 2 for another's id. */
static int set_workload(int id, struct config *cfg, const char *v, const char *shown, char *err, size_t errlen)
{

    switch (id) {
    case I_LATENCY:
        return 0; /* wrk's flag: the distribution is always printed */
    case I_VERBOSE:
        if (cfg->verbose < 2) /* -vv: the secrets too */
            cfg->verbose++;
        return 0;
    case I_CHECK: {
        struct check c;
        char why[300];
        if (check_compile(v, &c, why, sizeof(why)) != 0)
            return err_set(err, errlen, NULL, "%s '%s': %s", shown, v, why);
        check_free(&c);
        if (config_add_check(cfg, v) != 0)
            return err_set(err, errlen, NULL, "out of memory");
        return 0;
    }
    case I_MAX_BODY: {
        double x;
        if (units_parse_size(v, &x) != 0 || x > 1024.0 * 1048576)
            break;
        cfg->max_body = (uint64_t)x;
        return 0;
    }
    case I_THINK: {
        const char *dash = strchr(v, '-');
        char a[64];
        if (strlen(v) >= sizeof(a))
            break;
        if (dash == NULL) {
            if (units_parse_duration(v, &cfg->think_lo_ns) != 0)
                break;
            cfg->think_hi_ns = cfg->think_lo_ns;
            return 0;
        }
        snprintf(a, sizeof(a), "%.*s", (int)(dash - v), v);
        if (units_parse_duration(a, &cfg->think_lo_ns) != 0 || units_parse_duration(dash + 1, &cfg->think_hi_ns) != 0 ||
            cfg->think_hi_ns < cfg->think_lo_ns)
            break;
        return 0;
    }
    case I_CALIBRATE:
        if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
            break;
        cfg->calibrate = strcmp(v, "yes") == 0;
        return 0;
    case I_FINDINGS:
        if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
            break;
        cfg->no_findings = strcmp(v, "no") == 0;
        return 0;
    case I_TIMESTAMPS:
        if (strcmp(v, "kernel") != 0 && strcmp(v, "user") != 0)
            break;
        cfg->user_timestamps = strcmp(v, "user") == 0;
        return 0;
    case I_ORDER:
        if (strcmp(v, "sequential") == 0)
            cfg->order_mode = ORDER_SEQUENTIAL;
        else if (strcmp(v, "random") == 0)
            cfg->order_mode = ORDER_RANDOM;
        else if (strcmp(v, "session") == 0)
            cfg->order_mode = ORDER_SESSION;
        else
            break;
        return 0;
    case I_STAGES:
        if (parse_stages(cfg, v) != 0)
            break;
        return 0;
    case I_SHARD:
        if (shard_parse(v, &cfg->shard_index, &cfg->shard_count, &cfg->shard_from) == 0)
            return 0;
        if (strcmp(v, "auto") == 0)
            return err_set(err, errlen, NULL, "%s auto: no shard rank and size in the environment (OMPI_COMM_WORLD_RANK/SIZE, "
                        "PMI_RANK/PMI_SIZE, SLURM_PROCID/SLURM_NTASKS, or JOB_COMPLETION_INDEX with RAFALE_SHARDS)", shown);
        break;
    case I_START_AT:
        if ((cfg->start_at = shard_parse_time(v)) > 0)
            return 0;
        break;
    case I_SEED: {
        char *end;
        errno = 0;
        cfg->seed = strtoull(v, &end, 10);
        if (errno || end == v || *end || *v == '-')
            break;
        cfg->seed_given = 1;
        return 0;
    }
    default:
        return 2;
    }
    return 1;
}

/* rafale replay's window and patterns. Returns 0, -1 with why in err, 1
 * for a value it does not take, or 2 for another's id. */
static int set_replay(int id, struct config *cfg, const char *v, const char *shown, char *err, size_t errlen)
{
    struct replay_when *w = id == I_FROM ? &cfg->replay_from : &cfg->replay_to;
    uint64_t ns;
    if (id == I_PATTERN) {
        regex_t re;
        char name[256], why[300];
        if (accesslog_user_pattern(v, &re, name, sizeof(name), why, sizeof(why)) != 0)
            return err_set(err, errlen, NULL, "%s '%s': %s", shown, v, why);
        regfree(&re);
        return config_add_pattern(cfg, v) == 0 ? 0 : err_set(err, errlen, NULL, "out of memory");
    }
    if (id != I_FROM && id != I_TO)
        return 2;
    memset(w, 0, sizeof(*w));
    if (v[0] == '+' && units_parse_duration(v + 1, &ns) == 0 && ns <= INT64_MAX / 2) {
        w->ns = (int64_t)ns;
        w->offset = 1;
    } else if (v[0] == '+' || accesslog_time(v, &w->ns) != 0) {
        return 1;
    }
    w->set = 1;
    return 0;
}

/* A compare's settings. Returns 0, -1 with why in err, 1 for a value it
 * does not take (said with the option's `wants`), or 2 for another's id. */
static int set_compare(int id, struct compare_settings *set, const char *v)
{

    switch (id) {
    case I_REPEAT: {
        char *end;
        unsigned long n;
        if (strcmp(v, "auto") == 0) {
            set->repeat_auto = 1;
            set->repeat = COMPARE_AUTO_LEAST;
            return 0;
        }
        n = strtoul(v, &end, 10);
        if (*v < '0' || *v > '9' || *end || n < 1 || n > 1000)
            break;
        set->repeat = (int)n;
        set->repeat_auto = 0;
        return 0;
    }
    case I_SAME_WITHIN: {
        const char *end;
        double pct;
        if (units_parse_decimal(v, &pct, &end) != 0 || strcmp(end, "%") != 0 || !(pct >= 0.1 && pct <= 50))
            break;
        set->same_within = pct / 100;
        return 0;
    }
    case I_CMP_WARMUP: {
        uint64_t ns;
        if (units_parse_duration(v, &ns) != 0)
            break;
        set->warmup_ns = ns;
        set->warmup_set = 1;
        return 0;
    }
    case I_SAME: {
        unsigned fields;
        if (same_parse(v, &fields) != 0)
            break;
        set->same = (int)fields;
        return 0;
    }
    case I_PIN:
        if (strcmp(v, "auto") != 0 && strcmp(v, "no") != 0)
            break;
        set->pin = strcmp(v, "no") == 0 ? PIN_NO : PIN_AUTO;
        return 0;
    case I_SERVER_CPUS:
        if (cpu_list(v, set->server_cpus, &set->nserver_cpus) != 0)
            break;
        return 0;
    case I_CLIENT_CPUS:
        if (cpu_list(v, set->client_cpus, &set->nclient_cpus) != 0)
            break;
        return 0;
    default:
        return 2;
    }
    return 1;
}

/* diff's --threshold: a percentage, "5%" or "5", below 1000%. */
static int set_threshold(struct result_args *a, const char *v)
{
    const char *end;
    double t;
    if (units_parse_decimal(v, &t, &end) != 0 || (*end && strcmp(end, "%") != 0) || !(t < 1000))
        return 1;
    a->threshold = t / 100;
    return 0;
}

int opt_value_set(int id, const char *wants, const struct opt_dst *d, const char *v, const char *shown, char *err,
                  size_t errlen)
{
    int rc = 2;
    if (id == I_SERVE_KEY_PASS && d->serve) {
        /* serve's --key-pass: the phrase in its config, wiped once the key is read. */
        if ((rc = read_pass(1, v, shown, d->serve->key_pass, err, errlen)) == 0)
            d->serve->key_pass_set = 1;
        return rc;
    }
    if (id == I_THRESHOLD)
        rc = set_threshold(d->res, v);
    else if (d->cmp)
        rc = set_compare(id, d->cmp, v);
    if (rc == 2 && d->run && (rc = set_request(id, d->run, v, shown, err, errlen)) == 2)
        rc = set_workload(id, d->run, v, shown, err, errlen);
    if (rc == 2 && d->run)
        rc = set_replay(id, d->run, v, shown, err, errlen);
    if (rc == 2)
        return err_set(err, errlen, NULL, "%s cannot be set here", shown);
    if (rc == 1)
        return err_set(err, errlen, NULL, "%s wants %s, not '%s'", shown, wants, v);
    return rc;
}
