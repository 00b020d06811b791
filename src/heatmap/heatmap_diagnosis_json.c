/*
 * The diagnosis as JSON, for scripts and CI (--diagnosis-json FILE; the
 * schema is documented in docs/heatmap.md): one object per finding, in
 * rank order, with its place by name, what it shows, its score and why,
 * its evidence and the cells it explains with their figures.
 */
#include <math.h>
#include <stdio.h>

#include "error.h"
#include "diagnose.h"
#include "heatmap.h"
#include "heatmap_diagnosis_json.h"

static const char *const scopes[] = {
	[DX_SCOPE_MESH] = "mesh", [DX_SCOPE_SITE] = "site",
	[DX_SCOPE_SITE_PAIR] = "site_pair", [DX_SCOPE_HOST] = "host",
	[DX_SCOPE_PAIR] = "pair",
};

static const char *const dirs[] = {
	[DX_DIR_BOTH] = "both", [DX_DIR_OUT] = "out", [DX_DIR_IN] = "in",
};

static const char *
group_name(const struct matrix *hm, size_t g)
{
	return hm->groups != NULL && g < hm->ngroups ? hm->groups[g] : "";
}

static void
place(FILE *f, const struct matrix *hm, const struct finding *x)
{
	fprintf(f, "{\"scope\":\"%s\"", scopes[x->scope]);
	switch (x->scope) {
	case DX_SCOPE_HOST:
		fputs(",\"host\":", f);
		heatmap_json_escape(f, hm->hosts[x->place[0]]);
		break;
	case DX_SCOPE_PAIR:
		fputs(",\"source\":", f);
		heatmap_json_escape(f, hm->hosts[x->place[0]]);
		fputs(",\"target\":", f);
		heatmap_json_escape(f, hm->hosts[x->place[1]]);
		break;
	case DX_SCOPE_SITE:
		fputs(",\"site\":", f);
		heatmap_json_escape(f, group_name(hm, x->place[0]));
		break;
	case DX_SCOPE_SITE_PAIR:
		fputs(",\"sites\":[", f);
		heatmap_json_escape(f, group_name(hm, x->place[0]));
		fputc(',', f);
		heatmap_json_escape(f, group_name(hm, x->place[1]));
		fputc(']', f);
		break;
	case DX_SCOPE_MESH:
		break;
	}
	fprintf(f, ",\"direction\":\"%s\"}", dirs[x->dir]);
}

/* What a cell or finding shows, as a list of words. */
static void
shows(FILE *f, unsigned what)
{
	static const struct { unsigned bit; const char *word; } words[] = {
		{ DX_W_FAIL, "failed" }, { DX_W_SETUP, "setup" },
		{ DX_W_LOSS, "lossy" }, { DX_W_SLOW, "slow" },
		{ DX_W_NARROW, "narrow" }, { DX_W_WORSE, "worse" },
		{ DX_W_DETOUR, "detour" }, { DX_W_GAP, "gap" },
	};
	size_t i;
	int first = 1;

	fputc('[', f);
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (what & words[i].bit) {
			fprintf(f, "%s\"%s\"", first ? "" : ",", words[i].word);
			first = 0;
		}
	fputc(']', f);
}

static void
protocols(FILE *f, unsigned protos)
{
	fputc('[', f);
	fprintf(f, "%s", protos & DX_PROTO_ICMP ? "\"icmp\"" : "");
	fprintf(f, "%s%s", (protos & DX_PROTO_ICMP) && (protos &
	    DX_PROTO_IPERF3) ? "," : "", protos & DX_PROTO_IPERF3 ?
	    "\"iperf3\"" : "");
	fprintf(f, "%s%s", (protos & (DX_PROTO_ICMP | DX_PROTO_IPERF3)) &&
	    (protos & DX_PROTO_LIBP2P) ? "," : "", protos & DX_PROTO_LIBP2P ?
	    "\"libp2p\"" : "");
	fputc(']', f);
}

static void
cell(FILE *f, const struct matrix *hm, const struct dx_cell *c)
{
	fputs("{\"kind\":", f);
	heatmap_json_escape(f, hm->kinds[c->kind].name);
	fputs(",\"source\":", f);
	heatmap_json_escape(f, hm->hosts[c->src]);
	fputs(",\"target\":", f);
	heatmap_json_escape(f, hm->hosts[c->tgt]);
	fputs(",\"shows\":", f);
	shows(f, c->what);
	fputs(",\"metric\":", f);
	if (c->metric != NULL)
		heatmap_json_escape(f, c->metric);
	else
		fputs("null", f);
	fputs(",\"unit\":", f);
	if (c->unit != NULL)
		heatmap_json_escape(f, c->unit);
	else
		fputs("null", f);
	fputs(",\"value\":", f);
	heatmap_html_number(f, c->value);
	fputs(",\"typical\":", f);
	heatmap_html_number(f, c->typical);
	fputs(",\"old\":", f);
	heatmap_html_number(f, c->old);
	if (c->sent > 0)
		fprintf(f, ",\"lost\":%d,\"sent\":%d", c->lost, c->sent);
	else
		fputs(",\"lost\":null,\"sent\":null", f);
	fputs(",\"error\":", f);
	if (c->error != NULL)
		heatmap_json_escape(f, c->error);
	else
		fputs("null", f);
	fputc('}', f);
}

int
heatmap_diagnosis_json(const struct matrix *hm, const struct diagnosis *dx,
    FILE *f)
{
	size_t i, j;

	fprintf(f, "{\"version\":1,\"hosts\":%zu,\"compared\":%s,"
	    "\"worst\":\"%s\",\"findings\":[", hm->nhosts,
	    dx->compared ? "true" : "false",
	    diagnose_severity_name(diagnose_worst(dx)));
	for (i = 0; i < dx->nfindings; i++) {
		const struct finding *x = &dx->findings[i];

		fprintf(f, "%s\n{\"rank\":%zu,\"rule\":\"%s\",\"severity\":"
		    "\"%s\",\"category\":\"%s\",\"title\":", i ? "," : "",
		    i + 1, x->rule, diagnose_severity_name(x->severity),
		    x->category);
		heatmap_json_escape(f, x->title);
		fputs(",\"place\":", f);
		place(f, hm, x);
		fputs(",\"protocols\":", f);
		protocols(f, x->protos);
		fputs(",\"shows\":", f);
		shows(f, x->what);
		fputs(",\"score\":", f);
		fprintf(f, "%.3f", x->score);
		fputs(",\"why\":", f);
		heatmap_json_escape(f, x->why);
		fputs(",\"evidence\":", f);
		heatmap_json_escape(f, x->evidence);
		fputs(",\"try\":", f);
		heatmap_json_escape(f, x->advice);
		fputs(",\"worse\":", f);
		if (isinf(x->worse))
			fputs("\"failed since\"", f);
		else if (x->worse > 0)
			heatmap_html_number(f, x->worse);
		else
			fputs("null", f);
		fprintf(f, ",\"bad_cells\":%zu,\"expected_cells\":%zu,"
		    "\"one_test\":%s", x->nbad, x->nexpected, x->one_test ?
		    "true" : "false");
		if (x->loss_kind != NULL && x->sent > 0) {
			fputs(",\"samples\":{\"kind\":", f);
			heatmap_json_escape(f, x->loss_kind);
			fprintf(f, ",\"lost\":%zu,\"sent\":%zu,"
			    "\"reference_rate\":", x->lost, x->sent);
			heatmap_html_number(f, x->ref_rate);
			fputc('}', f);
		} else
			fputs(",\"samples\":null", f);
		fputs(",\"cells\":[", f);
		for (j = 0; j < x->ncells; j++) {
			if (j)
				fputc(',', f);
			cell(f, hm, &x->cells[j]);
		}
		fprintf(f, "],\"cells_more\":%zu}", x->cells_more);
	}
	fputs("\n]}\n", f);
	return ferror(f) ? NP_ERR_IO : 0;
}
