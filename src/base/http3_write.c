/* http3_write.c - one QUIC packet of an HTTP/3 connection's data, for the
 * client (client/http3_quic.c) and rafale serve (serve/serve_h3.c). */
#include "http3_write.h"

ngtcp2_ssize http3_write_packet(ngtcp2_conn *qc, nghttp3_conn *hc, ngtcp2_path *path, uint8_t *dest,
                                size_t room, uint64_t now)
{
    for (;;) {
        nghttp3_vec hv[16];
        ngtcp2_vec qv[16];
        int64_t sid = -1;
        int fin = 0;
        nghttp3_ssize nv = 0, i;
        ngtcp2_ssize n, nd = -1;
        ngtcp2_pkt_info pi;
        if (hc && (nv = nghttp3_conn_writev_stream(hc, &sid, &fin, hv, 16)) < 0)
            return NGTCP2_ERR_CALLBACK_FAILURE;
        for (i = 0; i < nv; i++) {
            qv[i].base = hv[i].base;
            qv[i].len = hv[i].len;
        }
        n = ngtcp2_conn_writev_stream(qc, path, &pi, dest, room, &nd,
                                      NGTCP2_WRITE_STREAM_FLAG_MORE | (fin ? NGTCP2_WRITE_STREAM_FLAG_FIN : 0), sid,
                                      qv, (size_t)nv, now);
        if (n < 0) {
            switch (n) {
            case NGTCP2_ERR_STREAM_DATA_BLOCKED:
                nghttp3_conn_block_stream(hc, sid);
                continue;
            case NGTCP2_ERR_STREAM_SHUT_WR:
                nghttp3_conn_shutdown_stream_write(hc, sid);
                continue;
            case NGTCP2_ERR_WRITE_MORE:
                if (nghttp3_conn_add_write_offset(hc, sid, (size_t)nd) != 0)
                    return NGTCP2_ERR_CALLBACK_FAILURE;
                continue;
            default:
                return n;
            }
        }
        if (nd >= 0 && sid >= 0 && nghttp3_conn_add_write_offset(hc, sid, (size_t)nd) != 0)
            return NGTCP2_ERR_CALLBACK_FAILURE;
        return n;
    }
}
