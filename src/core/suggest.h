/*
 * "Did you mean": the word a user most likely meant, of the ones a
 * command, an option table or the inventory knows, for the messages that
 * refuse a misspelt one ("ping-count": did you mean "ping_count"?).
 */
#ifndef NETPROF_SUGGEST_H
#define NETPROF_SUGGEST_H

#include <stddef.h>

/*
 * Of the n words (NULL ones skipped), the nearest to word by edit
 * distance (insertions, deletions, substitutions and swaps of two
 * neighbours; a case difference costs nothing), if it is near enough to
 * be a slip: at most a third of the word's length, at least 1, at most
 * 3. NULL when none is.
 */
const char *suggest_nearest(const char *word, const char *const *words,
    size_t n);

/* The edit distance itself (capped at 64 bytes of either word). */
size_t suggest_distance(const char *a, const char *b);

#endif
