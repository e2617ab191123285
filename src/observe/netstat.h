/* netstat.h - what the host's kernel says around a run (Linux): its TCP
 * counters (/proc/net/netstat and /proc/net/snmp, host-wide, read before
 * and after), the target's listening socket as `ss -lnt` shows it (its
 * accept-queue limit, through NETLINK_SOCK_DIAG), and the limits a load
 * test meets: somaxconn, the local port range, TIME_WAIT, open files. The
 * findings read it; nothing here is on the load's path. */
#ifndef RAFALE_NETSTAT_H
#define RAFALE_NETSTAT_H

#include <stdint.h>

#include "config.h"
#include "machine.h"
#include "monitor.h"

struct netstat_counters {
    int ok;                     /* the files were readable */
    uint64_t listen_overflows;  /* TcpExt ListenOverflows: SYN or ACK with a full accept queue */
    uint64_t listen_drops;      /* TcpExt ListenDrops */
    uint64_t syn_retrans;       /* TcpExt TCPSynRetrans: SYNs (and SYN-ACKs) sent again */
    uint64_t out_segs, retrans_segs; /* Tcp OutSegs, RetransSegs */
};

struct netstat_obs {
    int local;                  /* the first target's address is one of this host's */
    char addr[64];              /* that address, as "127.0.0.1:8080" */
    struct netstat_counters before, after;
    int backlog_known;          /* its listening socket was found */
    uint32_t backlog;           /* that socket's accept-queue limit (listen()'s backlog, capped by somaxconn) */
    uint32_t accept_queue;      /* its accept queue's length when read (before the run) */
    int64_t somaxconn;          /* -1 unknown */
    int64_t port_lo, port_hi;   /* ip_local_port_range, -1 unknown */
    int64_t time_wait;          /* TCP sockets in TIME_WAIT after the run (sockstat "tw"), -1 unknown */
    uint64_t nofile;            /* rafale's open-file limit */
    uint32_t client_cpus;       /* CPUs rafale may run on (its affinity) */
    struct machine_cpu cpu_before, cpu_after; /* the machine's CPU time */
    uint64_t t_before, t_after; /* when read (monotonic ns) */
};

/* Before the run: the target's place, its listener, the counters. Never
 * fails: what cannot be read stays unknown. */
void netstat_begin(struct netstat_obs *o, const struct config *cfg);
/* After it: the counters again, TIME_WAIT, the listener's queue. */
void netstat_end(struct netstat_obs *o);
/* What else ran on the machine during the run: its CPU time less rafale's
 * (client_cpu_s) and the server's (server, or none when it is remote;
 * unknown for a local server not watched), and the stolen time. */
void netstat_noise(const struct netstat_obs *o, double client_cpu_s, double elapsed_s,
                   const struct monitor_result *server, struct machine_noise *out);
/* Reads the counters now. Returns 0, or -1 (c->ok 0) when unreadable. */
int netstat_read(struct netstat_counters *c);
/* In a "Name: k1 k2 ...\nName: v1 v2 ..." file (/proc/net/netstat, snmp),
 * the value of key in the section prefix ("TcpExt:"). Returns 0, or -1
 * when absent. */
int netstat_pair(const char *path, const char *prefix, const char *key, uint64_t *out);

#endif
