/* http3_write.h - one QUIC packet of what an HTTP/3 connection has to
 * send, nghttp3's stream data first: the loop the client and rafale serve
 * share (built only with HTTP/3, as every file that names ngtcp2). */
#ifndef RAFALE_HTTP3_WRITE_H
#define RAFALE_HTTP3_WRITE_H

#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>
#include <stddef.h>
#include <stdint.h>

/* Writes into dest (room bytes) a packet of qc's: hc's stream data (hc NULL:
 * none yet, as before a client's handshake ends), else acknowledgements and
 * control frames. path: NULL on a connect()ed socket (ngtcp2 may fill it). Returns the packet's
 * length, 0 when nothing is left, or ngtcp2's error. */
ngtcp2_ssize http3_write_packet(ngtcp2_conn *qc, nghttp3_conn *hc, ngtcp2_path *path, uint8_t *dest,
                                size_t room, uint64_t now);

#endif
