/*
 * The host list expander (hostlist.h). A list is split at the commas
 * outside brackets; each item is expanded bracket by bracket, the
 * rightmost varying fastest (as scontrol show hostnames lists them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hostlist.h"
#include "util.h"

struct names {
	char **v;
	size_t n, cap;
};

static int
names_add(struct names *ns, char *s)
{
	char **v;

	if (s == NULL)
		return NP_ERR_NOMEM;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap == 0 ? 16 : ns->cap * 2;
		if ((v = realloc(ns->v, ns->cap * sizeof *v)) == NULL) {
			free(s);
			return NP_ERR_NOMEM;
		}
		ns->v = v;
	}
	ns->v[ns->n++] = s;
	return 0;
}

void
hostlist_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; names != NULL && i < n; i++)
		free(names[i]);
	free(names);
}

/* A range's bound: its digits and their value; 0 if there are none. */
static int
bound(const char *s, size_t len, unsigned long *v, size_t *width)
{
	size_t i;

	if (len == 0 || len > 9)
		return 0;
	*v = 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		*v = *v * 10 + (unsigned long)(s[i] - '0');
	}
	/* "01": zeros kept, so its numbers are as wide as it */
	*width = s[0] == '0' && len > 1 ? len : 0;
	return 1;
}

/*
 * Expand item (len bytes) into ns: prefix, the first bracket's ranges
 * each followed by the rest expanded. prefix is what the names so far
 * begin with.
 */
static int
expand(const char *prefix, const char *item, size_t len, const char *whole,
    struct names *ns, char **cause)
{
	const char *open = memchr(item, '[', len), *close, *r, *end;
	unsigned long lo = 0, hi = 0, k;
	size_t wlo, whi, rlen, dash;
	char *head, *next;
	int rc = 0;

	if (open == NULL) {
		if (memchr(item, ']', len) != NULL) {
			*cause = str_printf("\"%s\": a ']' without its '['",
			    whole);
			return NP_ERR_USAGE;
		}
		return ns->n >= HOSTLIST_MAX ? NP_ERR_USAGE :
		    names_add(ns, str_printf("%s%.*s", prefix, (int)len, item));
	}
	if ((close = memchr(open, ']', len - (size_t)(open - item))) == NULL) {
		*cause = str_printf("\"%s\": a '[' without its ']'", whole);
		return NP_ERR_USAGE;
	}
	if ((head = str_printf("%s%.*s", prefix, (int)(open - item), item)) ==
	    NULL)
		return NP_ERR_NOMEM;
	for (r = open + 1; rc == 0 && r < close; r = end + 1) {
		end = memchr(r, ',', (size_t)(close - r));
		if (end == NULL)
			end = close;
		rlen = (size_t)(end - r);
		dash = strcspn(r, "-");
		if (dash > rlen)
			dash = rlen;
		if (!bound(r, dash, &lo, &wlo) || (dash < rlen &&
		    !bound(r + dash + 1, rlen - dash - 1, &hi, &whi))) {
			*cause = str_printf("\"%s\": \"%.*s\" is not a number or "
			    "a range of numbers (like 1-8 or 01-16)", whole,
			    (int)rlen, r);
			rc = NP_ERR_USAGE;
			break;
		}
		if (dash == rlen)
			hi = lo;
		if (hi < lo) {
			*cause = str_printf("\"%s\": the range %.*s goes "
			    "backwards", whole, (int)rlen, r);
			rc = NP_ERR_USAGE;
			break;
		}
		if (hi - lo >= HOSTLIST_MAX) {
			*cause = str_printf("\"%s\": %.*s is more than %d names",
			    whole, (int)rlen, r, HOSTLIST_MAX);
			rc = NP_ERR_USAGE;
			break;
		}
		for (k = lo; rc == 0 && k <= hi; k++) {
			if ((next = str_printf("%s%0*lu", head, (int)wlo, k)) ==
			    NULL) {
				rc = NP_ERR_NOMEM;
				break;
			}
			rc = expand(next, close + 1, len - (size_t)(close + 1 -
			    item), whole, ns, cause);
			free(next);
		}
	}
	if (rc == 0 && r == open + 1) {
		*cause = str_printf("\"%s\": an empty range []", whole);
		rc = NP_ERR_USAGE;
	}
	free(head);
	if (rc == NP_ERR_USAGE && *cause == NULL)
		*cause = str_printf("\"%s\" is more than %d names", whole,
		    HOSTLIST_MAX);
	return rc;
}

/*
 * How many names item (len bytes) expands to, HOSTLIST_MAX + 1 for more
 * than the limit; 0 when its brackets do not parse, which expand() then
 * says in its own words. A list over the limit is refused before one
 * name of it is made.
 */
static size_t
item_count(const char *item, size_t len)
{
	const char *open, *close, *r, *end, *stop = item + len;
	size_t total = 1, sum, rlen, dash, w;
	unsigned long lo, hi;

	for (open = memchr(item, '[', len); open != NULL; open = memchr(close,
	    '[', (size_t)(stop - close))) {
		if ((close = memchr(open, ']', (size_t)(stop - open))) == NULL)
			return 0;
		for (sum = 0, r = open + 1; r < close; r = end + 1) {
			if ((end = memchr(r, ',', (size_t)(close - r))) == NULL)
				end = close;
			rlen = (size_t)(end - r);
			if ((dash = strcspn(r, "-")) > rlen)
				dash = rlen;
			if (!bound(r, dash, &lo, &w))
				return 0;
			hi = lo;
			if (dash < rlen && (!bound(r + dash + 1, rlen - dash - 1,
			    &hi, &w) || hi < lo || hi - lo >= HOSTLIST_MAX))
				return 0;	/* expand() names the range */
			sum += hi - lo + 1;
			if (sum > HOSTLIST_MAX)
				sum = HOSTLIST_MAX + 1;
		}
		total = sum == 0 || total > (HOSTLIST_MAX + 1) / sum ?
		    (sum == 0 ? 0 : HOSTLIST_MAX + 1) : total * sum;
		if (total == 0 || total > HOSTLIST_MAX)
			return total;
	}
	return total;
}

int
hostlist_expand(const char *list, char ***names, size_t *n, char **cause)
{
	struct names ns = { 0 };
	const char *s = list, *end;
	size_t len, depth;
	char *item;
	int rc = 0;

	*names = NULL;
	*n = 0;
	*cause = NULL;
	while (*s != '\0') {
		/* the item: up to a comma outside brackets */
		for (end = s, depth = 0; *end != '\0'; end++) {
			if (*end == '[')
				depth++;
			else if (*end == ']' && depth > 0)
				depth--;
			else if (*end == ',' && depth == 0)
				break;
		}
		while (*s == ' ')
			s++;
		for (len = (size_t)(end - s); len > 0 && s[len - 1] == ' ';
		    len--)
			;
		if (len > 0) {
			if ((item = strndup(s, len)) == NULL)
				rc = NP_ERR_NOMEM;
			else if (item_count(item, len) > HOSTLIST_MAX - ns.n) {
				*cause = str_printf("\"%s\" is more than %d "
				    "names", item, HOSTLIST_MAX);
				rc = NP_ERR_USAGE;
			} else
				rc = expand("", item, len, item, &ns, cause);
			free(item);
			if (rc != 0)
				break;
		}
		s = *end == ',' ? end + 1 : end;
	}
	if (rc != 0) {
		hostlist_free(ns.v, ns.n);
		return rc;
	}
	*names = ns.v;
	*n = ns.n;
	return 0;
}
