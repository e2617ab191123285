/* err_set: "place: message", the message alone, and cut to the buffer. */
#include "err.h"
#include "../t.h"

#include <string.h>

static void formats(void)
{
    char e[32];
    CHECK(err_set(e, sizeof(e), "plan.conf:7", "unknown key '%s'", "port") == -1 &&
          strcmp(e, "plan.conf:7: unknown key 'port'") == 0);
    CHECK(err_set(e, sizeof(e), NULL, "out of memory") == -1 && strcmp(e, "out of memory") == 0);
    CHECK(err_set(e, sizeof(e), "", "%d", 5) == -1 && strcmp(e, "5") == 0);
    err_set(e, 12, "a-long-place-name", "x");
    CHECK(strlen(e) == 11 && strncmp(e, "a-long-plac", 11) == 0);
    err_set(e, sizeof(e), "f", "%s", "a message far longer than the buffer it goes in");
    CHECK(strlen(e) == sizeof(e) - 1 && strncmp(e, "f: a message", 12) == 0);
}

int main(void)
{
    T_RUN(formats);
    T_END("test_err");
}
