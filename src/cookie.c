/* cookie.c - a connection's cookie jar. See cookie.h. */
#include "cookie.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int ows(char c)
{
    return c == ' ' || c == '\t';
}

/* s[0..n) without blanks at both ends. */
static void trim(const char **s, size_t *n)
{
    while (*n && ows(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && ows((*s)[*n - 1]))
        (*n)--;
}

static void jar_remove(struct jar *j, uint16_t k)
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
 * is what they use). Returns 0 when it cannot be read. */
static time_t parse_date(const char *s, size_t n)
{
    char b[64];
    struct tm tm;
    const char *end;
    if (n >= sizeof(b))
        return 0;
    memcpy(b, s, n);
    b[n] = '\0';
    memset(&tm, 0, sizeof(tm));
    end = strptime(b, "%a, %d %b %Y %H:%M:%S", &tm);
    if (end == NULL)
        end = strptime(b, "%a, %d-%b-%Y %H:%M:%S", &tm);
    return end ? timegm(&tm) : 0;
}

void jar_set(struct jar *j, const char *v, size_t n, const char *request_path, size_t rplen, time_t now)
{
    const char *semi = memchr(v, ';', n), *eq, *name, *val, *path = NULL;
    size_t pair = semi ? (size_t)(semi - v) : n, nlen, vlen, plen = 0, rest;
    time_t expires = 0;
    int max_age_seen = 0, secure = 0, drop = 0;
    uint16_t k;

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
            if (an == 7 && strncasecmp(an_s, "max-age", 7) == 0 && avl) {
                long long sec = strtoll(av, NULL, 10);
                max_age_seen = 1;
                if (sec <= 0)
                    drop = 1;
                else
                    expires = now + (time_t)sec;
            } else if (an == 7 && strncasecmp(an_s, "expires", 7) == 0 && !max_age_seen) {
                time_t t = parse_date(av, avl);
                if (t && t <= now)
                    drop = 1;
                else if (t)
                    expires = t;
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
            jar_remove(j, k);
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

size_t jar_header(const struct jar *j, const char *path, size_t plen, int https, time_t now, char *out)
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
