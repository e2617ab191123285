/* --precision's goals: parsed, refused in words, and the width of an
 * interval against its figure. */
#include "precision.h"
#include "../t.h"

#include <math.h>
#include <string.h>

static void parsed(void)
{
    struct precision p;
    char err[200];
    CHECK(precision_parse("5%", &p, err, sizeof(err)) == 0 && p.n == 3);
    CHECK(strcmp(p.g[0].name, "rps") == 0 && strcmp(p.g[1].name, "p50") == 0 && strcmp(p.g[2].name, "p99") == 0);
    CHECK(p.g[2].fig == INTERVAL_PCT && p.g[2].pct == 99 && fabs(p.g[2].rel - 0.05) < 1e-12);
    CHECK(precision_parse("p99:5%,rps:2.5%", &p, err, sizeof(err)) == 0 && p.n == 2);
    CHECK(strcmp(p.g[0].name, "p99") == 0 && fabs(p.g[1].rel - 0.025) < 1e-12 && p.g[1].fig == INTERVAL_RPS);
    CHECK(precision_parse("p99.9:1%,mean:3%,p99.9:2%", &p, err, sizeof(err)) == 0 && p.n == 2 &&
          p.g[0].pct == 99.9 && fabs(p.g[0].rel - 0.02) < 1e-12); /* named twice: the last says */
}

static void refused(void)
{
    static const char *const bad[] = { "", "5", "0%", "100%", "0x5%", "1e1%", "-5%", " 5%", "5%%", "p98:5%",
                                       "p99:", "p99:5", "p99:5%,", "rps:5%,,p50:1%", "p99=5%", "rsp:2%" };
    struct precision p;
    char err[200];
    size_t i;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECKF(precision_parse(bad[i], &p, err, sizeof(err)) == -1 && strstr(err, "--precision"), "'%s': %s", bad[i],
               err);
    precision_parse("rsp:2%", &p, err, sizeof(err));
    CHECK(strstr(err, "'rsp' is not a figure with an interval") != NULL);
}

static void widths(void)
{
    struct interval a = { 100, 95, 110, 20 }, open = { 100, 95, NAN, 20 }, none = { 0, NAN, NAN, 0 };
    CHECK(fabs(precision_width(&a) - 0.10) < 1e-12); /* the wider side */
    CHECK(isinf(precision_width(&open)) && isinf(precision_width(&none)));
}

int main(void)
{
    T_RUN(parsed);
    T_RUN(refused);
    T_RUN(widths);
    T_END("test_precision");
}
