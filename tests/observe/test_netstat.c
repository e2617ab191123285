/* netstat: the kernel's "Name: keys" / "Name: values" files read by key
 * (a temp file in /proc/net/snmp's shape), this host's TCP counters
 * growing with traffic on 127.0.0.1, a listener found with its backlog and
 * its accept queue, and the CPU of other processes worked out from the
 * machine's, rafale's and the server's. */
#include "netstat.h"
#include "targets.h"
#include "../t.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* text into a new temp file, its name in path (64 bytes). */
static int temp_with(char *path, const char *text)
{
    int fd;
    strcpy(path, "/tmp/rafale_test_netstat_XXXXXX");
    if ((fd = mkstemp(path)) < 0)
        return -1;
    if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

static void pairs_by_key(void)
{
    char path[64];
    uint64_t v = 99;
    /* TcpExt before Tcp: "Tcp:" must not read the TcpExt section, whose
     * name begins the same. */
    CHECK(temp_with(path, "Ip: Forwarding DefaultTTL\n"
                          "Ip: 1 64\n"
                          "TcpExt: SyncookiesSent OutSegs\n"
                          "TcpExt: 5 777\n"
                          "Tcp: RtoAlgorithm RtoMin OutSegs RetransSegs\n"
                          "Tcp: 1 200 123456789012 67\n"
                          "Udp: InDatagrams\n"
                          "Udp: 8\n") == 0);
    CHECK(netstat_pair(path, "Tcp:", "OutSegs", &v) == 0 && v == 123456789012ULL);
    CHECK(netstat_pair(path, "Tcp:", "RetransSegs", &v) == 0 && v == 67);
    CHECK(netstat_pair(path, "TcpExt:", "OutSegs", &v) == 0 && v == 777);
    CHECK(netstat_pair(path, "Ip:", "Forwarding", &v) == 0 && v == 1);
    CHECK(netstat_pair(path, "Udp:", "InDatagrams", &v) == 0 && v == 8);
    v = 99;
    CHECK(netstat_pair(path, "Tcp:", "InSegs", &v) == -1 && v == 99); /* no such key */
    CHECK(netstat_pair(path, "Icmp:", "InMsgs", &v) == -1 && v == 99); /* no such section */
    CHECK(netstat_pair(path, "Ip:", "DefaultTTL", &v) == 0 && v == 64);
    unlink(path);
    CHECK(netstat_pair(path, "Ip:", "Forwarding", &v) == -1); /* no such file */
    /* A values line shorter than its names: the keys past it are absent. */
    CHECK(temp_with(path, "Tcp: A B C\nTcp: 1 2\n") == 0);
    CHECK(netstat_pair(path, "Tcp:", "B", &v) == 0 && v == 2);
    CHECK(netstat_pair(path, "Tcp:", "C", &v) == -1);
    unlink(path);
}

/* A listener on 127.0.0.1 with a backlog of 7, its port in *port. */
static int listen_on(uint16_t *port, int backlog)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

static int connect_to(uint16_t port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void host_around_a_run(void)
{
    struct config cfg;
    struct netstat_obs o;
    char err[256], url[64], addr[64];
    uint16_t port;
    int lfd = listen_on(&port, 7), c1, c2, s;
    CHECK(lfd >= 0);
    if (lfd < 0)
        return;
    /* Two connections the server has not accepted yet: its accept queue. */
    c1 = connect_to(port);
    c2 = connect_to(port);
    CHECK(c1 >= 0 && c2 >= 0);
    config_defaults(&cfg);
    snprintf(url, sizeof(url), "http://127.0.0.1:%u/", port);
    CHECKF(targets_add_url(&cfg, url, err, sizeof(err)) == 0, "%s", err);
    netstat_begin(&o, &cfg);
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
    CHECKF(strcmp(o.addr, addr) == 0 && o.local == 1, "'%s' local %d", o.addr, o.local);
    CHECKF(o.backlog_known && o.backlog == 7 && o.accept_queue == 2, "known %d backlog %u queue %u", o.backlog_known,
           o.backlog, o.accept_queue);
    CHECK(o.before.ok && o.time_wait == -1 && o.t_before > 0);
    CHECK(o.somaxconn > 0 && o.port_lo > 0 && o.port_lo < o.port_hi && o.port_hi <= 65535 && o.nofile > 0);
    CHECK(o.client_cpus >= 1);
    /* Traffic on 127.0.0.1: the host's segments sent can only grow. */
    s = accept(lfd, NULL, NULL);
    CHECK(s >= 0 && write(c1, "0123456789", 10) == 10 && write(s, "abc", 3) == 3);
    netstat_end(&o);
    CHECK(o.after.ok && o.after.out_segs >= o.before.out_segs + 2 && o.after.retrans_segs >= o.before.retrans_segs);
    CHECK(o.after.listen_overflows >= o.before.listen_overflows && o.time_wait >= 0 && o.t_after >= o.t_before);
    close(s);
    close(c1);
    close(c2);
    close(lfd);
    /* Nothing listens there now: found local, no listener. */
    netstat_begin(&o, &cfg);
    CHECK(o.local == 1 && o.backlog_known == 0);
    config_free(&cfg);
}

/* A target that is not this host's, and none at all. */
static void remote_and_none(void)
{
    struct config cfg;
    struct netstat_obs o;
    char err[256];
    config_defaults(&cfg);
    netstat_begin(&o, &cfg);
    CHECK(o.addr[0] == '\0' && o.local == 0 && o.backlog_known == 0 && o.before.ok);
    /* 192.0.2.1 (TEST-NET-1, RFC 5737): never bound here; nothing is sent to it. */
    CHECK(targets_add_url(&cfg, "http://192.0.2.1:8080/", err, sizeof(err)) == 0);
    netstat_begin(&o, &cfg);
    CHECK(strcmp(o.addr, "192.0.2.1:8080") == 0 && o.local == 0 && o.backlog_known == 0);
    config_free(&cfg);
}

/* A window of two seconds in which the machine was busy busy_s more and
 * had steal_s stolen. */
static void window(struct netstat_obs *o, double busy_s, double steal_s)
{
    memset(o, 0, sizeof(*o));
    o->cpu_before.ok = o->cpu_after.ok = 1;
    o->cpu_before.busy_s = 100;
    o->cpu_after.busy_s = 100 + busy_s;
    o->cpu_before.steal_s = 5;
    o->cpu_after.steal_s = 5 + steal_s;
    o->t_before = 1000000000ULL;
    o->t_after = 3000000000ULL;
}

static void noise(void)
{
    struct netstat_obs o;
    struct monitor_result srv;
    struct machine_noise n;
    double cpus = (double)sysconf(_SC_NPROCESSORS_ONLN);
    memset(&srv, 0, sizeof(srv));
    srv.cpu_s = 0.5;
    srv.nr_throttled = 4;
    /* A remote server: the machine's busy time less rafale's is others'. */
    window(&o, 2.0, 0.2);
    netstat_noise(&o, 0.4, 2.0, NULL, &n);
    CHECK(n.known == 1 && n.nr_throttled == -1);
    CHECKF(fabs(n.foreign_cpu_pct - 100 * 1.6 / (2 * cpus)) < 1e-9, "%f", n.foreign_cpu_pct);
    CHECKF(fabs(n.steal_pct - 100 * 0.2 / (2 * cpus)) < 1e-9, "%f", n.steal_pct);
    /* A server watched for 1 s of the 2 s window: its CPU at that rate over all of it. */
    netstat_noise(&o, 0.4, 1.0, &srv, &n);
    CHECK(n.known == 1 && n.nr_throttled == 4);
    CHECKF(fabs(n.foreign_cpu_pct - 100 * (2.0 - 0.4 - 1.0) / (2 * cpus)) < 1e-9, "%f", n.foreign_cpu_pct);
    /* Watched longer than the window (the warm-up): its CPU as it is. */
    netstat_noise(&o, 0.4, 4.0, &srv, &n);
    CHECKF(fabs(n.foreign_cpu_pct - 100 * (2.0 - 0.4 - 0.5) / (2 * cpus)) < 1e-9, "%f", n.foreign_cpu_pct);
    /* More CPU counted than the machine's (tick rounding): 0, never below. */
    netstat_noise(&o, 3.0, 2.0, NULL, &n);
    CHECK(n.known == 1 && n.foreign_cpu_pct == 0);
    /* A server on this host, not watched: its CPU is in the machine's, unknown. */
    o.local = 1;
    netstat_noise(&o, 0.4, 2.0, NULL, &n);
    CHECK(n.known == 0 && n.foreign_cpu_pct == 0 && n.nr_throttled == -1);
    /* The machine's CPU unread, or no time between the reads: unknown. */
    window(&o, 2.0, 0);
    o.cpu_after.ok = 0;
    netstat_noise(&o, 0.4, 2.0, &srv, &n);
    CHECK(n.known == 0 && n.nr_throttled == 4);
    window(&o, 2.0, 0);
    o.t_after = o.t_before;
    netstat_noise(&o, 0.4, 2.0, NULL, &n);
    CHECK(n.known == 0);
}

int main(void)
{
    T_RUN(pairs_by_key);
    T_RUN(host_around_a_run);
    T_RUN(remote_and_none);
    T_RUN(noise);
    T_END("test_netstat");
}
