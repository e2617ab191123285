/* suggest.h - the name a mistyped word was meant to be: of the names
 * offered, the nearest by edit distance, when near enough to be a typo
 * ("--conections": did you mean --connections?). */
#ifndef RAFALE_SUGGEST_H
#define RAFALE_SUGGEST_H

struct suggest {
    const char *word;   /* as typed */
    const char *best;   /* the nearest name offered so far, or NULL */
    unsigned dist;      /* its distance */
};

/* The edits from a to b: letters inserted, deleted, changed, or two
 * neighbours swapped (each 1; case ignored). Long words count as far. */
unsigned suggest_distance(const char *a, const char *b);

/* Starts a search for word's nearest name. */
void suggest_init(struct suggest *s, const char *word);
/* Offers name: kept in s->best when nearer than the names before it and
 * near enough to be a typo (1 edit for a word of up to 4 letters, 2 up to
 * 8, 3 beyond: far enough for a slip, too near for an unrelated word). */
void suggest_offer(struct suggest *s, const char *name);

#endif
