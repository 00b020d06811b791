/*
 * Sites on the heatmap: which hosts stand together. From machines.json's
 * `site` (given with --config, or kept in bench's run.json), else found by
 * clustering the measured round trips (average linkage on the ICMP ping
 * matrix, else libp2p_ping's). The hosts are then reordered, group by
 * group, and each pair of groups gets a summary (median, worst pair,
 * failed count).
 */
#ifndef NETPROF_MATRIX_SITES_H
#define NETPROF_MATRIX_SITES_H

#include <stddef.h>

#include "matrix.h"

enum matrix_sites_group_by {
	MATRIX_GROUP_AUTO = 0,	/* site if every host has one, else rtt if
				 * that finds more than one cluster and
				 * not every host alone */
	MATRIX_GROUP_SITE,
	MATRIX_GROUP_RTT,
	MATRIX_GROUP_NONE
};

/* Hosts whose average round trip is at most this (ms) form one site. */
#define MATRIX_GROUP_RTT_MS 5.0
/*
 * More groups than this make no site x site table on the page (a table
 * of 1,000 lone hosts is a megabyte of cells), and found clusters (not
 * asked for) say nothing about sites.
 */
#define MATRIX_SITES_MAX 64
/* What a host without a site is grouped as under --group-by site. */
#define MATRIX_NO_SITE "(no site)"

/*
 * Average-linkage clustering of n items: dist is n x n (row-major; NAN
 * where unknown, the mean of dist[i][j] and dist[j][i] where both are
 * known). Two clusters merge while the average of the known distances
 * between their members is at most threshold; clusters with no known
 * distance between them never merge. group[i] is set to i's cluster,
 * numbered by the order of their first member; *ngroups to their count.
 */
int matrix_sites_cluster(const double *dist, size_t n, double threshold,
    size_t *group, size_t *ngroups);

/* Remember host's site (from --config); the first hint for a host wins. */
int matrix_sites_hint(struct matrix *hm, const char *host, const char *site);

/*
 * After matrix_overlay_build(): decide each host's group (by site hints and
 * run.json sites, or clustering with threshold ms) and reorder the hosts,
 * and every kind's cells, group by group. Sets group_by to what was used.
 */
int matrix_sites_group(struct matrix *hm, enum matrix_sites_group_by by,
    double threshold);

/* One site pair of a kind's metric. */
struct site_cell {
	size_t npairs;		/* host pairs (self pairs left out) */
	size_t nvalues, nfailed;
	double median;		/* of the values; NAN if none */
	double worst;		/* NAN if none */
	size_t worst_src, worst_tgt;
};

/* ngroups x ngroups summary of metric of kind; *out is allocated. */
int matrix_sites_summary(const struct matrix *hm, const struct matrix_kind *k,
    size_t metric, struct site_cell **out);

#endif
