/*
 * The diagnosis as an exit status (diagnose_gate.h): --fail-on and
 * --fail-on-worse judged, the findings that decide said on stderr so a
 * CI job's log tells why it failed; collect and bench judge the records
 * they have just written the way heatmap would.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "diagnose_gate.h"
#include "matrix_sites.h"
#include "inventory.h"
#include "log.h"

const struct option_spec diagnose_gate_specs[] = {
	{ .name = "fail-on", .type = OPTION_CUSTOM,
	  .offset = offsetof(struct diagnose_gate_options, fail_on),
	  .arg = "SEVERITY", .parse = diagnose_gate_parse,
	  .what = "error, warning or info",
	  .help = "exit 3 when the diagnosis of the run has a finding\n"
	  "at or above SEVERITY (error, warning or info), for CI" },
	{ .name = NULL }
};

int
diagnose_gate_parse(const char *arg, void *field)
{
	enum dx_severity s = diagnose_severity_parse(arg);

	if (s == DX_SEV_NONE)
		return NP_ERR_USAGE;
	*(int *)field = (int)s;
	return 0;
}

/* A finding's line, what may not reach a terminal (from hostile names)
 * as \xNN, as in every message. */
static void
say(FILE *f, const struct finding *x, size_t rank)
{
	fprintf(f, "netprof: finding %zu [%s] ", rank,
	    diagnose_severity_name(x->severity));
	if (x->title != NULL)
		log_fputs_safe(x->title, f);
	if (x->worse > 0)
		fprintf(f, isinf(x->worse) ? " (failed since the old run)" :
		    " (%.2fx worse than the old run)", x->worse);
	fputc('\n', f);
}

int
diagnose_gate_judge(const struct matrix *hm, const struct diagnosis *dx,
    enum dx_severity fail_on, double worse, FILE *f)
{
	size_t i, hits = 0;

	(void)hm;
	for (i = 0; i < dx->nfindings; i++) {
		const struct finding *x = &dx->findings[i];

		if ((fail_on != DX_SEV_NONE && x->severity >= fail_on) ||
		    (worse > 0 && x->worse >= worse)) {
			if (f != NULL)
				say(f, x, i + 1);
			hits++;
		}
	}
	return hits > 0;
}

int
diagnose_gate_files(const char *const *files, size_t nfiles,
    const struct inventory *inv, enum dx_severity fail_on, int *failed)
{
	struct matrix *hm;
	struct diagnosis dx;
	size_t i;
	int rc = 0;

	*failed = 0;
	memset(&dx, 0, sizeof dx);
	if ((hm = matrix_new()) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < nfiles && rc == 0; i++)
		rc = matrix_read(hm, files[i], 0);
	for (i = 0; inv != NULL && i < inv->n_machines && rc == 0; i++)
		if (inv->machines[i].site != NULL)
			rc = matrix_sites_hint(hm, inv->machines[i].name,
			    inv->machines[i].site);
	if (rc == 0 && (rc = matrix_overlay_build(hm, MATRIX_LATEST, NULL)) ==
	    NP_ERR_NOT_FOUND)
		rc = 0;		/* no records: nothing to judge */
	if (rc == 0 && (rc = matrix_sites_group(hm, MATRIX_GROUP_AUTO,
	    MATRIX_GROUP_RTT_MS)) == 0 &&
	    (rc = diagnose(hm, NULL, &dx)) == 0) {
		*failed = diagnose_gate_judge(hm, &dx, fail_on, 0, stderr);
		if (*failed)
			log_error("the diagnosis has a finding at or above "
			    "--fail-on %s (netprof heatmap --input FILE --text "
			    "shows its evidence)", diagnose_severity_name(fail_on));
	}
	if (rc != 0 && rc != NP_ERR_NOMEM && rc != NP_ERR_BUDGET)
		log_error("--fail-on: could not read the run's records back "
		    "(%s)", error_string(rc));
	diagnose_free(&dx);
	matrix_free(hm);
	return rc;
}
