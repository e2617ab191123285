/* buf.h - the one growable byte buffer of the program: request bytes, serve's
 * input and output, files read whole. */
#ifndef RAFALE_BUF_H
#define RAFALE_BUF_H

#include <stddef.h>
#include <stdio.h>

struct buf {
    char *p;
    size_t len, cap;
};

/* Makes room for more bytes after len. Returns 0, or -1 (out of memory). */
int buf_reserve(struct buf *b, size_t more);
/* Appends n bytes. Returns 0 or -1. */
int buf_put(struct buf *b, const void *s, size_t n);
/* Appends a string. Returns 0 or -1. */
int buf_puts(struct buf *b, const char *s);
/* Appends formatted text. Returns 0 or -1. */
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Gives the memory back when the buffer is empty and grew past keep. */
void buf_shrink(struct buf *b, size_t keep);
/* Frees the memory; the buffer is empty and usable again. */
void buf_free(struct buf *b);
/* Appends the whole file at path, up to max bytes. Returns 0, or -1 with
 * errno set (EFBIG when larger than max). */
int buf_read_file(struct buf *b, const char *path, size_t max);
/* The same from an open stream (standard input), to its end. */
int buf_read_stream(struct buf *b, FILE *f, size_t max);

#endif
