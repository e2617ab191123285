/* status.h - sets of HTTP status codes, as `--expect 200,3xx` writes them.
 * A response whose status is not in the expected set is still a completed
 * response, but it is counted as a bad status (bad_status; the JSON's
 * unexpected_status): a server answering 502 to everything must never
 * look fast. */
#ifndef RAFALE_STATUS_H
#define RAFALE_STATUS_H

#include <stddef.h>
#include <stdint.h>

#define STATUS_MAX 600           /* codes 0..599; anything else is counted as 0 */

struct status_set {
    uint64_t bits[(STATUS_MAX + 63) / 64];
    char text[64];               /* as given, for reports ("2xx,3xx") */
};

/* The default: every 2xx and 3xx. */
void status_set_default(struct status_set *s);
/* Parses "200", "200,302", "2xx,3xx", "200-299". Returns 0, or -1 with a
 * reason in err (no prefix: the caller names the option). */
int status_set_parse(const char *spec, struct status_set *s, char *err, size_t errlen);
/* Is code in the set? Codes outside 100..599 never are. */
int status_set_has(const struct status_set *s, unsigned code);
/* The reason phrase of a status code ("Status" for one without a phrase
 * here): `rafale serve`'s and the metrics port's answers. */
const char *status_reason(int code);

#endif
