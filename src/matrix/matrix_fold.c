/*
 * Folding records into cells as they are read: the matrix keeps no
 * record. Each record read (matrix_fold, the reader's sink) updates its
 * pair's cell: the counts, the latest record's outcome, time, sample count,
 * port and values, the latest failure (its error text and class kept once
 * in a string pool), and with --aggregate median the ok records' values.
 * Which record is the latest is decided as each arrives, in reading order:
 * a record replaces the latest unless both have a time and its own is
 * earlier, so of equal or missing times the one read last wins.
 *
 * Until matrix_build() the grids are indexed by the order hosts were met,
 * fold_cap x fold_cap (grown by doubling), and a cell's values are a row
 * number into its kind's rows; matrix_build() lays them out as the
 * model's nhosts x nhosts grids in the hosts' display order, which the
 * model decides (matrix_model.c, which never calls the fold). A matrix is
 * made, read, built and freed here. Everything
 * allocated here is counted against the budget in bytes; past it, reading
 * stops with an error that names the file and line, the budget and the fix.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "matrix.h"
#include "probe_kind.h"
#include "log.h"
#include "stats.h"
#include "util.h"

#define FOLD_CAP_MIN 16
#define FAIL_BLOCK 4096

struct matrix *
matrix_new(void)
{
	struct matrix *hm = calloc(1, sizeof(struct matrix));

	if (hm == NULL)
		return NULL;
	hm->time_lo = hm->time_hi = NAN;
	hm->budget = MATRIX_BUDGET_DEFAULT;
	hm->input.sink = matrix_fold;
	hm->input.sink_arg = hm;
	return hm;
}

int
matrix_read(struct matrix *hm, const char *path, int strict)
{
	return records_read_file(&hm->input, path, strict);
}

void
matrix_set_aggregate(struct matrix *hm, enum matrix_aggregate agg)
{
	hm->aggregate = agg;
}

void
matrix_set_budget(struct matrix *hm, size_t bytes)
{
	hm->budget = bytes;
}

/* Take bytes of the budget; NP_ERR_BUDGET, reported, past it. */
static int
budget_take(struct matrix *hm, size_t bytes, const struct record *r)
{
	if (hm->used + bytes <= hm->budget && hm->used + bytes >= hm->used) {
		hm->used += bytes;
		return 0;
	}
	if (r != NULL)
		log_error("%s:%d: the heatmap's cells would take more than its "
		    "memory budget of %zu MiB (%zu hosts, %zu kind%s so far): "
		    "give fewer records (--kind KIND keeps one kind; fewer "
		    "--input files), or a larger budget with --max-memory MIB",
		    r->file, r->line, hm->budget >> 20, hm->nhosts,
		    hm->nkinds, hm->nkinds == 1 ? "" : "s");
	else
		log_error("the heatmap's matrix of %zu hosts and %zu kind%s "
		    "would take more than its memory budget of %zu MiB: give "
		    "fewer hosts or kinds (--kind KIND), or a larger budget "
		    "with --max-memory MIB", hm->nhosts, hm->nkinds,
		    hm->nkinds == 1 ? "" : "s", hm->budget >> 20);
	return NP_ERR_BUDGET;
}

static int
pool_grow(struct matrix *hm)
{
	size_t n = hm->pool_slots ? hm->pool_slots * 2 : 64, i, j;
	char **slots;

	if ((slots = calloc(n, sizeof *slots)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < hm->pool_slots; i++) {
		if (hm->pool[i] == NULL)
			continue;
		j = str_hash(hm->pool[i]) & (n - 1);
		while (slots[j] != NULL)
			j = (j + 1) & (n - 1);
		slots[j] = hm->pool[i];
	}
	free(hm->pool);
	hm->pool = slots;
	hm->pool_slots = n;
	return 0;
}

/* The pool's copy of s (added if new): a thousand hosts' failures repeat
 * a few texts. */
static int
pool_intern(struct matrix *hm, const char *s, const struct record *r,
    const char **out)
{
	size_t j, len;
	int rc;

	if ((hm->pool_n + 1) * 2 > hm->pool_slots) {
		if ((rc = budget_take(hm, (hm->pool_slots ? hm->pool_slots :
		    64) * sizeof *hm->pool, r)) != 0 ||
		    (rc = pool_grow(hm)) != 0)
			return rc;
	}
	j = str_hash(s) & (hm->pool_slots - 1);
	while (hm->pool[j] != NULL) {
		if (strcmp(hm->pool[j], s) == 0) {
			*out = hm->pool[j];
			return 0;
		}
		j = (j + 1) & (hm->pool_slots - 1);
	}
	len = strlen(s) + 1;
	if ((rc = budget_take(hm, len, r)) != 0)
		return rc;
	if ((hm->pool[j] = malloc(len)) == NULL)
		return NP_ERR_NOMEM;
	memcpy(hm->pool[j], s, len);
	hm->pool_n++;
	*out = hm->pool[j];
	return 0;
}

/* A new failure slot: blocks, so that cells can point at them. */
static int
failure_new(struct matrix *hm, const struct record *r,
    struct matrix_failure **out)
{
	struct matrix_failure **blocks;
	int rc;

	if (hm->nfail_blocks == 0 || hm->fail_used == FAIL_BLOCK) {
		if ((rc = budget_take(hm, FAIL_BLOCK * sizeof **blocks +
		    sizeof *blocks, r)) != 0)
			return rc;
		blocks = realloc(hm->fail_blocks, (hm->nfail_blocks + 1) *
		    sizeof *blocks);
		if (blocks == NULL)
			return NP_ERR_NOMEM;
		hm->fail_blocks = blocks;
		if ((blocks[hm->nfail_blocks] = malloc(FAIL_BLOCK *
		    sizeof **blocks)) == NULL)
			return NP_ERR_NOMEM;
		hm->nfail_blocks++;
		hm->fail_used = 0;
	}
	*out = &hm->fail_blocks[hm->nfail_blocks - 1][hm->fail_used++];
	return 0;
}

/* A grid of cap x cap cells for k, the cells of the old one kept. */
static int
grid_resize(struct matrix *hm, struct matrix_kind *k, size_t old, size_t cap,
    const struct record *r)
{
	struct matrix_cell *cells;
	size_t i;
	int rc;

	if ((rc = budget_take(hm, cap * cap * sizeof *cells, r)) != 0)
		return rc;
	/* Zero pages until used: a cell of count 0 is empty, whatever its
	 * time (kind_finish gives those NAN). */
	if ((cells = calloc(cap * cap, sizeof *cells)) == NULL)
		return NP_ERR_NOMEM;
	mem_advise_huge(cells, cap * cap * sizeof *cells);
	for (i = 0; i < old && k->cells != NULL; i++)
		memcpy(&cells[i * cap], &k->cells[i * old], old * sizeof *cells);
	free(k->cells);
	hm->used -= old * old * sizeof *cells;
	k->cells = cells;
	return 0;
}

/* Every grid at least as wide as the hosts met. */
static int
grids_fit(struct matrix *hm, const struct record *r)
{
	size_t cap = hm->fold_cap ? hm->fold_cap : FOLD_CAP_MIN, i;
	int rc;

	while (cap < hm->nhosts)
		cap *= 2;
	if (cap == hm->fold_cap)
		return 0;
	for (i = 0; i < hm->nkinds; i++)
		if ((rc = grid_resize(hm, &hm->kinds[i], hm->fold_cap, cap,
		    r)) != 0)
			return rc;
	hm->fold_cap = cap;
	return 0;
}

/* k's rows of values at least stride wide, NAN where new. */
static int
rows_widen(struct matrix *hm, struct matrix_kind *k, size_t stride,
    const struct record *r)
{
	double *rows;
	size_t i, j;
	int rc;

	if (stride <= k->stride)
		return 0;
	if (k->stride > 0 && stride < k->stride + k->stride / 2)
		stride = k->stride + k->stride / 2;
	if (stride > MATRIX_MAX_METRICS)
		stride = MATRIX_MAX_METRICS;
	if (k->rows_alloc > 0) {
		if ((rc = budget_take(hm, k->rows_alloc * stride *
		    sizeof *rows, r)) != 0)
			return rc;
		if ((rows = mem_map(k->rows_alloc * stride * sizeof *rows)) ==
		    NULL)
			return NP_ERR_NOMEM;
		for (i = 0; i < k->nrows; i++)
			for (j = 0; j < stride; j++)
				rows[i * stride + j] = j < k->stride ?
				    k->values_base[i * k->stride + j] : NAN;
		mem_map_free(k->values_base, k->values_mapped);
		hm->used -= k->rows_alloc * k->stride * sizeof *rows;
		k->values_base = rows;
		k->values_mapped = k->rows_alloc * stride * sizeof *rows;
	}
	k->stride = stride;
	return 0;
}

/* A new row of values for k, every value NAN; *row is 1 + its number. */
static int
row_new(struct matrix *hm, struct matrix_kind *k, size_t *row,
    const struct record *r)
{
	size_t i;
	int rc;

	if (k->nrows == k->rows_alloc) {
		size_t n = k->rows_alloc ? k->rows_alloc + k->rows_alloc / 2 :
		    256;
		double *rows;

		if ((rc = budget_take(hm, (n - k->rows_alloc) * k->stride *
		    sizeof *rows, r)) != 0)
			return rc;
		/* Hundreds of MB for a thousand hosts: moved, not copied. */
		if ((rows = mem_map_grow(k->values_base, k->values_mapped,
		    n * k->stride * sizeof *rows)) == NULL)
			return NP_ERR_NOMEM;
		k->values_base = rows;
		k->values_mapped = n * k->stride * sizeof *rows;
		k->rows_alloc = n;
	}
	for (i = 0; i < k->stride; i++)
		k->values_base[k->nrows * k->stride + i] = NAN;
	*row = ++k->nrows;
	return 0;
}

static int
sample_add(struct matrix *hm, struct matrix_kind *k, size_t src, size_t tgt,
    size_t metric, double value, const struct record *r)
{
	struct matrix_sample *s;
	int rc;

	if (k->nsamples == k->samples_alloc) {
		size_t n = k->samples_alloc ? k->samples_alloc * 2 : 1024;

		if ((rc = budget_take(hm, (n - k->samples_alloc) * sizeof *s,
		    r)) != 0)
			return rc;
		if ((s = realloc(k->samples, n * sizeof *s)) == NULL)
			return NP_ERR_NOMEM;
		k->samples = s;
		k->samples_alloc = n;
	}
	s = &k->samples[k->nsamples++];
	s->value = value;
	s->src = (uint16_t)src;
	s->tgt = (uint16_t)tgt;
	s->metric = (uint16_t)metric;
	return 0;
}

/* Is the record later than what a cell (or failure) holds, of time t? */
static int
is_later(const struct record *r, double t)
{
	return isnan(r->time) || isnan(t) || r->time >= t;
}

static int
fold_failure(struct matrix *hm, struct matrix_cell *c, const struct record *r,
    int port)
{
	struct matrix_failure *f = (struct matrix_failure *)c->last_failed;
	int rc;

	if (f != NULL && !is_later(r, f->time))
		return 0;
	if (f == NULL) {
		if ((rc = failure_new(hm, r, &f)) != 0)
			return rc;
		c->last_failed = f;
	}
	f->time = r->time;
	f->port = port;
	if ((rc = pool_intern(hm, r->error, r, &f->error)) != 0)
		return rc;
	return pool_intern(hm, r->error_class != NULL ? r->error_class :
	    "tool_failed", r, &f->error_class);
}

/* The record's values as the cell's (the latest, ok). */
static int
fold_values(struct matrix *hm, struct matrix_kind *k, struct matrix_cell *c,
    const struct record *r)
{
	double *row;
	size_t j;
	int rc;

	if (c->row == 0 && (rc = row_new(hm, k, &c->row, r)) != 0)
		return rc;
	row = k->values_base + (c->row - 1) * k->stride;
	for (j = 0; j < k->stride; j++)
		row[j] = NAN;
	for (j = 0; j < r->nmetrics; j++)
		if (r->metrics[j].index >= 0)
			row[r->metrics[j].index] = r->metrics[j].value;
	return 0;
}

/* The record's metrics in its kind's list (up to MATRIX_MAX_METRICS). */
static int
fold_metrics(struct matrix *hm, struct matrix_kind *k, struct record *r)
{
	size_t j;
	int idx;

	for (j = 0; j < r->nmetrics; j++) {
		/* Records of a kind list their metrics in one order: the
		 * name at the same place is the first one looked at. */
		if (j < k->nmetrics &&
		    strcmp(k->metrics[j].name, r->metrics[j].name) == 0) {
			r->metrics[j].index = (int)j;
			continue;
		}
		r->metrics[j].index = matrix_find_metric(k,
		    r->metrics[j].name);
		if (r->metrics[j].index >= 0 ||
		    k->nmetrics >= MATRIX_MAX_METRICS)
			continue;
		if ((idx = matrix_metric_add(k, r->metrics[j].name)) < 0)
			return idx;
		r->metrics[j].index = idx;
	}
	return rows_widen(hm, k, k->nmetrics ? k->nmetrics : 1, r);
}

/* The record's path as a cell keeps it (its relay in the matrix's
   list); 0 when the record says none. */
static int
fold_path(struct matrix *hm, const struct record *r, unsigned char *out)
{
	const char *name = r->relay != NULL ? r->relay : r->relay_peer_id;
	const char *pname, *ppeer = NULL;
	int c, rc;
	size_t i;

	*out = 0;
	if (r->path == NULL)
		return 0;
	if (strcmp(r->path, RECORD_PATH_DIRECT) == 0)
		c = MATRIX_PATH_DIRECT;
	else if (strcmp(r->path, RECORD_PATH_PUNCHED) == 0)
		c = MATRIX_PATH_PUNCHED;
	else if (strcmp(r->path, RECORD_PATH_RELAYED) == 0)
		c = MATRIX_PATH_RELAYED;
	else
		return 0;	/* another tool's word: unknown */
	if (r->path_known != NULL &&
	    strcmp(r->path_known, RECORD_PATH_REPORTED) == 0)
		c |= MATRIX_PATH_REPORTED;
	*out = (unsigned char)c;
	if ((c & MATRIX_PATH_CLASS) != MATRIX_PATH_RELAYED || name == NULL)
		return 0;
	if ((rc = pool_intern(hm, name, r, &pname)) != 0 ||
	    (r->relay_peer_id != NULL && (rc = pool_intern(hm,
	    r->relay_peer_id, r, &ppeer)) != 0))
		return rc;
	for (i = 0; i < hm->nrelays; i++)
		if (hm->relays[i].name == pname)
			break;
	if (i == hm->nrelays && hm->nrelays < MATRIX_MAX_RELAYS) {
		hm->relays[i].name = pname;
		hm->relays[i].peer_id = ppeer;
		hm->nrelays++;
	}
	if (i == MATRIX_MAX_RELAYS)
		i--;	/* beyond: the last one's slot, "one of many" */
	*out = (unsigned char)(c | (int)((i + 1) << MATRIX_PATH_RELAY_SHIFT));
	return 0;
}

int
matrix_cell_path(const struct matrix_cell *c)
{
	return c->path & MATRIX_PATH_CLASS;
}

int
matrix_cell_path_reported(const struct matrix_cell *c)
{
	return (c->path & MATRIX_PATH_REPORTED) != 0;
}

const struct matrix_relay *
matrix_cell_relay(const struct matrix *hm, const struct matrix_cell *c)
{
	size_t slot = c->path >> MATRIX_PATH_RELAY_SHIFT;

	if ((c->path & MATRIX_PATH_CLASS) != MATRIX_PATH_RELAYED || slot == 0 ||
	    slot > hm->nrelays)
		return NULL;
	return &hm->relays[slot - 1];
}

const char *
matrix_path_name(int path)
{
	switch (path & MATRIX_PATH_CLASS) {
	case MATRIX_PATH_DIRECT: return RECORD_PATH_DIRECT;
	case MATRIX_PATH_PUNCHED: return RECORD_PATH_PUNCHED;
	case MATRIX_PATH_RELAYED: return RECORD_PATH_RELAYED;
	default: return NULL;
	}
}

static int
fold_cell(struct matrix *hm, struct matrix_kind *k, size_t s, size_t t,
    const struct record *r)
{
	struct matrix_cell *c = &k->cells[s * hm->fold_cap + t];
	size_t j;
	int rc, later = c->count == 0 || is_later(r, c->time);
	/* the port its command names, for the diagnosis (iperf3's -p) */
	int port = later || !r->ok ?
	    probe_kind_command_port(k->row, r->command) : 0;

	k->nrecords++;
	k->nfailed += !r->ok;
	c->count++;
	c->nfail += !r->ok;
	if (!r->ok && (rc = fold_failure(hm, c, r, port)) != 0)
		return rc;
	if (hm->aggregate == MATRIX_MEDIAN && r->ok)
		for (j = 0; j < r->nmetrics; j++)
			if (r->metrics[j].index >= 0 && (rc = sample_add(hm, k,
			    s, t, (size_t)r->metrics[j].index,
			    r->metrics[j].value, r)) != 0)
				return rc;
	if (!later)
		return 0;
	if ((rc = fold_path(hm, r, &c->path)) != 0)
		return rc;
	c->time = r->time;
	c->nsamples = r->nsamples > INT32_MAX ? INT32_MAX : (int)r->nsamples;
	c->port = (unsigned short)port;
	c->state = r->ok ? CELL_VALUE : CELL_FAILED;
	if (hm->aggregate == MATRIX_MEDIAN)
		return 0;
	if (r->ok)
		return fold_values(hm, k, c, r);
	if (c->row != 0)	/* the latest failed: no values */
		for (j = 0; j < k->stride; j++)
			k->values_base[(c->row - 1) * k->stride + j] = NAN;
	return 0;
}

/* The record's round of its run's sweep: its start and end widened. */
static int
fold_round(struct matrix *hm, const struct record *r)
{
	double start = isnan(r->started_at) ? r->time : r->started_at;
	struct matrix_round *d = NULL;
	const char *run_id = NULL;
	size_t i;
	int rc;

	if (r->round <= 0 || isnan(r->time) || isnan(start))
		return 0;
	if (r->run_id != NULL &&
	    (rc = pool_intern(hm, r->run_id, r, &run_id)) != 0)
		return rc;
	/* Records come round by round: the last one met, else a search. */
	if (hm->last_round < hm->nrounds &&
	    hm->rounds[hm->last_round].round == r->round &&
	    hm->rounds[hm->last_round].run_id == run_id)
		d = &hm->rounds[hm->last_round];
	for (i = 0; d == NULL && i < hm->nrounds; i++)
		if (hm->rounds[i].round == r->round &&
		    hm->rounds[i].run_id == run_id)
			d = &hm->rounds[i];
	if (d == NULL) {
		if (hm->nrounds >= MATRIX_MAX_ROUNDS)
			return 0;
		if (hm->nrounds % 64 == 0) {
			struct matrix_round *v;

			if ((rc = budget_take(hm, 64 * sizeof *v, r)) != 0)
				return rc;
			if ((v = realloc(hm->rounds, (hm->nrounds + 64) *
			    sizeof *v)) == NULL)
				return NP_ERR_NOMEM;
			hm->rounds = v;
		}
		d = &hm->rounds[hm->nrounds++];
		d->run_id = run_id;
		d->round = r->round;
		d->start = start;
		d->end = r->time;
		d->count = d->nfail = 0;
	}
	hm->last_round = (size_t)(d - hm->rounds);
	if (start < d->start)
		d->start = start;
	if (r->time > d->end)
		d->end = r->time;
	d->count++;
	d->nfail += !r->ok;
	return 0;
}

static int
fold_record(struct matrix *hm, struct record *r)
{
	long s, t = -1;
	size_t ki;
	int rc;

	hm->nread++;
	/* a kind its node does not know (connect on the real node) says
	   nothing of the pair: no cell */
	if (!r->ok && r->error_class != NULL &&
	    strcmp(r->error_class, "unsupported") == 0)
		return 0;
	if (r->sample > hm->sample)
		hm->sample = r->sample;
	if ((rc = fold_round(hm, r)) != 0)
		return rc;
	if (!isnan(r->time)) {
		if (isnan(hm->time_lo) || r->time < hm->time_lo)
			hm->time_lo = r->time;
		if (isnan(hm->time_hi) || r->time > hm->time_hi)
			hm->time_hi = r->time;
	}
	/* The first MATRIX_MAX_HOSTS names met are the hosts. */
	if ((rc = matrix_host_add(hm, r->source, &s)) != 0 ||
	    (rc = matrix_host_add(hm, r->target, &t)) != 0 ||
	    (rc = grids_fit(hm, r)) != 0)
		return rc;
	if (matrix_find_kind(hm, r->kind) == NULL &&
	    hm->nkinds >= MATRIX_MAX_KINDS)
		s = -1;
	if (s < 0 || t < 0) {
		hm->left_out++;
		return 0;
	}
	if ((rc = matrix_kind_add(hm, r->kind, 0, &ki)) != 0)
		return rc;
	if (hm->kinds[ki].cells == NULL && (rc = grid_resize(hm,
	    &hm->kinds[ki], 0, hm->fold_cap, r)) != 0)
		return rc;
	if ((rc = fold_metrics(hm, &hm->kinds[ki], r)) != 0)
		return rc;
	/* A host measured against itself (a file's mistake) has no cell:
	 * the diagonal is the "self" mark. */
	if (s == t)
		return 0;
	return fold_cell(hm, &hm->kinds[ki], (size_t)s, (size_t)t, r);
}

int
matrix_fold(void *arg, struct record *r)
{
	return fold_record(arg, r);
}

static int
cmp_sample(const void *a, const void *b)
{
	const struct matrix_sample *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->tgt != y->tgt)
		return x->tgt < y->tgt ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

/* --aggregate median: each metric's median over the ok records. */
static int
fold_medians(struct matrix *hm, struct matrix_kind *k)
{
	size_t i, j;
	double *scratch;
	int rc = 0;

	if (k->nsamples == 0)
		return 0;
	qsort(k->samples, k->nsamples, sizeof *k->samples, cmp_sample);
	if ((scratch = malloc(k->nsamples * sizeof *scratch)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < k->nsamples; i = j) {
		const struct matrix_sample *s = &k->samples[i];
		struct matrix_cell *c = &k->cells[s->src * hm->fold_cap + s->tgt];

		for (j = i; j < k->nsamples && k->samples[j].src == s->src &&
		    k->samples[j].tgt == s->tgt &&
		    k->samples[j].metric == s->metric; j++)
			scratch[j - i] = k->samples[j].value;
		if (c->row == 0 && (rc = row_new(hm, k, &c->row, NULL)) != 0)
			break;
		k->values_base[(c->row - 1) * k->stride + s->metric] =
		    stats_median(scratch, j - i);
	}
	free(scratch);
	free(k->samples);
	hm->used -= k->samples_alloc * sizeof *k->samples;
	k->samples = NULL;
	k->nsamples = k->samples_alloc = 0;
	return rc;
}

/* The model's view of a cell: values pointing in the rows, empty cells
 * without a time, the diagonal the "self" mark. */
static void
cell_finish(const struct matrix *hm, const struct matrix_kind *k,
    struct matrix_cell *c, int self)
{
	c->values = c->row != 0 ? k->values_base + (c->row - 1) * k->stride :
	    k->nan_row;
	if (c->count == 0) {
		c->nsamples = -1;
		c->time = NAN;
	}
	if (hm->aggregate == MATRIX_MEDIAN && c->count > 0)
		c->state = c->nfail < c->count ? CELL_VALUE : CELL_FAILED;
	if (self)
		c->state = CELL_SELF;
}

/* Is the display order the order met (hosts met in name order)? */
static int
order_is_met(const size_t *order, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (order[i] != i)
			return 0;
	return 1;
}

/*
 * One kind's grid as the model's: nhosts x nhosts in display order (order
 * maps a display index to the index met), values pointing in the rows. In
 * the order met the grid is packed where it is, row by row (a row only
 * moves towards the start); otherwise cells are copied to a new grid.
 */
static int
kind_finish(struct matrix *hm, struct matrix_kind *k, const size_t *order)
{
	size_t n = hm->nhosts, cap = hm->fold_cap, a, b, i;
	struct matrix_cell *cells, *c;
	int rc;

	if (hm->aggregate == MATRIX_MEDIAN && (rc = fold_medians(hm, k)) != 0)
		return rc;
	k->stride = k->stride ? k->stride : 1;
	if ((rc = budget_take(hm, k->stride * sizeof *k->nan_row, NULL)) != 0)
		return rc;
	if ((k->nan_row = malloc(k->stride * sizeof *k->nan_row)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < k->stride; i++)
		k->nan_row[i] = NAN;
	/* Packed in place only if the grid covers every host (the copy
	 * below reads only inside it). */
	if (k->cells != NULL && n > 0 && n <= cap && order_is_met(order, n)) {
		for (a = 0; a < n; a++) {
			memmove(&k->cells[a * n], &k->cells[a * cap],
			    n * sizeof *k->cells);
			for (b = 0; b < n; b++)
				cell_finish(hm, k, &k->cells[a * n + b], a == b);
		}
		hm->used -= (cap * cap - n * n) * sizeof *k->cells;
		if ((cells = realloc(k->cells, n * n * sizeof *cells)) != NULL)
			k->cells = cells;
		return 0;
	}
	if ((rc = budget_take(hm, (n ? n * n : 1) * sizeof *cells, NULL)) != 0)
		return rc;
	if ((cells = calloc(n ? n * n : 1, sizeof *cells)) == NULL)
		return NP_ERR_NOMEM;
	mem_advise_huge(cells, n * n * sizeof *cells);
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			size_t oa = order[a], ob = order[b];

			c = &cells[a * n + b];
			if (k->cells != NULL && oa < cap && ob < cap)
				*c = k->cells[oa * cap + ob];
			cell_finish(hm, k, c, a == b);
		}
	if (n == 0)
		cells[0].values = k->nan_row;
	if (k->cells != NULL)
		hm->used -= cap * cap * sizeof *cells;
	free(k->cells);
	k->cells = cells;
	return 0;
}

static int
fold_finish(struct matrix *hm, const size_t *order)
{
	size_t i;
	int rc;

	/* Hosts met after the last record (a run.json's machines without
	 * records) are rows and columns too: every grid covers them. */
	if ((rc = grids_fit(hm, NULL)) != 0)
		return rc;
	for (i = 0; i < hm->nkinds; i++)
		if (!hm->kinds[i].derived &&
		    (rc = kind_finish(hm, &hm->kinds[i], order)) != 0)
			return rc;
	hm->built = 1;
	return 0;
}

static void
fold_free(struct matrix *hm)
{
	size_t i;

	for (i = 0; i < hm->nfail_blocks; i++)
		free(hm->fail_blocks[i]);
	free(hm->fail_blocks);
	for (i = 0; i < hm->pool_slots; i++)
		free(hm->pool[i]);
	free(hm->pool);
	free(hm->rounds);
}

void
matrix_free(struct matrix *hm)
{
	if (hm == NULL)
		return;
	matrix_model_free(hm);
	fold_free(hm);
	record_input_free(&hm->input);
	free(hm);
}

int
matrix_build(struct matrix *hm, enum matrix_aggregate aggregate,
    const char *only_kind)
{
	size_t *order = NULL;
	int rc;

	/* The aggregate decides what was folded: it is set before reading. */
	if (hm->built || aggregate != hm->aggregate)
		return NP_ERR_USAGE;
	if ((rc = matrix_model_order(hm, only_kind, &order)) == 0)
		rc = fold_finish(hm, order);
	free(order);
	return rc;
}
