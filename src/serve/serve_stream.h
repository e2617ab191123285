/* serve_stream.h - a request stream of `rafale serve`'s multiplexed
 * protocols, written once for HTTP/2 (serve_h2.c) and HTTP/3 (serve_h3.c):
 * a connection's streams in an active list, ended ones kept on a free list
 * for its next; a request's fields counted against serve's limits, its
 * method and path kept; the answer it gets; its /delay answer's time.
 * Private to src/serve/. */
#ifndef RAFALE_SERVE_STREAM_H
#define RAFALE_SERVE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "serve_int.h"

struct serve_stream {
    struct serve_stream *next, *prev; /* the active list, or the free list (next) */
    int64_t id;
    uint8_t head, delayed, path_too_long, answered, too_large;
    uint8_t own;                  /* the protocol's own marks (HTTP/3: SH3_CREDITED, SH3_RESET), 0 when new */
    uint32_t fields;              /* header fields, and the section's size as RFC 9113 §6.5.2 counts it */
    uint64_t list_size;
    uint64_t due;                 /* a /delay answer's time */
    uint64_t off;                 /* body bytes handed on */
    struct reply rp;
    char status[8], clen[24], method[16];
    struct buf path;              /* kept when the stream is reused */
};

/* A connection's streams: zeroed to begin with. */
struct serve_streams {
    struct serve_stream *active, *free;
    uint32_t n;                   /* active */
};

/* A stream for id, from the free list or new, made active. NULL when out
 * of memory. */
struct serve_stream *serve_stream_new(struct serve_streams *l, int64_t id);
/* st ended: onto the free list. */
void serve_stream_end(struct serve_streams *l, struct serve_stream *st);
/* Frees them all, active and free. */
void serve_stream_free_all(struct serve_streams *l);
/* A field of st's request: counted against serve's limits (a field
 * section's names and values plus 32 bytes a field, RFC 9113 §6.5.2 and
 * RFC 9114 section 4.2.2), :method and :path kept. Returns 0, or -1 when
 * out of memory. */
int serve_stream_field(struct serve_stream *st, const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen);
/* st's request is whole (at now): its answer chosen (431, 414, 400, or
 * serve's). Returns 1 when it is a /delay answer, due at st->due. */
int serve_stream_reply(struct serve_stream *st, const struct serve *s, uint32_t *rng, uint64_t now);
/* Streams whose request has not all arrived yet. */
uint32_t serve_stream_waiting(const struct serve_streams *l);
/* When the next /delay answer is due, or UINT64_MAX. */
uint64_t serve_stream_deadline(const struct serve_streams *l);
/* The /delay answers due at now, made answers and handed to submit (the
 * protocol's, with ctx). */
void serve_stream_tick(struct serve_streams *l, uint64_t now, void (*submit)(void *ctx, struct serve_stream *st),
                       void *ctx);

#endif
