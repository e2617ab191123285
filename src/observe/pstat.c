/* pstat.c - one process's figures from /proc/PID (proc(5)): stat's CPU
 * ticks, RSS and threads, its command line, smaps_rollup's PSS and USS,
 * io's writes. Each file is read whole in one read: the kernel makes it at
 * open. See pstat.h. */
#include "pstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /proc/PID/name into buf, NUL-terminated, in one read (these files are
 * made whole at open). Returns the bytes read, or -1. */
static ssize_t read_proc(int pid, const char *name, char *buf, size_t len)
{
    char path[64];
    ssize_t n;
    int fd;
    snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

/* Parses /proc/PID/stat; the command name may hold spaces and parentheses. */
int pstat_read(int pid, struct pstat *p)
{
    char buf[1024], *s, *open_paren;
    unsigned long long ut, st, start;
    long rss, threads;
    int ppid;
    ssize_t n;
    size_t cl;

    if ((n = read_proc(pid, "stat", buf, sizeof(buf))) <= 0)
        return -1;
    open_paren = strchr(buf, '(');
    s = strrchr(buf, ')');
    if (s == NULL || open_paren == NULL || s < open_paren)
        return -1;
    /* After ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt
     * cmajflt utime stime cutime cstime priority nice num_threads itrealvalue
     * starttime vsize rss (proc(5)) */
    if (sscanf(s + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %ld %*d %llu %*u %ld",
               &ppid, &ut, &st, &threads, &start, &rss) != 6)
        return -1;
    p->pid = pid;
    p->ppid = ppid;
    p->ticks = ut + st;
    p->start = start;
    p->rss_pages = rss > 0 ? (uint64_t)rss : 0;
    p->threads = threads > 0 ? (uint32_t)threads : 0;
    cl = (size_t)(s - open_paren - 1);
    if (cl >= sizeof(p->comm))
        cl = sizeof(p->comm) - 1;
    memcpy(p->comm, open_paren + 1, cl);
    p->comm[cl] = '\0';
    return 0;
}

/* The command line, arguments joined by spaces; the name in stat when it
 * has none (a zombie, a kernel thread, in the middle of an exec). */
int pstat_command(const struct pstat *p, char *out, size_t len)
{
    char path[64];
    ssize_t n = -1, i;
    int fd;
    snprintf(path, sizeof(path), "/proc/%d/cmdline", p->pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
        n = read(fd, out, len - 1);
        close(fd);
    }
    if (n <= 0) {
        snprintf(out, len, "[%s]", p->comm);
        return 0;
    }
    while (n > 0 && out[n - 1] == '\0')
        n--;
    for (i = 0; i < n; i++)
        if (out[i] == '\0' || (unsigned char)out[i] < 0x20)
            out[i] = ' ';
    out[n] = '\0';
    return 1;
}

/* PSS, USS (Private_Clean + Private_Dirty) and RSS of one process, in
 * bytes. Returns 0, or an errno value. */
int pstat_smaps(int pid, uint64_t *pss, uint64_t *uss, uint64_t *rss)
{
    char path[64], buf[4096], *p;
    int fd;
    ssize_t n;
    uint64_t pc = 0, pd = 0;

    snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return errno;
    n = read(fd, buf, sizeof(buf) - 1);
    if (n < 0) {
        int e = errno;
        close(fd);
        return e;
    }
    close(fd);
    buf[n] = '\0';
    *pss = *uss = *rss = 0;
    if ((p = strstr(buf, "\nRss:")) != NULL)
        *rss = strtoull(p + 5, NULL, 10) * 1024;
    if ((p = strstr(buf, "\nPss:")) == NULL)
        return n == 0 ? ESRCH : EINVAL; /* empty for a zombie */
    *pss = strtoull(p + 5, NULL, 10) * 1024;
    if ((p = strstr(buf, "\nPrivate_Clean:")) != NULL)
        pc = strtoull(p + 15, NULL, 10) * 1024;
    if ((p = strstr(buf, "\nPrivate_Dirty:")) != NULL)
        pd = strtoull(p + 15, NULL, 10) * 1024;
    *uss = pc + pd;
    return 0;
}

/* /proc/PID/io write_bytes, wchar and syscw. Returns 0, or -1 when not
 * readable. */
int pstat_io(int pid, uint64_t *out, uint64_t *wchar, uint64_t *syscw)
{
    char buf[512], *p, *w, *n;
    if (read_proc(pid, "io", buf, sizeof(buf)) <= 0 || (p = strstr(buf, "\nwrite_bytes: ")) == NULL ||
        strncmp(buf, "rchar: ", 7) != 0 || (w = strstr(buf, "\nwchar: ")) == NULL ||
        (n = strstr(buf, "\nsyscw: ")) == NULL)
        return -1;
    *out = strtoull(p + 14, NULL, 10);
    *wchar = strtoull(w + 8, NULL, 10);
    *syscw = strtoull(n + 8, NULL, 10);
    return 0;
}
