/* err.h - the one way a module reports what went wrong: into the caller's
 * buffer, never printed (only main prints), as "PLACE: message" when it
 * knows where (a file and line, a JSON field) or the message alone. Every
 * function returns -1, so a failing path reads `return err_set(...)`. */
#ifndef RAFALE_ERR_H
#define RAFALE_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Writes "place: message" (or the message when place is NULL or empty)
 * into err (errlen bytes). Returns -1. */
int err_set(char *err, size_t errlen, const char *place, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same from a va_list, for wrappers that know their place. */
int err_setv(char *err, size_t errlen, const char *place, const char *fmt, va_list ap);

#endif
