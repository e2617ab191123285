/* test_serve_h3_qpack.c - serve over HTTP/3 offers no dynamic QPACK table,
 * so a client's encoder cannot make it hold one (the QPACK table-size bomb):
 * its SETTINGS say a capacity of 0 (RFC 9204 section 5), and a client
 * encoder stream asking for more is a connection error
 * QPACK_ENCODER_STREAM_ERROR (section 4.3.1); one asking for 0, or saying
 * nothing, is fine. serve_h3.c's session is driven as in
 * fuzz/fuzz_serve_h3.c: ngtcp2's connection made but never connected. */
#include "../t.h"
#include "../../fuzz/serve_h3_offline.h"

#include <string.h>

static struct serve s;
static struct sthread th;
static struct sh3_ep ep;

/* A QUIC variable-length integer (RFC 9000 section 16) at *p. */
static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
    size_t n = (size_t)1 << (**p >> 6), i;
    uint64_t v = **p & 0x3f;
    if ((size_t)(end - *p) < n) {
        *p = end;
        return UINT64_MAX;
    }
    for (i = 1; i < n; i++)
        v = v << 8 | (*p)[i];
    *p += n;
    return v;
}

/* The SETTINGS serve sends on its control stream: QPACK_MAX_TABLE_CAPACITY
 * (0x01) and QPACK_BLOCKED_STREAMS (0x07) absent or 0 (their default is 0,
 * RFC 9204 section 5). */
static void settings_offer_no_table(void)
{
    struct sh3_conn c;
    uint8_t out[256];
    size_t len = 0;
    const uint8_t *p, *end;
    uint64_t ftype, flen, cap = 0, blocked = 0;
    int seen_settings = 0;

    CHECK(offline_session(&ep, &c, 1000000000) == 0);
    for (;;) {
        nghttp3_vec v[8];
        int64_t sid = -1;
        int fin = 0;
        nghttp3_ssize n = nghttp3_conn_writev_stream(c.hc, &sid, &fin, v, 8), i;
        size_t got = 0;
        if (n < 0 || sid < 0 || (n == 0 && !fin))
            break;
        for (i = 0; i < n; i++) {
            if (sid == 3 && len + v[i].len <= sizeof(out)) {
                memcpy(out + len, v[i].base, v[i].len);
                len += v[i].len;
            }
            got += v[i].len;
        }
        if (nghttp3_conn_add_write_offset(c.hc, sid, got) != 0)
            break;
    }
    p = out;
    end = out + len;
    CHECKF(len > 2 && varint(&p, end) == 0x00, "the control stream's type (%zu bytes)", len);
    ftype = varint(&p, end);
    flen = varint(&p, end);
    if (ftype == 0x04 && flen <= (uint64_t)(end - p)) {
        const uint8_t *fend = p + flen;
        seen_settings = 1;
        while (p < fend) {
            uint64_t id = varint(&p, fend), val = varint(&p, fend);
            if (id == 0x01)
                cap = val;
            else if (id == 0x07)
                blocked = val;
        }
    }
    CHECK(seen_settings);
    CHECKF(cap == 0, "QPACK_MAX_TABLE_CAPACITY %llu", (unsigned long long)cap);
    CHECKF(blocked == 0, "QPACK_BLOCKED_STREAMS %llu", (unsigned long long)blocked);
    offline_free(&c);
}

/* What reading the client's encoder stream (6) gives. */
static nghttp3_ssize encoder_says(const uint8_t *b, size_t len)
{
    struct sh3_conn c;
    nghttp3_ssize r = -1;
    if (offline_session(&ep, &c, 1000000000) == 0)
        r = nghttp3_conn_read_stream(c.hc, 6, b, len, 0);
    offline_free(&c);
    return r;
}

static void encoder_cannot_grow_the_table(void)
{
    /* Stream type 0x02, then Set Dynamic Table Capacity (001xxxxx, a 5-bit
     * prefix integer, RFC 9204 sections 4.3.1 and 4.1.1). */
    static const uint8_t cap4096[] = { 0x02, 0x3f, 0xe1, 0x1f };           /* 31 + 0x61 + (31 << 7) = 4096 */
    static const uint8_t cap1g[] = { 0x02, 0x3f, 0xe1, 0xff, 0xff, 0x03 }; /* about 1 GiB */
    static const uint8_t cap0[] = { 0x02, 0x20 };
    /* Insert With Literal Name (01xxxxxx) with no table: "a" = "b". */
    static const uint8_t insert[] = { 0x02, 0x41, 'a', 0x01, 'b' };
    nghttp3_ssize r;

    r = encoder_says(cap4096, sizeof(cap4096));
    CHECKF(r == NGHTTP3_ERR_QPACK_ENCODER_STREAM_ERROR, "capacity 4096: %ld", (long)r);
    CHECK(nghttp3_err_infer_quic_app_error_code((int)r) == NGHTTP3_QPACK_ENCODER_STREAM_ERROR);
    r = encoder_says(cap1g, sizeof(cap1g));
    CHECKF(r == NGHTTP3_ERR_QPACK_ENCODER_STREAM_ERROR, "capacity 1 GiB: %ld", (long)r);
    r = encoder_says(insert, sizeof(insert));
    CHECKF(r == NGHTTP3_ERR_QPACK_ENCODER_STREAM_ERROR, "an insert into no table: %ld", (long)r);
    r = encoder_says(cap0, sizeof(cap0));
    CHECKF(r == (nghttp3_ssize)sizeof(cap0), "capacity 0 is fine: %ld", (long)r);
}

int main(void)
{
    s.cfg.h2_streams = 16;
    th.s = &s;
    th.rng = 1;
    ep.t = &th;
    offline_callbacks(&ep);
    T_RUN(settings_offer_no_table);
    T_RUN(encoder_cannot_grow_the_table);
    T_END("serve_h3_qpack");
}
