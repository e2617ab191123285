/* netstat.c - the host's TCP counters and listeners. See netstat.h. */
#include "netstat.h"

#include "clock.h"
#include "net.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define TCP_LISTEN_STATE 10 /* include/net/tcp_states.h */

int netstat_pair(const char *path, const char *prefix, const char *key, uint64_t *out)
{
    char names[8192], vals[8192];
    FILE *f = fopen(path, "r");
    int found = -1;
    size_t plen = strlen(prefix);
    if (f == NULL)
        return -1;
    while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
        char *sn, *sv, *n, *v;
        if (strncmp(names, prefix, plen) != 0 || strncmp(vals, prefix, plen) != 0)
            continue;
        n = strtok_r(names + plen, " \n", &sn);
        v = strtok_r(vals + plen, " \n", &sv);
        while (n && v) {
            if (strcmp(n, key) == 0) {
                *out = strtoull(v, NULL, 10);
                found = 0;
                break;
            }
            n = strtok_r(NULL, " \n", &sn);
            v = strtok_r(NULL, " \n", &sv);
        }
        break;
    }
    fclose(f);
    return found;
}

int netstat_read(struct netstat_counters *c)
{
    memset(c, 0, sizeof(*c));
    if (netstat_pair("/proc/net/netstat", "TcpExt:", "ListenOverflows", &c->listen_overflows) != 0 ||
        netstat_pair("/proc/net/netstat", "TcpExt:", "ListenDrops", &c->listen_drops) != 0 ||
        netstat_pair("/proc/net/snmp", "Tcp:", "OutSegs", &c->out_segs) != 0 ||
        netstat_pair("/proc/net/snmp", "Tcp:", "RetransSegs", &c->retrans_segs) != 0)
        return -1;
    /* TCPSynRetrans came with Linux 4.x; without it the rest still holds. */
    netstat_pair("/proc/net/netstat", "TcpExt:", "TCPSynRetrans", &c->syn_retrans);
    c->ok = 1;
    return 0;
}

static int64_t time_wait(void)
{
    char line[256];
    long long tw = -1;
    FILE *f = fopen("/proc/net/sockstat", "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        const char *p = strstr(line, " tw ");
        if (strncmp(line, "TCP:", 4) == 0 && p)
            tw = strtoll(p + 4, NULL, 10);
    }
    fclose(f);
    return tw;
}

/* An address is this host's when a socket can be bound to it. */
static int is_local(const struct net_addr *a)
{
    struct sockaddr_storage ss = a->ss;
    int fd = socket(ss.ss_family, SOCK_DGRAM, 0), ok;
    if (fd < 0)
        return 0;
    if (ss.ss_family == AF_INET)
        ((struct sockaddr_in *)&ss)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)&ss)->sin6_port = 0;
    ok = bind(fd, (struct sockaddr *)&ss, a->len) == 0;
    close(fd);
    return ok;
}

/* The listening TCP socket that takes connections to a: its accept-queue
 * limit (idiag_wqueue) and length (idiag_rqueue), as ss -lnt shows them in
 * Send-Q and Recv-Q. One bound to a, or else to the wildcard. */
static int listener(const struct net_addr *a, uint32_t *limit, uint32_t *queued)
{
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 req;
    } msg;
    struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
    char buf[16384];
    uint16_t port = a->ss.ss_family == AF_INET ? ((const struct sockaddr_in *)&a->ss)->sin_port
                                               : ((const struct sockaddr_in6 *)&a->ss)->sin6_port;
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG), found = 0, done = 0;

    if (fd < 0)
        return -1;
    memset(&msg, 0, sizeof(msg));
    msg.nlh.nlmsg_len = sizeof(msg);
    msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    msg.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    msg.req.sdiag_family = (uint8_t)a->ss.ss_family;
    msg.req.sdiag_protocol = IPPROTO_TCP;
    msg.req.idiag_states = 1u << TCP_LISTEN_STATE;
    if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&nl, sizeof(nl)) < 0) {
        close(fd);
        return -1;
    }
    while (!done) {
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        struct nlmsghdr *h;
        if (n <= 0)
            break;
        for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
            const struct inet_diag_msg *d;
            int exact, wild;
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
                done = 1;
                break;
            }
            d = NLMSG_DATA(h);
            if (d->id.idiag_sport != port)
                continue;
            if (a->ss.ss_family == AF_INET) {
                uint32_t want = ((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr;
                exact = d->id.idiag_src[0] == want;
                wild = d->id.idiag_src[0] == 0;
            } else {
                static const uint32_t zero[4];
                exact = memcmp(d->id.idiag_src, &((const struct sockaddr_in6 *)&a->ss)->sin6_addr, 16) == 0;
                wild = memcmp(d->id.idiag_src, zero, 16) == 0;
            }
            if (exact || (wild && !found)) {
                /* SO_REUSEPORT groups: the limits are each socket's; the
                 * first found speaks for them. */
                *limit = d->idiag_wqueue;
                *queued = d->idiag_rqueue;
                found = exact ? 2 : 1;
            }
        }
    }
    close(fd);
    return found ? 0 : -1;
}

void netstat_begin(struct netstat_obs *o, const struct config *cfg)
{
    struct net_addr a;
    char err[256];
    struct rlimit rl;

    memset(o, 0, sizeof(*o));
    o->somaxconn = machine_proc_ll("/proc/sys/net/core/somaxconn", 0);
    o->port_lo = machine_proc_ll("/proc/sys/net/ipv4/ip_local_port_range", 0);
    o->port_hi = machine_proc_ll("/proc/sys/net/ipv4/ip_local_port_range", 1);
    o->time_wait = -1;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        o->nofile = rl.rlim_cur;
    {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof(set), &set) == 0)
            o->client_cpus = (uint32_t)CPU_COUNT(&set);
    }
    if (cfg->ntargets && !cfg->unix_socket && config_resolve(cfg, cfg->urls[0].host, (uint16_t)cfg->urls[0].port, &a, err, sizeof(err)) == 0) {
        net_addr_str(&a, o->addr, sizeof(o->addr));
        o->local = is_local(&a);
        if (o->local && listener(&a, &o->backlog, &o->accept_queue) == 0)
            o->backlog_known = 1;
        if (o->local && !o->backlog_known && a.ss.ss_family == AF_INET) {
            /* A dual-stack listener on [::] takes IPv4 connections too. */
            struct net_addr w6;
            memset(&w6, 0, sizeof(w6));
            ((struct sockaddr_in6 *)&w6.ss)->sin6_family = AF_INET6;
            ((struct sockaddr_in6 *)&w6.ss)->sin6_port = ((struct sockaddr_in *)&a.ss)->sin_port;
            w6.len = sizeof(struct sockaddr_in6);
            if (listener(&w6, &o->backlog, &o->accept_queue) == 0)
                o->backlog_known = 1;
        }
    }
    netstat_read(&o->before);
    machine_cpu_read(&o->cpu_before);
    o->t_before = clock_ns();
}

void netstat_end(struct netstat_obs *o)
{
    netstat_read(&o->after);
    machine_cpu_read(&o->cpu_after);
    o->t_after = clock_ns();
    o->time_wait = time_wait();
}

void netstat_noise(const struct netstat_obs *o, double client_cpu_s, double elapsed_s,
                   const struct monitor_result *server, struct machine_noise *out)
{
    double window = (double)(o->t_after - o->t_before) / 1e9, cpus = (double)sysconf(_SC_NPROCESSORS_ONLN), srv = 0;
    memset(out, 0, sizeof(*out));
    out->nr_throttled = server ? server->nr_throttled : -1;
    if (!o->cpu_before.ok || !o->cpu_after.ok || window <= 0 || cpus <= 0 || o->t_after <= o->t_before)
        return;
    if (server) {
        /* The monitor watched after the warm-up: its rate over the window. */
        srv = elapsed_s > 0 ? server->cpu_s * (window / elapsed_s > 1 ? window / elapsed_s : 1) : server->cpu_s;
    } else if (o->local) {
        return; /* the server's CPU is in the machine's, and unknown */
    }
    out->known = 1;
    out->foreign_cpu_pct = 100 * (o->cpu_after.busy_s - o->cpu_before.busy_s - client_cpu_s - srv) / (window * cpus);
    if (out->foreign_cpu_pct < 0)
        out->foreign_cpu_pct = 0; /* tick rounding */
    out->steal_pct = 100 * (o->cpu_after.steal_s - o->cpu_before.steal_s) / (window * cpus);
}
