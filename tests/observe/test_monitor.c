/* monitor: a process tree this test starts, watched as a server is: a
 * child that burns 0.15 s of CPU (its own CPU clock, not
 * the wall's), touches 32 MiB and writes ten times 100 bytes, with a
 * `sleep` below it from the start and another born mid-run. Its figures:
 * CPU, memory peaks, processes and threads, writes counted exactly, each
 * process's command and parent; one named after its exec; then one that
 * exits before the end, a stop before the warm-up ended, and the refusals. */
#include "monitor.h"
#include "../t.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024ULL * 1024)
#define TOUCH (32 * MIB)

static int has_command(pid_t pid, const char *name)
{
    char path[64], cmd[64] = "";
    FILE *f;
    size_t n = 0;
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    if ((f = fopen(path, "r")) != NULL) {
        n = fread(cmd, 1, sizeof(cmd) - 1, f);
        fclose(f);
    }
    cmd[n] = '\0';
    return strcmp(cmd, name) == 0;
}

/* Starts argv[0] with argv; returns once it has exec'd (its pipe closed
 * on exec) and shows its command line, or -1. */
static pid_t spawn(char *const argv[])
{
    int p[2], i;
    char b;
    pid_t c;
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    if ((c = fork()) == 0) {
        close(p[0]);
        execvp(argv[0], argv);
        (void)!write(p[1], "x", 1);
        _exit(127);
    }
    close(p[1]);
    if (c < 0 || read(p[0], &b, 1) != 0) {
        close(p[0]);
        return -1;
    }
    close(p[0]);
    /* Its command line is the new one once the kernel has set up its
     * arguments, a moment after the close on exec. */
    for (i = 0; i < 1000 && !has_command(c, argv[0]); i++)
        usleep(1000);
    return c;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The watched process: ready, go, work, done, then waits to be killed. */
static void server_main(int ready, int go, int done)
{
    static char *const sleep30[] = { "sleep", "30", NULL }, *const sleep31[] = { "sleep", "31", NULL };
    int null = open("/dev/null", O_WRONLY), i;
    volatile double x = 1;
    double until;
    char *mem, b;
    if (spawn(sleep30) < 0 || null < 0)
        _exit(1);
    (void)!write(ready, "r", 1);
    if (read(go, &b, 1) != 1)
        _exit(1);
    for (until = cpu_now() + 0.15; cpu_now() < until;)
        x = x * 1.0000001;
    if ((mem = malloc(TOUCH)) == NULL)
        _exit(1);
    memset(mem, 1, TOUCH);
    for (i = 0; i < 10; i++)
        (void)!write(null, mem, 100);
    if (spawn(sleep31) < 0)
        _exit(1);
    (void)!write(done, "d", 1);
    for (;;)
        pause();
}

static const struct monitor_proc *find(const struct monitor_result *r, const char *cmd)
{
    uint32_t i;
    for (i = 0; i < r->nprocs; i++)
        if (strstr(r->procs[i].command, cmd))
            return &r->procs[i];
    return NULL;
}

static void watch_a_tree(void)
{
    int ready[2], go[2], done[2], st;
    struct monitor *m;
    struct monitor_result r;
    struct monitor_live live;
    const struct monitor_proc *a, *b, *c;
    char err[256] = "", ch;
    pid_t s;
    CHECK(pipe(ready) == 0 && pipe(go) == 0 && pipe(done) == 0);
    if ((s = fork()) == 0)
        server_main(ready[1], go[0], done[1]);
    CHECK(s > 0 && read(ready[0], &ch, 1) == 1);
    CHECKF(monitor_start(s, NULL, 0, &m, err, sizeof(err)) == 0, "%s", err);
    CHECK(write(go[1], "g", 1) == 1 && read(done[0], &ch, 1) == 1);
    monitor_live(m, &live);
    CHECK(live.ok == 1 && live.processes >= 2 && live.rss_bytes > 0 && live.cpus > 0);
    monitor_stop(m, &r);

    CHECKF(r.pid == s && r.cgroup[0] == '\0' && r.gone == 0 && r.cpu_exact == 0 && r.nr_throttled == -1, "pid %d",
           r.pid);
    /* 0.15 s burnt, and what its 8192 page faults cost. */
    CHECKF(r.cpu_s >= 0.14 && r.cpu_s < 0.5, "cpu %.3f s", r.cpu_s);
    CHECKF(r.processes == 3 && r.threads == 3 && r.nprocs == 3, "%u processes, %u threads, %u seen", r.processes,
           r.threads, r.nprocs);
    /* A point holds the fewest processes since the one before: two at first. */
    CHECK(r.samples >= 2 && r.npoints >= 2 && r.series[0].processes == 2 && r.series[r.npoints - 1].processes >= 2);
    CHECKF(r.rss_peak_bytes >= TOUCH && r.rss_mean_bytes > 0 && r.rss_mean_bytes <= r.rss_peak_bytes, "rss %llu",
           (unsigned long long)r.rss_peak_bytes);
    if (r.has_pss)
        CHECKF(r.pss_peak_bytes >= TOUCH && r.uss_peak_bytes >= TOUCH && r.pss_peak_bytes <= r.rss_peak_bytes,
               "pss %llu uss %llu", (unsigned long long)r.pss_peak_bytes, (unsigned long long)r.uss_peak_bytes);
    else
        CHECKF(strstr(r.pss_note, "PSS unavailable") != NULL, "'%s'", r.pss_note);
    if (r.has_alone)
        CHECK(r.alone_peak_bytes >= TOUCH && r.pss_note[0] == '\0');
    CHECK(r.cpus > 0 && r.cpus <= (double)sysconf(_SC_NPROCESSORS_ONLN));
    /* Ten writes of 100 bytes and the one of "d", nothing to storage. */
    if (r.has_io)
        CHECKF(r.syscw == 11 && r.wchar == 1001 && r.write_bytes == 0 && r.has_syscw && r.has_wchar,
               "%llu calls, %llu bytes, %llu to storage", (unsigned long long)r.syscw, (unsigned long long)r.wchar,
               (unsigned long long)r.write_bytes);
    else
        printf("  (no /proc/PID/io here: task I/O accounting is off)\n");
    a = find(&r, "test_monitor");
    b = find(&r, "sleep 30");
    c = find(&r, "sleep 31");
    CHECKF(a && b && c, "%s / %s / %s", r.nprocs > 0 ? r.procs[0].command : "", r.nprocs > 1 ? r.procs[1].command : "", r.nprocs > 2 ? r.procs[2].command : "");
    if (a && b && c) {
        CHECK(a->pid == s && b->ppid == s && c->ppid == s && !a->exited && !b->exited && !c->exited);
        CHECKF(strcmp(b->command, "sleep 30") == 0 && a->rss_peak_bytes >= TOUCH, "'%s'", b->command);
        CHECKF(a->cpu_s >= 0.14 && b->cpu_s <= 0.02 && c->cpu_s <= 0.02, "%.2f %.2f %.2f", a->cpu_s, b->cpu_s, c->cpu_s);
        CHECK(c->first_seen_s > b->first_seen_s); /* born mid-run */
    }
    {
        struct monitor_group g[4];
        CHECK(monitor_groups(&r, g, 4) == 3);
    }
    /* The sleeps by their pids, then their parent (init reaps them). */
    if (b)
        kill(b->pid, SIGKILL);
    if (c)
        kill(c->pid, SIGKILL);
    monitor_result_free(&r);
    kill(s, SIGKILL);
    waitpid(s, &st, 0);
    close(ready[0]), close(ready[1]), close(go[0]), close(go[1]), close(done[0]), close(done[1]);
}

static void exits_before_the_end(void)
{
    int go[2], st;
    struct monitor *m;
    struct monitor_result r;
    char err[256] = "", b;
    pid_t s;
    CHECK(pipe(go) == 0);
    if ((s = fork()) == 0) {
        _exit(read(go[0], &b, 1) == 1 ? 0 : 1);
    }
    CHECKF(monitor_start(s, NULL, 0, &m, err, sizeof(err)) == 0, "%s", err);
    CHECK(write(go[1], "x", 1) == 1 && waitpid(s, &st, 0) == s);
    monitor_stop(m, &r);
    CHECK(r.gone == 1 && r.nprocs == 1 && r.procs[0].exited == 1 && r.procs[0].pid == s && r.processes == 1);
    monitor_result_free(&r);
    close(go[0]);
    close(go[1]);
}

/* Stopped during the warm-up: nothing watched, nothing said. */
static void stopped_before_the_delay(void)
{
    struct monitor *m;
    struct monitor_result r;
    char err[256] = "";
    CHECKF(monitor_start(getpid(), NULL, 10000000000ULL, &m, err, sizeof(err)) == 0, "%s", err);
    monitor_stop(m, &r);
    CHECK(r.samples == 0 && r.nprocs == 0 && r.cpu_s == 0 && r.rss_peak_bytes == 0 && r.gone == 0);
    CHECK(r.pid == getpid() && r.has_pss == 0 && r.npoints == 0);
    monitor_result_free(&r);
}

static void refused(void)
{
    struct monitor *m = NULL;
    char err[256] = "";
    CHECK(monitor_start(0x3fffffff, NULL, 0, &m, err, sizeof(err)) == -1 && m == NULL);
    CHECKF(strcmp(err, "--monitor: no process 1073741823") == 0, "'%s'", err);
    CHECK(monitor_start(0, NULL, 0, &m, err, sizeof(err)) == -1);
    CHECK(monitor_start(0, "/tmp", 0, &m, err, sizeof(err)) == -1 && m == NULL);
    CHECKF(strcmp(err, "'/tmp' is not a readable cgroup v2 directory") == 0, "'%s'", err);
}

/* A process seen before it exec'd another program is named by what it
 * runs at the end: once seen mid-exec (an empty cmdline) a sleep was
 * "[test_monitor]" to the end of the run. */
static void named_after_its_exec(void)
{
    static char *const sleep32[] = { "sleep", "32", NULL };
    struct monitor *m;
    struct monitor_result r;
    struct monitor_live live = { 0 };
    char err[256] = "";
    int go[2], st, i;
    pid_t c;
    CHECK(pipe(go) == 0);
    if ((c = fork()) == 0) {
        char b;
        close(go[1]);
        if (read(go[0], &b, 1) == 1)
            execvp(sleep32[0], sleep32);
        _exit(127);
    }
    close(go[0]);
    CHECKF(monitor_start(c, NULL, 0, &m, err, sizeof(err)) == 0, "%s", err);
    /* Seen once as this program's copy, then it execs. */
    for (i = 0; i < 5000 && !live.ok; i++) {
        usleep(1000);
        monitor_live(m, &live);
    }
    CHECK(live.ok && write(go[1], "g", 1) == 1);
    for (i = 0; i < 1000 && !has_command(c, "sleep"); i++)
        usleep(1000);
    monitor_stop(m, &r); /* its last sample: after the exec */
    CHECKF(r.nprocs == 1 && strcmp(r.procs[0].command, "sleep 32") == 0, "%u '%s'", r.nprocs,
           r.nprocs ? r.procs[0].command : "");
    monitor_result_free(&r);
    kill(c, SIGKILL);
    waitpid(c, &st, 0);
    close(go[1]);
}

int main(void)
{
    T_RUN(watch_a_tree);
    T_RUN(named_after_its_exec);
    T_RUN(exits_before_the_end);
    T_RUN(stopped_before_the_delay);
    T_RUN(refused);
    T_END("test_monitor");
}
