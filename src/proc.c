/* proc.c - process groups for `rafale compare`: spawn, watch, stop. */
#include "proc.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int proc_spawn(const char *cmd, const char *dir, char *const *env, int nenv, const int *cpus, int ncpus,
               const char *logfile, char *err, size_t errlen)
{
    int logfd = open(logfile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    pid_t pid;

    if (logfd < 0) {
        snprintf(err, errlen, "cannot open '%s': %s", logfile, strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(logfd);
        return -1;
    }
    if (pid == 0) {
        int i, devnull = open("/dev/null", O_RDONLY);
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
    close(logfd);
    return (int)pid;
}

int proc_alive(int pid, char *how, size_t howlen)
{
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == 0)
        return 1;
    if (how && r == pid) {
        if (WIFEXITED(st))
            snprintf(how, howlen, "exited with status %d", WEXITSTATUS(st));
        else if (WIFSIGNALED(st))
            snprintf(how, howlen, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
        else
            snprintf(how, howlen, "stopped");
    } else if (how) {
        snprintf(how, howlen, "is gone");
    }
    return 0;
}

void proc_stop(int pid, uint64_t grace_ns)
{
    uint64_t until = clock_ns() + grace_ns;
    int st;

    kill(-pid, SIGTERM);
    while (clock_ns() < until) {
        struct timespec ts = { 0, 20 * 1000000L };
        if (waitpid(pid, &st, WNOHANG) != 0)
            break;
        nanosleep(&ts, NULL);
    }
    /* Whatever is left of the group, the leader included. */
    kill(-pid, SIGKILL);
    waitpid(pid, &st, 0);
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

void proc_tail(const char *file, int nlines, char *buf, size_t len)
{
    FILE *f = fopen(file, "r");
    char lines[8][256];
    int n = 0, i, start;
    size_t used = 0;

    buf[0] = '\0';
    if (f == NULL)
        return;
    if (nlines > 8)
        nlines = 8;
    while (fgets(lines[n % 8], sizeof(lines[0]), f)) {
        lines[n % 8][strcspn(lines[n % 8], "\n")] = '\0';
        if (lines[n % 8][0])
            n++;
    }
    fclose(f);
    start = n > nlines ? n - nlines : 0;
    for (i = start; i < n && used + 4 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i > start ? " | " : "", lines[i % 8]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}
