/* io_plain.c - plain TCP transport: straight system calls. */
#include "io.h"
#include "rxstamp.h"

#include <sys/uio.h>
#include <sys/socket.h>
#include <unistd.h>

static int plain_handshake(void *ctx, int fd)
{
    (void)ctx;
    (void)fd;
    return IO_OK;
}

static ssize_t plain_read(void *ctx, int fd, void *buf, size_t len)
{
    (void)ctx;
    return read(fd, buf, len);
}

static ssize_t plain_recv(void *ctx, int fd, struct rxstamp_msg *rm, uint64_t *stamp)
{
    (void)ctx;
    return rxstamp_read(fd, rm, stamp);
}

static ssize_t plain_write(void *ctx, int fd, const void *buf, size_t len)
{
    (void)ctx;
    return write(fd, buf, len);
}

static ssize_t plain_writev(void *ctx, int fd, const struct iovec *iov, int n)
{
    (void)ctx;
    return writev(fd, iov, n);
}

static void plain_close(void *ctx, int fd)
{
    (void)ctx;
    close(fd);
}

static int plain_handshake_kind(void *ctx)
{
    (void)ctx;
    return IO_HS_NONE;
}

static void plain_shutdown(void *ctx, int fd)
{
    (void)ctx;
    shutdown(fd, SHUT_WR);
}

static const char *plain_alpn(void *ctx)
{
    (void)ctx;
    return NULL;
}

const struct io_ops io_plain = {
    .name = "tcp",
    .handshake = plain_handshake,
    .read = plain_read,
    .recv = plain_recv,
    .write = plain_write,
    .writev = plain_writev,
    .close = plain_close,
    .handshake_kind = plain_handshake_kind,
    .alpn = plain_alpn,
    .shutdown = plain_shutdown,
    .lingers = 0,
};
