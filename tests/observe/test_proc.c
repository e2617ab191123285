/* proc: this process's CPUs (pinned to one and back), and who listens on
 * a port of 127.0.0.1: this test itself, named by pid and command line;
 * the parent named, not the child, when both hold the socket (a prefork
 * server's master and worker); a dual-stack [::] listener taking IPv4; a
 * port nothing listens on. */
#include "proc.h"
#include "../t.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void cpus(void)
{
    int all[1024], one[1024], n, m, i, ok = 1;
    n = proc_cpus_allowed(all, 1024);
    CHECK(n >= 1 && n <= sysconf(_SC_NPROCESSORS_CONF));
    for (i = 1; i < n; i++)
        ok &= all[i] > all[i - 1]; /* lowest first */
    CHECK(ok);
    CHECK(proc_cpus_allowed(one, 1) == 1 && one[0] == all[0]); /* at most max */
    CHECK(proc_pin_self(&all[n - 1], 1) == 0);
    m = proc_cpus_allowed(one, 1024);
    CHECK(m == 1 && one[0] == all[n - 1]);
    CHECK(proc_pin_self(all, n) == 0); /* back */
    CHECK(proc_cpus_allowed(one, 1024) == n && memcmp(one, all, (size_t)n * sizeof(int)) == 0);
}

/* A TCP listener on family's loopback (or its wildcard), its port in *port. */
static int listener(int family, int wildcard, uint16_t *port)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int fd = socket(family, SOCK_STREAM, 0), off = 0;
    memset(&ss, 0, sizeof(ss));
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(wildcard ? INADDR_ANY : INADDR_LOOPBACK);
        len = sizeof(*a);
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = wildcard ? in6addr_any : in6addr_loopback;
        len = sizeof(*a);
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
    }
    if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

static void v4(struct sockaddr_storage *ss, uint16_t port)
{
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    memset(ss, 0, sizeof(*ss));
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a->sin_port = htons(port);
}

/* "pid N (COMMAND...)" of this process, as proc_port_holder says it. */
static int names_self(const char *who)
{
    char want[64];
    snprintf(want, sizeof(want), "pid %d (", (int)getpid());
    return strncmp(who, want, strlen(want)) == 0 && strstr(who, "test_proc") != NULL;
}

static void holder_is_self(void)
{
    struct sockaddr_storage ss;
    char who[256];
    uint16_t port;
    int pid = -1, fd = listener(AF_INET, 0, &port), rc;
    CHECK(fd >= 0);
    v4(&ss, port);
    rc = proc_port_holder(&ss, &pid, who, sizeof(who));
    CHECKF(rc == 1 && pid == getpid() && names_self(who) && strstr(who, "sharing") == NULL, "rc %d pid %d '%s'", rc,
           pid, who);
    close(fd);
    /* Nothing listens there now. */
    rc = proc_port_holder(&ss, &pid, who, sizeof(who));
    CHECKF(rc == 0 && pid == 0 && who[0] == '\0', "rc %d pid %d '%s'", rc, pid, who);
}

/* The socket held by this test and a child of it: the parent is named. */
static void shared_names_the_parent(void)
{
    struct sockaddr_storage ss;
    char who[256];
    uint16_t port;
    int pid = -1, p[2], fd = listener(AF_INET, 1, &port), rc, st;
    pid_t c;
    char b;
    CHECK(fd >= 0 && pipe(p) == 0);
    if ((c = fork()) == 0) {
        close(p[0]);
        (void)write(p[1], "r", 1); /* holding it */
        for (;;)
            pause();
    }
    close(p[1]);
    CHECK(c > 0 && read(p[0], &b, 1) == 1);
    close(p[0]);
    v4(&ss, port); /* 127.0.0.1 reaches a listener on 0.0.0.0 */
    rc = proc_port_holder(&ss, &pid, who, sizeof(who));
    CHECKF(rc == 1 && pid == getpid() && names_self(who) && strstr(who, ") and processes sharing it") != NULL,
           "rc %d pid %d '%s'", rc, pid, who);
    kill(c, SIGKILL);
    waitpid(c, &st, 0);
    close(fd);
}

static void dual_stack_takes_v4(void)
{
    struct sockaddr_storage ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    char who[256];
    uint16_t port;
    int pid = -1, fd = listener(AF_INET6, 1, &port), rc;
    if (fd < 0) {
        printf("  (no IPv6 here)\n");
        return;
    }
    v4(&ss, port);
    rc = proc_port_holder(&ss, &pid, who, sizeof(who));
    CHECKF(rc == 1 && pid == getpid(), "rc %d pid %d '%s'", rc, pid, who);
    memset(&ss, 0, sizeof(ss)); /* and ::1 */
    a6->sin6_family = AF_INET6;
    a6->sin6_addr = in6addr_loopback;
    a6->sin6_port = htons(port);
    rc = proc_port_holder(&ss, &pid, who, sizeof(who));
    CHECKF(rc == 1 && pid == getpid(), "rc %d pid %d '%s'", rc, pid, who);
    close(fd);
    /* ::1 alone does not take 127.0.0.1. */
    fd = listener(AF_INET6, 0, &port);
    v4(&ss, port);
    CHECK(fd >= 0 && proc_port_holder(&ss, &pid, who, sizeof(who)) == 0);
    close(fd);
}

/* An IPv4 listener does not answer for its port on ::1, nor one on
 * 127.0.0.1 for 127.0.0.2. */
static void other_family_or_port(void)
{
    struct sockaddr_storage ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    char who[256];
    uint16_t port;
    int pid, fd = listener(AF_INET, 1, &port);
    memset(&ss, 0, sizeof(ss));
    a6->sin6_family = AF_INET6;
    a6->sin6_addr = in6addr_loopback;
    a6->sin6_port = htons(port);
    CHECK(proc_port_holder(&ss, &pid, who, sizeof(who)) == 0);
    close(fd);
    fd = listener(AF_INET, 0, &port);
    v4(&ss, port);
    ((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(0x7f000002); /* 127.0.0.2: not the address bound */
    CHECK(proc_port_holder(&ss, &pid, who, sizeof(who)) == 0);
    close(fd);
}

int main(void)
{
    T_RUN(cpus);
    T_RUN(holder_is_self);
    T_RUN(shared_names_the_parent);
    T_RUN(dual_stack_takes_v4);
    T_RUN(other_family_or_port);
    T_END("test_proc");
}
