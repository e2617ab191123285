/* io.h - the byte transport under a connection. Plain TCP today; TLS slots
 * in as another io_ops without touching the connection state machine. */
#ifndef RAFALE_IO_H
#define RAFALE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct rxstamp_msg;

enum { IO_OK = 0, IO_WANT_READ = -2, IO_WANT_WRITE = -3, IO_ERROR = -1 };

/* The read buffer of a thread (rafale's workers, serve's threads): a read
 * shorter than this means the socket is drained. */
#define IO_RBUF_SIZE (64 * 1024)

/* What the handshake of a transport was. */
enum { IO_HS_NONE = -1, IO_HS_FULL = 0, IO_HS_RESUMED = 1 };

struct io_ops {
    const char *name;
    /* After TCP connected: IO_OK when ready for requests, IO_WANT_* to be
     * called again when the socket is ready, IO_ERROR (errno set) on failure. */
    int (*handshake)(void *ctx, int fd);
    /* Like read(2)/write(2): bytes, 0 at end of stream, or -1 with errno
     * (EAGAIN when the socket is not ready). */
    ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
    /* read into rm's buffer (rxstamp.h: its header built once), with the
     * kernel's receive timestamp of the latest data taken from the socket
     * into *stamp (CLOCK_REALTIME ns, 0: it came without one); *stamp is
     * left as it was when nothing was taken from the socket (TLS: bytes
     * OpenSSL had buffered keep their read's). */
    ssize_t (*recv)(void *ctx, int fd, struct rxstamp_msg *rm, uint64_t *stamp);
    ssize_t (*write)(void *ctx, int fd, const void *buf, size_t len);
    /* Several buffers at once (pipelined requests): one system call. */
    ssize_t (*writev)(void *ctx, int fd, const struct iovec *iov, int n);
    /* Releases the transport's per-connection state and closes fd. */
    void (*close)(void *ctx, int fd);
    /* After a failure with errno EPROTO: a static text naming it, or NULL. */
    const char *(*error)(void *ctx);
    /* After handshake() returned IO_OK: IO_HS_NONE when the transport has
     * no handshake of its own, else whether it was full or resumed. */
    int (*handshake_kind)(void *ctx);
    /* After the handshake: the application protocol the peer agreed to
     * (ALPN: "h2", "http/1.1"), a static string, or NULL when none. */
    const char *(*alpn)(void *ctx);
    /* We will send no more: says so to the peer (TLS close_notify) and
     * shuts the socket's write side. */
    void (*shutdown)(void *ctx, int fd);
    /* After read() or recv() returned bytes: whether the stream's end came
     * with them (TLS: a close_notify read in the same pass), so the next
     * read returns 0 though the socket raises no new event. NULL: never. */
    int (*ending)(void *ctx);
    /* After read() or recv() returned 0: whether the peer ended the stream
     * itself (TLS: a close_notify) rather than a bare TCP close, which may
     * have cut what came before short. NULL: every end is clean (TCP). */
    int (*eof_clean)(void *ctx);
    /* A close should wait for the peer's (lingering): TLS always, since its
     * own buffers may hold what the socket no longer shows. */
    int lingers;
};

extern const struct io_ops io_plain;

#endif
