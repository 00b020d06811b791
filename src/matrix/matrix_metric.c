/*
 * What a metric of the matrix means: its unit, whether lower or higher is
 * better, the smallest difference worth a colour, and each kind's default
 * metric, as the kind's row in the kinds' table (probe_kind.h) says; a
 * metric no row lists (another tool's, the derived kinds' ratios) is
 * described from its name, as the rows would describe it.
 */
#include <string.h>

#include "matrix.h"
#include "probe_kind.h"
#include "util.h"

const char *
matrix_default_metric(const char *kind)
{
	const struct probe_kind *k = probe_kind_find(kind);

	return k != NULL ? k->default_metric : "";
}

/*
 * The smallest difference that earns a colour, by unit: a millisecond of
 * round trip (below that, queueing and timer noise on any real link), a
 * whole ICMP RTT of overlay cost, a tenth of the baseline's throughput, a
 * percent of loss, one sample. Relative units (Mbit/s, bytes) rely on
 * the colour scale's relative span alone (heatmap.h).
 */
static double
span_min_of(const char *unit)
{
	static const struct { const char *unit; double min; } floors[] = {
		{ "ms", 1.0 }, { "x ICMP RTT", 1.0 }, { "x iperf3", 0.1 },
		{ "x worse", 1.0 },
		{ "%", 1.0 }, { "samples", 1.0 }, { "s", 0.1 },
	};
	size_t i;

	for (i = 0; i < sizeof floors / sizeof floors[0]; i++)
		if (strcmp(floors[i].unit, unit) == 0)
			return floors[i].min;
	return 0;
}

void
matrix_metric_describe(const char *kind, const char *name,
    struct matrix_metric *m)
{
	static const char *const ms_names[] = {
		"min", "avg", "max", "jitter", "p50", "p95", "mdev", "stddev",
		NULL
	};
	const struct probe_metric *pm = probe_kind_metric(
	    probe_kind_find(kind), name);
	size_t i;

	if (pm != NULL) {	/* its kind's row says */
		m->unit = pm->unit->text;
		m->higher_better = pm->unit->higher_better;
		m->label = m->higher_better ? "higher is better" :
		    "lower is better";
		m->span_min = pm->unit->span_min;
		return;
	}
	/* another tool's metric, a derived kind's ratio: by its name */
	m->higher_better = 0;
	m->unit = "";
	m->label = "lower is better";
	if (str_ends_with(name, "_x_worse")) {
		m->unit = "x worse";
	} else if (str_ends_with(name, "_x_rtt")) {
		m->unit = "x ICMP RTT";
	} else if (str_ends_with(name, "_x_iperf3")) {
		m->unit = "x iperf3";
		m->higher_better = 1;
	} else if (strstr(name, "mbps") != NULL) {
		m->unit = "Mbit/s";
		m->higher_better = 1;
	} else if (strcmp(name, "loss_pct") == 0) {
		m->unit = "%";
	} else if (strcmp(name, "failed_samples") == 0) {
		m->unit = "samples";
	} else if (strstr(name, "bytes") != NULL) {
		m->unit = "bytes";
		m->higher_better = 1;
	} else if (strcmp(name, "seconds") == 0 || str_ends_with(name, "_s")) {
		m->unit = "s";
	} else if (str_ends_with(name, "_ms")) {
		m->unit = "ms";
	} else {
		for (i = 0; ms_names[i] != NULL; i++)
			if (strcmp(name, ms_names[i]) == 0)
				m->unit = "ms";
	}
	if (m->higher_better)
		m->label = "higher is better";
	m->span_min = span_min_of(m->unit);
}

