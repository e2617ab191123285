/* suggest.c - the nearest name to a mistyped word (Damerau's optimal
 * string alignment distance), for "did you mean" in errors. */
#include "suggest.h"

#include <ctype.h>
#include <string.h>

#define SUGGEST_MAX 64 /* longer words are no option names: counted as far */

unsigned suggest_distance(const char *a, const char *b)
{
    /* Three rows of the dynamic programme: the one before, this one's and
     * the one before that (for a swap of two neighbours). */
    unsigned rows[3][SUGGEST_MAX + 1];
    size_t la = strlen(a), lb = strlen(b), i, j;
    if (la > SUGGEST_MAX || lb > SUGGEST_MAX)
        return (unsigned)-1;
    for (j = 0; j <= lb; j++)
        rows[0][j] = (unsigned)j;
    for (i = 1; i <= la; i++) {
        unsigned *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
        cur[0] = (unsigned)i;
        for (j = 1; j <= lb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            unsigned d = prev[j - 1] + (ca != cb);
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == cb &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
        }
    }
    return rows[la % 3][lb];
}

void suggest_init(struct suggest *s, const char *word)
{
    size_t n = strlen(word);
    s->word = word;
    s->best = NULL;
    /* The most edits a typo makes, plus one: a name must come nearer. */
    s->dist = (n <= 4 ? 1 : n <= 8 ? 2 : 3) + 1;
}

void suggest_offer(struct suggest *s, const char *name)
{
    unsigned d = suggest_distance(s->word, name);
    if (d < s->dist) {
        s->best = name;
        s->dist = d;
    }
}
