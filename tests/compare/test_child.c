/* compare's servers as child processes (no cgroup here): started by
 * /bin/sh in a folder, with extra environment, their output in a new log
 * file (never one already there); followed while they run, and how they
 * ended said; stopped, SIGKILL after the grace when SIGTERM is ignored;
 * a command's first line of output captured within a time; a log's tail
 * from a whole line. */
#include "child.h"
#include "clock.h"
#include "../t.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

/* Waits (up to 2 s) until p is no longer alive; returns child_alive's. */
static int wait_gone(struct child *p, char *how, size_t n)
{
    int i, alive = 1;
    for (i = 0; i < 2000 && (alive = child_alive(p, how, n)); i++)
        usleep(1000);
    return alive;
}

static void read_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

static void started_followed_stopped(void)
{
    struct child p;
    char log[160], warn[300], err[300], how[300], text[600], want[300];
    char env0[] = "RAFALE_TEST_FOO=bar";
    char *env[] = { env0 };
    uint64_t t0;
    int i;
    snprintf(log, sizeof(log), "%s/server.log", dir);
    CHECKF(child_start(&p, "echo started; echo \"$RAFALE_TEST_FOO\"; pwd; exec sleep 30", dir, env, 1, NULL, 0, log,
                       NULL, warn, sizeof(warn), err, sizeof(err)) == 0,
           "%s", err);
    CHECK(p.pid > 0 && !p.in_cgroup && warn[0] == '\0');
    CHECK(child_alive(&p, how, sizeof(how)) == 1);
    snprintf(want, sizeof(want), "started\nbar\n%s\n", dir);
    for (i = 0; i < 2000; i++) {
        read_file(log, text, sizeof(text));
        if (strcmp(text, want) == 0)
            break;
        usleep(1000);
    }
    CHECKF(strcmp(text, want) == 0, "log: '%s'", text);
    /* Its own session and process group. */
    CHECK(getpgid(p.pid) == p.pid && getsid(p.pid) == p.pid);
    t0 = clock_ns();
    child_stop(&p, 5 * NS_PER_S);
    /* SIGTERM was enough: it did not wait out the grace. */
    CHECK(clock_ns() - t0 < 4 * NS_PER_S && p.pid == -1 && p.reaped);
    CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGTERM);
    CHECK(child_alive(&p, how, sizeof(how)) == 0 && strcmp(how, "never started") == 0);
    child_stop(&p, 0); /* twice: nothing */
    /* The log file is made anew: one already there is refused. */
    CHECK(child_start(&p, "true", NULL, NULL, 0, NULL, 0, log, NULL, warn, sizeof(warn), err, sizeof(err)) == -1);
    CHECKF(strstr(err, "cannot open '") == err && strstr(err, "server.log': File exists") != NULL, "%s", err);
    CHECK(p.pid == -1);
    unlink(log);
}

static void how_it_ended(void)
{
    struct child p;
    char log[160], warn[300], err[300], how[300], text[600];
    snprintf(log, sizeof(log), "%s/exit.log", dir);
    CHECK(child_start(&p, "exit 3", NULL, NULL, 0, NULL, 0, log, NULL, warn, sizeof(warn), err, sizeof(err)) == 0);
    CHECK(wait_gone(&p, how, sizeof(how)) == 0 && strcmp(how, "exited with status 3") == 0);
    child_stop(&p, NS_PER_S);
    unlink(log);
    CHECK(child_start(&p, "kill -9 $$", NULL, NULL, 0, NULL, 0, log, NULL, warn, sizeof(warn), err, sizeof(err)) == 0);
    CHECKF(wait_gone(&p, how, sizeof(how)) == 0 && strcmp(how, "killed by signal 9 (Killed)") == 0, "%s", how);
    child_stop(&p, NS_PER_S);
    unlink(log);
    /* A folder that is not there: said in its log, status 126. */
    CHECK(child_start(&p, "true", "/nonexistent/dir", NULL, 0, NULL, 0, log, NULL, warn, sizeof(warn), err,
                      sizeof(err)) == 0);
    CHECK(wait_gone(&p, how, sizeof(how)) == 0 && strcmp(how, "exited with status 126") == 0);
    read_file(log, text, sizeof(text));
    CHECKF(strcmp(text, "rafale compare: cannot enter '/nonexistent/dir': No such file or directory\n") == 0, "%s",
           text);
    child_stop(&p, NS_PER_S);
    unlink(log);
    memset(&p, 0, sizeof(p));
    p.pid = -1;
    CHECK(child_alive(&p, how, sizeof(how)) == 0 && strcmp(how, "never started") == 0);
}

static void sigterm_ignored_then_killed(void)
{
    struct child p;
    char log[160], warn[300], err[300];
    uint64_t t0;
    int i;
    snprintf(log, sizeof(log), "%s/stubborn.log", dir);
    /* Ignores SIGTERM (and so does what it runs): killed after the grace,
     * its background process too (the group). */
    CHECK(child_start(&p, "trap '' TERM; sleep 30 & echo ready; wait", NULL, NULL, 0, NULL, 0, log, NULL, warn,
                      sizeof(warn), err, sizeof(err)) == 0);
    for (i = 0; i < 2000; i++) {
        char text[64];
        read_file(log, text, sizeof(text));
        if (strcmp(text, "ready\n") == 0)
            break;
        usleep(1000);
    }
    t0 = clock_ns();
    child_stop(&p, 200000000ULL);
    CHECK(clock_ns() - t0 >= 200000000ULL && clock_ns() - t0 < 4 * NS_PER_S);
    CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGKILL);
    unlink(log);
}

static void first_line_captured(void)
{
    char out[128];
    uint64_t t0;
    CHECK(child_capture("echo; echo '  nginx/1.24.0  '; echo more", out, sizeof(out), NS_PER_S) == 0);
    CHECKF(strcmp(out, "nginx/1.24.0  ") == 0, "'%s'", out);
    CHECK(child_capture("echo 'on stderr' >&2", out, sizeof(out), NS_PER_S) == 0 && strcmp(out, "on stderr") == 0);
    CHECK(child_capture("true", out, sizeof(out), NS_PER_S) == -1 && strcmp(out, "(no output)") == 0);
    /* A command that never ends is cut at its time. */
    t0 = clock_ns();
    CHECK(child_capture("sleep 30", out, sizeof(out), 100000000ULL) == -1 && strcmp(out, "(no output)") == 0);
    CHECK(clock_ns() - t0 < 4 * NS_PER_S);
    CHECK(child_capture("echo v2; exec sleep 30", out, sizeof(out), 100000000ULL) == 0 && strcmp(out, "v2") == 0);
}

static void a_log_tail(void)
{
    char log[160], buf[64];
    FILE *f;
    snprintf(log, sizeof(log), "%s/tail.log", dir);
    f = fopen(log, "w");
    CHECK(f != NULL);
    fputs("first line\nsecond line\nthird\n", f);
    fclose(f);
    child_log_tail(log, buf, sizeof(buf));
    CHECK(strcmp(buf, "first line\nsecond line\nthird\n") == 0);
    /* 16 bytes: the tail cut into a line starts at the next whole one. */
    child_log_tail(log, buf, 17);
    CHECKF(strcmp(buf, "third\n") == 0, "'%s'", buf);
    /* A tail inside one long last line is kept as it is. */
    child_log_tail(log, buf, 5);
    CHECKF(strcmp(buf, "ird\n") == 0, "'%s'", buf);
    unlink(log);
    child_log_tail(log, buf, sizeof(buf));
    CHECK(buf[0] == '\0');
}

int main(void)
{
    if (t_mkdir(dir, "child") != 0)
        return 1;
    T_RUN(started_followed_stopped);
    T_RUN(how_it_ended);
    T_RUN(sigterm_ignored_then_killed);
    T_RUN(first_line_captured);
    T_RUN(a_log_tail);
    t_rmdir(dir);
    T_END("child");
}
