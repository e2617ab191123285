/* pageshare: two `sleep`s share their program and libraries: measured
 * together each holds half of what they share, alone all of it. Two
 * children of this test, each reading the same 4 MiB of shared memory, one
 * of them also writing 8 MiB of its own: together, half of the 4 MiB each
 * and all of its own. A process gone has a share of 0; none, nothing.
 * Where it cannot count, its one-line reason: frame numbers unreadable
 * (not root), or more address space than it walks (a sanitized build's
 * shadow memory: this test's children, then, but not the sleeps). */
#include "pageshare.h"
#include "../t.h"

#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB (1024LL * 1024)
#define SHARED (4 * MIB)
#define OWN (8 * MIB)
static long long diff(uint64_t a, uint64_t b)
{
    return (long long)a - (long long)b;
}

#define NO_ROOT "/proc/PID/pagemap gives no frame numbers without root"

extern char **environ;

/* Is pid asleep with its libraries mapped (past its loading, in
 * nanosleep: its pages settled)? */
static int settled(pid_t pid)
{
    char path[64], buf[512], *p;
    FILE *f;
    int sleeping = 0, libc = 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if ((f = fopen(path, "r")) != NULL) {
        if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) != NULL)
            sleeping = p[1] == ' ' && p[2] == 'S';
        fclose(f);
    }
    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    if ((f = fopen(path, "r")) != NULL) {
        while (!libc && fgets(buf, sizeof(buf), f))
            libc = strstr(buf, "/libc") != NULL;
        fclose(f);
    }
    return sleeping && libc;
}

/* A `sleep 30`, once it sleeps. */
static pid_t sleeper(void)
{
    static char *const argv[] = { "sleep", "30", NULL };
    pid_t p;
    int i;
    if (posix_spawnp(&p, "sleep", NULL, NULL, argv, environ) != 0)
        return -1;
    for (i = 0; i < 2000 && !settled(p); i++)
        usleep(1000);
    return p;
}

static void two_sleeps(void)
{
    int pids[2] = { sleeper(), sleeper() }, st, rc;
    uint64_t pair[2], one, two;
    char err[256] = "";
    CHECK(pids[0] > 0 && pids[1] > 0);
    rc = pageshare_measure(pids, 2, pair, err, sizeof(err));
    if (rc != 0) {
        CHECKF(strcmp(err, NO_ROOT) == 0, "'%s'", err);
        printf("  (no frame numbers here: %s)\n", err);
    } else {
        CHECK(pageshare_measure(&pids[0], 1, &one, err, sizeof(err)) == 0);
        CHECK(pageshare_measure(&pids[1], 1, &two, err, sizeof(err)) == 0);
        /* What they share, S: alone each holds it all, together half,
         * the same S / 2 for both (what each has of its own aside); the
         * same program and libraries: 64 KiB of it at least. */
        CHECKF(diff(one, pair[0]) >= 64 * 1024 && llabs(diff(one, pair[0]) - diff(two, pair[1])) <= 16 * 1024,
               "alone %llu and %llu, together %llu and %llu", (unsigned long long)one, (unsigned long long)two,
               (unsigned long long)pair[0], (unsigned long long)pair[1]);
    }
    kill(pids[0], SIGKILL);
    kill(pids[1], SIGKILL);
    waitpid(pids[0], &st, 0);
    waitpid(pids[1], &st, 0);
}

/* A child that reads every page of shared (and writes own bytes of its
 * own), says so on ready, and waits. */
static pid_t child(volatile char *shared, long long own, int ready)
{
    pid_t p = fork();
    if (p == 0) {
        long long i;
        char sum = 0;
        for (i = 0; i < SHARED; i += 4096)
            sum += shared[i];
        if (own) {
            char *m = mmap(NULL, (size_t)own, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED)
                _exit(1);
            for (i = 0; i < own; i += 4096)
                m[i] = (char)(1 + sum);
        }
        if (write(ready, "r", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    return p;
}


static void shares(void)
{
    char *shared = mmap(NULL, SHARED, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0), err[256] = "", b;
    int fds[2], pids[3], st, rc;
    uint64_t pair[2], one[1], two[1], three[3];
    CHECK(shared != MAP_FAILED && pipe(fds) == 0);
    memset(shared, 7, SHARED);
    pids[0] = child(shared, OWN, fds[1]);
    pids[1] = child(shared, 0, fds[1]);
    CHECK(pids[0] > 0 && pids[1] > 0 && read(fds[0], &b, 1) == 1 && read(fds[0], &b, 1) == 1);
    rc = pageshare_measure(pids, 2, pair, err, sizeof(err));
    if (rc != 0) {
        /* Frame numbers need CAP_SYS_ADMIN; a sanitized process reserves
         * terabytes of shadow: each said in one line. */
        CHECKF(strcmp(err, NO_ROOT) == 0 || strcmp(err, "more than 64 GiB of address space to walk") == 0, "'%s'", err);
        printf("  (not counted here: %s)\n", err);
    } else {
        CHECK(pageshare_measure(&pids[0], 1, one, err, sizeof(err)) == 0);
        CHECK(pageshare_measure(&pids[1], 1, two, err, sizeof(err)) == 0);
        /* Alone, each holds what it shares whole; together, half: the
         * same half for both, 2 MiB of the region at least. */
        CHECKF(diff(one[0], pair[0]) >= SHARED / 2 && llabs(diff(one[0], pair[0]) - diff(two[0], pair[1])) <= 64 * 1024,
               "alone %llu and %llu, together %llu and %llu", (unsigned long long)one[0], (unsigned long long)two[0],
               (unsigned long long)pair[0], (unsigned long long)pair[1]);
        /* Its own 8 MiB: all in its share (the rest of the two alike). */
        CHECKF(llabs(diff(pair[0], pair[1]) - OWN) <= 256 * 1024, "%lld", diff(pair[0], pair[1]));
        /* A process gone: a share of 0, the others as they were. */
        pids[2] = 0x3fffffff;
        CHECK(pageshare_measure(pids, 3, three, err, sizeof(err)) == 0 && three[2] == 0);
        CHECK(llabs(diff(three[0], pair[0])) <= 64 * 1024 && llabs(diff(three[1], pair[1])) <= 64 * 1024);
    }
    CHECK(pageshare_measure(pids, 0, pair, err, sizeof(err)) == 0); /* none */
    kill(pids[0], SIGKILL);
    kill(pids[1], SIGKILL);
    waitpid(pids[0], &st, 0);
    waitpid(pids[1], &st, 0);
    close(fds[0]);
    close(fds[1]);
    munmap(shared, SHARED);
}

int main(void)
{
    T_RUN(two_sleeps);
    T_RUN(shares);
    T_END("test_pageshare");
}
