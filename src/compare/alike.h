/* alike.h - do a compare's servers answer a workload alike? One request to
 * each before the load; the answers compared on the fields asked. Private to
 * src/compare/. */
#ifndef RAFALE_ALIKE_H
#define RAFALE_ALIKE_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "url.h"

struct alike_answer {
    int ok;                 /* an answer came */
    int cut;                /* not read whole (time or size): neither alike nor not */
    char why[300];          /* why not */
    int status;
    char location[256], type[128];
    char framing[16];       /* "length", "chunked", "close", "none" (no body may follow) */
    uint64_t body_len, body_hash;
    uint8_t peer;           /* over TLS: what the handshake showed of the server (enum tls_peer) */
};

/* Sends workload wl's (first) request to u (over TLS with wl's settings
 * for https://) and reads the answer, the head alone unless fields holds
 * ALIKE_BODY, within timeout_ns for all of it. Returns 0, or -1 with a->why
 * (templated requests are not checked; a malformed answer, or one closed
 * before its end, is none; a->cut when the answer could not be read whole
 * in time or in 8 MiB). */
int alike_fetch(const struct config *wl, const struct url *u, unsigned fields, uint64_t timeout_ns,
                struct alike_answer *a);
/* 1 when a and b agree on fields; else 0 and what differs first
 * ("status", "location", "type", "framing", "body"). */
int alike_same(const struct alike_answer *a, const struct alike_answer *b, unsigned fields, char *what, size_t n);
/* An answer's value of field, for the table. */
void alike_value(const struct alike_answer *a, const char *field, char *out, size_t n);

#endif
