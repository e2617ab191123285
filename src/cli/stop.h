/* stop.h - the one global: the stop flag SIGINT and SIGTERM set, which
 * every run polls. Private to src/cli/. */
#ifndef RAFALE_STOP_H
#define RAFALE_STOP_H

#include <stdatomic.h>

/* The flag. */
const atomic_int *stop_flag(void);

/* Ctrl-C and SIGTERM set the flag; SIGPIPE is ignored. reset: a second
 * one kills at once, should a stop ever hang; compare and calibrate say 0:
 * their stop is bounded (grace, then cgroup.kill) and must not be cut
 * short, or servers they started would be left running. */
void stop_catch(int reset);
/* --tui: q stops the run as Ctrl-C does. */
void stop_now(void);
/* --tui: a closed terminal (SIGHUP) stops the run as Ctrl-C does, so its
 * view is left the same way. */
void stop_catch_hangup(void);

#endif
