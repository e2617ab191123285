/* serve.h - `rafale serve`, the built-in target server. */
#ifndef RAFALE_SERVE_H
#define RAFALE_SERVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "serve_config.h"

struct serve;

struct serve_counts {
    uint64_t connections;   /* accepted */
    uint64_t requests;      /* answered */
};

/* Binds the listeners (one per thread) and loads --files. Returns 0, or -1
 * with a one-line reason in err. */
int serve_start(const struct serve_config *sc, struct serve **out, char *err, size_t errlen);

/* "127.0.0.1:8080", with the port actually bound. */
const char *serve_address(const struct serve *s);

/* Serves until *stop is set, then joins the threads, fills counts and frees
 * the server. Returns 0, or -1 with a reason in err. */
int serve_wait(struct serve *s, const atomic_int *stop, struct serve_counts *counts, char *err, size_t errlen);

#endif
