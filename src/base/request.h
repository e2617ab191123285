/* request.h - the bytes of a request, built once per URL before the run. */
#ifndef RAFALE_REQUEST_H
#define RAFALE_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "url.h"


/* What one target sends: the run's -m, -H, -T and body, or the target's
 * own (from --targets). Pointers into the config. */
struct req_spec {
    const char *method;
    const char *const *headers;
    uint32_t nheaders;
    const char *content_type;
    const char *body;
    size_t body_len;
    int has_body;
    int keepalive;
    /* A templated request: the head without Content-Length and without its
     * blank line (both written per request, after the body's expansion). */
    int head_only;
};

/* Is a header named name among the spec's (case-insensitive)? */
int request_user_has(const struct req_spec *rs, const char *name);

/* Checks the framing the user wrote beside a body (RFC 9112 §6), so every
 * request ends where its head says and no byte of it can be read as a
 * request of its own: a templated body takes no Content-Length or
 * Transfer-Encoding of the user's (rafale sets its length per request); a
 * Content-Length is one number, the body's length (0 without a body); a
 * Transfer-Encoding ends in chunked, stands without a Content-Length, and
 * its body is one whole chunked message. Returns 0, or -1 with why in err
 * and the header at fault in *bad. Before the run, never per request. */
int request_framing(const struct req_spec *rs, uint32_t *bad, char *err, size_t errlen);

/* Builds the full request for u (head and body) into a new buffer.
 * Returns 0, or -1 with a reason in err. The caller frees *out. */
int request_build(const struct req_spec *rs, const struct url *u, char **out, size_t *len, char *err, size_t errlen);

/* One header field of an HTTP/2 request. */
struct req_field {
    const char *name, *value;
    size_t nlen, vlen;
    int header;            /* the spec's header it came from (a user Host: :authority), or -1 */
};

/* The same request for HTTP/2 (RFC 9113 §8.3.1): the pseudo-header fields
 * :method, :scheme, :authority and :path first, then the others with their
 * names in lower case (§8.2); connection-specific fields are dropped
 * (§8.2.2) and a user Host becomes :authority. *out is one allocation
 * holding the fields and their text, freed by the caller. Returns the
 * number of fields, or -1 with a reason in err. */
int request_fields(const struct req_spec *rs, const struct url *u, struct req_field **out, char *err, size_t errlen);

#endif
