/* floor_uring.c - bench/floor.c's keep-alive client on io_uring instead of
 * epoll, to learn whether io_uring lowers the floor on this kernel (if the
 * least a client can do costs no less, an io_uring backend in rafale cannot
 * either). One multishot recv per connection into a ring of provided
 * buffers; each next request is a send whose success posts nothing
 * (IOSQE_CQE_SKIP_SUCCESS); one io_uring_enter per batch.
 *
 * usage: floor_uring [-c CONNS] [-d SECONDS] [--plain] HOST PORT [PATH]
 * (--plain: without IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN)
 * prints: "floor_uring: N completed, E errors, S s" */
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "floor.h"

#define NBUF 4096
#define BUFSZ 2048
#define BGID 1

struct uconn {
    int fd;
    size_t got;
};

static char req[512];
static size_t req_len, resp_len;
static struct sockaddr_in addr;

static void arm_recv(struct io_uring *ring, struct uconn *c)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = BGID;
    io_uring_sqe_set_data(sqe, c);
}

static void send_req(struct io_uring *ring, struct uconn *c)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (sqe == NULL) {
        io_uring_submit(ring);
        sqe = io_uring_get_sqe(ring);
    }
    io_uring_prep_send(sqe, c->fd, req, req_len, 0);
    sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
    io_uring_sqe_set_data(sqe, NULL);
}

int main(int argc, char **argv)
{
    int conns = 50, i, one = 1, plain = 0;
    double dur = 5, t0;
    unsigned long long done = 1, errors = 0; /* the first answer, learnt from, counts */
    struct io_uring ring;
    struct io_uring_buf_reg reg;
    struct io_uring_buf_ring *br;
    char *bufs;
    struct uconn *cs;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            conns = atoi(argv[++i]);
        else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
            dur = atof(argv[++i]);
        else if (strcmp(argv[i], "--plain") == 0)
            plain = 1;
        else
            break;
    }
    if (argc - i < 2 || conns < 1) {
        fprintf(stderr, "usage: floor_uring [-c CONNS] [-d SECONDS] [--plain] HOST PORT [PATH]\n");
        return 2;
    }
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)atoi(argv[i + 1]));
    if (inet_pton(AF_INET, argv[i], &addr.sin_addr) != 1)
        return 2;
    req_len = (size_t)snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s:%s\r\n\r\n", argc - i > 2 ? argv[i + 2] : "/",
                               argv[i], argv[i + 1]);
    if ((resp_len = floor_learn_length(&addr, req, req_len)) == 0)
        return 1;
    /* One thread issues and reaps: the kernel may defer its completion work
     * to our next io_uring_enter (measured: a third less CPU per request
     * than without these flags on 6.18). Older kernels refuse them. */
    if (io_uring_queue_init(4096, &ring, plain ? 0 : IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN) != 0 &&
        io_uring_queue_init(4096, &ring, 0) != 0)
        return 1;
    br = mmap(NULL, NBUF * sizeof(struct io_uring_buf), PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    bufs = malloc((size_t)NBUF * BUFSZ);
    if (br == MAP_FAILED || bufs == NULL)
        return 1;
    io_uring_buf_ring_init(br);
    memset(&reg, 0, sizeof(reg));
    reg.ring_addr = (unsigned long)br;
    reg.ring_entries = NBUF;
    reg.bgid = BGID;
    if (io_uring_register_buf_ring(&ring, &reg, 0) != 0) {
        fprintf(stderr, "floor_uring: provided buffer rings not supported\n");
        return 1;
    }
    for (i = 0; i < NBUF; i++)
        io_uring_buf_ring_add(br, bufs + (size_t)i * BUFSZ, BUFSZ, (unsigned short)i, io_uring_buf_ring_mask(NBUF), i);
    io_uring_buf_ring_advance(br, NBUF);
    cs = calloc((size_t)conns, sizeof(*cs));
    for (i = 0; i < conns; i++) {
        cs[i].fd = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(cs[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (connect(cs[i].fd, (struct sockaddr *)&addr, sizeof(addr)) != 0)
            return 1;
        arm_recv(&ring, &cs[i]);
        send_req(&ring, &cs[i]);
    }
    t0 = floor_now();
    while (floor_now() - t0 < dur) {
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0, added = 0;
        io_uring_submit_and_wait(&ring, 1);
        io_uring_for_each_cqe(&ring, head, cqe) {
            struct uconn *c = io_uring_cqe_get_data(cqe);
            seen++;
            if (c == NULL) { /* a send that failed */
                errors++;
                continue;
            }
            if (cqe->res <= 0) {
                if (cqe->res != -ENOBUFS)
                    errors++;
                if (!(cqe->flags & IORING_CQE_F_MORE))
                    arm_recv(&ring, c);
                continue;
            }
            /* Give the buffer back at once: the bytes are only counted. */
            io_uring_buf_ring_add(br, bufs + (size_t)(cqe->flags >> IORING_CQE_BUFFER_SHIFT) * BUFSZ, BUFSZ,
                                  (unsigned short)(cqe->flags >> IORING_CQE_BUFFER_SHIFT), io_uring_buf_ring_mask(NBUF),
                                  (int)added++);
            c->got += (size_t)cqe->res;
            while (c->got >= resp_len) {
                c->got -= resp_len;
                done++;
                send_req(&ring, c);
            }
            if (!(cqe->flags & IORING_CQE_F_MORE))
                arm_recv(&ring, c);
        }
        io_uring_buf_ring_advance(br, added);
        io_uring_cq_advance(&ring, seen);
    }
    printf("floor_uring: %llu completed, %llu errors, %.3f s\n", done, errors, floor_now() - t0);
    return 0;
}
