#include "base/text.h"

#include <stdlib.h>
#include <string.h>

size_t udfkit_edit_distance(const char *a, size_t alen, const char *b, size_t limit)
{
    size_t blen = strlen(b);
    if ((alen > blen ? alen - blen : blen - alen) >= limit)
        return limit;
    size_t *row = malloc((blen + 1) * sizeof *row);
    if (!row)
        return limit;
    for (size_t j = 0; j <= blen; j++)
        row[j] = j;
    for (size_t i = 1; i <= alen; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    size_t d = row[blen];
    free(row);
    return d < limit ? d : limit;
}

const char *udfkit_nearest(const char *word, const char *const *candidates, size_t n)
{
    size_t len = strlen(word), most = (len + 2) / 3;
    if (most < 1)
        most = 1;
    if (most > 3)
        most = 3;
    const char *best = NULL;
    size_t best_d = most + 1;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i] || strcmp(candidates[i], word) == 0)
            continue;
        size_t d = udfkit_edit_distance(word, len, candidates[i], best_d);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}
