/* cookie.c - a connection's cookie jar. See cookie.h. */
#include "cookie.h"
#include "http_lex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* s[0..n) without blanks at both ends. */
static void trim(const char **s, size_t *n)
{
    while (*n && lex_ows(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && lex_ows((*s)[*n - 1]))
        (*n)--;
}

static void cookie_remove(struct jar *j, uint16_t k)
{
    /* Compact the text: the entry's bytes go, later ones move down. */
    struct jar_entry *e = &j->e[k];
    uint16_t len = (uint16_t)(e->nlen + e->vlen + e->plen), off = e->off, i;
    memmove(j->text + off, j->text + off + len, (size_t)(j->used - off - len));
    j->used = (uint16_t)(j->used - len);
    for (i = 0; i < j->n; i++)
        if (j->e[i].off > off)
            j->e[i].off = (uint16_t)(j->e[i].off - len);
    j->e[k] = j->e[--j->n];
}

/* "Expires" in the RFC 1123 form servers send (§5.1.1 accepts more; this
 * is what they use) into *t. Returns 0, or -1 when it cannot be read (the
 * epoch is a date: what a cleared cookie carries). */
static int parse_date(const char *s, size_t n, time_t *t)
{
    char b[64];
    struct tm tm;
    const char *end;
    if (n >= sizeof(b))
        return -1;
    memcpy(b, s, n);
    b[n] = '\0';
    memset(&tm, 0, sizeof(tm));
    end = strptime(b, "%a, %d %b %Y %H:%M:%S", &tm);
    if (end == NULL)
        end = strptime(b, "%a, %d-%b-%Y %H:%M:%S", &tm);
    if (end == NULL)
        return -1;
    *t = timegm(&tm);
    return 0;
}

/* Max-Age's delta-seconds (§5.2.2): an optional '-' and digits, or -1.
 * A value past what time_t holds saturates instead of overflowing. */
static int parse_max_age(const char *s, size_t n, int64_t *sec)
{
    size_t i = s[0] == '-';
    int64_t v = 0;
    if (n == i)
        return -1;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v > (INT64_MAX - 9) / 10 ? INT64_MAX : v * 10 + (s[i] - '0');
    }
    *sec = s[0] == '-' ? -v : v;
    return 0;
}

/* now + sec, at most the latest time (§5.2.2: "the latest representable
 * date"). */
static time_t add_clamped(time_t now, int64_t sec)
{
    const time_t latest = (time_t)INT64_MAX;
    return sec > (int64_t)(latest - now) ? latest : now + (time_t)sec;
}

/* §5.2 of RFC 6265bis: a Set-Cookie with a control byte other than HTAB
 * is ignored whole (it could never be sent back in a Cookie field). */
static int has_ctl(const char *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (!lex_field_char(v[i]))
            return 1;
    return 0;
}

void cookie_set(struct jar *j, const char *v, size_t n, const char *request_path, size_t rplen, time_t now)
{
    const char *semi = memchr(v, ';', n), *eq, *name, *val, *path = NULL;
    size_t pair = semi ? (size_t)(semi - v) : n, nlen, vlen, plen = 0, rest;
    time_t expires = 0, max_age_at = 0, expires_at = 0;
    int max_age_seen = 0, expires_seen = 0, secure = 0, drop;
    uint16_t k;

    if (has_ctl(v, n))
        return;
    eq = memchr(v, '=', pair);
    if (eq == NULL)
        return; /* §5.2: no '=' in the pair: ignored */
    name = v;
    nlen = (size_t)(eq - v);
    val = eq + 1;
    vlen = pair - nlen - 1;
    trim(&name, &nlen);
    trim(&val, &vlen);
    if (nlen == 0)
        return;
    /* The attributes. */
    rest = semi ? n - pair - 1 : 0;
    while (semi && rest) {
        const char *a = semi + 1, *next = memchr(a, ';', rest), *aeq;
        size_t alen = next ? (size_t)(next - a) : rest, an, avl;
        const char *av;
        aeq = memchr(a, '=', alen);
        an = aeq ? (size_t)(aeq - a) : alen;
        av = aeq ? aeq + 1 : a + alen;
        avl = aeq ? alen - an - 1 : 0;
        {
            const char *an_s = a;
            trim(&an_s, &an);
            trim(&av, &avl);
            int64_t sec;
            time_t t;
            /* A value that cannot be read leaves the attribute out (§5.2.1,
             * §5.2.2); the last of each kind counts. */
            if (an == 7 && strncasecmp(an_s, "max-age", 7) == 0 && avl && parse_max_age(av, avl, &sec) == 0) {
                max_age_seen = 1;
                max_age_at = sec <= 0 ? 0 : add_clamped(now, sec);
            } else if (an == 7 && strncasecmp(an_s, "expires", 7) == 0 && parse_date(av, avl, &t) == 0) {
                expires_seen = 1;
                expires_at = t;
            } else if (an == 4 && strncasecmp(an_s, "path", 4) == 0 && avl && av[0] == '/') {
                path = av;
                plen = avl;
            } else if (an == 6 && strncasecmp(an_s, "secure", 6) == 0) {
                secure = 1;
            }
        }
        semi = next;
        rest = next ? rest - alen - 1 : 0;
    }
    /* §5.3 step 3: Max-Age wins over Expires, wherever each stands; an
     * expiry not after now removes the cookie. */
    if (max_age_seen) {
        drop = max_age_at == 0;
        expires = max_age_at;
    } else if (expires_seen) {
        drop = expires_at <= now;
        expires = drop ? 0 : expires_at;
    } else {
        drop = 0;
    }
    if (path == NULL) {
        /* §5.1.4: the default path, the request's up to its last '/'. */
        size_t q = 0, last = 0;
        while (q < rplen && request_path[q] != '?') {
            if (request_path[q] == '/')
                last = q;
            q++;
        }
        path = last ? request_path : "/";
        plen = last ? last : 1;
    }
    /* The same name and path replaces the cookie (§5.3 step 11). */
    for (k = 0; k < j->n; k++) {
        const struct jar_entry *e = &j->e[k];
        if (e->nlen == nlen && e->plen == plen && memcmp(j->text + e->off, name, nlen) == 0 &&
            memcmp(j->text + e->off + e->nlen + e->vlen, path, plen) == 0) {
            cookie_remove(j, k);
            break;
        }
    }
    if (drop || j->n == JAR_MAX || j->used + nlen + vlen + plen > JAR_TEXT)
        return;
    {
        struct jar_entry *e = &j->e[j->n++];
        e->off = j->used;
        e->nlen = (uint16_t)nlen;
        e->vlen = (uint16_t)vlen;
        e->plen = (uint16_t)plen;
        e->secure = (uint8_t)secure;
        e->expires = expires;
        memcpy(j->text + j->used, name, nlen);
        memcpy(j->text + j->used + nlen, val, vlen);
        memcpy(j->text + j->used + nlen + vlen, path, plen);
        j->used = (uint16_t)(j->used + nlen + vlen + plen);
    }
}

/* §5.1.4: the cookie path is a prefix of the request path, ending at a '/'
 * or at the end of one of them. */
static int path_match(const char *cp, size_t cn, const char *rp, size_t rn)
{
    size_t q = 0;
    while (q < rn && rp[q] != '?')
        q++;
    if (cn > q || memcmp(cp, rp, cn) != 0)
        return 0;
    return cn == q || cp[cn - 1] == '/' || rp[cn] == '/';
}

size_t cookie_header(const struct jar *j, const char *path, size_t plen, int https, time_t now, char *out)
{
    size_t o = 0;
    uint16_t k;
    for (k = 0; j && k < j->n; k++) {
        const struct jar_entry *e = &j->e[k];
        if ((e->expires && e->expires <= now) || (e->secure && !https) ||
            !path_match(j->text + e->off + e->nlen + e->vlen, e->plen, path, plen))
            continue;
        if (o) {
            memcpy(out + o, "; ", 2);
            o += 2;
        }
        memcpy(out + o, j->text + e->off, e->nlen);
        o += e->nlen;
        out[o++] = '=';
        memcpy(out + o, j->text + e->off + e->nlen, e->vlen);
        o += e->vlen;
    }
    return o;
}
