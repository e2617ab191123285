/* The nearest name to a mistyped word: the distance itself (swaps count
 * one), and the cut-off past which nothing is suggested. */
#include "suggest.h"
#include "../t.h"

#include <string.h>

static void distances(void)
{
    CHECK(suggest_distance("", "") == 0);
    CHECK(suggest_distance("abc", "") == 3);
    CHECK(suggest_distance("conections", "connections") == 1); /* a letter left out */
    CHECK(suggest_distance("timout", "timeout") == 1);
    CHECK(suggest_distance("repaet", "repeat") == 1);          /* two neighbours swapped */
    CHECK(suggest_distance("Insecure", "insecure") == 0);      /* case ignored */
    CHECK(suggest_distance("kitten", "sitting") == 3);
    CHECK(suggest_distance("ca", "abc") == 3);                 /* optimal string alignment, not full Damerau */
    {
        char longw[100];
        memset(longw, 'a', sizeof(longw) - 1);
        longw[sizeof(longw) - 1] = '\0';
        CHECK(suggest_distance(longw, "a") == (unsigned)-1);
    }
}

static void nearest(void)
{
    struct suggest s;
    suggest_init(&s, "conections");
    suggest_offer(&s, "requests");
    suggest_offer(&s, "connections");
    suggest_offer(&s, "connect-timeout");
    CHECK(s.best && strcmp(s.best, "connections") == 0 && s.dist == 1);
    /* Short words: one edit at most. */
    suggest_init(&s, "rat");
    suggest_offer(&s, "rate");
    CHECK(s.best && strcmp(s.best, "rate") == 0);
    suggest_init(&s, "foo");
    suggest_offer(&s, "log");
    CHECK(s.best == NULL);
    /* The first of two as near is kept. */
    suggest_init(&s, "hdml");
    suggest_offer(&s, "html");
    suggest_offer(&s, "hdr");
    CHECK(s.best && strcmp(s.best, "html") == 0);
    suggest_init(&s, "verbose");
    suggest_offer(&s, "version");
    CHECK(s.best == NULL);
}

int main(void)
{
    T_RUN(distances);
    T_RUN(nearest);
    T_END("test_suggest");
}
