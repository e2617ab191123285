/* child.c - the servers of `rafale compare`: start (in a cgroup of their own
 * when possible), follow, stop; a command's first line of output; a
 * server's log's last lines. */
#include "child.h"
#include "clock.h"
#include "err.h"

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

int child_start(struct child *p, const char *cmd, const char *dir, char *const *env, int nenv, const int *cpus,
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
        /* The child is gone already; child_alive will say how. */
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
static void reap(struct child *p)
{
    int st;
    if (p->pid > 0 && !p->reaped && waitpid(p->pid, &st, WNOHANG) == p->pid) {
        p->reaped = 1;
        p->status = st;
    }
}

int child_alive(struct child *p, char *how, size_t howlen)
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
static int anything_left(struct child *p)
{
    if (p->in_cgroup)
        return cgroup_populated(&p->cg) != 0;
    reap(p);
    /* The group outlives its leader while a member remains. */
    return kill(-p->pid, 0) == 0 || !p->reaped;
}

void child_stop(struct child *p, uint64_t grace_ns)
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

int child_capture(const char *cmd, char *out, size_t len, uint64_t timeout_ns)
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

void child_become_subreaper(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

void child_reap_orphans(uint64_t timeout_ns)
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

void child_log_tail(const char *file, char *buf, size_t len)
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
