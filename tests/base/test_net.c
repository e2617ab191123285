/* Address ranges for --source, and name resolution of literals. */
#include "net.h"
#include "../t.h"

#include <arpa/inet.h>
#include <string.h>

static int parse(const char *spec, struct net_addr *out, int max)
{
    char err[256];
    return net_parse_sources(spec, out, max, err, sizeof(err));
}

static const char *addr_at(const struct net_addr *a, char *buf, size_t len)
{
    const struct sockaddr_in *sin = (const struct sockaddr_in *)&a->ss;
    return inet_ntop(AF_INET, &sin->sin_addr, buf, (socklen_t)len);
}

static void ranges(void)
{
    struct net_addr a[8];
    char b[32];
    CHECK(parse("127.0.0.2", a, 8) == 1 && strcmp(addr_at(&a[0], b, sizeof(b)), "127.0.0.2") == 0);
    CHECK(parse("127.0.0.2-127.0.0.9", a, 8) == 8 && strcmp(addr_at(&a[7], b, sizeof(b)), "127.0.0.9") == 0);
    /* A range ending at the very last address wrapped the old loop and ran past the array. */
    CHECK(parse("255.255.255.255", a, 8) == 1 && strcmp(addr_at(&a[0], b, sizeof(b)), "255.255.255.255") == 0);
    CHECK(parse("255.255.255.250-255.255.255.255", a, 8) == 6 &&
          strcmp(addr_at(&a[5], b, sizeof(b)), "255.255.255.255") == 0);
    CHECK(parse("0.0.0.0-0.0.0.3", a, 8) == 4 && strcmp(addr_at(&a[0], b, sizeof(b)), "0.0.0.0") == 0);
    CHECK(parse("127.0.0.1-127.0.0.9", a, 8) == -1);   /* 9 addresses, room for 8 */
    CHECK(parse("127.0.0.9-127.0.0.2", a, 8) == -1);   /* backwards */
    CHECK(parse("0.0.0.0-255.255.255.255", a, 8) == -1);
    CHECK(parse("nonsense", a, 8) == -1 && parse("127.0.0.1-", a, 8) == -1 && parse("", a, 8) == -1);
    CHECK(parse("::1", a, 8) == -1);
}

static void resolve(void)
{
    struct net_addr a;
    char err[256], s[64];
    CHECK(net_resolve("127.0.0.1", 8080, &a, err, sizeof(err)) == 0 &&
          strcmp(net_addr_str(&a, s, sizeof(s)), "127.0.0.1:8080") == 0);
    CHECK(net_resolve("::1", 80, &a, err, sizeof(err)) == 0 && strcmp(net_addr_str(&a, s, sizeof(s)), "[::1]:80") == 0);
    CHECK(net_resolve("no-such-host.invalid", 80, &a, err, sizeof(err)) == -1 && strstr(err, "cannot resolve") != NULL);
}

int main(void)
{
    ranges();
    resolve();
    T_END("test_net");
}
