/* Small text helpers for messages: how far two words are, and the nearest of several. */
#ifndef UDFKIT_TEXT_H
#define UDFKIT_TEXT_H

#include <stddef.h>

/* Levenshtein distance of a[0..alen) and b, counted up to `limit` (anything farther is
 * `limit`). */
size_t udfkit_edit_distance(const char *a, size_t alen, const char *b, size_t limit);

/* The candidate nearest to `word` within a distance of a third of its length, rounded up
 * (at least 1, at most 3: "ratoi" finds "ratio"), or NULL: the "did you mean" of a message. */
const char *udfkit_nearest(const char *word, const char *const *candidates, size_t n);

#endif
