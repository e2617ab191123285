/* floor.h - what bench/floor.c and bench/floor_uring.c share: the clock,
 * and the one blocking request that learns the answer's length (head plus
 * Content-Length), after which every answer is taken as that many bytes. */
#ifndef RAFALE_FLOOR_H
#define RAFALE_FLOOR_H

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double floor_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sends req to addr once and returns the whole answer's length, or 0. */
static size_t floor_learn_length(const struct sockaddr_in *addr, const char *req, size_t req_len)
{
    char buf[65536];
    size_t have = 0, len;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    char *end, *cl;
    if (fd < 0)
        return 0;
    if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) != 0 || write(fd, req, req_len) != (ssize_t)req_len) {
        close(fd);
        return 0;
    }
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
        if (n <= 0) {
            close(fd);
            return 0;
        }
        have += (size_t)n;
        buf[have] = '\0';
        if ((end = strstr(buf, "\r\n\r\n")) != NULL)
            break;
    }
    close(fd);
    if ((cl = strcasestr(buf, "\r\ncontent-length:")) == NULL || cl > end)
        return 0;
    len = (size_t)(end + 4 - buf) + strtoul(cl + 17, NULL, 10);
    return len;
}

#endif
