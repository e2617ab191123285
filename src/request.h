/* request.h - the bytes of a request, built once per URL before the run. */
#ifndef RAFALE_REQUEST_H
#define RAFALE_REQUEST_H

#include <stddef.h>

#include "config.h"

/* Builds the full request for u (head and body) into a new buffer.
 * Returns 0, or -1 with a reason in err. The caller frees *out. */
int request_build(const struct config *cfg, const struct url *u, char **out, size_t *len,
                  char *err, size_t errlen);

/* One header field of an HTTP/2 request. */
struct req_field {
    const char *name, *value;
    size_t nlen, vlen;
};

/* The same request for HTTP/2 (RFC 9113 §8.3.1): the pseudo-header fields
 * :method, :scheme, :authority and :path first, then the others with their
 * names in lower case (§8.2); connection-specific fields are dropped
 * (§8.2.2) and a user Host becomes :authority. *out is one allocation
 * holding the fields and their text, freed by the caller. Returns the
 * number of fields, or -1 with a reason in err. */
int request_fields(const struct config *cfg, const struct url *u, struct req_field **out, char *err, size_t errlen);

#endif
