/* backlog.c - due requests waiting for a free connection, oldest first,
 * each keeping its due time. See schedule.h. */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

int backlog_push(struct backlog *b, uint64_t due)
{
    if (b->len == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 1024, i;
        uint64_t *t = malloc(cap * sizeof(*t));
        if (t == NULL)
            return -1;
        for (i = 0; i < b->len; i++)
            t[i] = b->t[(b->head + i) % b->cap];
        free(b->t);
        b->t = t;
        b->head = 0;
        b->cap = cap;
    }
    b->t[(b->head + b->len) % b->cap] = due;
    b->len++;
    return 0;
}

uint64_t backlog_peek(const struct backlog *b)
{
    return b->t[b->head];
}

void backlog_pop(struct backlog *b)
{
    b->head = (b->head + 1) % b->cap;
    b->len--;
}

void backlog_free(struct backlog *b)
{
    free(b->t);
    memset(b, 0, sizeof(*b));
}
