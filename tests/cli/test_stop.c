/* The stop flag: SIGINT, SIGTERM (and SIGHUP under --tui) set it, q sets
 * it, SIGPIPE is ignored; with reset a second Ctrl-C kills at once, without
 * it (compare, calibrate) the handler stays. Each case in a child process:
 * the flag is the one global and is never cleared. */
#include "stop.h"
#include "../t.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* The handler now installed for sig. */
static void (*handler(int sig))(int)
{
    struct sigaction sa;
    sigaction(sig, NULL, &sa);
    return sa.sa_handler;
}

/* Runs fn in a child; its exit status (0: every check passed in it, else
 * the number of the first that failed). */
static int in_child(int (*fn)(void))
{
    int st = -1;
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn());
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static int sigint_with_reset(void)
{
    if (atomic_load(stop_flag()) != 0)
        return 1;
    stop_catch(1);
    if (handler(SIGPIPE) != SIG_IGN || handler(SIGINT) == SIG_DFL || handler(SIGTERM) == SIG_DFL)
        return 2;
    raise(SIGINT);
    if (atomic_load(stop_flag()) != 1)
        return 3;
    /* The next Ctrl-C is the default's: it kills, should a stop hang. */
    if (handler(SIGINT) != SIG_DFL || handler(SIGTERM) == SIG_DFL)
        return 4;
    return 0;
}

static int sigterm_kept(void)
{
    stop_catch(0);
    raise(SIGTERM);
    if (atomic_load(stop_flag()) != 1)
        return 1;
    /* compare's: every signal sets the flag again, none kills. */
    raise(SIGTERM);
    raise(SIGINT);
    if (handler(SIGINT) == SIG_DFL || handler(SIGTERM) == SIG_DFL || atomic_load(stop_flag()) != 1)
        return 2;
    return 0;
}

static int hangup(void)
{
    stop_catch_hangup();
    raise(SIGHUP);
    if (atomic_load(stop_flag()) != 1)
        return 1;
    return 0;
}

static int q_alone(void)
{
    if (atomic_load(stop_flag()) != 0)
        return 1;
    stop_now();
    return atomic_load(stop_flag()) == 1 ? 0 : 2;
}

static int sigpipe_ignored(void)
{
    int p[2];
    stop_catch(0);
    if (pipe(p) != 0)
        return 1;
    close(p[0]);
    /* A write to a closed pipe: an error to handle, not a death. */
    if (write(p[1], "x", 1) != -1)
        return 2;
    return atomic_load(stop_flag()) == 0 ? 0 : 3;
}

static void each_signal(void)
{
    int st;
    CHECKF((st = in_child(sigint_with_reset)) == 0, "sigint_with_reset: %d", st);
    CHECKF((st = in_child(sigterm_kept)) == 0, "sigterm_kept: %d", st);
    CHECKF((st = in_child(hangup)) == 0, "hangup: %d", st);
    CHECKF((st = in_child(q_alone)) == 0, "q: %d", st);
    CHECKF((st = in_child(sigpipe_ignored)) == 0, "sigpipe: %d", st);
    /* None of it reached this process. */
    CHECK(atomic_load(stop_flag()) == 0);
}

int main(void)
{
    T_RUN(each_signal);
    T_END("stop");
}
