/* replay.h - rafale replay's log, read ahead by a thread of its own and
 * handed to the workers in batches (replay.c): private to src/client/,
 * read through client.h. */
#ifndef RAFALE_REPLAY_H
#define RAFALE_REPLAY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct config;
struct plan;
struct replay_tally;
struct slot;
struct worker;

/* A request of the log: when it is due (ns from the start of the run, the
 * log's time over --speed), its target (its endpoint pattern's), its
 * method (replay.methods) and its request-target (len bytes at off of its
 * batch's bytes). */
struct replay_entry {
    uint64_t due;
    uint32_t target, off, len;
    uint8_t method, head;
};

#define REPLAY_BATCH 1024
#define REPLAY_BYTES (128 * 1024)
#define REPLAY_RING 8
#define REPLAY_METHODS 16

/* What the reader hands a worker: a thousand requests at a time, so the
 * ring costs two atomic stores a batch, none a request. */
struct replay_batch {
    uint32_t n, used;    /* entries; bytes */
    uint8_t last;        /* the log ends with it */
    struct replay_entry e[REPLAY_BATCH];
    char bytes[REPLAY_BYTES];
};

/* One producer (the reader), one consumer (its worker): batches head and
 * on are free to fill, tail to head are the worker's. */
struct replay_ring {
    struct replay_batch *b[REPLAY_RING];
    _Atomic uint32_t head, tail;
    int held;            /* the reader's: it fills the batch at head */
};

struct replay_rec;
struct replay_user;
struct replay {
    pthread_t thread;
    int started;
    atomic_int quit;     /* the run is over: the reader stops */
    atomic_int primed;   /* the first requests are in the rings (or the log ended): the run may start */
    _Atomic uint64_t t0; /* the run's start (clock_ns), 0 before it */
    struct replay_ring *rings;
    uint32_t nrings;
    const struct config *cfg;
    struct replay_tally *tally;
    int fd;
    int format;          /* enum alog_format, settled by the first line */
    double speed;
    char methods[REPLAY_METHODS][16];  /* replayed (--methods) */
    size_t method_len[REPLAY_METHODS];
    uint32_t nmethods;
    /* The targets by their name (an endpoint pattern): open addressing,
     * index + 1, 0 empty; other: the target of the patterns without one. */
    uint32_t *names, nnames, other;
    struct replay_user *user;  /* --pattern, tried first */
    uint32_t nuser;
    /* The window (--from, --to) in the log's time, settled by its first
     * request; --loop: the log's time added to a pass (the passes before
     * it), and what the pass holds so far. */
    int64_t from_t, to_t, loop_add, pass_first, pass_last;
    uint64_t pass_n;
    /* The sorting window: lines in the log's order, sorted by time and
     * handed on once the log is past them by the window. */
    struct replay_rec *pend;
    size_t npend, pend_cap, emit_at;
    uint64_t seq;
    uint64_t nth;        /* the log's requests handed on, in order: every shard's */
    int64_t max_t, last_t, base_t;
    int have_base, whole;
    /* The file's bytes: a buffer, lines cut from it. */
    char *buf;
    size_t blen, boff;
    int eof;
};

/* Opens the log of cfg (replay_path) and starts its reader with a ring
 * for each of nt workers. Returns 0, or -1 with the reason in err. */
int replay_start(struct plan *pl, uint32_t nt, char *err, size_t errlen);
/* Waits until the first requests are read (or stop). */
void replay_primed(const struct plan *pl, const atomic_int *stop);
/* The run starts at t0: the reader reads ahead of it. */
void replay_go(struct plan *pl, uint64_t t0);
/* Stops the reader (the run is over) and frees it. With the workers (ws,
 * nt, their threads over), its tally counts the requests that came due in
 * the run: the reader hands them over ahead of their time. */
void replay_stop(struct plan *pl, const struct worker *ws, uint32_t nt);
/* The worker's next request to schedule: 1 with its due time (ns from the
 * start), 0 none read yet, -1 the log's end. */
int replay_peek(struct worker *w, uint64_t *due);
/* The request peeked is on the schedule. */
void replay_pass(struct worker *w);
/* The oldest scheduled request not yet taken (w->rp_cur, w->rp_path),
 * given to a connection; the batch before it goes back to the reader. */
const struct replay_entry *replay_take(struct worker *w);
/* s's request bytes, from the entry taken last, into buf: its request
 * line and its target's rest (HTTP/1.1), or "METHOD PATH" (HTTP/2 and
 * HTTP/3, read by replay_fields). Returns their length. */
size_t replay_request(const struct worker *w, const struct slot *s, char *buf);
/* A multiplexed replayed request's :method and :path, from its bytes
 * (replay_request's req, len): split at the space (a log's path has none). */
static inline void replay_fields(const char *req, size_t len, const char **m, size_t *mlen, const char **path,
                                 size_t *plen)
{
    const char *sp = memchr(req, ' ', len);
    *m = req;
    *mlen = (size_t)(sp - req);
    *path = sp + 1;
    *plen = len - *mlen - 1;
}

#endif
