/* cgroup: a cgroup v2 directory's files read as the monitor reads them,
 * from a temp directory of known text (cgroup.procs down the tree, events,
 * cpu.stat, cpu.max, memory); a process moved in by its pid; signals and
 * cgroup_kill's SIGKILL fallback to a child's pid (and never to pid 0,
 * which would be this test's own group); owned directories removed,
 * a real cgroup2 mount opened, a plain directory refused. */
#include "cgroup.h"
#include "../t.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64];

static void put(const char *dir, const char *file, const char *text)
{
    char path[600];
    FILE *f;
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
        return;
    f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void drop(const char *dir, const char *file)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    unlink(path);
}

static void at(struct cgroup *cg, const char *sub)
{
    memset(cg, 0, sizeof(*cg));
    snprintf(cg->path, sizeof(cg->path), "%s%s%s", root, sub ? "/" : "", sub ? sub : "");
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* A chain of cgroups ten deep, each with one pid (100 + its depth), and
 * a branch beside the first: every pid down to depth 8, no further. */
static void pids_down_the_tree(void)
{
    struct cgroup cg;
    char dir[600], num[16];
    int *pids, n, i, d, ok = 1;
    at(&cg, "tree");
    snprintf(dir, sizeof(dir), "%s", cg.path);
    for (d = 0; d < 10; d++) {
        CHECK(mkdir(dir, 0755) == 0);
        snprintf(num, sizeof(num), "%d\n", 100 + d);
        put(dir, "cgroup.procs", num);
        put(dir, "cpu.stat", "usage_usec 1\n"); /* a file, not a cgroup below */
        strcat(dir, "/c");
    }
    snprintf(dir, sizeof(dir), "%s/tree/side", root);
    CHECK(mkdir(dir, 0755) == 0);
    put(dir, "cgroup.procs", "7\n8\n9\n");
    snprintf(dir, sizeof(dir), "%s/tree/empty", root); /* a directory without cgroup.procs */
    CHECK(mkdir(dir, 0755) == 0);
    n = cgroup_pids(&cg, &pids);
    CHECKF(n == 12, "%d pids", n);
    if (n == 12) {
        qsort(pids, (size_t)n, sizeof(int), cmp_int);
        for (i = 0; i < 3; i++)
            ok &= pids[i] == 7 + i;
        for (i = 0; i < 9; i++)
            ok &= pids[3 + i] == 100 + i;
        CHECK(ok);
    }
    free(pids);
    at(&cg, "none");
    CHECK(cgroup_pids(&cg, &pids) == -1 && pids == NULL);
}

static void counters(void)
{
    struct cgroup cg;
    uint64_t usec = 5, cur = 5, peak = 5;
    long long thr = 5;
    at(&cg, "cnt");
    CHECK(mkdir(cg.path, 0755) == 0);
    /* Nothing there: each unknown. */
    CHECK(cgroup_populated(&cg) == -1 && cgroup_cpu_usec(&cg, &usec) == -1 && cgroup_throttled(&cg, &thr) == -1);
    CHECK(cgroup_cpu_max(&cg) == 0 && cgroup_memory(&cg, &cur, &peak) == -1 && cur == 0 && peak == 0);
    put(cg.path, "cgroup.events", "populated 1\nfrozen 0\n");
    CHECK(cgroup_populated(&cg) == 1);
    put(cg.path, "cgroup.events", "populated 0\nfrozen 0\n");
    CHECK(cgroup_populated(&cg) == 0);
    put(cg.path, "cgroup.events", "frozen 0\n");
    CHECK(cgroup_populated(&cg) == -1);
    put(cg.path, "cpu.stat", "usage_usec 98765432101\nuser_usec 60000000000\nsystem_usec 38765432101\n"
                             "nr_periods 250\nnr_throttled 17\nthrottled_usec 340000\n");
    CHECK(cgroup_cpu_usec(&cg, &usec) == 0 && usec == 98765432101ULL);
    CHECK(cgroup_throttled(&cg, &thr) == 0 && thr == 17);
    /* Without the cpu controller, cpu.stat holds no throttling. */
    put(cg.path, "cpu.stat", "usage_usec 10\nuser_usec 6\nsystem_usec 4\n");
    CHECK(cgroup_throttled(&cg, &thr) == -1 && cgroup_cpu_usec(&cg, &usec) == 0 && usec == 10);
    put(cg.path, "cpu.max", "max 100000\n");
    CHECK(cgroup_cpu_max(&cg) == 0); /* unlimited */
    put(cg.path, "cpu.max", "150000 100000\n");
    CHECK(cgroup_cpu_max(&cg) == 1.5);
    put(cg.path, "cpu.max", "50000 0\n");
    CHECK(cgroup_cpu_max(&cg) == 0);
    put(cg.path, "memory.current", "1048576\n");
    CHECK(cgroup_memory(&cg, &cur, &peak) == 0 && cur == 1048576 && peak == 0);
    put(cg.path, "memory.peak", "4194304\n");
    CHECK(cgroup_memory(&cg, &cur, &peak) == 0 && cur == 1048576 && peak == 4194304);
    drop(cg.path, "memory.current");
    CHECK(cgroup_memory(&cg, &cur, &peak) == 0 && cur == 0 && peak == 4194304);
}

static void move_writes_the_pid(void)
{
    struct cgroup cg;
    char path[600], buf[32] = "";
    FILE *f;
    at(&cg, "mv");
    CHECK(mkdir(cg.path, 0755) == 0);
    CHECK(cgroup_move(&cg, 4242) == ENOENT); /* no cgroup.procs */
    put(cg.path, "cgroup.procs", "");
    CHECK(cgroup_move(&cg, 4242) == 0);
    snprintf(path, sizeof(path), "%s/cgroup.procs", cg.path);
    if ((f = fopen(path, "r")) != NULL) {
        CHECK(fgets(buf, sizeof(buf), f) != NULL);
        fclose(f);
    }
    CHECKF(strcmp(buf, "4242\n") == 0, "'%s'", buf);
}

/* A child that waits to be signalled. */
static pid_t child(void)
{
    pid_t p = fork();
    if (p == 0) {
        for (;;)
            pause();
    }
    return p;
}

static void signals(void)
{
    struct cgroup cg;
    char num[32];
    pid_t p = child();
    int st = 0;
    CHECK(p > 0);
    at(&cg, "sig");
    CHECK(mkdir(cg.path, 0755) == 0);
    /* Pid 0 (kill(0) would be this test's own process group) is skipped. */
    snprintf(num, sizeof(num), "0\n%d\n", (int)p);
    put(cg.path, "cgroup.procs", num);
    cgroup_signal(&cg, SIGTERM);
    CHECK(waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);

    /* cgroup_kill without cgroup.kill (before Linux 5.14): SIGKILL to
     * each process until it empties, here never (its events say
     * populated): -1 once the time is up. */
    p = child();
    snprintf(num, sizeof(num), "%d\n", (int)p);
    put(cg.path, "cgroup.procs", num);
    put(cg.path, "cgroup.events", "populated 1\n");
    CHECK(cgroup_kill(&cg, 150000000ULL) == -1);
    CHECK(waitpid(p, &st, 0) == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    /* With cgroup.kill: "1" written to it, and empty at once. */
    put(cg.path, "cgroup.kill", "");
    put(cg.path, "cgroup.events", "populated 0\n");
    CHECK(cgroup_kill(&cg, 300000000ULL) == 0);
    {
        char path[600], buf[8] = "";
        FILE *f;
        snprintf(path, sizeof(path), "%s/cgroup.kill", cg.path);
        if ((f = fopen(path, "r")) != NULL) {
            CHECK(fgets(buf, sizeof(buf), f) != NULL);
            fclose(f);
        }
        CHECK(strcmp(buf, "1") == 0);
    }
    /* No cgroup.events: empty when cgroup.procs is. */
    drop(cg.path, "cgroup.events");
    put(cg.path, "cgroup.procs", "");
    CHECK(cgroup_kill(&cg, 300000000ULL) == 0);
}

static void remove_owned(void)
{
    struct cgroup cg;
    char dir[600];
    struct stat st;
    at(&cg, "rm");
    CHECK(mkdir(cg.path, 0755) == 0);
    snprintf(dir, sizeof(dir), "%s/a", cg.path);
    CHECK(mkdir(dir, 0755) == 0);
    snprintf(dir, sizeof(dir), "%s/a/b", cg.path);
    CHECK(mkdir(dir, 0755) == 0);
    snprintf(dir, sizeof(dir), "%s/c", cg.path);
    CHECK(mkdir(dir, 0755) == 0);
    CHECK(cgroup_remove(&cg) == 0 && stat(cg.path, &st) == 0); /* not owned: left */
    cg.owned = 1;
    put(cg.path, "cgroup.procs", ""); /* a plain file: a cgroup's go with it, a directory's do not */
    CHECK(cgroup_remove(&cg) == ENOTEMPTY && cg.owned == 1 && stat(dir, &st) != 0);
    drop(cg.path, "cgroup.procs");
    CHECK(cgroup_remove(&cg) == 0 && cg.owned == 0 && stat(cg.path, &st) != 0);
    cg.owned = 1; /* gone already: fine */
    CHECK(cgroup_remove(&cg) == 0);
}

static void open_checks_the_mount(void)
{
    struct cgroup cg;
    struct statfs sf;
    char err[256] = "", want[600];
    CHECK(cgroup_open(&cg, "/nonexistent/rafale", err, sizeof(err)) == -1);
    CHECK(cgroup_open(&cg, root, err, sizeof(err)) == -1 && cg.owned == 0 && cg.path[0] == '\0');
    snprintf(want, sizeof(want), "'%s' is not a readable cgroup v2 directory", root);
    CHECKF(strcmp(err, want) == 0, "'%s'", err);
    if (statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == 0x63677270) {
        CHECK(cgroup_open(&cg, "/sys/fs/cgroup", err, sizeof(err)) == 0);
        CHECK(strcmp(cg.path, "/sys/fs/cgroup") == 0 && cg.owned == 0);
        CHECK(cgroup_remove(&cg) == 0); /* not owned: never removed */
    } else {
        printf("  (no cgroup2 at /sys/fs/cgroup)\n");
    }
}

int main(void)
{
    char cmd[128];
    int rc;
    strcpy(root, "/tmp/rafale_test_cgroup_XXXXXX");
    if (mkdtemp(root) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    T_RUN(pids_down_the_tree);
    T_RUN(counters);
    T_RUN(move_writes_the_pid);
    T_RUN(signals);
    T_RUN(remove_owned);
    T_RUN(open_checks_the_mount);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    rc = system(cmd);
    CHECK(rc == 0);
    T_END("test_cgroup");
}
