/* proc.c - the servers of `rafale compare`: start (in a cgroup of their own
 * when possible), follow, stop. */
#include "proc.h"
#include "err.h"
#include "clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

int proc_start(struct proc *p, const char *cmd, const char *dir, char *const *env, int nenv, const int *cpus,
               int ncpus, const char *logfile, const char *cgname, char *warn, size_t warnlen, char *err,
               size_t errlen)
{
    int logfd, go[2];
    pid_t pid;
    char why[300];

    memset(p, 0, sizeof(*p));
    p->pid = -1;
    if (warnlen)
        warn[0] = '\0';
    /* A new file: never one already there, nor a link's target. */
    logfd = open(logfile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600);
    if (logfd < 0) {
        err_set(err, errlen, NULL, "cannot open '%s': %s", logfile, strerror(errno));
        return -1;
    }
    if (pipe2(go, O_CLOEXEC) != 0) {
        err_set(err, errlen, NULL, "pipe: %s", strerror(errno));
        close(logfd);
        return -1;
    }
    if (cgname && cgroup_create(&p->cg, cgname, why, sizeof(why)) != 0)
        snprintf(warn, warnlen, "%s", why);
    pid = fork();
    if (pid < 0) {
        err_set(err, errlen, NULL, "fork: %s", strerror(errno));
        close(logfd);
        close(go[0]);
        close(go[1]);
        cgroup_remove(&p->cg);
        return -1;
    }
    if (pid == 0) {
        int i, devnull = open("/dev/null", O_RDONLY);
        char c;
        /* Wait until the parent has put us in the cgroup: nothing may be
         * forked outside it. */
        close(go[1]);
        while (read(go[0], &c, 1) < 0 && errno == EINTR)
            ;
        /* Its own session and group, so the whole tree can be signalled. */
        setsid();
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(logfd, 1);
        dup2(logfd, 2);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (ncpus > 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            for (i = 0; i < ncpus; i++)
                CPU_SET(cpus[i], &set);
            sched_setaffinity(0, sizeof(set), &set);
        }
        for (i = 0; i < nenv; i++)
            putenv(env[i]);
        if (dir && chdir(dir) != 0) {
            fprintf(stderr, "rafale compare: cannot enter '%s': %s\n", dir, strerror(errno));
            _exit(126);
        }
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        fprintf(stderr, "rafale compare: cannot run /bin/sh: %s\n", strerror(errno));
        _exit(127);
    }
    close(go[0]);
    close(logfd);
    p->pid = (int)pid;
    if (p->cg.path[0]) {
        int e = cgroup_move(&p->cg, pid);
        if (e == 0) {
            p->in_cgroup = 1;
        } else {
            snprintf(warn, warnlen, "cannot move the server into %s: %s", p->cg.path, strerror(e));
            cgroup_remove(&p->cg);
        }
    }
    if (write(go[1], "g", 1) != 1) {
        /* The child is gone already; proc_alive will say how. */
    }
    close(go[1]);
    return 0;
}

static void describe(int st, char *how, size_t howlen)
{
    if (WIFEXITED(st))
        snprintf(how, howlen, "exited with status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(how, howlen, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(how, howlen, "stopped");
}

/* Reaps the start command if it ended. */
static void reap(struct proc *p)
{
    int st;
    if (p->pid > 0 && !p->reaped && waitpid(p->pid, &st, WNOHANG) == p->pid) {
        p->reaped = 1;
        p->status = st;
    }
}

int proc_alive(struct proc *p, char *how, size_t howlen)
{
    if (p->pid <= 0) {
        snprintf(how, howlen, "never started");
        return 0;
    }
    reap(p);
    if (!p->reaped)
        return 1;
    if (WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0 && p->in_cgroup) {
        /* A daemon: its command returned and its processes live on. */
        if (cgroup_populated(&p->cg) == 1)
            return 1;
        snprintf(how, howlen, "exited with status 0 and nothing of it is left running");
        return 0;
    }
    describe(p->status, how, howlen);
    return 0;
}

/* Is anything of the server left? */
static int anything_left(struct proc *p)
{
    if (p->in_cgroup)
        return cgroup_populated(&p->cg) != 0;
    reap(p);
    /* The group outlives its leader while a member remains. */
    return kill(-p->pid, 0) == 0 || !p->reaped;
}

void proc_stop(struct proc *p, uint64_t grace_ns)
{
    uint64_t until = clock_ns() + grace_ns;

    if (p->pid <= 0)
        return;
    if (p->in_cgroup)
        cgroup_signal(&p->cg, SIGTERM);
    kill(-p->pid, SIGTERM);
    while (clock_ns() < until && anything_left(p)) {
        struct timespec ts = { 0, 20 * 1000000L };
        nanosleep(&ts, NULL);
    }
    /* Whatever is left: the cgroup whole, the group, the leader. */
    if (p->in_cgroup)
        cgroup_kill(&p->cg, 5 * 1000000000ULL);
    kill(-p->pid, SIGKILL);
    if (!p->reaped) {
        waitpid(p->pid, &p->status, 0);
        p->reaped = 1;
    }
    if (p->in_cgroup) {
        cgroup_remove(&p->cg);
        p->in_cgroup = 0;
    }
    p->pid = -1;
}

int proc_capture(const char *cmd, char *out, size_t len, uint64_t timeout_ns)
{
    int fds[2], st;
    pid_t pid;
    char buf[4096];
    size_t n = 0;
    uint64_t until = clock_ns() + timeout_ns;
    char *line, *save = NULL;

    out[0] = '\0';
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(out, len, "(pipe: %s)", strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        snprintf(out, len, "(fork: %s)", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        setsid();
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        struct pollfd pf = { fds[0], POLLIN, 0 };
        uint64_t now = clock_ns();
        ssize_t r;
        if (now >= until || n == sizeof(buf) - 1)
            break;
        if (poll(&pf, 1, (int)((until - now) / 1000000 + 1)) <= 0)
            continue;
        r = read(fds[0], buf + n, sizeof(buf) - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fds[0]);
    kill(-pid, SIGKILL);
    waitpid(pid, &st, 0);
    buf[n] = '\0';
    for (line = strtok_r(buf, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line) {
            snprintf(out, len, "%s", line);
            return 0;
        }
    }
    snprintf(out, len, "(no output)");
    return -1;
}

void proc_become_subreaper(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

void proc_reap_orphans(uint64_t timeout_ns)
{
    uint64_t until = clock_ns() + timeout_ns;
    for (;;) {
        struct timespec ts = { 0, 10 * 1000000L };
        pid_t r = waitpid(-1, NULL, WNOHANG);
        if (r > 0)
            continue;
        if (r < 0 || clock_ns() > until)
            return; /* ECHILD: none left */
        nanosleep(&ts, NULL);
    }
}

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

void proc_tail(const char *file, char *buf, size_t len)
{
    FILE *f = fopen(file, "rb");
    long end;
    size_t n = 0;

    buf[0] = '\0';
    if (f == NULL)
        return;
    if (fseek(f, 0, SEEK_END) == 0 && (end = ftell(f)) > 0) {
        long from = end > (long)(len - 1) ? end - (long)(len - 1) : 0;
        if (fseek(f, from, SEEK_SET) == 0)
            n = fread(buf, 1, len - 1, f);
        buf[n] = '\0';
        if (from > 0) {
            /* Cut into: from the next whole line, when one follows. */
            char *nl = memchr(buf, '\n', n);
            if (nl && nl + 1 < buf + n)
                memmove(buf, nl + 1, (size_t)(buf + n - nl));
        }
    }
    fclose(f);
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
