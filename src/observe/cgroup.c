/* cgroup.c - cgroup v2 through its files (Documentation/admin-guide/
 * cgroup-v2.rst): cgroup.procs, cgroup.events, cgroup.kill, cpu.stat. */
#include "cgroup.h"
#include "err.h"
#include "clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* out = a "/" b, or a alone when b is NULL. Returns 0, or -1 when it does
 * not fit (paths are never cut). */
static int join(char *out, size_t len, const char *a, const char *b)
{
    size_t la = strlen(a), lb = b ? strlen(b) : 0;
    if (la + (b ? 1 + lb : 0) + 1 > len)
        return -1;
    memcpy(out, a, la);
    if (b) {
        out[la] = '/';
        memcpy(out + la + 1, b, lb);
        la += 1 + lb;
    }
    out[la] = '\0';
    return 0;
}

static int is_cgroup2(const char *dir)
{
    struct statfs sf;
    return statfs(dir, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* Where cgroup2 is mounted, from /proc/self/mountinfo. */
static int find_mount(char *out, size_t len)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char line[1024];
    int found = 0;
    if (f == NULL)
        return -1;
    while (!found && fgets(line, sizeof(line), f)) {
        /* id parent major:minor root mountpoint options... - fstype source ... */
        char root[512], mnt[512];
        const char *dash = strstr(line, " - ");
        if (dash == NULL || strncmp(dash + 3, "cgroup2 ", 8) != 0)
            continue;
        if (sscanf(line, "%*d %*d %*s %511s %511s", root, mnt) == 2 && strcmp(root, "/") == 0)
            found = join(out, len, mnt, NULL) == 0;
    }
    fclose(f);
    return found ? 0 : -1;
}

/* rafale's own cgroup v2 path ("0::/user.slice/..."). */
static int own_path(char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024];
    int found = 0;
    if (f == NULL)
        return -1;
    while (!found && fgets(line, sizeof(line), f))
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = '\0';
            found = join(out, len, line + 3, NULL) == 0;
        }
    fclose(f);
    return found ? 0 : -1;
}

static int read_small(const char *dir, const char *file, char *buf, size_t len)
{
    char path[600];
    int fd;
    ssize_t n;
    if (join(path, sizeof(path), dir, file) != 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

static int write_small(const char *dir, const char *file, const char *text)
{
    char path[600];
    int fd, e = 0;
    if (join(path, sizeof(path), dir, file) != 0)
        return ENAMETOOLONG;
    if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
        return errno;
    if (write(fd, text, strlen(text)) < 0)
        e = errno;
    close(fd);
    return e;
}

int cgroup_create(struct cgroup *cg, const char *name, char *err, size_t errlen)
{
    char mnt[256], own[256], dir[520];
    int i, e = 0;

    memset(cg, 0, sizeof(*cg));
    if (find_mount(mnt, sizeof(mnt)) != 0) {
        err_set(err, errlen, NULL, "no cgroup2 file system is mounted");
        return -1;
    }
    /* Beside rafale's own cgroup first (what systemd delegates), else at the
     * root of the mount. */
    for (i = 0; i < 2; i++) {
        if (i == 0) {
            if (own_path(own, sizeof(own)) != 0 || strcmp(own, "/") == 0)
                continue;
            snprintf(dir, sizeof(dir), "%s%s", mnt, own);
            if (!is_cgroup2(dir))
                continue;
        } else {
            snprintf(dir, sizeof(dir), "%s", mnt);
        }
        if (join(cg->path, sizeof(cg->path), dir, name) != 0) {
            e = ENAMETOOLONG;
            continue;
        }
        if (mkdir(cg->path, 0755) == 0 || errno == EEXIST) {
            cg->owned = 1;
            return 0;
        }
        e = errno;
    }
    err_set(err, errlen, NULL, "cannot make a cgroup in %s: %s", mnt, strerror(e));
    cg->path[0] = '\0';
    return -1;
}

int cgroup_open(struct cgroup *cg, const char *path, char *err, size_t errlen)
{
    char buf[64];
    memset(cg, 0, sizeof(*cg));
    if (!is_cgroup2(path) || read_small(path, "cgroup.procs", buf, sizeof(buf)) != 0 ||
        join(cg->path, sizeof(cg->path), path, NULL) != 0) {
        err_set(err, errlen, NULL, "'%s' is not a readable cgroup v2 directory", path);
        return -1;
    }
    return 0;
}

int cgroup_move(const struct cgroup *cg, pid_t pid)
{
    char num[32];
    snprintf(num, sizeof(num), "%d\n", (int)pid);
    return write_small(cg->path, "cgroup.procs", num);
}

/* Appends the pids of dir and of the cgroups below it. */
static int collect(const char *dir, int **pids, int *n, int *cap, int depth)
{
    char path[600], line[32];
    FILE *f;
    DIR *d;
    struct dirent *de;

    if (join(path, sizeof(path), dir, "cgroup.procs") != 0 || (f = fopen(path, "r")) == NULL)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        if (*n == *cap) {
            int c = *cap ? *cap * 2 : 64, *p = realloc(*pids, (size_t)c * sizeof(int));
            if (p == NULL) {
                fclose(f);
                return -1;
            }
            *pids = p;
            *cap = c;
        }
        (*pids)[(*n)++] = atoi(line);
    }
    fclose(f);
    if (depth >= 8 || (d = opendir(dir)) == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        char sub[600];
        struct stat st;
        if (de->d_name[0] == '.' || join(sub, sizeof(sub), dir, de->d_name) != 0)
            continue;
        if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            collect(sub, pids, n, cap, depth + 1);
    }
    closedir(d);
    return 0;
}

int cgroup_pids(const struct cgroup *cg, int **pids)
{
    int n = 0, cap = 0;
    *pids = NULL;
    if (collect(cg->path, pids, &n, &cap, 0) != 0) {
        free(*pids);
        *pids = NULL;
        return -1;
    }
    return n;
}

int cgroup_populated(const struct cgroup *cg)
{
    char buf[256], *p;
    if (read_small(cg->path, "cgroup.events", buf, sizeof(buf)) != 0)
        return -1;
    p = strstr(buf, "populated ");
    return p ? p[10] == '1' : -1;
}

int cgroup_cpu_usec(const struct cgroup *cg, uint64_t *usec)
{
    char buf[1024], *p;
    if (read_small(cg->path, "cpu.stat", buf, sizeof(buf)) != 0 || (p = strstr(buf, "usage_usec ")) == NULL)
        return -1;
    *usec = strtoull(p + 11, NULL, 10);
    return 0;
}

int cgroup_throttled(const struct cgroup *cg, long long *n)
{
    char buf[1024], *p;
    if (read_small(cg->path, "cpu.stat", buf, sizeof(buf)) != 0 || (p = strstr(buf, "nr_throttled ")) == NULL)
        return -1;
    *n = strtoll(p + 13, NULL, 10);
    return 0;
}

double cgroup_cpu_max(const struct cgroup *cg)
{
    char buf[64];
    double quota, period;
    if (read_small(cg->path, "cpu.max", buf, sizeof(buf)) != 0 || sscanf(buf, "%lf %lf", &quota, &period) != 2 ||
        period <= 0)
        return 0; /* "max 100000" does not scan a number: unlimited */
    return quota / period;
}

int cgroup_memory(const struct cgroup *cg, uint64_t *current, uint64_t *peak)
{
    char buf[64];
    int any = 0;
    *current = *peak = 0;
    if (read_small(cg->path, "memory.current", buf, sizeof(buf)) == 0) {
        *current = strtoull(buf, NULL, 10);
        any = 1;
    }
    if (read_small(cg->path, "memory.peak", buf, sizeof(buf)) == 0) {
        *peak = strtoull(buf, NULL, 10);
        any = 1;
    }
    return any ? 0 : -1;
}

void cgroup_signal(const struct cgroup *cg, int sig)
{
    int *pids, n, i;
    n = cgroup_pids(cg, &pids);
    for (i = 0; i < n; i++)
        if (pids[i] > 0)
            kill(pids[i], sig);
    free(pids);
}

int cgroup_kill(const struct cgroup *cg, uint64_t timeout_ns)
{
    uint64_t until = clock_ns() + timeout_ns;
    int have_kill = write_small(cg->path, "cgroup.kill", "1") == 0;
    for (;;) {
        struct timespec ts = { 0, 10 * 1000000L };
        int pop = cgroup_populated(cg), *pids, n;
        if (pop == 0)
            return 0;
        if (pop < 0) {
            /* No cgroup.events: empty when cgroup.procs is. */
            n = cgroup_pids(cg, &pids);
            free(pids);
            if (n == 0)
                return 0;
        }
        if (clock_ns() > until)
            return -1;
        /* Without cgroup.kill (before 5.14), and for processes forked
         * between two passes, SIGKILL each one until none is left. */
        if (!have_kill)
            cgroup_signal(cg, SIGKILL);
        nanosleep(&ts, NULL);
    }
}

int cgroup_remove(struct cgroup *cg)
{
    DIR *d;
    struct dirent *de;
    if (!cg->owned || cg->path[0] == '\0')
        return 0;
    /* Sub-cgroups a server made for itself go first. */
    if ((d = opendir(cg->path)) != NULL) {
        while ((de = readdir(d)) != NULL) {
            struct cgroup child = { { 0 }, 1 };
            struct stat st;
            if (de->d_name[0] == '.' || join(child.path, sizeof(child.path), cg->path, de->d_name) != 0)
                continue;
            if (stat(child.path, &st) == 0 && S_ISDIR(st.st_mode))
                cgroup_remove(&child);
        }
        closedir(d);
    }
    if (rmdir(cg->path) != 0 && errno != ENOENT)
        return errno;
    cg->owned = 0;
    return 0;
}
