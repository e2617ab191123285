/* pstat: this test's own /proc/PID files read as the monitor reads a
 * server's: its pid, threads and ticks, its command line, its memory, its
 * writes counted by call and by byte. */
#include "pstat.h"
#include "../t.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static void *idle(void *arg)
{
    return arg;
}

static void stat_of_self(void)
{
    struct pstat p;
    pthread_t t;
    volatile double x = 1;
    int i;
    for (i = 0; i < 20000000; i++) /* some CPU, so ticks can grow */
        x = x * 1.0000001;
    CHECK(pstat_read(getpid(), &p) == 0);
    CHECK(p.pid == getpid() && p.ppid == getppid() && p.threads == 1 && p.rss_pages > 0);
    CHECKF(strcmp(p.comm, "test_pstat") == 0, "comm '%s'", p.comm);
    CHECK(pthread_create(&t, NULL, idle, NULL) == 0);
    CHECK(pstat_read(getpid(), &p) == 0 && p.threads >= 1);
    pthread_join(t, NULL);
    CHECK(pstat_read(0x3fffffff, &p) == -1); /* no such process */
}

static void command_of_self(void)
{
    struct pstat p;
    char cmd[256], tiny[8];
    CHECK(pstat_read(getpid(), &p) == 0);
    CHECK(pstat_command(&p, cmd, sizeof(cmd)) == 1);
    CHECKF(strstr(cmd, "test_pstat") != NULL && strchr(cmd, '\0') == cmd + strlen(cmd), "'%s'", cmd);
    pstat_command(&p, tiny, sizeof(tiny)); /* cut, still a string */
    CHECK(strlen(tiny) == sizeof(tiny) - 1);
    p.pid = 0x3fffffff; /* gone: its name from stat */
    CHECK(pstat_command(&p, cmd, sizeof(cmd)) == 0); /* unnamed: read again later (monitor.c) */
    CHECKF(strcmp(cmd, "[test_pstat]") == 0, "'%s'", cmd);
}

static void memory_of_self(void)
{
    uint64_t pss, uss, rss;
    CHECK(pstat_smaps(getpid(), &pss, &uss, &rss) == 0);
    CHECKF(pss > 0 && uss > 0 && rss > 0 && uss <= pss && pss <= rss, "pss %llu uss %llu rss %llu",
           (unsigned long long)pss, (unsigned long long)uss, (unsigned long long)rss);
    CHECK(pstat_smaps(0x3fffffff, &pss, &uss, &rss) != 0);
}

static void writes_of_self(void)
{
    uint64_t wb0, wc0, sc0, wb1, wc1, sc1;
    int fd = open("/dev/null", O_WRONLY), i;
    CHECK(fd >= 0);
    if (pstat_io(getpid(), &wb0, &wc0, &sc0) != 0) {
        printf("  (no /proc/PID/io here: task I/O accounting is off)\n");
        close(fd);
        return;
    }
    for (i = 0; i < 10; i++)
        CHECK(write(fd, "0123456789", 10) == 10);
    close(fd);
    CHECK(pstat_io(getpid(), &wb1, &wc1, &sc1) == 0);
    /* Ten calls of ten bytes, and perhaps the test's own output beside. */
    CHECKF(sc1 - sc0 >= 10 && sc1 - sc0 < 20 && wc1 - wc0 >= 100 && wc1 - wc0 < 4096, "%llu calls, %llu bytes",
           (unsigned long long)(sc1 - sc0), (unsigned long long)(wc1 - wc0));
    CHECK(wb1 == wb0); /* /dev/null reaches no storage */
}

int main(void)
{
    T_RUN(stat_of_self);
    T_RUN(command_of_self);
    T_RUN(memory_of_self);
    T_RUN(writes_of_self);
    T_END("test_pstat");
}
