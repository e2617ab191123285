/* http_parse.c - strict, incremental HTTP/1.x response parser.
 *
 * One explicit state per position in the grammar (RFC 9112), advanced one
 * byte at a time through the head and in bulk through bodies. Only the three
 * headers that frame a response are looked at: Content-Length,
 * Transfer-Encoding and Connection; their values are kept in p->val. The
 * spans of the head and body (p->span) are told from the same states, so
 * that what reads them never frames a response a second way. */
#include "http_parse.h"
#include "http_lex.h"

#include <string.h>

enum {
    S_VERSION, S_MINOR, S_SP, S_CODE, S_AFTER_CODE, S_REASON, S_STATUS_LF,
    S_LINE_START, S_NAME, S_OWS, S_VALUE, S_VALUE_LF, /* the field lines, in a row */
    S_HEAD_LF,
    S_BODY_CL, S_BODY_EOF,
    S_CH_SIZE, S_CH_EXT, S_CH_SIZE_LF, S_CH_DATA, S_CH_DATA_CR, S_CH_DATA_LF,
    S_TR_START, S_TR_LINE, S_TR_LF, S_TR_END_LF,
    S_DONE
};

enum { H_CL, H_TE, H_CONN, H_COOKIE, H_LOC, H_NONE = 0xff };
static const char *const hdr_names[] = { "content-length", "transfer-encoding", "connection", "set-cookie",
                                         "location" };
static const uint8_t hdr_lens[] = { 14, 17, 10, 10, 8 };
#define VAL_OVERFLOW 0xff

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (unsigned char)lex_lower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

void http_parse_reset(struct hp *p, int head_only)
{
    memset(p, 0, offsetof(struct hp, val));
    p->head_only = (uint8_t)(head_only != 0);
    p->state = S_VERSION;
    p->hdr = H_NONE;
}

/* A header of interest is complete: apply it. Returns 0 or -1. (Inlined
 * into both of feed's copies, as the compiler did into the one: a call per
 * field line is the parser's cost of a response grown by a tenth.) */
static inline __attribute__((always_inline)) int end_header(struct hp *p)
{
    size_t n = p->vlen, i, start;

    if (p->hdr == H_NONE)
        return 0;
    if (p->hdr == H_LOC) {
        if (p->loc_over)
            p->loc_len = 0;
        return 0;
    }
    if (p->hdr == H_COOKIE) {
        /* Kept whole or not at all. */
        if (n == VAL_OVERFLOW || p->sink_len >= p->sink_cap) {
            p->sink_len = p->sink_mark;
        } else {
            p->sink[p->sink_len++] = '\n';
            p->sink_mark = p->sink_len;
        }
        return 0;
    }
    if (n == VAL_OVERFLOW) {
        if (p->hdr == H_CONN)
            return 0; /* a long Connection list: nothing we act on */
        p->error = p->hdr == H_CL ? "Content-Length value too long" : "Transfer-Encoding value too long";
        return -1;
    }
    while (n > 0 && lex_ows(p->val[n - 1]))
        n--;

    switch (p->hdr) {
    case H_CL: {
        uint64_t v = 0;
        if (n == 0 || n > 18) {
            p->error = n ? "Content-Length value too long" : "empty Content-Length";
            return -1;
        }
        for (i = 0; i < n; i++) {
            if (p->val[i] < '0' || p->val[i] > '9') {
                p->error = "invalid Content-Length";
                return -1;
            }
            v = v * 10 + (uint64_t)(p->val[i] - '0');
        }
        if ((p->flags & HP_F_HAS_CL) && v != p->clen) {
            p->error = "conflicting Content-Length headers";
            return -1;
        }
        p->flags |= HP_F_HAS_CL;
        p->clen = v;
        return 0;
    }
    case H_TE:
        /* Only the last coding decides how the body is framed. */
        start = n;
        while (start > 0 && p->val[start - 1] != ',')
            start--;
        while (start < n && lex_ows(p->val[start]))
            start++;
        if (start == n) {
            p->error = "empty Transfer-Encoding";
            return -1;
        }
        p->flags |= HP_F_HAS_TE;
        if (lex_eq_ci(p->val + start, n - start, "chunked"))
            p->flags |= HP_F_CHUNKED;
        else
            p->flags &= (uint16_t)~HP_F_CHUNKED;
        return 0;
    case H_CONN: {
        int close = 0, keep = 0;
        lex_connection(p->val, n, &close, &keep);
        if (close)
            p->flags |= HP_F_CLOSE;
        if (keep)
            p->flags |= HP_F_KEEPALIVE;
        return 0;
    }
    }
    return 0;
}

/* The empty line after the headers. Returns the next state, or -1.
 * (Inlined into both of feed's copies, as end_header.) */
static inline __attribute__((always_inline)) int end_head(struct hp *p)
{
    if (p->status < 200) {
        if (p->status == 101) {
            /* We never ask to switch protocols; whatever follows is not HTTP. */
            p->flags |= HP_F_HEAD_DONE | HP_F_CLOSE | HP_F_NO_BODY;
            return S_DONE;
        }
        /* Interim response (100 Continue, 103 Early Hints): the final one follows. */
        {
            uint8_t head_only = p->head_only;
            http_parse_reset(p, head_only);
        }
        return S_VERSION;
    }
    p->flags |= HP_F_HEAD_DONE;
    if (p->head_only || p->status == 204 || p->status == 304) {
        p->flags |= HP_F_NO_BODY;
        return S_DONE;
    }
    if (p->flags & HP_F_HAS_TE) {
        /* RFC 9112 §6.3: Transfer-Encoding overrides Content-Length, and the
         * connection must not be reused after such a response; §6.1: in
         * HTTP/1.0 it is faulty framing, the same even with keep-alive. */
        if ((p->flags & HP_F_HAS_CL) || p->minor == 0)
            p->flags |= HP_F_FRAMING;
        if (p->flags & HP_F_CHUNKED) {
            p->namelen = 0;
            p->linelen = 0;
            p->remaining = 0;
            return S_CH_SIZE;
        }
        p->flags |= HP_F_BODY_EOF;
        return S_BODY_EOF;
    }
    if (p->flags & HP_F_HAS_CL) {
        if (p->clen == 0)
            return S_DONE;
        p->remaining = p->clen;
        return S_BODY_CL;
    }
    p->flags |= HP_F_BODY_EOF;
    return S_BODY_EOF;
}

/* The final response's field lines from buf[from] to buf[to], to p->span:
 * an interim response's (1xx but 101, RFC 9110 §15.2) are not its. */
static void head_span(const struct hp *p, const char *buf, size_t from, size_t to)
{
    if (to > from && (p->status >= 200 || p->status == 101))
        p->span(p->span_ctx, HP_SPAN_HEAD, buf + from, to - from);
}

#define FAIL(msg) do { p->error = (msg); return -1; } while (0)

/* http_parse_feed, made twice: with spans a constant, the engine's reads
 * that ask for none carry nothing of them. */
static inline __attribute__((always_inline)) ssize_t feed(struct hp *p, const char *buf, size_t len, const int spans)
{
    size_t i = 0, hs = 0; /* hs: where the field lines not yet reported start in buf */
    int st = p->state;

    if (st == S_DONE)
        FAIL("response already complete");

    while (i < len) {
        unsigned char c = (unsigned char)buf[i];

        switch (st) {
        case S_BODY_CL: {
            size_t n = len - i;
            if (n > p->remaining)
                n = (size_t)p->remaining;
            if (spans)
                p->span(p->span_ctx, HP_SPAN_BODY, buf + i, n);
            p->remaining -= n;
            i += n;
            if (p->remaining == 0) {
                p->state = S_DONE;
                return (ssize_t)i;
            }
            continue;
        }
        case S_BODY_EOF:
            if (spans)
                p->span(p->span_ctx, HP_SPAN_BODY, buf + i, len - i);
            p->state = (uint8_t)st;
            return -2;
        case S_CH_DATA: {
            size_t n = len - i;
            if (n > p->remaining)
                n = (size_t)p->remaining;
            if (spans)
                p->span(p->span_ctx, HP_SPAN_BODY, buf + i, n);
            p->remaining -= n;
            i += n;
            if (p->remaining == 0)
                st = S_CH_DATA_CR;
            continue;
        }
        case S_VERSION:
            /* Fast path: "HTTP/1.x NNN" whole in the buffer. */
            if (p->linelen == 0 && len - i >= 12 && memcmp(buf + i, "HTTP/1.", 7) == 0 && lex_digit(buf[i + 7]) &&
                buf[i + 8] == ' ' && lex_digit(buf[i + 9]) && lex_digit(buf[i + 10]) && lex_digit(buf[i + 11])) {
                p->minor = (uint8_t)(buf[i + 7] - '0');
                p->status = (uint16_t)((buf[i + 9] - '0') * 100 + (buf[i + 10] - '0') * 10 + (buf[i + 11] - '0'));
                if (p->status < 100 || p->status > 599)
                    FAIL("status code out of range");
                p->linelen = 12;
                i += 12;
                st = S_AFTER_CODE;
                continue;
            }
            break;
        case S_LINE_START:
            /* Fast path: a header name whole in the buffer, up to its colon,
             * matched once rather than byte by byte. */
            if (lex_tchar((char)c)) {
                size_t j = i + 1, n;
                /* Four at a time: one branch for four table reads. */
                while (j + 4 <= len && (lex_tchar(buf[j]) & lex_tchar(buf[j + 1]) & lex_tchar(buf[j + 2]) &
                                        lex_tchar(buf[j + 3])))
                    j += 4;
                while (j < len && lex_tchar(buf[j]))
                    j++;
                if (j == len || buf[j] != ':')
                    break; /* split, or a mistake: the byte path says which */
                n = j - i;
                if (n + 1 > HP_MAX_LINE)
                    FAIL("line too long");
                p->hdr = H_NONE;
                p->vlen = 0;
                p->namelen = (uint32_t)n;
                switch (n) {
                case 14:
                    if (lex_eq_name8(buf + i, "content-length", n))
                        p->hdr = H_CL;
                    break;
                case 17:
                    if (lex_eq_name8(buf + i, "transfer-encoding", n))
                        p->hdr = H_TE;
                    break;
                case 10:
                    if (lex_eq_name8(buf + i, "connection", n))
                        p->hdr = H_CONN;
                    else if (p->sink && lex_eq_name8(buf + i, "set-cookie", n))
                        p->hdr = H_COOKIE;
                    break;
                case 8:
                    if (p->loc && lex_eq_name8(buf + i, "location", n))
                        p->hdr = H_LOC;
                    break;
                }
                if (p->hdr == H_COOKIE)
                    p->sink_mark = p->sink_len;
                if (p->hdr == H_LOC) {
                    p->loc_len = 0;
                    p->loc_over = 0;
                }
                p->linelen = (uint32_t)(n + 1);
                i = j + 1;
                st = S_OWS;
                continue;
            }
            break;
        case S_OWS:
            if (c == ' ' || c == '\t') {
                if (++p->linelen > HP_MAX_LINE)
                    FAIL("line too long");
                i++;
                continue;
            }
            st = S_VALUE;
            /* fall through */
        case S_REASON:
        case S_VALUE: {
            /* Fast path: a run of field text in a tight loop, kept in bulk
             * when it is a value of interest. */
            size_t j = lex_field_run(buf, i, len), n;
            n = j - i;
            p->linelen += (uint32_t)n;
            if (p->linelen > HP_MAX_LINE)
                FAIL("line too long");
            if (st == S_VALUE && p->hdr != H_NONE && n) {
                if (p->hdr == H_LOC) {
                    size_t room = (size_t)(p->loc_cap - p->loc_len), k = n < room ? n : room;
                    memcpy(p->loc + p->loc_len, buf + i, k);
                    p->loc_len = (uint16_t)(p->loc_len + k);
                    if (n > room)
                        p->loc_over = 1;
                } else if (p->hdr == H_COOKIE) {
                    if (p->vlen != VAL_OVERFLOW && p->sink_len + n <= p->sink_cap) {
                        memcpy(p->sink + p->sink_len, buf + i, n);
                        p->sink_len = (uint16_t)(p->sink_len + n);
                    } else {
                        p->vlen = VAL_OVERFLOW;
                    }
                } else if (p->vlen != VAL_OVERFLOW) {
                    if (p->vlen + n <= sizeof(p->val)) {
                        memcpy(p->val + p->vlen, buf + i, n);
                        p->vlen = (uint8_t)(p->vlen + n);
                    } else {
                        p->vlen = VAL_OVERFLOW;
                    }
                }
            }
            i = j;
            if (i == len)
                continue;
            c = (unsigned char)buf[i];
            break;
        }
        default:
            break;
        }

        /* Head and chunk framing: one byte at a time, lines bounded. */
        if (++p->linelen > HP_MAX_LINE)
            FAIL("line too long");
        i++;

        switch (st) {
        case S_VERSION:
            if (c != (unsigned char)"HTTP/1."[p->linelen - 1])
                FAIL("bad status line (expected HTTP/1.x)");
            if (p->linelen == 7)
                st = S_MINOR;
            break;
        case S_MINOR:
            if (c < '0' || c > '9')
                FAIL("bad HTTP version");
            p->minor = (uint8_t)(c - '0');
            st = S_SP;
            break;
        case S_SP:
            if (c != ' ')
                FAIL("bad status line (expected a space after the version)");
            st = S_CODE;
            break;
        case S_CODE:
            if (c < '0' || c > '9')
                FAIL("bad status code");
            p->status = (uint16_t)(p->status * 10 + (c - '0'));
            if (p->linelen == 12) {
                if (p->status < 100 || p->status > 599)
                    FAIL("status code out of range");
                st = S_AFTER_CODE;
            }
            break;
        case S_AFTER_CODE:
            if (c == ' ')
                st = S_REASON;
            else if (c == '\r')
                st = S_STATUS_LF;
            else
                FAIL("bad status code");
            break;
        case S_REASON:
            if (c == '\r')
                st = S_STATUS_LF;
            else if (!lex_field_char((char)c))
                FAIL("bad character in reason phrase");
            break;
        case S_STATUS_LF:
        case S_VALUE_LF:
            if (c != '\n')
                FAIL("bare CR in head");
            if (st == S_VALUE_LF) {
                if (end_header(p) < 0)
                    return -1;
                if (++p->nheaders > HP_MAX_HEADERS)
                    FAIL("too many header fields");
            } else {
                hs = i; /* the field lines start */
            }
            p->linelen = 0;
            st = S_LINE_START;
            break;
        case S_LINE_START:
            if (c == '\r') {
                if (spans)
                    head_span(p, buf, hs, i - 1);
                st = S_HEAD_LF;
                break;
            }
            if (c == ' ' || c == '\t')
                FAIL("obsolete line folding in header");
            if (!lex_tchar((char)c))
                FAIL("bad character in header name");
            /* Set-Cookie and Location only when asked for. */
            p->hdr_cand = (uint8_t)(0x7 | (p->sink ? 0x8 : 0) | (p->loc ? 0x10 : 0));
            p->namelen = 0;
            p->vlen = 0;
            p->hdr = H_NONE;
            st = S_NAME;
            /* fall through */
        case S_NAME:
            if (c == ':') {
                unsigned k;
                if (p->namelen == 0)
                    FAIL("empty header name");
                for (k = 0; k < 5; k++)
                    if ((p->hdr_cand & (1u << k)) && hdr_lens[k] == p->namelen)
                        p->hdr = (uint8_t)k;
                if (p->hdr == H_COOKIE)
                    p->sink_mark = p->sink_len;
                if (p->hdr == H_LOC) {
                    p->loc_len = 0;
                    p->loc_over = 0;
                }
                st = S_OWS;
                break;
            }
            if (!lex_tchar((char)c))
                FAIL(c == ' ' || c == '\t' ? "whitespace before colon in header" : "bad character in header name");
            if (p->hdr_cand) {
                unsigned k, lc = (unsigned)lex_lower(c), nk = p->loc ? 5 : p->sink ? 4 : 3;
                for (k = 0; k < nk; k++)
                    if ((p->hdr_cand & (1u << k)) &&
                        (p->namelen >= hdr_lens[k] || (unsigned char)hdr_names[k][p->namelen] != lc))
                        p->hdr_cand &= (uint8_t)~(1u << k);
            }
            p->namelen++;
            break;
        case S_OWS:
            if (c == ' ' || c == '\t')
                break;
            st = S_VALUE;
            /* fall through */
        case S_VALUE:
            if (c == '\r') {
                st = S_VALUE_LF;
                break;
            }
            if (!lex_field_char((char)c))
                FAIL("bad character in header value");
            if (p->hdr == H_LOC) {
                if (p->loc_len < p->loc_cap)
                    p->loc[p->loc_len++] = (char)c;
                else
                    p->loc_over = 1;
            } else if (p->hdr == H_COOKIE) {
                if (p->vlen != VAL_OVERFLOW && p->sink_len < p->sink_cap)
                    p->sink[p->sink_len++] = (char)c;
                else
                    p->vlen = VAL_OVERFLOW;
            } else if (p->hdr != H_NONE && p->vlen != VAL_OVERFLOW) {
                if (p->vlen < sizeof(p->val))
                    p->val[p->vlen++] = (char)c;
                else
                    p->vlen = VAL_OVERFLOW;
            }
            break;
        case S_HEAD_LF:
            if (c != '\n')
                FAIL("bare CR in head");
            st = end_head(p);
            if (st == S_DONE) {
                p->state = S_DONE;
                return (ssize_t)i;
            }
            p->linelen = 0;
            break;
        case S_CH_SIZE: {
            int v = hexval(c);
            if (v >= 0) {
                if (++p->namelen > 15)
                    FAIL("chunk size too large");
                p->remaining = p->remaining * 16 + (uint64_t)v;
                break;
            }
            if (p->namelen == 0)
                FAIL("bad chunk size");
            if (c == ';' || c == ' ' || c == '\t')
                st = S_CH_EXT;
            else if (c == '\r')
                st = S_CH_SIZE_LF;
            else
                FAIL("bad chunk size");
            break;
        }
        case S_CH_EXT:
            if (c == '\r')
                st = S_CH_SIZE_LF;
            else if (!lex_field_char((char)c))
                FAIL("bad character in chunk extension");
            break;
        case S_CH_SIZE_LF:
            if (c != '\n')
                FAIL("bad chunk size line");
            p->linelen = 0;
            st = p->remaining == 0 ? S_TR_START : S_CH_DATA;
            break;
        case S_CH_DATA_CR:
            if (c != '\r')
                FAIL("chunk longer than its size");
            st = S_CH_DATA_LF;
            break;
        case S_CH_DATA_LF:
            if (c != '\n')
                FAIL("chunk longer than its size");
            p->linelen = 0;
            p->namelen = 0;
            st = S_CH_SIZE;
            break;
        case S_TR_START:
            if (c == '\r') {
                st = S_TR_END_LF;
                break;
            }
            if (!lex_tchar((char)c))
                FAIL("bad trailer field");
            if (++p->nheaders > HP_MAX_HEADERS)
                FAIL("too many header fields");
            st = S_TR_LINE;
            break;
        case S_TR_LINE:
            if (c == '\r')
                st = S_TR_LF;
            else if (!lex_field_char((char)c))
                FAIL("bad character in trailer field");
            break;
        case S_TR_LF:
            if (c != '\n')
                FAIL("bare CR in trailer");
            p->linelen = 0;
            st = S_TR_START;
            break;
        case S_TR_END_LF:
            if (c != '\n')
                FAIL("bare CR in trailer");
            p->state = S_DONE;
            return (ssize_t)i;
        default:
            FAIL("internal parser state");
        }
    }
    if (spans && st >= S_LINE_START && st <= S_VALUE_LF)
        head_span(p, buf, hs, len);
    p->state = (uint8_t)st;
    return -2;
}

ssize_t http_parse_feed(struct hp *p, const char *buf, size_t len)
{
    return p->span ? feed(p, buf, len, 1) : feed(p, buf, len, 0);
}

int http_parse_eof(const struct hp *p)
{
    return p->state == S_BODY_EOF;
}

enum hp_close http_parse_close_reason(const struct hp *p)
{
    if (p->flags & HP_F_CLOSE)
        return HP_CLOSE_HEADER;
    if (p->flags & HP_F_FRAMING)
        return HP_CLOSE_FRAMING;
    /* RFC 9112 §9.3: HTTP/1.0 persists only with "keep-alive". */
    if (p->minor == 0 && !(p->flags & HP_F_KEEPALIVE))
        return HP_CLOSE_HTTP10;
    if (p->flags & HP_F_BODY_EOF)
        return HP_CLOSE_BODY_EOF;
    return HP_KEEP;
}

int http_parse_keepalive(const struct hp *p)
{
    return http_parse_close_reason(p) == HP_KEEP;
}
