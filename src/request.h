/* request.h - the bytes of a request, built once per URL before the run. */
#ifndef RAFALE_REQUEST_H
#define RAFALE_REQUEST_H

#include <stddef.h>

#include "config.h"

/* Builds the full request for u (head and body) into a new buffer.
 * Returns 0, or -1 with a reason in err. The caller frees *out. */
int request_build(const struct config *cfg, const struct url *u, char **out, size_t *len,
                  char *err, size_t errlen);

#endif
