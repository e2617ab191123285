/* compare_settings.h - the settings of `rafale compare` that are not about one
 * run, as plain data: filled by the option table from the compare
 * file's [settings] or the command line, read by src/compare. Here in options, the
 * lowest folder both see (compare sits above options). */
#ifndef RAFALE_COMPARE_SETTINGS_H
#define RAFALE_COMPARE_SETTINGS_H

#include <stdint.h>
#include <string.h>

#include "config.h"

#define CMP_MAX_CPUS 64
/* pin: 0 (not said) is auto. */
enum compare_pin { PIN_DEFAULT, PIN_AUTO, PIN_NO, PIN_CHOSE };

/* What compare's servers must answer alike (`same`), checked by alike.c. */
#define ALIKE_STATUS 1u
#define ALIKE_LOCATION 2u
#define ALIKE_TYPE 4u
#define ALIKE_BODY 8u       /* framing (length, chunked, close), length and hash */
#define ALIKE_DEFAULT (ALIKE_STATUS | ALIKE_LOCATION)

/* repeat = auto: the fewest rounds it runs (fewer only under a smaller
 * max-repeat). */
#define COMPARE_AUTO_LEAST 5
/* duration = auto: the first round length it tries (then twice as long, up
 * to max-duration). */
#define COMPARE_AUTO_FIRST_NS 500000000ULL

struct compare_settings {
    int repeat;                  /* runs of each workload on each server (repeat = auto: at least this many,
                                    then the rounds run so far) */
    int repeat_auto;             /* repeat = auto (default): rounds until every verdict is decided, 5 to max_repeat */
    int max_repeat;              /* (default 15) */
    uint64_t max_duration_ns;    /* duration = auto: the longest round it tries (default 10 s) */
    double same_within;          /* same-within: the equivalence band, a fraction (default 0.03) */
    int discard;                 /* first rounds left out as warm-up */
    uint64_t grace_ns;           /* SIGTERM, then this long before SIGKILL */
    uint64_t ready_ns;           /* how long a server may take to answer after start */
    int cgroups;                 /* run each server in a cgroup of its own (when the machine allows) */
    int server_cpus[CMP_MAX_CPUS], nserver_cpus;
    int client_cpus[CMP_MAX_CPUS], nclient_cpus;
    int same;                    /* what servers must answer alike (ALIKE_ bits); 0: not checked; -1 default */
    int pin;                     /* enum compare_pin: how the CPUs were split between servers and rafale */
    const char *out[OUT__COUNT]; /* --json FILE, --html FILE (enum out_kind) */
    uint64_t warmup_ns;          /* compare --warmup: every workload's warm-up, over the compare file's */
    int warmup_set;              /* given (0s is a warm-up of none) */
};

/* The settings of a compare file that says none (repeat = auto, same-within 3%, ...). */
static inline void compare_settings_defaults(struct compare_settings *cs)
{
    memset(cs, 0, sizeof(*cs));
    cs->repeat = COMPARE_AUTO_LEAST;
    cs->repeat_auto = 1;
    cs->max_repeat = 15;
    cs->max_duration_ns = 10 * 1000000000ULL;
    /* A difference under 3% either way is no difference worth a claim:
     * two copies of one server on two ports differ by 1%. */
    cs->same_within = 0.03;
    cs->grace_ns = 3 * 1000000000ULL;
    cs->ready_ns = 15 * 1000000000ULL;
    cs->cgroups = 1;
    cs->same = -1;
}

#endif
