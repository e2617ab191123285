/* http3_body.c - templated request bodies kept until QUIC is done with
 * them. nghttp3 hands ngtcp2 pointers into the body its data reader gave,
 * and ngtcp2 keeps them to send the bytes again when a packet is lost, until
 * the stream is closed. A slot's buffer is reused as soon as its response
 * has ended, which may come before the server acknowledged the body (a
 * server may answer early, or its ACK may be lost): a resend would then
 * carry the next request's bytes. So each templated body is copied into a
 * buffer of the connection's, given back when ngtcp2 closes the stream or
 * the connection closes. Buffers are reused: none is allocated per request
 * once there are as many as streams in flight. */
#include "http3.h"

#include <stdlib.h>
#include <string.h>

struct h3_body {
    struct h3_body *next;
    int64_t id;          /* its QUIC stream */
    char data[];
};

const char *http3_body_take(struct h3 *h, int64_t id, const char *src, size_t len, size_t room)
{
    struct h3_body *b = h->spare;
    if (b)
        h->spare = b->next;
    else if ((b = malloc(sizeof(*b) + room)) == NULL)
        return NULL;
    b->id = id;
    b->next = h->held;
    h->held = b;
    memcpy(b->data, src, len);
    return b->data;
}

void http3_body_done(struct h3 *h, int64_t id)
{
    struct h3_body **p;
    for (p = &h->held; *p; p = &(*p)->next)
        if ((*p)->id == id) {
            struct h3_body *b = *p;
            *p = b->next;
            b->next = h->spare;
            h->spare = b;
            return;
        }
}

void http3_body_all_done(struct h3 *h)
{
    while (h->held) {
        struct h3_body *b = h->held;
        h->held = b->next;
        b->next = h->spare;
        h->spare = b;
    }
}

void http3_body_free(struct h3 *h)
{
    http3_body_all_done(h);
    while (h->spare) {
        struct h3_body *b = h->spare;
        h->spare = b->next;
        free(b);
    }
}
