/*
 * Diagnosis: what is wrong, and where. A model over the matrix explains
 * the set of bad cells (failed, lossy, slow, narrow, or worse than an
 * older run) with the fewest, most likely causes, each at its place: a
 * host down, a host refusing a protocol, a host's own link, a site's
 * uplink, the path between two sites, one pair (both ways or one way), a
 * tool or setup failure, and the libp2p causes of the bench
 * documentation's "Interpreting results". Every bad cell is explained by
 * at most one finding; findings are ranked, each with its evidence, a
 * score and why, and what to try. Also the failures table: one row per
 * pair and kind with failed records.
 */
#ifndef NETPROF_DIAGNOSE_H
#define NETPROF_DIAGNOSE_H

#include <stddef.h>
#include <stdio.h>

#include "diagnose_findings.h"
#include "matrix.h"

/*
 * Diagnose hm (built and grouped), against old (built; NULL without
 * --compare). Findings ranked: severity, then score.
 */
int diagnose(const struct matrix *hm, const struct matrix *old,
    struct diagnosis *dx);
void diagnose_free(struct diagnosis *dx);
/* The first finding of a rule, or NULL. */
const struct finding *diagnose_find(const struct diagnosis *dx,
    const char *rule);

/* The worst severity of the findings; DX_SEV_NONE if none. */
enum dx_severity diagnose_worst(const struct diagnosis *dx);
/* The largest times-worse of the findings (INFINITY: failed since). */
double diagnose_most_worse(const struct diagnosis *dx);

struct failure_row {
	const struct matrix_kind *kind;
	size_t src, tgt;
	const struct matrix_cell *cell;	/* count, nfail, last_failed */
};

/* Every (kind, source, target) with a failed record, in matrix order. */
int diagnose_failures(const struct matrix *hm, struct failure_row **rows,
    size_t *nrows);

#endif
