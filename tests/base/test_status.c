/* --expect's status sets: single codes, classes, ranges and lists, the
 * default 2xx,3xx, and what is refused; the reason phrases serve writes. */
#include "status.h"
#include "../t.h"

#include <string.h>

static void sets_hold_what_they_say(void)
{
    struct status_set s;
    char err[128];
    status_set_default(&s);
    CHECK(status_set_has(&s, 200) && status_set_has(&s, 399) && !status_set_has(&s, 199) && !status_set_has(&s, 400));
    CHECK(strcmp(s.text, "2xx,3xx") == 0);
    CHECK(status_set_parse("200,302", &s, err, sizeof(err)) == 0);
    CHECK(status_set_has(&s, 200) && status_set_has(&s, 302) && !status_set_has(&s, 201) && !status_set_has(&s, 301));
    CHECK(status_set_parse("4xx", &s, err, sizeof(err)) == 0);
    CHECK(status_set_has(&s, 400) && status_set_has(&s, 499) && !status_set_has(&s, 500) && !status_set_has(&s, 399));
    CHECK(status_set_parse("200-204,5xx", &s, err, sizeof(err)) == 0);
    CHECK(status_set_has(&s, 204) && !status_set_has(&s, 205) && status_set_has(&s, 503) && !status_set_has(&s, 404));
    /* Out of any set's range: never held. */
    CHECK(!status_set_has(&s, 0) && !status_set_has(&s, 100000));
}

static void bad_specs_refused(void)
{
    static const char *const bad[] = { "", "abc", "20", "2000", "600", "6xx", "299-200", "200,", "x00" };
    struct status_set s;
    char err[128];
    size_t i;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        CHECKF(status_set_parse(bad[i], &s, err, sizeof(err)) == -1 && err[0], "%s accepted", bad[i]);
    }
}

static void reasons(void)
{
    CHECK(strcmp(status_reason(200), "OK") == 0 && strcmp(status_reason(404), "Not Found") == 0);
    CHECK(strcmp(status_reason(503), "Service Unavailable") == 0);
    CHECK(strcmp(status_reason(299), "Status") == 0); /* none of its own */
}

int main(void)
{
    T_RUN(sets_hold_what_they_say);
    T_RUN(bad_specs_refused);
    T_RUN(reasons);
    T_END("test_status");
}
