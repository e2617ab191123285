/* opt_int.h - private to src/options/: the ids of the options whose value
 * is more than a type, shared by the table (opt.c) and their parsers
 * (opt_value.c). */
#ifndef RAFALE_OPT_INT_H
#define RAFALE_OPT_INT_H

#include "opt.h"

enum id {
    I_NONE, I_HELP, I_VERSION, I_METHOD, I_HEADER, I_BODY, I_BODY_FILE, I_SOURCE, I_ARRIVAL, I_TLS_VERSION,
    I_CACERT, I_SLO, I_PRECISION, I_EXPECT, I_SERVER_CPUS, I_CLIENT_CPUS, I_LATENCY, I_CONNECTIONS, I_ORDER, I_SEED, I_STAGES,
    I_SHARD, I_START_AT, I_FINDINGS, I_SAME, I_REPEAT, I_SAME_WITHIN, I_PIN, I_CALIBRATE, I_CHECK, I_MAX_BODY, I_THINK, I_CERT, I_KEY,
    I_CONNECT_TO, I_RESOLVE, I_PASS, I_KEY_PASS, I_CMP_WARMUP, I_THRESHOLD, I_TIMESTAMPS, I_SERVE_KEY_PASS, I_VERBOSE,
    I_FROM, I_TO, I_PATTERN,
};

/* Rates a schedule holds exactly: one request in 1 000 s at least (its
 * interval fits the nanosecond clock many times over), 10^8 a second at
 * most. */
#define RATE_MIN 0.001
#define RATE_MAX 1e8

/* Sets the option of that id from v into d. wants is what its value must be,
 * in words, shown how the user named it. Returns 0, or -1 with "SHOWN wants
 * WANTS, not 'V'" (or a like sentence) in err. */
int opt_value_set(int id, const char *wants, const struct opt_dst *d, const char *v, const char *shown, char *err,
                  size_t errlen);

#endif
