/*
 * --hosts and --exclude on a loaded inventory (inventory.h's
 * inventory_select): the lists expanded as pdsh writes them (hostlist.h),
 * @SITE, and what matches nothing said once with what there is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hostlist.h"
#include "inventory.h"
#include "suggest.h"
#include "util.h"

/* "a, b, c": the names (or the sites) of the inventory, for messages;
   at most the first 12. */
static char *
name_list(const struct inventory *inv, int sites)
{
	struct buf b = { 0 };
	size_t i, j, shown = 0;
	const char *w;

	for (i = 0; i < inv->n_machines; i++) {
		w = sites ? inv->machines[i].site : inv->machines[i].name;
		if (w == NULL)
			continue;
		for (j = 0; sites && j < i; j++)	/* a site once */
			if (inv->machines[j].site != NULL &&
			    strcmp(inv->machines[j].site, w) == 0)
				break;
		if (sites && j < i)
			continue;
		if (shown++ == 12) {
			buf_printf(&b, ", ... (%zu machines)", inv->n_machines);
			break;
		}
		buf_printf(&b, "%s%s%s", shown > 1 ? ", " : "", sites ? "@" :
		    "", w);
	}
	if (b.data == NULL)
		return strdup(sites ? "none (no machine has a \"site\")" : "");
	return b.data;
}

/* The nearest name of a machine, or "@" and a site, to word. */
static const char *
nearest_name(const struct inventory *inv, const char *word)
{
	const char **words = calloc(inv->n_machines + 1, sizeof *words);
	const char *found;
	size_t i;

	if (words == NULL)
		return NULL;
	for (i = 0; i < inv->n_machines; i++)
		words[i] = *word == '@' ? inv->machines[i].site :
		    inv->machines[i].name;
	found = suggest_nearest(*word == '@' ? word + 1 : word, words,
	    inv->n_machines);
	free(words);
	return found;
}

/* What a --hosts or --exclude name matched nothing of: said once. */
static int
no_match(const struct inventory *inv, const char *option, const char *name,
    const char *list, char **cause)
{
	const char *near = nearest_name(inv, name);
	char *valid = name_list(inv, *name == '@'), from[300] = "";

	if (strcmp(name, list) != 0)
		snprintf(from, sizeof from, " (of \"%s\")", list);
	if (*name == '@')
		*cause = str_printf("%s: no machine of %s is in site \"%s\"%s%s"
		    "%s%s; its sites: %s", option, inv->path, name + 1, from,
		    near != NULL ? "; did you mean \"@" : "", near != NULL ?
		    near : "", near != NULL ? "\"?" : "", valid != NULL ?
		    valid : "?");
	else
		*cause = str_printf("%s: no machine named \"%s\" in %s%s%s%s%s; "
		    "its machines: %s", option, name, inv->path, from,
		    near != NULL ? "; did you mean \"" : "", near != NULL ?
		    near : "", near != NULL ? "\"?" : "", valid != NULL ?
		    valid : "?");
	free(valid);
	return NP_ERR_NOT_FOUND;
}

/*
 * The names of a range (n[3-6]) that are not machines, said together:
 * the range and what it lacks, not the nearest name of each (n1 for n5
 * says nothing to whoever wrote n[3-6]).
 */
static int
range_lacks(const struct inventory *inv, const char *option,
    const char *list, const struct buf *lacking, size_t n_lacking,
    char **cause)
{
	char *valid = name_list(inv, 0);

	*cause = str_printf("%s: \"%s\" names %zu machine%s that %s not in "
	    "%s: %s; give the ones there (or add the rest to %s); its "
	    "machines: %s", option, list, n_lacking, n_lacking == 1 ? "" : "s",
	    n_lacking == 1 ? "is" : "are", inv->path, lacking->data,
	    inv->path, valid != NULL ? valid : "?");
	free(valid);
	return NP_ERR_NOT_FOUND;
}

/* Set keep[] to value for the machines list names (hostlist.h, @SITE). */
static int
mark_selected(const struct inventory *inv, const char *option,
    const char *list, char *keep, char value, char **cause)
{
	char **names = NULL, *why = NULL;
	struct machine *m;
	struct buf lacking = { 0 };
	size_t n = 0, i, k, n_lacking = 0;
	int r, any, range = strchr(list, '[') != NULL;

	if ((r = hostlist_expand(list, &names, &n, &why)) != 0) {
		if (r == NP_ERR_USAGE)
			*cause = str_printf("%s: %s; give names like "
			    "n1,n2, ranges like n[1-8,10] or a site like @zurich",
			    option, why != NULL ? why : list);
		free(why);
		return r;
	}
	if (n == 0) {
		*cause = str_printf("%s: no machine names given; use e.g. "
		    "%s %s", option, option, inv->machines[0].name);
		return NP_ERR_USAGE;
	}
	for (i = 0; i < n && r == 0; i++) {
		if (names[i][0] == '@') {
			for (k = 0, any = 0; k < inv->n_machines; k++)
				if (inv->machines[k].site != NULL &&
				    strcmp(inv->machines[k].site,
				    names[i] + 1) == 0) {
					keep[k] = value;
					any = 1;
				}
			if (!any)
				r = no_match(inv, option, names[i], list, cause);
		} else if ((m = inventory_find(inv, names[i])) != NULL)
			keep[m - inv->machines] = value;
		else if (range)
			r = buf_printf(&lacking, "%s%s", n_lacking++ > 0 ? ", " :
			    "", names[i]) < 0 ? NP_ERR_NOMEM : 0;
		else
			r = no_match(inv, option, names[i], list, cause);
	}
	if (r == 0 && n_lacking > 0)
		r = range_lacks(inv, option, list, &lacking, n_lacking, cause);
	buf_free(&lacking);
	hostlist_free(names, n);
	return r;
}

int
inventory_select(struct inventory *inv, const char *const *hosts,
    size_t n_hosts, const char *const *exclude, size_t n_exclude,
    char **cause)
{
	char *keep, *ignored = NULL;
	size_t i, n = 0;
	int r = 0;

	if (cause == NULL)
		cause = &ignored;
	*cause = NULL;
	if (n_hosts == 0 && n_exclude == 0)
		return 0;
	if ((keep = malloc(inv->n_machines + 1)) == NULL)
		return NP_ERR_NOMEM;
	memset(keep, n_hosts == 0, inv->n_machines + 1);
	for (i = 0; i < n_hosts && r == 0; i++)
		r = mark_selected(inv, "--hosts", hosts[i], keep, 1, cause);
	for (i = 0; i < n_exclude && r == 0; i++)
		r = mark_selected(inv, "--exclude", exclude[i], keep, 0, cause);
	if (r != 0)
		goto out;
	for (i = 0; i < inv->n_machines; i++)
		n += keep[i] != 0;
	if (n == 0) {
		*cause = str_printf("%s leave%s no machine of %s to run on",
		    n_hosts > 0 ? "--hosts and --exclude" : "--exclude",
		    n_hosts > 0 ? "" : "s", inv->path);
		r = NP_ERR_USAGE;
		goto out;
	}
	/* compact in inventory order; index follows the new position */
	n = 0;
	for (i = 0; i < inv->n_machines; i++) {
		if (!keep[i]) {
			inventory_machine_clear(&inv->machines[i]);
			continue;
		}
		if (n != i) {
			inv->machines[n] = inv->machines[i];
			memset(&inv->machines[i], 0, sizeof inv->machines[i]);
		}
		inv->machines[n].index = n;
		n++;
	}
	inv->n_machines = n;
out:
	free(keep);
	free(ignored);
	return r;
}
