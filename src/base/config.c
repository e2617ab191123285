/* config.c - defaults, copies and the cross-option rules of a run's
 * configuration, shared by the command line and the compare file. */
#include "config.h"
#include "err.h"
#include "request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int config_resolve(const struct config *cfg, const char *host, uint16_t port, struct net_addr *a, char *err,
                   size_t errlen)
{
    uint32_t k;
    for (k = 0; k < cfg->nconnect_to; k++) {
        const struct host_map *m = &cfg->connect_to[k];
        if ((m->host[0] == '\0' || strcasecmp(m->host, host) == 0) && (m->port == 0 || m->port == port)) {
            if (m->to[0])
                host = m->to;
            if (m->to_port)
                port = m->to_port;
            break;
        }
    }
    for (k = 0; k < cfg->nresolve; k++)
        if (strcasecmp(cfg->resolve[k].host, host) == 0 && cfg->resolve[k].port == port) {
            host = cfg->resolve[k].to;
            break;
        }
    return net_resolve(host, port, a, err, errlen);
}

void config_defaults(struct config *cfg)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    memset(cfg, 0, sizeof(*cfg));
    cfg->connections = 10;
    cfg->threads = ncpu > 0 ? (uint32_t)ncpu : 1;
    cfg->keepalive = 1;
    cfg->timeout_ns = 10 * 1000000000ULL;
    cfg->max_body = 1 << 20;
    cfg->abort_after_ns = 5 * 1000000000ULL;
    cfg->connect_timeout_ns = 5 * 1000000000ULL;
    cfg->method = "GET";
    cfg->streams = 1;
    cfg->h2_window_bits = 30; /* as h2load's -w/-W: windows never throttle a benchmark */
    status_set_default(&cfg->expect);
}

int config_grow(void *arr, uint32_t *cap, uint32_t need, size_t elem)
{
    void **p = arr;
    uint32_t nc;
    void *n;
    if (need <= *cap)
        return 0;
    nc = *cap ? *cap : 8;
    while (nc < need)
        nc = nc > UINT32_MAX / 2 ? UINT32_MAX : nc * 2;
    if ((n = realloc(*p, (size_t)nc * elem)) == NULL)
        return -1;
    *p = n;
    *cap = nc;
    return 0;
}

void *config_own(struct config *cfg, void *p)
{
    if (p == NULL)
        return NULL;
    if (config_grow(&cfg->owned, &cfg->owned_cap, cfg->nowned + 1, sizeof(char *)) != 0) {
        free(p);
        return NULL;
    }
    cfg->owned[cfg->nowned++] = p;
    return p;
}

const char *config_keep(struct config *cfg, const char *s)
{
    if (s == NULL)
        return NULL;
    return config_own(cfg, strdup(s));
}

/* Appends a copy of s (kept) to a list of the config's, grown one at a
 * time: a handful of entries, read once per run. */
static int add_kept(struct config *cfg, const char ***list, uint32_t *n, const char *s)
{
    const char **grown;
    const char *kept = config_keep(cfg, s);
    if (kept == NULL)
        return -1;
    grown = realloc(*list, (*n + 1) * sizeof(char *));
    if (grown == NULL)
        return -1;
    *list = grown;
    (*list)[(*n)++] = kept;
    return 0;
}

int config_add_header(struct config *cfg, const char *h)
{
    return add_kept(cfg, &cfg->headers, &cfg->nheaders, h);
}

int config_add_check(struct config *cfg, const char *expr)
{
    return add_kept(cfg, &cfg->check_exprs, &cfg->ncheck_exprs, expr);
}

int config_add_pattern(struct config *cfg, const char *spec)
{
    return add_kept(cfg, &cfg->replay_patterns, &cfg->nreplay_patterns, spec);
}

/* Re-points a borrowed string of src at a copy kept by dst. */
static int rekeep(struct config *dst, const char **field)
{
    if (*field == NULL)
        return 0;
    *field = config_keep(dst, *field);
    return *field ? 0 : -1;
}

int config_copy(struct config *dst, const struct config *src)
{
    uint32_t i;
    int rc = 0;

    *dst = *src;
    dst->urls = NULL;
    dst->url_text = NULL;
    dst->targets = NULL;
    dst->ntargets = 0;
    dst->order = NULL;
    dst->norder = 0;
    dst->owned = NULL;
    dst->nowned = dst->owned_cap = 0;
    dst->urls_cap = dst->order_cap = dst->tindex_cap = 0;
    dst->tindex = NULL;
    dst->headers = NULL;
    dst->nheaders = 0;
    dst->check_exprs = NULL;
    dst->ncheck_exprs = 0;
    dst->replay_patterns = NULL;
    dst->nreplay_patterns = 0;
    dst->body = NULL;
    dst->sources = NULL;
    for (i = 0; i < src->nheaders; i++)
        rc |= config_add_header(dst, src->headers[i]);
    for (i = 0; i < src->ncheck_exprs; i++)
        rc |= config_add_check(dst, src->check_exprs[i]);
    for (i = 0; i < src->nreplay_patterns; i++)
        rc |= config_add_pattern(dst, src->replay_patterns[i]);
    if (src->body) {
        dst->body = malloc(src->body_len ? src->body_len : 1);
        if (dst->body)
            memcpy(dst->body, src->body, src->body_len);
        else
            rc = -1;
    }
    if (src->nsources) {
        dst->sources = malloc(src->nsources * sizeof(*src->sources));
        if (dst->sources)
            memcpy(dst->sources, src->sources, src->nsources * sizeof(*src->sources));
        else
            rc = -1;
    }
    if (src->method && strcmp(src->method, "GET") != 0)
        rc |= rekeep(dst, &dst->method);
    rc |= rekeep(dst, &dst->content_type);
    for (i = 0; i < OUT__COUNT; i++)
        rc |= rekeep(dst, &dst->out[i]);
    rc |= rekeep(dst, &dst->monitor_cgroup);
    rc |= rekeep(dst, &dst->tls.cacert);
    rc |= rekeep(dst, &dst->tls.cert);
    rc |= rekeep(dst, &dst->tls.key);
    rc |= rekeep(dst, &dst->tls.pass);
    rc |= rekeep(dst, &dst->tls.ciphers);
    rc |= rekeep(dst, &dst->targets_path);
    rc |= rekeep(dst, &dst->unix_socket);
    return rc ? -1 : 0;
}

/* -H's framing beside -b: as a targets file's (request_framing). Returns 0
 * or -1. */
static int finish_framing(const struct config *cfg, char *err, size_t errlen)
{
    struct req_spec rs;
    uint32_t bad = 0;
    char why[400];
    memset(&rs, 0, sizeof(rs));
    rs.method = cfg->method;
    rs.headers = cfg->headers;
    rs.nheaders = cfg->nheaders;
    rs.body = cfg->body;
    rs.body_len = cfg->body_len;
    rs.has_body = cfg->has_body;
    if (request_framing(&rs, &bad, why, sizeof(why)) != 0) {
        err_set(err, errlen, NULL, "--header '%.60s': %s", cfg->headers[bad], why);
        return -1;
    }
    return 0;
}

/* --stages: the duration is their sum; the rate or the connections their top. Returns 0 or -1. */
static int finish_stages(struct config *cfg, char *err, size_t errlen)
{
    uint64_t total = 0;
    double top = 0;
    uint32_t i;
    if (cfg->duration_ns) {
        err_set(err, errlen, NULL, "--stages sets the duration (their sum): drop -d");
        return -1;
    }
    if (cfg->warmup_ns) {
        err_set(err, errlen, NULL, "--stages and --warmup do not go together: make the first stage the warm-up");
        return -1;
    }
    for (i = 0; i < cfg->nstages; i++) {
        total += cfg->stage_dur[i];
        if (cfg->stage_val[i] > top)
            top = cfg->stage_val[i];
    }
    cfg->duration_ns = total;
    if (cfg->stages_conns) {
        if (cfg->rate > 0) {
            err_set(err, errlen, NULL, "stages of connections ('30s:200c') are closed loop: drop -R, or give rates");
            return -1;
        }
        /* From -c (or none) to each value; as many connections as the top one. */
        cfg->stage_start = cfg->connections_given ? cfg->connections : 0;
        if (cfg->stage_start > top)
            top = cfg->stage_start;
        if (top < 1) {
            err_set(err, errlen, NULL, "--stages: at least one stage needs a connection");
            return -1;
        }
        cfg->connections = (uint32_t)(top + 0.5);
    } else {
        /* From -R (or 0); the top rate makes this a constant-rate run. */
        cfg->stage_start = cfg->rate;
        if (cfg->stage_start > top)
            top = cfg->stage_start;
        if (!(top > 0)) {
            err_set(err, errlen, NULL, "--stages: every rate is 0");
            return -1;
        }
        cfg->rate = top;
    }
    return 0;
}

const char *config_tls_given(const struct config *cfg)
{
    const struct tls_options *t = &cfg->tls;
    return t->insecure ? "insecure" : t->cacert ? "cacert" : t->cert || t->key || t->pass ? "cert"
         : t->version ? "tls-version" : t->ciphers ? "ciphers" : t->no_resume ? "no-tls-resume" : NULL;
}

/* --order over URLs alone walks them as written; a targets file's order
 * is sequential unless told. Returns 0 or -1. */
static int finish_order(struct config *cfg, char *err, size_t errlen)
{
    uint32_t i;
    if (cfg->order_mode != ORDER_DEFAULT && cfg->norder == 0) {
        if ((cfg->order = calloc(cfg->ntargets ? cfg->ntargets : 1, sizeof(uint32_t))) == NULL)
            return err_set(err, errlen, NULL, "out of memory");
        for (i = 0; i < cfg->ntargets; i++)
            cfg->order[i] = i;
        cfg->norder = cfg->ntargets;
    }
    if (cfg->targets_path && cfg->order_mode == ORDER_DEFAULT)
        cfg->order_mode = ORDER_SEQUENTIAL;
    return 0;
}

const struct proto *config_proto(const struct config *cfg)
{
    int i;
    for (i = PROTO__COUNT - 1; i > 0 && !cfg->proto_asked[i]; i--)
        ;
    return &proto_rows[i];
}

static int given_0rtt(const struct config *cfg)
{
    return cfg->http3_0rtt;
}

static int given_unix_socket(const struct config *cfg)
{
    return cfg->unix_socket != NULL;
}

static int given_tls12(const struct config *cfg)
{
    return cfg->tls.version == 12;
}

static int given_ciphers(const struct config *cfg)
{
    return cfg->tls.ciphers != NULL;
}

static int given_follow(const struct config *cfg)
{
    return cfg->follow > 0;
}

static int given_pipeline(const struct config *cfg)
{
    return cfg->pipeline > 1;
}

static int given_streams(const struct config *cfg)
{
    return cfg->streams > 1;
}

/* The options not every protocol takes (proto.takes), in the order they
 * are checked: given on a protocol whose row lacks its bit, refused with
 * what to do (%s: the protocol's option). */
static const struct proto_rule {
    unsigned bit;
    int (*given)(const struct config *cfg);
    const char *why;
} proto_rules[] = {
    { TAKES_0RTT, given_0rtt,
      "--http3-0rtt sends requests with a resumed QUIC handshake: it needs --http3, and not --no-tls-resume" },
    { TAKES_UNIX_SOCKET, given_unix_socket, "--unix-socket is for TCP: %s speaks QUIC over UDP to the URL's address" },
    { TAKES_TLS12, given_tls12, "--tls-version 1.2 with %s: QUIC uses TLS 1.3 only" },
    { TAKES_CIPHERS, given_ciphers,
      "--ciphers is OpenSSL's list for TLS over TCP: %s's QUIC uses TLS 1.3's AEADs, chosen with the server" },
    { TAKES_FOLLOW, given_follow, "--follow works over HTTP/1.1 only so far: drop %s or --follow" },
    { TAKES_PIPELINE, given_pipeline,
      "--pipeline is HTTP/1.1's: with --http2 or --http3, use --streams N (concurrent streams per connection)" },
    { TAKES_STREAMS, given_streams,
      "--streams goes with --http2 or --http3 (with HTTP/1.1, --pipeline N keeps N requests in flight)" },
};

/* Two protocols asked for, one left out of this build, an option the
 * protocol does not take. Returns 0 or -1. */
static int finish_proto(const struct config *cfg, char *err, size_t errlen)
{
    const struct proto *p = config_proto(cfg);
    size_t i;
    for (i = 1; i < PROTO__COUNT; i++)
        if (cfg->proto_asked[i] && &proto_rows[i] != p)
            return err_set(err, errlen, NULL, "%s and %s both: choose one", proto_rows[i].option, p->option);
    if (p->missing)
        return err_set(err, errlen, NULL, "%s: this rafale was built without %s (%s)", p->option, p->label, p->missing);
    for (i = 0; i < sizeof(proto_rules) / sizeof(proto_rules[0]); i++)
        if (!(p->takes & proto_rules[i].bit) && proto_rules[i].given(cfg))
            return err_set(err, errlen, NULL, proto_rules[i].why, p->option);
    return 0;
}

int config_finish(struct config *cfg, char *err, size_t errlen, char *notes, size_t noteslen)
{
    const char *tls;
    if (notes && noteslen)
        notes[0] = '\0';
    if (cfg->has_body && !cfg->method_given)
        cfg->method = "POST";
    if (finish_framing(cfg, err, errlen) != 0)
        return -1;
    if (cfg->nstages && finish_stages(cfg, err, errlen) != 0)
        return -1;
    /* --precision ends the run when its goal is met: 60 s at most unless
     * -d or -n says otherwise (every run is bounded). */
    if (cfg->requests == 0 && cfg->duration_ns == 0 && !cfg->replay_path) /* a replay: the log's end */
        cfg->duration_ns = (cfg->precision.n ? 60 : 10) * 1000000000ULL;
    if (cfg->requests && cfg->requests < cfg->connections) {
        if (cfg->connections_given && notes)
            snprintf(notes, noteslen, "-n %llu is below -c %u: using %llu connections",
                     (unsigned long long)cfg->requests, cfg->connections, (unsigned long long)cfg->requests);
        cfg->connections = (uint32_t)cfg->requests;
    }
    if (cfg->threads > cfg->connections)
        cfg->threads = cfg->connections;
    if (cfg->think_hi_ns && cfg->rate > 0) {
        err_set(err, errlen, NULL, "--think is for a closed loop: with -R the schedule decides when requests go");
        return -1;
    }
    if (cfg->tls.key && !cfg->tls.cert) {
        err_set(err, errlen, NULL, "--key is the private key of a --cert: give --cert too");
        return -1;
    }
    if (cfg->metrics_linger_ns && !cfg->metrics_listen) {
        err_set(err, errlen, NULL, "--metrics-linger goes with --metrics-listen: it keeps that port answering");
        return -1;
    }
    if (cfg->tls.pass && !cfg->tls.cert) {
        err_set(err, errlen, NULL, "--pass and --key-pass give the pass phrase of a --cert's key: give --cert too");
        return -1;
    }
    if (cfg->ntargets && (tls = config_tls_given(cfg)) != NULL) {
        /* Said, not ignored: an https:// meant and http:// typed, or the
         * other way round. One https:// URL among them gives it a use. */
        uint32_t i;
        for (i = 0; i < cfg->ntargets && !cfg->urls[i].tls; i++)
            ;
        if (i == cfg->ntargets) {
            err_set(err, errlen, NULL, "--%s is for https:// URLs and every URL here is http://", tls);
            return -1;
        }
    }
    if (cfg->abort_on_fail && cfg->slo.n == 0) {
        err_set(err, errlen, NULL, "--abort-on-fail stops a run when its SLO is lost: give --slo too");
        return -1;
    }
    if (cfg->max_connections && !config_open_loop(cfg)) {
        err_set(err, errlen, NULL, "--max-connections goes with -R: a closed loop never falls behind a schedule");
        return -1;
    }
    if (cfg->max_connections && cfg->max_connections < cfg->connections) {
        err_set(err, errlen, NULL, "--max-connections %u is below -c %u", cfg->max_connections, cfg->connections);
        return -1;
    }
    if (cfg->pipeline > 1 && !cfg->keepalive) {
        err_set(err, errlen, NULL, "--pipeline needs keep-alive: it cannot go with --close");
        return -1;
    }
    if (finish_proto(cfg, err, errlen) != 0)
        return -1;
    if (cfg->http3_0rtt && cfg->tls.no_resume) {
        err_set(err, errlen, NULL, "--http3-0rtt sends requests with a resumed QUIC handshake: it needs --http3, and "
                              "not --no-tls-resume");
        return -1;
    }
    if (cfg->follow && cfg->pipeline > 1) {
        err_set(err, errlen, NULL, "--follow waits for each answer: it does not go with --pipeline");
        return -1;
    }
    if (cfg->streams > 1 && !cfg->keepalive) {
        err_set(err, errlen, NULL, "--streams %u with --close: one request per connection leaves nothing to multiplex",
                cfg->streams);
        return -1;
    }
    cfg->tls.alpn = config_proto(cfg)->alpn;
    if (finish_order(cfg, err, errlen) != 0)
        return -1;
    if (cfg->nsources && cfg->unix_socket) {
        err_set(err, errlen, NULL, "--source picks local IP addresses: it does not go with --unix-socket");
        return -1;
    }
    if (cfg->nsources && cfg->ntargets && cfg->urls[0].host_is_ipv6) {
        err_set(err, errlen, NULL, "--source takes IPv4 addresses; the URL is IPv6");
        return -1;
    }
    return 0;
}

uint32_t config_depth(const struct config *cfg)
{
    if (config_proto(cfg)->takes & TAKES_STREAMS)
        return cfg->streams > 1 ? cfg->streams : 1;
    return cfg->keepalive && cfg->pipeline > 1 ? cfg->pipeline : 1;
}

void config_free(struct config *cfg)
{
    uint32_t i;
    if (cfg->urls)
        for (i = 0; i < cfg->ntargets; i++)
            url_free(&cfg->urls[i]);
    free(cfg->urls);
    free(cfg->url_text);
    free(cfg->targets);
    free(cfg->order);
    free(cfg->tindex);
    free(cfg->headers);
    free(cfg->check_exprs);
    free(cfg->replay_patterns);
    free(cfg->body);
    free(cfg->sources);
    if (cfg->replay_head && cfg->replay_head->fd >= 0) /* a pipe the run never read */
        close(cfg->replay_head->fd);
    for (i = 0; i < cfg->nowned; i++)
        free(cfg->owned[i]);
    free(cfg->owned);
    memset(cfg, 0, sizeof(*cfg));
}

void config_request(const struct config *cfg, uint32_t i, struct req_spec *rs)
{
    const struct target *t = cfg->targets && i < cfg->ntargets ? &cfg->targets[i] : NULL;
    memset(rs, 0, sizeof(*rs));
    rs->keepalive = cfg->keepalive;
    if (t && t->own) {
        rs->method = t->method;
        rs->headers = t->headers;
        rs->nheaders = t->nheaders;
        rs->body = t->body;
        rs->body_len = t->body_len;
        rs->has_body = t->has_body;
        return;
    }
    rs->method = cfg->method;
    rs->headers = cfg->headers;
    rs->nheaders = cfg->nheaders;
    rs->content_type = cfg->content_type;
    rs->body = cfg->body;
    rs->body_len = cfg->body_len;
    rs->has_body = cfg->has_body;
}
