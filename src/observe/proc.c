/* proc.c - this process's CPUs, and who listens on a port: what compare
 * reads of the host before it starts its servers (compare/child.c). */
#include "proc.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

int proc_cpus_allowed(int *cpus, int max)
{
    cpu_set_t set;
    int c, n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 0;
    for (c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            cpus[n++] = c;
    return n;
}

int proc_pin_self(const int *cpus, int ncpus)
{
    cpu_set_t set;
    int i;
    CPU_ZERO(&set);
    for (i = 0; i < ncpus; i++)
        CPU_SET(cpus[i], &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

/* A listener's address as /proc/net/tcp{,6} prints it: each 32-bit word in
 * hex, as the kernel holds it (network byte order read as a host word). */
static int hex_addr(const char *s, unsigned char *out, int words)
{
    int k;
    for (k = 0; k < words; k++) {
        char w[9];
        uint32_t v;
        memcpy(w, s + 8 * k, 8);
        w[8] = '\0';
        if (strspn(w, "0123456789abcdefABCDEF") != 8)
            return -1;
        v = (uint32_t)strtoul(w, NULL, 16);
        memcpy(out + 4 * k, &v, 4);
    }
    return 0;
}

/* Could a listener at (fam, a, port) take a connection to sa? */
static int listener_matches(const struct sockaddr_storage *sa, int fam, const unsigned char *a, unsigned port)
{
    static const unsigned char zero[16], mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
    if (sa->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        if (port != ntohs(in->sin_port))
            return 0;
        if (fam == AF_INET)
            return memcmp(a, zero, 4) == 0 || memcmp(a, &in->sin_addr, 4) == 0;
        /* [::] without IPV6_V6ONLY takes IPv4 too; ::ffff:a.b.c.d is the same address. */
        return memcmp(a, zero, 16) == 0 || (memcmp(a, mapped, 12) == 0 && memcmp(a + 12, &in->sin_addr, 4) == 0);
    }
    if (sa->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        if (port != ntohs(in6->sin6_port) || fam != AF_INET6)
            return 0;
        return memcmp(a, zero, 16) == 0 || memcmp(a, &in6->sin6_addr, 16) == 0;
    }
    return 0;
}

#define HOLDER_MAX 16

/* The inodes of the listening sockets that could answer sa, at most max.
 * Returns how many, or -1 when neither table could be read. */
static int listen_inodes(const struct sockaddr_storage *sa, unsigned long *ino, int max)
{
    static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
    int f, n = 0, read_one = 0;
    for (f = 0; f < 2; f++) {
        FILE *fp = fopen(files[f], "r");
        char line[512];
        if (fp == NULL)
            continue;
        read_one = 1;
        while (fgets(line, sizeof(line), fp)) {
            char local[64];
            unsigned port, st;
            unsigned long inode;
            unsigned char a[16];
            int words = f ? 4 : 1;
            /* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
            if (sscanf(line, " %*s %63[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*s %*s %lu", local, &port, &st, &inode) != 4)
                continue; /* the header line */
            if (st != 0x0A || strlen(local) != (size_t)(8 * words) || hex_addr(local, a, words) != 0)
                continue; /* not TCP_LISTEN */
            if (listener_matches(sa, f ? AF_INET6 : AF_INET, a, port) && n < max)
                ino[n++] = inode;
        }
        fclose(fp);
    }
    return read_one ? n : -1;
}

static int parent_of(int pid)
{
    char path[64], buf[512], *p;
    FILE *fp;
    int ppid = 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if ((fp = fopen(path, "r")) == NULL)
        return 0;
    /* "PID (COMM) STATE PPID": COMM may hold spaces and parentheses. */
    if (fgets(buf, sizeof(buf), fp) && (p = strrchr(buf, ')')) != NULL)
        sscanf(p + 1, " %*c %d", &ppid);
    fclose(fp);
    return ppid;
}

int proc_port_holder(const struct sockaddr_storage *sa, int *pid, char *who, size_t wholen)
{
    unsigned long ino[HOLDER_MAX];
    int holders[HOLDER_MAX], nh = 0, n, i, k, top = 0;
    DIR *d;
    struct dirent *e;

    *pid = 0;
    if (wholen)
        who[0] = '\0';
    if ((n = listen_inodes(sa, ino, HOLDER_MAX)) <= 0)
        return n;
    if ((d = opendir("/proc")) != NULL) {
        while ((e = readdir(d)) != NULL && nh < HOLDER_MAX) {
            char dir[64], link[64 + 256 + 2], target[64];
            DIR *fd;
            struct dirent *fe;
            int p = atoi(e->d_name), held = 0;
            if (p <= 0)
                continue;
            snprintf(dir, sizeof(dir), "/proc/%d/fd", p);
            if ((fd = opendir(dir)) == NULL)
                continue; /* gone, or another user's */
            while (!held && (fe = readdir(fd)) != NULL) {
                ssize_t len;
                unsigned long got;
                snprintf(link, sizeof(link), "%s/%s", dir, fe->d_name);
                if ((len = readlink(link, target, sizeof(target) - 1)) <= 0)
                    continue;
                target[len] = '\0';
                if (sscanf(target, "socket:[%lu]", &got) != 1)
                    continue;
                for (k = 0; k < n; k++)
                    held |= got == ino[k];
            }
            closedir(fd);
            if (held)
                holders[nh++] = p;
        }
        closedir(d);
    }
    if (nh == 0) {
        snprintf(who, wholen, "a process this user cannot see (socket inode %lu)", ino[0]);
        return 1;
    }
    /* A prefork server's workers share the master's socket: name the one
     * whose parent does not hold it too. */
    for (i = 0; i < nh && top == 0; i++) {
        int pp = parent_of(holders[i]), up = 0;
        for (k = 0; k < nh; k++)
            up |= holders[k] == pp;
        if (!up)
            top = holders[i];
    }
    if (top == 0)
        top = holders[0];
    {
        char path[64], cmd[120];
        FILE *fp;
        size_t len = 0;
        snprintf(path, sizeof(path), "/proc/%d/cmdline", top);
        if ((fp = fopen(path, "r")) != NULL) {
            len = fread(cmd, 1, sizeof(cmd) - 1, fp);
            fclose(fp);
        }
        while (len && cmd[len - 1] == '\0')
            len--;
        for (i = 0; i < (int)len; i++)
            if ((unsigned char)cmd[i] < ' ')
                cmd[i] = ' '; /* arguments joined by spaces, on one line */
        cmd[len] = '\0';
        *pid = top;
        snprintf(who, wholen, "pid %d (%s)%s", top, len ? cmd : "?", nh > 1 ? " and processes sharing it" : "");
    }
    return 1;
}
