/* err.c - see err.h. */
#include "err.h"

#include <stdio.h>

int err_setv(char *err, size_t errlen, const char *place, const char *fmt, va_list ap)
{
    int k = 0;
    if (errlen == 0)
        return -1;
    if (place && place[0])
        k = snprintf(err, errlen, "%s: ", place);
    if (k >= 0 && (size_t)k < errlen)
        vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
    return -1;
}

int err_set(char *err, size_t errlen, const char *place, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_setv(err, errlen, place, fmt, ap);
    va_end(ap);
    return -1;
}
