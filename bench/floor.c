/* floor.c - the least a load-testing client can cost: the physical limit
 * rafale's CPU per request is reported against in bench/RESULTS.md.
 *
 * One thread, epoll, non-blocking sockets with TCP_NODELAY (as rafale). It
 * writes a fixed request and reads the answer without parsing it: the
 * response's length is learned once, from the first answer, and every later
 * one is taken as that many bytes. No clock per request, no histogram, no
 * bookkeeping beyond a byte count: what is left is the kernel's TCP work and
 * the system calls that cannot be avoided (a write and a read per request,
 * plus connect and close in --close mode).
 *
 * --stamped reads as rafale does by default: the kernel stamps what each
 * socket receives (SO_TIMESTAMPING, asked once per connection) and every
 * read is a recvmsg that takes the stamp with the data (rxstamp.h, the
 * code rafale runs); the stamp is kept, not converted. rafale's CPU per
 * request is compared with this floor, which pays the kernel's stamping
 * too, and with the plain one.
 *
 * usage: floor [-c CONNS] [-d SECONDS] [-n REQUESTS] [--close] [--stamped] HOST PORT [PATH]
 * prints: "floor: N completed, E errors, S s" */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "floor.h"
#include "rxstamp.h"

struct fconn {
    int fd;
    int connecting;
    size_t got;
};

static struct sockaddr_in addr;
static char req[512];
static size_t req_len, resp_len;
static int stamped;

static int open_conn(int ep, struct fconn *c)
{
    int one = 1;
    struct epoll_event ev;
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        return -1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (stamped && rxstamp_enable(c->fd) != 0) {
        close(c->fd);
        return -1;
    }
    c->got = 0;
    c->connecting = 1;
    if (connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 && errno != EINPROGRESS) {
        close(c->fd);
        return -1;
    }
    ev.events = EPOLLOUT;
    ev.data.ptr = c;
    return epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
}

int main(int argc, char **argv)
{
    int conns = 50, close_mode = 0, ep, i, n;
    double dur = 5, t0, t;
    unsigned long long limit = 0, sent = 1, done = 1, errors = 0; /* the first answer, learnt from, counts */
    const char *host, *path = "/";
    struct fconn *cs;
    struct epoll_event evs[512];
    static char buf[65536];
    static struct rxstamp_msg rm;
    uint64_t stamp = 0, unstamped = 0;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            conns = atoi(argv[++i]);
        else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
            dur = atof(argv[++i]);
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            limit = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--close") == 0)
            close_mode = 1;
        else if (strcmp(argv[i], "--stamped") == 0)
            stamped = 1;
        else
            break;
    }
    if (argc - i < 2 || conns < 1) {
        fprintf(stderr, "usage: floor [-c CONNS] [-d SECONDS] [-n REQUESTS] [--close] [--stamped] HOST PORT [PATH]\n");
        return 2;
    }
    host = argv[i];
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)atoi(argv[i + 1]));
    if (argc - i > 2)
        path = argv[i + 2];
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        fprintf(stderr, "floor: %s is not an IPv4 address\n", host);
        return 2;
    }
    req_len = (size_t)snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s:%s\r\n%s\r\n", path, host, argv[i + 1],
                               close_mode ? "Connection: close\r\n" : "");
    if ((resp_len = floor_learn_length(&addr, req, req_len)) == 0) {
        fprintf(stderr, "floor: the first answer has no Content-Length\n");
        return 1;
    }
    rxstamp_msg_init(&rm, buf, sizeof(buf));
    cs = calloc((size_t)conns, sizeof(*cs));
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (cs == NULL || ep < 0)
        return 1;
    t0 = floor_now();
    for (i = 0; i < conns && (!limit || sent < limit); i++, sent++)
        if (open_conn(ep, &cs[i]) != 0)
            errors++;
    for (;;) {
        n = epoll_wait(ep, evs, 512, 100);
        t = floor_now(); /* once per batch, never per request */
        if ((dur > 0 && !limit && t - t0 >= dur) || (limit && done + errors >= limit))
            break;
        for (i = 0; i < n; i++) {
            struct fconn *c = evs[i].data.ptr;
            ssize_t r;
            if (c->connecting) {
                struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
                c->connecting = 0;
                if (write(c->fd, req, req_len) != (ssize_t)req_len ||
                    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev) != 0) {
                    errors++;
                    close(c->fd);
                    if ((!limit || sent < limit) && open_conn(ep, c) == 0)
                        sent++;
                }
                continue;
            }
            if (stamped) {
                stamp = 0;
                r = rxstamp_read(c->fd, &rm, &stamp);
                unstamped += r > 0 && stamp == 0;
            } else {
                r = read(c->fd, buf, sizeof(buf));
            }
            if (r <= 0) {
                if (r < 0 && errno == EAGAIN)
                    continue;
                errors++;
                close(c->fd);
                if ((!limit || sent < limit) && open_conn(ep, c) == 0)
                    sent++;
                continue;
            }
            c->got += (size_t)r;
            if (c->got < resp_len)
                continue;
            c->got -= resp_len;
            done++;
            if (limit && sent >= limit) {
                close(c->fd);
                continue;
            }
            sent++;
            if (close_mode) {
                close(c->fd);
                if (open_conn(ep, c) != 0)
                    errors++;
            } else if (write(c->fd, req, req_len) != (ssize_t)req_len) {
                errors++;
            }
        }
    }
    printf("floor: %llu completed, %llu errors, %.3f s\n", done, errors, floor_now() - t0);
    if (stamped && unstamped)
        printf("floor: %llu reads came without a kernel stamp\n", (unsigned long long)unstamped);
    return 0;
}
