/*
 * The diagnosis as an exit status, for CI jobs and cron: --fail-on
 * SEVERITY (heatmap, collect and bench) makes a run exit 3 when a finding
 * at or above it exists, --fail-on-worse FACTOR (heatmap --compare) when
 * a finding got that many times worse than the old run. collect and bench
 * read back the records they wrote and judge them here.
 */
#ifndef NETPROF_DIAGNOSE_GATE_H
#define NETPROF_DIAGNOSE_GATE_H

#include <stddef.h>
#include <stdio.h>

#include "diagnose.h"
#include "option.h"

/* --fail-on's field: an int, enum dx_severity (DX_SEV_NONE: not given). */
struct diagnose_gate_options {
	int fail_on;
};

/* The block of --fail-on, for collect's and bench's tables. */
extern const struct option_spec diagnose_gate_specs[];

/* --fail-on's parser (OPTION_CUSTOM): an int field. */
int diagnose_gate_parse(const char *arg, void *field);

/*
 * Whether dx fails the gate: a finding at or above fail_on (DX_SEV_NONE:
 * none does), or (worse > 0) one got at least worse times worse. Each
 * such finding is said on f, one line each, most likely first.
 */
int diagnose_gate_judge(const struct matrix *hm, const struct diagnosis *dx,
    enum dx_severity fail_on, double worse, FILE *f);

struct inventory;

/*
 * collect's and bench's --fail-on: read the run's files (nfiles), group
 * the hosts by the inventory's sites (as heatmap --config does), diagnose
 * and judge. *failed set; 0, or an error (reported).
 */
int diagnose_gate_files(const char *const *files, size_t nfiles,
    const struct inventory *inv, enum dx_severity fail_on, int *failed);

#endif
