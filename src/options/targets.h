/* targets.h - the requests of a run: URLs given on the command line (with
 * -m, -H, -b) and --targets FILE, requests in vegeta's http format with a
 * name:
 *
 *   # comment lines and blank lines separate targets
 *   GET http://127.0.0.1:8080/users/{{seq}}
 *   X-Request-Id: {{uuid}}
 *
 *   POST http://127.0.0.1:8080/login        # name: login
 *   Content-Type: application/json
 *   @bodies/login.json
 *
 *   PUT http://127.0.0.1:8080/items/{{rand 1 1000}}
 *   < {"qty": {{rand 1 9}}}
 *
 * A request line, header lines, then at most one body line: @PATH (relative
 * to the file) or < TEXT. A target written twice is sent twice as often. */
#ifndef RAFALE_TARGETS_H
#define RAFALE_TARGETS_H

#include <stddef.h>

#include "config.h"

/* Appends the targets of path ("-": standard input) to cfg. A URL written
 * as a path (/login) goes to base (a compare file's server), or is an
 * error when base is NULL. Returns 0, or -1 with "FILE:LINE: what is
 * wrong" in err. */
int targets_load(struct config *cfg, const char *path, const char *base, char *err, size_t errlen);

/* The same from text already in memory (len bytes), named name in
 * messages, @FILE and {{csv}} relative to dir. */
int targets_parse(struct config *cfg, const char *text, size_t len, const char *name, const char *dir,
                  const char *base, char *err, size_t errlen);

/* Appends a command-line URL (the run's method, headers and body apply).
 * Returns 0, or -1 with a reason in err. */
int targets_add_url(struct config *cfg, const char *text, char *err, size_t errlen);

/* Appends a target on the URL named name (kept): rafale replay's, whose
 * requests write their own request line. Returns 0, or -1 with a reason. */
int targets_add_named(struct config *cfg, const char *text, const char *name, char *err, size_t errlen);

/* Parses a URL that may hold templates in its path and query (never in its
 * scheme, host or port). Returns 0, or -1 with a reason in err. */
int targets_parse_url(const char *text, struct url *u, char *err, size_t errlen);

#endif
