/*
 * What a metric means on the heatmap: its unit, whether lower or higher is
 * better (latency kinds: lower; throughput: higher), the upstream default
 * metric of each kind, and the colour scale. The page's script applies the
 * same rules to the views it switches to, so keep page.js (the page's
 * script) in step with heatmap_badness() and heatmap_color().
 */
#include <math.h>
#include <string.h>

#include "heatmap.h"
#include "util.h"

const char *
heatmap_default_metric(const char *kind)
{
	if (strcmp(kind, "ping") == 0)
		return "avg";
	if (strcmp(kind, "iperf3") == 0 || strcmp(kind, "throughput") == 0)
		return "mbps";
	if (strcmp(kind, "libp2p_ping") == 0 || strcmp(kind, "latency") == 0)
		return "p50_ms";
	return "";
}

/*
 * The smallest difference that earns a colour, by unit: a millisecond of
 * round trip (below that, queueing and timer noise on any real link), a
 * whole ICMP RTT of overlay cost, a tenth of the baseline's throughput, a
 * percent of loss, one sample. Relative units (Mbit/s, bytes) rely on
 * HEATMAP_SPAN_REL alone.
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
heatmap_metric_describe(const char *name, struct hm_metric *m)
{
	static const char *const ms_names[] = {
		"min", "avg", "max", "jitter", "p50", "p95", "mdev", "stddev",
		NULL
	};
	size_t i;

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

void
heatmap_scale_span(const struct hm_metric *m, double *lo, double *hi)
{
	double need = HEATMAP_SPAN_REL * fmax(fabs(*lo), fabs(*hi));

	if (need < m->span_min)
		need = m->span_min;
	if (*hi - *lo >= need)
		return;
	if (m->higher_better)
		*lo = *hi - need;
	else
		*hi = *lo + need;
}

double
heatmap_badness(double value, double lo, double hi, int higher_better,
    int use_log)
{
	double t;

	if (isnan(value) || !(hi > lo))
		return 0;
	if (use_log && lo > 0 && value > 0)
		t = (log(value) - log(lo)) / (log(hi) - log(lo));
	else
		t = (value - lo) / (hi - lo);
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return higher_better ? 1 - t : t;
}

void
heatmap_color(double badness, unsigned char rgb[3])
{
	static const unsigned char stops[3][3] = {
		{ 26, 152, 80 },	/* green: best */
		{ 254, 224, 139 },	/* yellow */
		{ 215, 48, 39 },	/* red: worst */
	};
	const unsigned char *a, *b;
	double t;
	int i;

	if (isnan(badness) || badness < 0)
		badness = 0;
	if (badness > 1)
		badness = 1;
	if (badness <= 0.5) {
		a = stops[0];
		b = stops[1];
		t = badness * 2;
	} else {
		a = stops[1];
		b = stops[2];
		t = (badness - 0.5) * 2;
	}
	for (i = 0; i < 3; i++)
		rgb[i] = (unsigned char)lround(a[i] + (b[i] - a[i]) * t);
}
