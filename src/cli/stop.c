/* stop.c - the stop flag and the signals that set it. */
#include "stop.h"

#include <signal.h>
#include <string.h>

/* The one global: set by SIGINT/SIGTERM, polled by the worker threads. */
static atomic_int flag;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&flag, 1);
}

const atomic_int *stop_flag(void)
{
    return &flag;
}

void stop_catch(int reset)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = reset ? SA_RESETHAND : 0;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

void stop_now(void)
{
    atomic_store(&flag, 1);
}

void stop_catch_hangup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, NULL);
}
