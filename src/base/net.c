/* net.c - sockets: name resolution, non-blocking connect, listeners.
 * Linux specifics (SOCK_NONBLOCK, TCP_NODELAY, SO_REUSEPORT) live here. */
#include "net.h"
#include "err.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24 /* Linux 4.2; older libc headers lack it */
#endif

int net_resolve(const char *host, uint16_t port, struct net_addr *out, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    char ports[8];
    int rc;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_ADDRCONFIG;
    snprintf(ports, sizeof(ports), "%u", (unsigned)port);
    rc = getaddrinfo(host, ports, &hints, &res);
    if (rc == EAI_NONAME || rc == EAI_ADDRFAMILY) {
        /* AI_ADDRCONFIG hides ::1 on hosts with no global IPv6 address. */
        hints.ai_flags = 0;
        rc = getaddrinfo(host, ports, &hints, &res);
    }
    if (rc != 0) {
        err_set(err, errlen, NULL, "cannot resolve host '%s': %s", host,
                rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
        return -1;
    }
    memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
    out->len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

int net_unix(const char *path, struct net_addr *out, char *err, size_t errlen)
{
    struct sockaddr_un *su = (struct sockaddr_un *)&out->ss;
    size_t n = strlen(path);
    memset(out, 0, sizeof(*out));
    if (n == 0 || n >= sizeof(su->sun_path)) {
        err_set(err, errlen, NULL, "a Unix socket path of 1 to %zu bytes, not '%s'", sizeof(su->sun_path) - 1, path);
        return -1;
    }
    su->sun_family = AF_UNIX;
    memcpy(su->sun_path, path, n + 1);
    out->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
    return 0;
}

char *net_addr_str(const struct net_addr *a, char *buf, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (a->ss.ss_family == AF_UNIX) {
        snprintf(buf, len, "unix:%s", ((const struct sockaddr_un *)&a->ss)->sun_path);
    } else if (a->ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const void *)&a->ss;
        inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
        snprintf(buf, len, "[%s]:%u", ip, (unsigned)ntohs(s->sin6_port));
    } else {
        const struct sockaddr_in *s = (const void *)&a->ss;
        inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
        snprintf(buf, len, "%s:%u", ip, (unsigned)ntohs(s->sin_port));
    }
    return buf;
}

int net_connect(const struct net_addr *a, const struct net_addr *src)
{
    int one = 1, fd, e;

    fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    /* Requests are written whole; Nagle would only delay them. */
    if (a->ss.ss_family != AF_UNIX)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (src) {
        /* Without IP_BIND_ADDRESS_NO_PORT, bind() would pick a port for the
         * address alone and exhaust them long before the 4-tuples run out. */
        setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
        if (bind(fd, (const struct sockaddr *)&src->ss, src->len) != 0) {
            e = errno;
            close(fd);
            return -e;
        }
    }
    if (connect(fd, (const struct sockaddr *)&a->ss, a->len) == 0 || errno == EINPROGRESS)
        return fd;
    /* A Unix socket whose listen backlog is full says EAGAIN, not ECONNREFUSED. */
    e = errno;
    close(fd);
    return -e;
}

int net_parse_sources(const char *spec, struct net_addr *out, int max, char *err, size_t errlen)
{
    char a[64], b[64];
    const char *dash = strchr(spec, '-');
    struct in_addr lo, hi;
    uint32_t i, first, last;
    int n = 0;

    if (strlen(spec) >= sizeof(a))
        goto bad;
    if (dash == NULL) {
        strcpy(a, spec);
        strcpy(b, spec);
    } else {
        memcpy(a, spec, (size_t)(dash - spec));
        a[dash - spec] = '\0';
        strcpy(b, dash + 1);
    }
    if (inet_pton(AF_INET, a, &lo) != 1 || inet_pton(AF_INET, b, &hi) != 1)
        goto bad;
    first = ntohl(lo.s_addr);
    last = ntohl(hi.s_addr);
    if (last < first || last - first >= (uint32_t)max)
        goto bad;
    /* Counted, not compared against last: a range ending at 255.255.255.255
     * would wrap a counter that runs to last inclusive. */
    for (i = 0; i <= last - first; i++) {
        struct sockaddr_in *sin = (struct sockaddr_in *)&out[n].ss;
        memset(&out[n], 0, sizeof(out[n]));
        sin->sin_family = AF_INET;
        sin->sin_addr.s_addr = htonl(first + i);
        out[n].len = sizeof(*sin);
        n++;
    }
    return n;
bad:
    err_set(err, errlen, NULL, "an IPv4 address or a range such as 127.0.0.2-127.0.0.9 (at most %d)", max);
    return -1;
}

int net_bindable(const struct net_addr *a)
{
    int fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0;
    if (fd < 0)
        return errno;
    if (bind(fd, (const struct sockaddr *)&a->ss, a->len) != 0)
        e = errno;
    close(fd);
    return e;
}

int net_connect_result(int fd)
{
    int e = 0;
    socklen_t l = sizeof(e);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0)
        return errno;
    return e;
}

int net_listen(const struct net_addr *a, int backlog, char *err, size_t errlen)
{
    int one = 1, fd;
    char as[80];

    fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        err_set(err, errlen, NULL, "socket: %s", strerror(errno));
        return -1;
    }
    if (a->ss.ss_family == AF_UNIX) {
        /* A socket file left by an earlier server is replaced; any other
         * file is not. */
        struct stat st;
        const char *path = ((const struct sockaddr_un *)&a->ss)->sun_path;
        if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode))
            unlink(path);
    } else {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        /* One listener per thread, the kernel spreads connections over them. */
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
    }
    if (bind(fd, (const struct sockaddr *)&a->ss, a->len) != 0 || listen(fd, backlog) != 0) {
        err_set(err, errlen, NULL, "cannot listen on %s: %s", net_addr_str(a, as, sizeof(as)), strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

uint16_t net_local_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t l = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &l) != 0)
        return 0;
    if (ss.ss_family == AF_UNIX)
        return 0;
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

uint64_t net_raise_nofile(uint64_t want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    if (rl.rlim_cur < want) {
        rlim_t target = want;
        if (rl.rlim_max != RLIM_INFINITY && target > rl.rlim_max)
            target = rl.rlim_max;
        rl.rlim_cur = target;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur;
}
