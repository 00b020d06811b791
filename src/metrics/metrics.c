/*
 * The Prometheus text exposition of records: per pair and kind the latest
 * record's measurements in base units (RTTs in seconds, throughput in bytes
 * per second, loss as a ratio), whether its probe was ok, per host whether
 * it was reachable, the sweep's number, time and duration, and netprof's
 * build info, from the pair matrix (matrix.h). Each kind's row in the
 * kinds' table (probe_kind.h) names the gauges of its metrics and their
 * scale, so collect's, bench's and the heatmap's expositions are the
 * same.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "file.h"
#include "matrix.h"
#include "metrics.h"
#include "probe_kind.h"
#include "record_schema.h"
#include "utf8.h"

/*
 * A label value as the text format wants it: \ " and newline escaped, and
 * UTF-8 (Prometheus and promtool refuse the whole exposition for one
 * invalid byte) that may reach a terminal (heatmap --metrics writes it
 * on standard output): what utf8_shown() refuses, a byte that starts no
 * valid character, an escape, a C1 control, is U+FFFD.
 */
static int
put_value(struct buf *out, const char *s)
{
	char esc[2] = { '\\', 0 };
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n;

	while (left > 0) {
		if (*p == '\\' || *p == '"' || *p == '\n') {
			esc[1] = *p == '\n' ? 'n' : (char)*p;
			if (buf_append(out, esc, 2) != 0)
				return NP_ERR_NOMEM;
			n = 1;
		} else if (!utf8_shown(p, left, &n)) {
			if (buf_append(out, UTF8_REPLACEMENT,
			    sizeof UTF8_REPLACEMENT - 1) != 0)
				return NP_ERR_NOMEM;
		} else if (buf_append(out, p, n) != 0)
			return NP_ERR_NOMEM;
		p += n;
		left -= n;
	}
	return 0;
}

static int
put_label(struct buf *out, int first, const char *name, const char *value)
{
	if (buf_printf(out, "%s%s=\"", first ? "" : ",", name) != 0 ||
	    put_value(out, value) != 0 || buf_append(out, "\"", 1) != 0)
		return NP_ERR_NOMEM;
	return 0;
}

static int
put_header(struct buf *out, const char *name, const char *type,
    const char *help)
{
	return buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help,
	    name, type);
}

static int
put_number(struct buf *out, double v)
{
	if (isnan(v))
		return buf_printf(out, " NaN\n");
	if (isinf(v))
		return buf_printf(out, " %sInf\n", v > 0 ? "+" : "-");
	return buf_printf(out, " %.15g\n", v);
}

/* name{kind="..",source="..",target="..",source_site..} value */
static int
put_pair_sample(struct buf *out, const struct metrics_info *info,
    const char *name, const char *kind, const char *src, const char *tgt,
    const char *extra_name, const char *extra, double v)
{
	const char *ss = NULL, *ts = NULL;

	if (info->site != NULL) {
		ss = info->site(src, info->site_arg);
		ts = info->site(tgt, info->site_arg);
	}
	if (buf_printf(out, "%s{", name) != 0 ||
	    (kind != NULL && put_label(out, 1, "kind", kind) != 0) ||
	    put_label(out, kind == NULL, "source", src) != 0 ||
	    put_label(out, 0, "target", tgt) != 0 ||
	    (ss != NULL && put_label(out, 0, "source_site", ss) != 0) ||
	    (ts != NULL && put_label(out, 0, "target_site", ts) != 0) ||
	    (extra != NULL && put_label(out, 0, extra_name, extra) != 0) ||
	    buf_append(out, "}", 1) != 0 || put_number(out, v) != 0)
		return NP_ERR_NOMEM;
	return 0;
}

/* One gauge of a measured kind: a sample per pair whose latest was ok. */
static int
put_measurement(struct buf *out, const struct matrix *hm,
    const struct matrix_kind *k, const struct probe_metric *mm,
    const struct metrics_info *info)
{
	int m = matrix_find_metric(k, mm->name), header = 0;
	size_t s, t;

	if (m < 0)
		return 0;
	for (s = 0; s < hm->nhosts; s++)
		for (t = 0; t < hm->nhosts; t++) {
			const struct matrix_cell *c = matrix_cell_at(hm, k, s, t);

			if (c->state != CELL_VALUE || isnan(c->values[m]))
				continue;
			if (!header && put_header(out, mm->prom, "gauge",
			    mm->help) != 0)
				return NP_ERR_NOMEM;
			header = 1;
			if (put_pair_sample(out, info, mm->prom, NULL,
			    hm->hosts[s], hm->hosts[t], NULL, NULL,
			    c->values[m] * mm->unit->base) != 0)
				return NP_ERR_NOMEM;
		}
	return 0;
}

/* The pairs' probe state: ok 1/0, its time, and a failure's class. */
static int
put_probes(struct buf *out, const struct matrix *hm,
    const struct metrics_info *info, int which)
{
	static const char *const names[] = { "netprof_probe_ok",
	    "netprof_probe_timestamp_seconds", "netprof_probe_failure_info" };
	static const char *const helps[] = {
	    "1 if the pair's latest probe of the kind succeeded, 0 if it failed",
	    "When the pair's latest probe of the kind ended (Unix time)",
	    "The class of error of the pair's latest probe, when it failed" };
	size_t i, s, t;
	int header = 0;

	for (i = 0; i < hm->nkinds; i++) {
		const struct matrix_kind *k = &hm->kinds[i];

		if (k->derived)
			continue;
		for (s = 0; s < hm->nhosts; s++)
			for (t = 0; t < hm->nhosts; t++) {
				const struct matrix_cell *c = matrix_cell_at(hm, k,
				    s, t);
				const struct matrix_failure *r = c->last_failed;
				int ok = c->state == CELL_VALUE;
				int rc;

				if (c->count == 0 || (c->state != CELL_VALUE &&
				    c->state != CELL_FAILED))
					continue;
				if ((which == 1 && isnan(c->time)) ||
				    (which == 2 && ok))
					continue;
				if (!header && put_header(out, names[which],
				    "gauge", helps[which]) != 0)
					return NP_ERR_NOMEM;
				header = 1;
				if (which == 0)
					rc = put_pair_sample(out, info,
					    names[0], k->name, hm->hosts[s],
					    hm->hosts[t], NULL, NULL, ok);
				else if (which == 1)
					rc = put_pair_sample(out, info,
					    names[1], k->name, hm->hosts[s],
					    hm->hosts[t], NULL, NULL, c->time);
				else
					rc = put_pair_sample(out, info,
					    names[2], k->name, hm->hosts[s],
					    hm->hosts[t], "error_class",
					    r != NULL ? r->error_class :
					    "tool_failed", 1);
				if (rc != 0)
					return rc;
			}
	}
	return 0;
}

/*
 * A host is up when netprof reached it: one of its probes as source ran
 * (ok, or failed for a reason other than SSH not reaching or admitting
 * it). A host that is only ever a target is not judged.
 */
static int
put_hosts(struct buf *out, const struct matrix *hm,
    const struct metrics_info *info)
{
	size_t h, i, t;
	int header = 0;

	for (h = 0; h < hm->nhosts; h++) {
		int seen = 0, up = 0;
		const char *site = info->site != NULL ?
		    info->site(hm->hosts[h], info->site_arg) : NULL;

		for (i = 0; i < hm->nkinds && !up; i++) {
			const struct matrix_kind *k = &hm->kinds[i];

			if (k->derived)
				continue;
			for (t = 0; t < hm->nhosts && !up; t++) {
				const struct matrix_cell *c = matrix_cell_at(hm, k,
				    h, t);
				const char *cls;

				if (c->count == 0)
					continue;
				seen = 1;
				/* the latest's class, when it failed: the
				 * latest failure is the latest record then */
				cls = c->state == CELL_FAILED &&
				    c->last_failed != NULL ?
				    c->last_failed->error_class : NULL;
				up = c->state == CELL_VALUE || cls == NULL ||
				    (strcmp(cls, "unreachable") != 0 &&
				    strcmp(cls, "auth") != 0);
			}
		}
		if (!seen)
			continue;
		if (!header && put_header(out, "netprof_host_up", "gauge",
		    "1 if netprof reached the host over SSH in the sweep, "
		    "0 if not") != 0)
			return NP_ERR_NOMEM;
		header = 1;
		if (buf_printf(out, "netprof_host_up{") != 0 ||
		    put_label(out, 1, "host", hm->hosts[h]) != 0 ||
		    (site != NULL && put_label(out, 0, "site", site) != 0) ||
		    buf_append(out, "}", 1) != 0 || put_number(out, up) != 0)
			return NP_ERR_NOMEM;
	}
	return 0;
}

/* The span of the records' times, when the caller does not know it. */
static void
records_span(const struct matrix *hm, double *lo, double *hi)
{
	*lo = hm->time_lo;
	*hi = hm->time_hi;
}

static int
put_sweep(struct buf *out, const struct matrix *hm,
    const struct metrics_info *info)
{
	double lo = info->started_at, hi = info->ended_at;

	if (lo <= 0 || hi <= 0)
		records_span(hm, &lo, &hi);
	if (info->sweep > 0 && (put_header(out, "netprof_sweep_number",
	    "gauge", "Number of the sweep shown, from 1") != 0 ||
	    buf_printf(out, "netprof_sweep_number %ld\n", info->sweep) != 0))
		return NP_ERR_NOMEM;
	if (!isnan(hi) && (put_header(out, "netprof_sweep_timestamp_seconds",
	    "gauge", "When the sweep shown ended (Unix time)") != 0 ||
	    buf_printf(out, "netprof_sweep_timestamp_seconds") != 0 ||
	    put_number(out, hi) != 0))
		return NP_ERR_NOMEM;
	if (!isnan(lo) && !isnan(hi) && (put_header(out,
	    "netprof_sweep_duration_seconds", "gauge",
	    "How long the sweep shown took") != 0 ||
	    buf_printf(out, "netprof_sweep_duration_seconds") != 0 ||
	    put_number(out, hi - lo) != 0))
		return NP_ERR_NOMEM;
	if (info->interval > 0 && (put_header(out,
	    "netprof_sweep_interval_seconds", "gauge",
	    "The interval asked for between the starts of sweeps") != 0 ||
	    buf_printf(out, "netprof_sweep_interval_seconds") != 0 ||
	    put_number(out, info->interval) != 0 ||
	    put_header(out, "netprof_sweeps_total", "counter",
	    "Sweeps completed since netprof started") != 0 ||
	    buf_printf(out, "netprof_sweeps_total %ld\n",
	    info->sweeps_total) != 0 ||
	    put_header(out, "netprof_sweeps_late_total", "counter",
	    "Sweeps that took longer than the interval and delayed the "
	    "next") != 0 ||
	    buf_printf(out, "netprof_sweeps_late_total %ld\n",
	    info->sweeps_late_total) != 0))
		return NP_ERR_NOMEM;
	/* a sample's pairs not measured this sweep have no series at all:
	   absent, not failed */
	if (info->sample > 0 && (put_header(out,
	    "netprof_sweep_sample_pairs_per_host", "gauge",
	    "collect --sample: pairs per host across sites in the sweep "
	    "shown (every pair inside a site); the pairs not in it have no "
	    "series") != 0 ||
	    buf_printf(out, "netprof_sweep_sample_pairs_per_host %ld\n",
	    info->sample) != 0 ||
	    put_header(out, "netprof_sweep_sample_cycle_sweeps", "gauge",
	    "collect --sample: consecutive sweeps that measure every pair")
	    != 0 || buf_printf(out, "netprof_sweep_sample_cycle_sweeps %ld\n",
	    info->sample_cycle) != 0))
		return NP_ERR_NOMEM;
	return 0;
}

int
metrics_render(const struct matrix *hm, const struct metrics_info *info,
    struct buf *out)
{
	static const struct metrics_info none;
	const struct probe_kind *pk;
	const struct probe_metric *pm;
	size_t i;
	int rc;

	if (info == NULL)
		info = &none;
	if (put_header(out, "netprof_build_info", "gauge",
	    "netprof's version, as a label; the value is 1") != 0 ||
	    buf_printf(out, "netprof_build_info{version=\"%s\"} 1\n",
	    NETPROF_VERSION) != 0)
		return NP_ERR_NOMEM;
	if ((rc = put_sweep(out, hm, info)) != 0 ||
	    (rc = put_hosts(out, hm, info)) != 0)
		return rc;
	for (i = 0; i < 3; i++)
		if ((rc = put_probes(out, hm, info, (int)i)) != 0)
			return rc;
	for (pk = probe_kinds; pk->name != NULL; pk++) {
		const struct matrix_kind *k = matrix_find_kind(hm, pk->name);

		for (pm = pk->metrics; k != NULL && pm->name != NULL; pm++)
			if (pm->prom != NULL && (rc = put_measurement(out, hm,
			    k, pm, info)) != 0)
				return rc;
	}
	return 0;
}

struct metrics_set {
	struct matrix *hm;
};

struct metrics_set *
metrics_set_new(void)
{
	struct metrics_set *set = calloc(1, sizeof *set);

	if (set != NULL && (set->hm = matrix_new()) == NULL) {
		free(set);
		set = NULL;
	}
	return set;
}

int
metrics_set_add(struct metrics_set *set, struct record *r)
{
	r->seq = set->hm->input.next_seq++;
	r->file = "sweep";
	return matrix_fold(set->hm, r);	/* it borrows the record */
}

size_t
metrics_set_count(const struct metrics_set *set)
{
	return set->hm->nread;
}

int
metrics_set_render(struct metrics_set *set, const struct metrics_info *info,
    struct buf *out)
{
	int rc = matrix_build(set->hm, MATRIX_LATEST, NULL);

	if (rc != 0 && rc != NP_ERR_NOT_FOUND)
		return rc;
	return metrics_render(set->hm, info, out);
}

void
metrics_set_free(struct metrics_set *set)
{
	if (set == NULL)
		return;
	matrix_free(set->hm);
	free(set);
}

int
metrics_write_from_records(const char *records, const char *path,
    char **cause)
{
	struct matrix *hm = NULL;
	struct buf text = { 0 };
	int rc;

	*cause = NULL;
	if ((hm = matrix_new()) == NULL)
		return NP_ERR_NOMEM;
	if ((rc = matrix_read(hm, records, 0)) != 0) {
		*cause = str_printf("%s: its records could not be read (%s)",
		    path, records);
		goto out;
	}
	rc = matrix_build(hm, MATRIX_LATEST, NULL);
	if ((rc == 0 || rc == NP_ERR_NOT_FOUND) &&
	    (rc = metrics_render(hm, NULL, &text)) == 0)
		rc = file_write_atomic(path, text.data, text.len,
		    METRICS_FILE_MODE, cause);
out:
	buf_free(&text);
	matrix_free(hm);
	return rc;
}

/* "# HELP name ..." or "# TYPE name ..." of a name ending in _total:
 * where its _total starts, or NULL. */
static const char *
om_cut(const char *line, const char *nl)
{
	static const char total[] = "_total";
	const size_t tl = sizeof total - 1;
	const char *name, *sp;

	if (nl - line <= 7 || (memcmp(line, "# HELP ", 7) != 0 &&
	    memcmp(line, "# TYPE ", 7) != 0))
		return NULL;
	name = line + 7;
	sp = memchr(name, ' ', (size_t)(nl - name));
	if (sp == NULL || (size_t)(sp - name) <= tl ||
	    memcmp(sp - tl, total, tl) != 0)
		return NULL;
	return sp - tl;
}

void
metrics_om_begin(struct metrics_om_reader *r, const char *text, size_t len)
{
	static const char eof[] = "# EOF\n";

	memset(r, 0, sizeof *r);
	r->text = text;
	r->len = len;
	r->cut = SIZE_MAX;
	r->tail_len = 0;
	if (len > 0 && text[len - 1] != '\n')
		r->tail[r->tail_len++] = '\n';
	memcpy(r->tail + r->tail_len, eof, sizeof eof - 1);
	r->tail_len += sizeof eof - 1;
}

size_t
metrics_om_read(struct metrics_om_reader *r, char *buf, size_t max)
{
	const char *nl, *cut;
	size_t n = 0, k, stop;

	while (n < max) {
		if (r->in >= r->len) {
			k = r->tail_len - r->tail_off;
			if (k > max - n)
				k = max - n;
			memcpy(buf + n, r->tail + r->tail_off, k);
			r->tail_off += k;
			n += k;
			break;
		}
		if (r->in == r->line_end) {	/* at a line's start */
			nl = memchr(r->text + r->in, '\n', r->len - r->in);
			nl = nl != NULL ? nl + 1 : r->text + r->len;
			r->line_end = (size_t)(nl - r->text);
			cut = om_cut(r->text + r->in, nl);
			r->cut = cut != NULL ? (size_t)(cut - r->text) : SIZE_MAX;
		}
		stop = r->cut != SIZE_MAX ? r->cut : r->line_end;
		k = stop - r->in;
		if (k > max - n)
			k = max - n;
		memcpy(buf + n, r->text + r->in, k);
		r->in += k;
		n += k;
		if (r->in == r->cut) {
			r->in += sizeof "_total" - 1;
			r->cut = SIZE_MAX;
		}
	}
	return n;
}

size_t
metrics_om_length(const char *text, size_t len)
{
	struct metrics_om_reader r;
	char chunk[16384];
	size_t n, total = 0;

	metrics_om_begin(&r, text, len);
	while ((n = metrics_om_read(&r, chunk, sizeof chunk)) > 0)
		total += n;
	return total;
}

int
metrics_openmetrics(const char *text, size_t len, char **out,
    size_t *out_len)
{
	struct metrics_om_reader r;
	size_t n = 0, got;
	char *o;

	*out = NULL;
	*out_len = 0;
	/* it only gets shorter, but for a missing last newline and # EOF */
	if ((o = malloc(len + sizeof r.tail + 1)) == NULL)
		return NP_ERR_NOMEM;
	metrics_om_begin(&r, text, len);
	while ((got = metrics_om_read(&r, o + n, len + sizeof r.tail - n)) > 0)
		n += got;
	o[n] = '\0';
	*out = o;
	*out_len = n;
	return 0;
}
