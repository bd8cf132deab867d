/* A set of strings (open addressing, XXH3): for "seen already?" over thousands of paths. */
#ifndef UDFKIT_STRSET_H
#define UDFKIT_STRSET_H

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_strset {
    char **slots;
    size_t count, cap;
} udfkit_strset;

#define UDFKIT_STRSET_INIT {NULL, 0, 0}

/* Adds a copy of `s`; false where it was there already (or memory ran out). */
bool udfkit_strset_add(udfkit_strset *set, const char *s);
bool udfkit_strset_has(const udfkit_strset *set, const char *s);
void udfkit_strset_free(udfkit_strset *set);

#endif
