#include "base/strset.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

static size_t slot_of(char *const *slots, size_t cap, const char *s)
{
    size_t i = (size_t)XXH3_64bits(s, strlen(s)) & (cap - 1);
    while (slots[i] && strcmp(slots[i], s) != 0)
        i = (i + 1) & (cap - 1);
    return i;
}

static bool grow(udfkit_strset *set)
{
    size_t cap = set->cap ? 2 * set->cap : 64;
    char **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < set->cap; i++)
        if (set->slots[i])
            slots[slot_of(slots, cap, set->slots[i])] = set->slots[i];
    free(set->slots);
    set->slots = slots;
    set->cap = cap;
    return true;
}

bool udfkit_strset_add(udfkit_strset *set, const char *s)
{
    if (2 * (set->count + 1) > set->cap && !grow(set))
        return false;
    size_t i = slot_of(set->slots, set->cap, s);
    if (set->slots[i])
        return false;
    if (!(set->slots[i] = strdup(s)))
        return false;
    set->count++;
    return true;
}

bool udfkit_strset_has(const udfkit_strset *set, const char *s)
{
    return set->cap && set->slots[slot_of(set->slots, set->cap, s)] != NULL;
}

void udfkit_strset_free(udfkit_strset *set)
{
    for (size_t i = 0; i < set->cap; i++)
        free(set->slots[i]);
    free(set->slots);
    *set = (udfkit_strset)UDFKIT_STRSET_INIT;
}
