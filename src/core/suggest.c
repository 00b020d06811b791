/*
 * The nearest word (suggest.h): the optimal string alignment distance
 * (Damerau's four edits, no substring edited twice), computed in three
 * rows of a small table.
 */
#include <ctype.h>
#include <string.h>

#include "suggest.h"

#define SUGGEST_MAX 64

size_t
suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, best, cost;
	size_t rows[3][SUGGEST_MAX + 1], *prev2 = rows[0], *prev = rows[1],
	    *cur = rows[2], *t;

	if (la > SUGGEST_MAX)
		la = SUGGEST_MAX;
	if (lb > SUGGEST_MAX)
		lb = SUGGEST_MAX;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			cost = tolower((unsigned char)a[i - 1]) ==
			    tolower((unsigned char)b[j - 1]) ? 0 : 1;
			best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (prev[j - 1] + cost < best)
				best = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *
suggest_nearest(const char *word, const char *const *words, size_t n)
{
	size_t i, d, best = (size_t)-1, limit = strlen(word) / 3;
	const char *found = NULL;

	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	for (i = 0; i < n; i++) {
		if (words[i] == NULL || strcmp(words[i], word) == 0)
			continue;
		d = suggest_distance(word, words[i]);
		if (d <= limit && d < best) {
			best = d;
			found = words[i];
		}
	}
	return found;
}
