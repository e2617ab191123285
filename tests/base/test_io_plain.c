/* The plain transport: straight system calls on the socket (read, write,
 * writev, a read with its receive stamp), no handshake of its own, no
 * ALPN, its write side shut while the other still reads, closed. */
#include "io.h"
#include "rxstamp.h"
#include "../t.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void straight_calls(void)
{
    struct rxstamp_msg rm;
    struct iovec iov[2] = { { "GET / ", 6 }, { "HTTP/1.1\r\n", 10 } };
    uint64_t stamp = 42;
    char buf[64];
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0);
    CHECK(strcmp(io_plain.name, "tcp") == 0 && io_plain.lingers == 0);
    CHECK(io_plain.handshake(NULL, sv[0]) == IO_OK && io_plain.handshake_kind(NULL) == IO_HS_NONE &&
          io_plain.alpn(NULL) == NULL);
    /* Every end of a TCP stream is clean; no error text of its own. */
    CHECK(io_plain.error == NULL && io_plain.ending == NULL && io_plain.eof_clean == NULL);
    CHECK(io_plain.write(NULL, sv[0], "hello", 5) == 5);
    CHECK(io_plain.read(NULL, sv[1], buf, sizeof(buf)) == 5 && memcmp(buf, "hello", 5) == 0);
    /* Nothing there: as read(2). */
    errno = 0;
    CHECK(io_plain.read(NULL, sv[1], buf, sizeof(buf)) == -1 && errno == EAGAIN);
    CHECK(io_plain.writev(NULL, sv[0], iov, 2) == 16);
    rxstamp_msg_init(&rm, buf, sizeof(buf));
    /* A Unix socket brings no stamp: 0, the bytes read. */
    CHECK(io_plain.recv(NULL, sv[1], &rm, &stamp) == 16 && memcmp(buf, "GET / HTTP/1.1\r\n", 16) == 0 && stamp == 0);
    /* Our side done: the peer reads the end, and can still answer. */
    io_plain.shutdown(NULL, sv[0]);
    CHECK(io_plain.read(NULL, sv[1], buf, sizeof(buf)) == 0);
    CHECK(io_plain.write(NULL, sv[1], "bye", 3) == 3 && io_plain.read(NULL, sv[0], buf, sizeof(buf)) == 3);
    io_plain.close(NULL, sv[0]);
    CHECK(fcntl(sv[0], F_GETFD) == -1 && errno == EBADF);
    close(sv[1]);
}

int main(void)
{
    T_RUN(straight_calls);
    T_END("io_plain");
}
