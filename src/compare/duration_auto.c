/* duration_auto.c - the round length of duration = auto (duration_auto.h). */
#include "duration_auto.h"
#include "compare_settings.h"
#include "verdict.h"

#include <math.h>

double duration_auto_widest(const double *own, int n)
{
    double a = 0, b = 0; /* the widest, the next */
    int i;
    if (n < 1)
        return NAN;
    for (i = 0; i < n; i++) {
        if (!(own[i] >= 0))
            return NAN;
        if (own[i] > a) {
            b = a;
            a = own[i];
        } else if (own[i] > b) {
            b = own[i];
        }
    }
    return hypot(a, b);
}

uint64_t duration_auto_first(uint64_t max_ns)
{
    return max_ns < COMPARE_AUTO_FIRST_NS ? max_ns : COMPARE_AUTO_FIRST_NS;
}

uint64_t duration_auto_next(uint64_t cur_ns, double own, double within, uint64_t max_ns)
{
    if (!isnan(own) && !verdict_own_short(own, within))
        return 0;
    if (cur_ns >= max_ns)
        return cur_ns;
    return cur_ns > max_ns / 2 ? max_ns : cur_ns * 2;
}
