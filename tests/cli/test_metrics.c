/* --metrics-listen: the run's figures scraped while it runs, on 127.0.0.1
 * (a port picked when 0 is asked): the Prometheus text or OpenMetrics as
 * the scraper asks, the latency in cumulative buckets, target labels
 * escaped, a JSON snapshot, the final report once done; other methods and
 * paths refused; an address not loopback, or taken, refused in one line. */
#include "metrics.h"
#include "targets.h"
#include "../t.h"

#include <jansson.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

/* The answer to req from the port of addr ("127.0.0.1:PORT"), to the
 * server's close. */
static const char *ask(const char *addr, const char *req)
{
    static char out[65536];
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    struct timeval tv = { 2, 0 };
    size_t n = 0;
    ssize_t k;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    out[0] = '\0';
    a.sin_port = htons((uint16_t)atoi(strrchr(addr, ':') + 1));
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
        CHECK(!"a connection to the metrics port");
        if (fd >= 0)
            close(fd);
        return out;
    }
    while (n < sizeof(out) - 1 && (k = read(fd, out + n, sizeof(out) - 1 - n)) > 0)
        n += (size_t)k;
    out[n] = '\0';
    close(fd);
    return out;
}

static const char *body_of(const char *answer)
{
    const char *b = strstr(answer, "\r\n\r\n");
    return b ? b + 4 : "";
}

static void scraped_while_running(void)
{
    struct config cfg;
    struct metrics *m = NULL;
    struct engine_live live;
    char err[300] = "", addr[64];
    const char *a;
    json_t *snap;
    config_defaults(&cfg);
    cfg.metrics_listen = "127.0.0.1:0";
    CHECK(targets_add_named(&cfg, "http://127.0.0.1:1/a", "say \"hi\"\nback\\slash", err, sizeof(err)) == 0);
    CHECK(targets_add_named(&cfg, "http://127.0.0.1:1/b", "plain", err, sizeof(err)) == 0);
    CHECKF(metrics_start(&cfg, &m, err, sizeof(err)) == 0, "%s", err);
    if (m == NULL)
        return;
    snprintf(addr, sizeof(addr), "%s", metrics_picked(m) ? metrics_picked(m) : "?:0");
    CHECKF(strncmp(addr, "127.0.0.1:", 10) == 0 && atoi(addr + 10) > 0, "%s", addr);

    memset(&live, 0, sizeof(live));
    CHECK(hist_init_bits(&live.latency, 5) == 0);
    live.status[200] = 5;
    live.status[404] = 1;
    live.ntargets = 2;
    live.targets[0] = 4;
    live.targets[1] = 2;
    live.started = 7;
    live.ended = 6;
    live.open = 3;
    live.elapsed_s = 2.5;
    hist_record_n(&live.latency, 2000000, 5);     /* 2 ms */
    hist_record_n(&live.latency, 70000000000, 1); /* 70 s: past every bound but +Inf */
    metrics_publish(m, &live, NULL);

    a = ask(addr, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: text/plain;version=0.0.4\r\n\r\n");
    CHECKF(strstr(a, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n") == a, "%s", a);
    a = body_of(a);
    CHECK(strstr(a, "# TYPE rafale_requests_total counter\n") &&
          strstr(a, "rafale_requests_total{status=\"200\"} 5\n") &&
          strstr(a, "rafale_requests_total{status=\"404\"} 1\n"));
    CHECKF(strstr(a, "rafale_target_requests_total{target=\"say \\\"hi\\\"\\nback\\\\slash\"} 4\n") &&
               strstr(a, "rafale_target_requests_total{target=\"plain\"} 2\n"),
           "%s", a);
    CHECK(strstr(a, "rafale_in_flight 1\n") && strstr(a, "rafale_connections_open 3\n"));
    CHECK(strstr(a, "rafale_latency_seconds_bucket{le=\"0.001\"} 0\n") &&
          strstr(a, "rafale_latency_seconds_bucket{le=\"0.0025\"} 5\n") &&
          strstr(a, "rafale_latency_seconds_bucket{le=\"60\"} 5\n") &&
          strstr(a, "rafale_latency_seconds_bucket{le=\"+Inf\"} 6\n") && strstr(a, "rafale_latency_seconds_count 6\n"));
    CHECK(strstr(a, "# EOF") == NULL);
    /* No Accept (or OpenMetrics asked): OpenMetrics, its families named
     * without _total, ended by # EOF. */
    a = ask(addr, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(strstr(a, "Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n") != NULL);
    a = body_of(a);
    CHECK(strstr(a, "# TYPE rafale_requests counter\n") && strlen(a) > 6 && strcmp(a + strlen(a) - 6, "# EOF\n") == 0);

    a = ask(addr, "GET /snapshot.json?x=1 HTTP/1.1\r\nHost: x\r\n\r\n");
    snap = json_loads(body_of(a), 0, NULL);
    CHECKF(snap && json_integer_value(json_object_get(snap, "requests")) == 6 &&
               json_integer_value(json_object_get(snap, "in_flight")) == 1 &&
               json_integer_value(json_object_get(snap, "connections_open")) == 3 &&
               json_real_value(json_object_get(snap, "elapsed_s")) == 2.5 &&
               json_is_false(json_object_get(snap, "done")),
           "%s", a);
    json_decref(snap);

    /* A HEAD: the head alone. Other methods and paths: refused. */
    a = ask(addr, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(strstr(a, "HTTP/1.1 200 OK\r\n") == a && body_of(a)[0] == '\0');
    a = ask(addr, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    CHECK(strstr(a, "HTTP/1.1 405 Method Not Allowed\r\n") == a && strstr(a, "Allow: GET, HEAD\r\n"));
    a = ask(addr, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(strstr(a, "HTTP/1.1 404 Not Found\r\n") == a);
    a = ask(addr, "GET /report.html HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(strstr(a, "HTTP/1.1 404 Not Found\r\n") == a);
    /* Done: the final report in the live page's place. */
    metrics_final(m, "<html>final</html>", 18);
    a = ask(addr, "GET /report.html HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(strstr(a, "HTTP/1.1 200 OK\r\n") == a && strcmp(body_of(a), "<html>final</html>") == 0);
    a = ask(addr, "GET /snapshot.json HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(strstr(body_of(a), "\"done\": true") != NULL);
    metrics_stop(m, NULL);
    hist_fini(&live.latency);
    config_free(&cfg);
}

static void refused(const char *spec, const char *want)
{
    struct config cfg;
    struct metrics *m = NULL;
    char err[300] = "";
    config_defaults(&cfg);
    cfg.metrics_listen = spec;
    CHECKF(metrics_start(&cfg, &m, err, sizeof(err)) == -1 && strstr(err, want) == err && m == NULL, "%s: '%s'", spec,
           err);
    config_free(&cfg);
}

static void bad_addresses_refused(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    char spec[64], want[128];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    refused("9464", "--metrics-listen wants ADDR:PORT, such as 127.0.0.1:9464, not '9464'");
    refused("127.0.0.1:70000", "--metrics-listen wants ADDR:PORT");
    refused("::1:9464", "--metrics-listen wants an IPv6 address in brackets, such as [::1]:9464, not '::1:9464'");
    refused("0.0.0.0:0", "--metrics-listen 0.0.0.0:0 is not a loopback address: anyone who reaches it reads the "
                         "figures; add --metrics-public to mean it");
    refused("10.1.2.3:0", "--metrics-listen 10.1.2.3:0 is not a loopback address");
    /* A port another program listens on. */
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(fd, 1) == 0 &&
          getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    snprintf(spec, sizeof(spec), "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    snprintf(want, sizeof(want), "--metrics-listen %s: Address already in use", spec);
    refused(spec, want);
    close(fd);
}

int main(void)
{
    T_RUN(scraped_while_running);
    T_RUN(bad_addresses_refused);
    T_END("metrics");
}
