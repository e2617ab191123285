/* units.h - parsing and printing of durations, counts and byte sizes. */
#ifndef RAFALE_UNITS_H
#define RAFALE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* A decimal number at the start of s: digits, or digits around a '.'
 * ("12", "1.5", ".5"); no sign, space, exponent, hex, inf or nan, which
 * strtod would take. Returns 0 with the number in *v and *end past it, or
 * -1 when s does not start with one. */
int units_parse_decimal(const char *s, double *v, const char **end);

/* "10s", "1m", "500ms", "250us", "2h", "1.5s"; a bare number is seconds.
 * Returns 0 and sets *ns, or -1 when the text is not a duration. */
int units_parse_duration(const char *s, uint64_t *ns);

/* "1000", "10k", "2M" (decimal multipliers). Returns 0 or -1. */
int units_parse_count(const char *s, uint64_t *out);

/* "512", "1.5k", "16k", "1M", "2G", with an optional "B" or "iB" (k = 1024: a size
 * in bytes). Returns 0 and sets *out, or -1. */
int units_parse_size(const char *s, double *out);

/* Writes v in decimal at out (no NUL; 20 bytes at most). Returns its length. */
size_t units_put_u64(char *out, uint64_t v);

/* Writes a latency given in ns as "812us", "12.3ms", "1.25s". Returns buf. */
char *units_fmt_ns(char *buf, size_t len, double ns);

/* Writes a byte count or rate as "512B", "12.3KiB", "4.20MiB". Returns buf. */
char *units_fmt_bytes(char *buf, size_t len, double bytes);

#endif
