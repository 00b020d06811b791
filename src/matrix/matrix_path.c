/*
 * The heatmap's derived "path" kind, built where bench records say the
 * path they ran over: per pair its class (1 direct, 2 hole-punched, 3
 * relayed; the libp2p_ping cell's, else the first kind's that has one),
 * the libp2p_ping round trip it got, and for a relayed pair the round trip
 * its relay would give, the sum of its two legs (source to relay, target
 * to relay; a leg measured either way), so that a relayed pair's figure
 * stands beside what its relay costs.
 */
#include <math.h>
#include <string.h>

#include "error.h"
#include "matrix.h"
#include "matrix_path.h"
#include "probe_kind.h"

#define PATH_KIND "path"

static const char *const path_metrics[] = { "class", "got_ms",
	"two_legs_ms" };

const struct matrix_kind *
matrix_path_ping(const struct matrix *hm)
{
	const struct probe_kind *pk;

	for (pk = probe_kinds; pk->name != NULL; pk++)
		if (pk->via == PROBE_VIA_NODE && (pk->flags & PROBE_NET_RTT))
			return matrix_find_kind(hm, pk->name);
	return NULL;
}

double
matrix_path_value(const struct matrix *hm, const struct matrix_kind *k,
    size_t src, size_t tgt)
{
	const struct matrix_cell *c;

	if (k == NULL || k->nmetrics == 0)
		return NAN;
	c = matrix_cell_at(hm, k, src, tgt);
	return c->state == CELL_VALUE ? c->values[k->default_metric] : NAN;
}

double
matrix_path_leg(const struct matrix *hm, const struct matrix_kind *k,
    size_t a, size_t b)
{
	double v = matrix_path_value(hm, k, a, b);

	return isnan(v) ? matrix_path_value(hm, k, b, a) : v;
}

static long
host_index(const struct matrix *hm, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < hm->nhosts; i++)
		if (strcmp(hm->hosts[i], name) == 0)
			return (long)i;
	return -1;
}

/* The cell whose path counts for pair i: libp2p_ping's, else the first
   kind's with a path. */
static const struct matrix_cell *
path_cell(const struct matrix *hm, const struct matrix_kind *ping, size_t i)
{
	size_t k;

	if (ping != NULL && matrix_cell_path(&ping->cells[i]) != 0)
		return &ping->cells[i];
	for (k = 0; k < hm->nkinds; k++)
		if (!hm->kinds[k].derived &&
		    matrix_cell_path(&hm->kinds[k].cells[i]) != 0)
			return &hm->kinds[k].cells[i];
	return NULL;
}

int
matrix_path_build(struct matrix *hm)
{
	size_t n = hm->nhosts, i, have = 0;
	const struct matrix_kind *ping = matrix_path_ping(hm);
	struct matrix_kind *k;

	for (i = 0; i < n * n; i++)
		have += path_cell(hm, ping, i) != NULL;
	if (have == 0)
		return 0;	/* no record says its path: no view */
	if ((k = matrix_add_derived(hm, PATH_KIND, path_metrics,
	    sizeof path_metrics / sizeof *path_metrics)) == NULL)
		return NP_ERR_NOMEM;
	ping = matrix_path_ping(hm);	/* the kinds may have moved */
	k->default_metric = 0;
	for (i = 0; i < n * n; i++) {
		const struct matrix_cell *c = path_cell(hm, ping, i);
		struct matrix_cell *out = &k->cells[i];
		const struct matrix_relay *r;
		long ri;
		int cls;

		if (out->state == CELL_SELF || c == NULL)
			continue;
		cls = matrix_cell_path(c);
		out->values[0] = cls;
		out->values[1] = matrix_path_value(hm, ping, i / n, i % n);
		if (cls == MATRIX_PATH_RELAYED &&
		    (r = matrix_cell_relay(hm, c)) != NULL &&
		    (ri = host_index(hm, r->name)) >= 0)
			out->values[2] = matrix_path_leg(hm, ping, i / n,
			    (size_t)ri) + matrix_path_leg(hm, ping, i % n,
			    (size_t)ri);
		out->state = CELL_VALUE;
	}
	return 0;
}
