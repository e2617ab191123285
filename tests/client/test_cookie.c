/* The cookie jar: what Set-Cookie stores and what Cookie sends back (RFC
 * 6265 §5.2-5.4), with the attribute values servers really send, hostile
 * ones included (expiry arithmetic runs under UBSan in the sanitized
 * build). */
#include "cookie.h"
#include "../t.h"

#include <stdint.h>
#include <string.h>

#define NOW ((time_t)1764547200) /* 2025-12-01 */

static struct jar j;

static void set(const char *v)
{
    cookie_set(&j, v, strlen(v), "/", 1, NOW);
}

/* The Cookie value for path at time t, as a string. */
static const char *sent(const char *path, time_t t)
{
    static char out[JAR_HEADER_MAX + 1];
    size_t n = cookie_header(&j, path, strlen(path), 0, t, out);
    out[n] = '\0';
    return out;
}

static void max_age(void)
{
    memset(&j, 0, sizeof(j));
    set("a=1; Max-Age=9223372036854775807");
    CHECKF(strcmp(sent("/", NOW + 1000000000), "a=1") == 0, "%s", sent("/", NOW));
    set("b=2; Max-Age=99999999999999999999");
    CHECKF(strcmp(sent("/", NOW), "a=1; b=2") == 0, "%s", sent("/", NOW));
    set("c=3; Max-Age=60");
    CHECK(strstr(sent("/", NOW + 59), "c=3") != NULL && strstr(sent("/", NOW + 60), "c=3") == NULL);
    set("a=1; Max-Age=-9223372036854775808"); /* removes a */
    set("b=2; Max-Age=0");                    /* removes b */
    CHECKF(strcmp(sent("/", NOW), "c=3") == 0, "%s", sent("/", NOW));
    /* A value that is not delta-seconds: the attribute is ignored (§5.2.2). */
    set("d=4; Max-Age=abc");
    set("e=5; Max-Age=");
    set("f=6; Max-Age=1x");
    CHECKF(strcmp(sent("/", NOW), "c=3; d=4; e=5; f=6") == 0, "%s", sent("/", NOW));
}

static void expires(void)
{
    memset(&j, 0, sizeof(j));
    set("a=1");
    set("b=2; Expires=Wed, 01 Jan 2100 00:00:00 GMT");
    CHECKF(strcmp(sent("/", NOW), "a=1; b=2") == 0, "%s", sent("/", NOW));
    /* The epoch is a date (res.clearCookie()), not "unreadable". */
    set("a=; Expires=Thu, 01 Jan 1970 00:00:00 GMT");
    CHECKF(strcmp(sent("/", NOW), "b=2") == 0, "%s", sent("/", NOW));
    set("b=2; Expires=Sun, 06-Nov-1994 08:49:37 GMT");
    CHECKF(strcmp(sent("/", NOW), "") == 0, "%s", sent("/", NOW));
    /* An unreadable date is ignored: a session cookie. */
    set("c=3; Expires=soon");
    CHECKF(strcmp(sent("/", NOW), "c=3") == 0, "%s", sent("/", NOW));
    /* Max-Age wins, before or after Expires (§5.3 step 3). */
    set("d=4; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=60");
    set("e=5; Max-Age=60; Expires=Thu, 01 Jan 1970 00:00:00 GMT");
    set("c=3; Max-Age=0; Expires=Wed, 01 Jan 2100 00:00:00 GMT");
    CHECKF(strcmp(sent("/", NOW), "d=4; e=5") == 0 || strcmp(sent("/", NOW), "e=5; d=4") == 0, "%s", sent("/", NOW));
}

static void paths_and_controls(void)
{
    memset(&j, 0, sizeof(j));
    cookie_set(&j, "a=1", 3, "/app/login", 10, NOW); /* default path /app */
    set("b=2; Path=/api");
    CHECKF(strcmp(sent("/app/x", NOW), "a=1") == 0, "%s", sent("/app/x", NOW));
    CHECKF(strcmp(sent("/api", NOW), "b=2") == 0, "%s", sent("/api", NOW));
    CHECKF(strcmp(sent("/apix", NOW), "") == 0, "%s", sent("/apix", NOW));
    /* A control byte anywhere: the Set-Cookie is ignored whole. */
    cookie_set(&j, "c=1\r\nX: y", 9, "/", 1, NOW);
    cookie_set(&j, "d=1; Path=/\x01", 12, "/", 1, NOW);
    set("e=\x7f");
    CHECKF(strcmp(sent("/", NOW), "") == 0, "%s", sent("/", NOW));
    set("=nameless");
    set("novalue");
    CHECK(j.n == 2);
    set(" f = 6 ");
    CHECKF(strcmp(sent("/", NOW), "f=6") == 0, "%s", sent("/", NOW));
}

int main(void)
{
    T_RUN(max_age);
    T_RUN(expires);
    T_RUN(paths_and_controls);
    T_END("test_cookie");
}
