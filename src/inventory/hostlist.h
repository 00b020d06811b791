/*
 * Host lists as pdsh, ClusterShell and Slurm write them: names separated
 * by commas, each with ranges in brackets, "n[1-8,10]" for n1 ... n8 and
 * n10, "n[01-16]" keeping the zeros ("n01"), several brackets in one name
 * as every combination ("rack[1-2]-n[1-2]": rack1-n1, rack1-n2,
 * rack2-n1, rack2-n2). --hosts, --exclude and a Slurm job's NodeList are
 * read by this one expander, so the same text means the same hosts in
 * each.
 */
#ifndef NETPROF_HOSTLIST_H
#define NETPROF_HOSTLIST_H

#include <stddef.h>

/* More names than this from one list is a mistake (n[1-99999999]). */
#define HOSTLIST_MAX 1000000

/*
 * The names of list, in its order (duplicates kept), as a new vector of
 * new strings (hostlist_free()). Items are trimmed of spaces; an empty
 * item is skipped. On a malformed list (an unclosed bracket, a range
 * backwards or of no digits, too many names) returns NP_ERR_USAGE with
 * *cause saying what is wrong and where ("n[3-1]: the range 3-1 goes
 * backwards").
 */
int hostlist_expand(const char *list, char ***names, size_t *n,
    char **cause);

void hostlist_free(char **names, size_t n);

#endif
