/*
 * The diagnosis finds the fault. On the project's fixtures, each case a
 * new user met reads right: the WAN fixture's slowed link (n4 <-> n8 at
 * 148 ms where its site pair takes 89.9) is one finding, localised again
 * with --compare; one failing pair (delta -> beta) is one finding, not
 * four that contradict each other; ping's refusal of a broadcast address
 * is a setup finding, not a firewall; titles name the real hosts, also
 * when they are called a and b; slowness and loss are findings. On
 * generated matrices (a star of sites with jitter), every kind of fault
 * at its place: a host down, refusing ICMP, iperf3 or libp2p, its own
 * link lossy, slow or capped one way; a site's uplink lossy or (against
 * an old run) slower, a site cut off; one pair slow, lossy, blocked one
 * way; a missing tool; two faults at once; a healthy mesh (no finding);
 * and 1,000 hosts. Every bad cell is in at most one finding.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "fixture.h"
#include "heatmap.h"
#include "heatmap_cell.h"
#include "heatmap_compare.h"
#include "diagnose.h"
#include "heatmap_diagnosis_json.h"
#include "diagnose_evidence.h"
#include "heatmap_gen.h"
#include "matrix_sites.h"

struct lab {
	struct matrix *hm, *old;
	struct diagnosis dx;
};

/* Files of a fixture directory, grouped as heatmap groups them. */
static struct matrix *
load(const char *dir, const char *const *names)
{
	struct matrix *hm = matrix_new();

	assert_non_null(hm);
	for (; *names != NULL; names++)
		assert_int_equal(matrix_read(hm, fixture_path(dir, *names),
		    0), 0);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	return hm;
}

static struct lab *
lab_of(struct matrix *hm, struct matrix *old)
{
	struct lab *lab = calloc(1, sizeof *lab);

	assert_non_null(lab);
	lab->hm = hm;
	lab->old = old;
	if (old != NULL)
		assert_int_equal(heatmap_compare(hm, old), 0);
	if (hm->group_by == NULL)	/* not grouped yet (the generator's are) */
		assert_int_equal(matrix_sites_group(hm, MATRIX_GROUP_AUTO, 5.0), 0);
	assert_int_equal(diagnose(hm, old, &lab->dx), 0);
	return lab;
}

static void
lab_free(struct lab *lab)
{
	diagnose_free(&lab->dx);
	diagnose_free(&lab->dx);	/* a no-op the second time */
	matrix_free(lab->hm);
	matrix_free(lab->old);
	free(lab);
}

static const char *
host_of(const struct lab *lab, const struct finding *f, int i)
{
	return lab->hm->hosts[f->place[i]];
}

/* The findings, for a failure message. */
static const char *
listing(const struct lab *lab)
{
	static char buf[4096];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < lab->dx.nfindings && len < sizeof buf; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len,
		    "[%s %s %.2f] %s; ", lab->dx.findings[i].rule,
		    diagnose_severity_name(lab->dx.findings[i].severity),
		    lab->dx.findings[i].score, lab->dx.findings[i].title);
	return buf;
}

/* No (kind, source, target) in two findings; findings in rank order. */
static void
check_cover(const struct lab *lab)
{
	size_t n = lab->hm->nhosts, i, j;
	unsigned char *seen = calloc(lab->hm->nkinds * n * n + 1, 1);

	assert_non_null(seen);
	for (i = 0; i < lab->dx.nfindings; i++) {
		const struct finding *f = &lab->dx.findings[i];

		assert_non_null(f->title);
		assert_non_null(f->evidence);
		assert_non_null(f->why);
		assert_non_null(f->advice);
		assert_true(f->score >= 0 && f->score <= 1);
		if (i > 0) {
			const struct finding *p = &lab->dx.findings[i - 1];

			assert_true(p->severity > f->severity ||
			    (p->severity == f->severity &&
			    p->score >= f->score));
		}
		for (j = 0; j < f->ncells; j++) {
			const struct dx_cell *c = &f->cells[j];
			size_t at = c->kind * n * n + c->src * n + c->tgt;

			if (seen[at])
				fail_msg("%s -> %s of kind %zu in two findings: "
				    "%s", lab->hm->hosts[c->src],
				    lab->hm->hosts[c->tgt], c->kind,
				    listing(lab));
			seen[at] = 1;
		}
	}
	free(seen);
}

/* The finding of rule at place (host names; NULL: any), or a failure. */
static const struct finding *
expect(const struct lab *lab, const char *rule, const char *a,
    const char *b)
{
	size_t i;

	for (i = 0; i < lab->dx.nfindings; i++) {
		const struct finding *f = &lab->dx.findings[i];
		int scope_hosts = f->scope == DX_SCOPE_HOST ||
		    f->scope == DX_SCOPE_PAIR;

		if (strcmp(f->rule, rule) != 0)
			continue;
		if (a != NULL && scope_hosts && strcmp(host_of(lab, f, 0), a)
		    != 0 && !(b != NULL && f->scope == DX_SCOPE_PAIR &&
		    strcmp(host_of(lab, f, 1), a) == 0))
			continue;
		if (a != NULL && !scope_hosts && strcmp(lab->hm->groups[
		    f->place[0]], a) != 0)
			continue;
		if (b != NULL && f->scope == DX_SCOPE_PAIR &&
		    strcmp(host_of(lab, f, 1), b) != 0 &&
		    strcmp(host_of(lab, f, 0), b) != 0)
			continue;
		return f;
	}
	fail_msg("no finding %s at %s %s among: %s", rule, a ? a : "-",
	    b ? b : "-", listing(lab));
	return NULL;
}

/* --- the project's fixtures ----------------------------------------------- */

static const char *const wan_new[] = { "collect.jsonl", "measurements.jsonl",
    NULL };
static const char *const wan_old[] = { "old-collect.jsonl",
    "old-measurements.jsonl", NULL };

/* n4 -> n8 at 148 ms where fra -> iad takes 89.9: one finding, the pair,
 * both ways, every kind; the relayed pair the other; nothing else. */
static void
test_wan_slowed_link_is_one_pair_finding(void **state)
{
	struct lab *lab = lab_of(load("wan", wan_new), NULL);
	const struct finding *f;
	size_t i;
	int ping = 0;

	(void)state;
	check_cover(lab);
	assert_int_equal(lab->dx.nfindings, 2);
	f = &lab->dx.findings[0];
	assert_string_equal(f->rule, "pair_degraded");
	assert_int_equal(f->scope, DX_SCOPE_PAIR);
	assert_int_equal(f->dir, DX_DIR_BOTH);
	assert_int_equal(f->nbad, 10);	/* 5 kinds, both ways */
	assert_non_null(strstr(f->title, "n4 <-> n8"));
	assert_null(strstr(f->title, "a -> b"));
	for (i = 0; i < f->ncells; i++) {
		const struct dx_cell *c = &f->cells[i];

		if (strcmp(lab->hm->kinds[c->kind].name, "ping") != 0 ||
		    strcmp(lab->hm->hosts[c->src], "n4") != 0)
			continue;
		ping = 1;
		assert_true(c->value > 145 && c->value < 152);
		assert_true(c->typical > 88.5 && c->typical < 91.5);
		assert_true(c->what & DX_W_SLOW);
	}
	assert_true(ping);
	expect(lab, "relayed", "n1", "n6");
	lab_free(lab);
}

/* With --compare: the same pair, now worse than the old run (1.64x), and
 * still no other finding; the old run against itself: none. */
/* Where the records say the path (bench's "path"), it is read, not
 * inferred from the round trips: n1 <-> n6, said direct, is no relayed
 * pair whatever its figures; n2 <-> n3, said relayed, is one at its
 * site pair's figures. */
static const char *const wan_paths[] = { "collect.jsonl", "measurements.jsonl",
    "paths.jsonl", NULL };

static void
test_wan_records_path_read(void **state)
{
	struct lab *lab = lab_of(load("wan", wan_paths), NULL);
	size_t i;

	(void)state;
	check_cover(lab);
	expect(lab, "relayed", "n2", "n3");
	for (i = 0; i < lab->dx.nfindings; i++) {
		const struct finding *f = &lab->dx.findings[i];

		if (strcmp(f->rule, "relayed") == 0 &&
		    f->scope == DX_SCOPE_PAIR &&
		    (strcmp(host_of(lab, f, 0), "n1") == 0 ||
		    strcmp(host_of(lab, f, 1), "n1") == 0))
			fail_msg("n1 <-> n6 said direct, found relayed: %s",
			    listing(lab));
	}
	lab_free(lab);
}

static void
test_wan_compare_localises_the_regression(void **state)
{
	struct lab *lab = lab_of(load("wan", wan_new), load("wan", wan_old));
	const struct finding *f;

	(void)state;
	check_cover(lab);
	assert_int_equal(lab->dx.nfindings, 2);
	f = expect(lab, "pair_degraded", "n4", "n8");
	assert_true(f->what & DX_W_WORSE);
	assert_true(f->worse > 1.5 && f->worse < 1.8);
	assert_true(diagnose_most_worse(&lab->dx) == f->worse);
	lab_free(lab);
	lab = lab_of(load("wan", wan_old), load("wan", wan_old));
	assert_int_equal(lab->dx.nfindings, 1);	/* the relayed pair */
	expect(lab, "relayed", "n1", "n6");
	assert_true(diagnose_most_worse(&lab->dx) == 0);
	lab_free(lab);
}

/* The collect files alone (ping, iperf3) against the old run's: where
 * the comparison counted "4 pairs worse" and no pattern, the pair. */
static void
test_wan_collect_compared(void **state)
{
	static const char *const now[] = { "collect.jsonl", NULL };
	static const char *const then[] = { "old-collect.jsonl", NULL };
	struct lab *lab = lab_of(load("wan", now), load("wan", then));
	const struct finding *f;

	(void)state;
	check_cover(lab);
	assert_int_equal(lab->hm->nworse, 4);
	assert_int_equal(lab->dx.nfindings, 1);
	f = expect(lab, "pair_degraded", "n4", "n8");
	assert_int_equal(f->nbad, 4);
	assert_true(f->worse > 1.5);
	lab_free(lab);
}

static const char *const heatmap_files[] = { "collect.jsonl",
    "measurements.jsonl", "run.json", NULL };

/* delta -> beta: latency and throughput fail with dial backoff while
 * libp2p_ping works: one finding, the relay reservation, ranked; not an
 * inbound firewall on beta, not "add a relay" too. */
static void
test_one_failing_pair_is_one_finding(void **state)
{
	struct lab *lab = lab_of(load("heatmap", heatmap_files), NULL);
	const struct finding *f;
	size_t i, naming_beta = 0;	/* findings of delta and beta */

	(void)state;
	check_cover(lab);
	f = expect(lab, "relay_reservation", "delta", "beta");
	assert_int_equal(f->scope, DX_SCOPE_PAIR);
	assert_int_equal(f->dir, DX_DIR_OUT);
	assert_string_equal(host_of(lab, f, 0), "delta");
	assert_int_equal(f->nbad, 2);
	assert_non_null(strstr(f->evidence, "dial backoff"));
	assert_true(f == &lab->dx.findings[0]);
	/* one finding of the pair (beta's others are the intermittent
	 * beta -> gamma) */
	for (i = 0; i < lab->dx.nfindings; i++) {
		const struct finding *x = &lab->dx.findings[i];

		if (x->scope == DX_SCOPE_PAIR && ((strcmp(host_of(lab, x, 0),
		    "delta") == 0 && strcmp(host_of(lab, x, 1), "beta") == 0) ||
		    (strcmp(host_of(lab, x, 0), "beta") == 0 &&
		    strcmp(host_of(lab, x, 1), "delta") == 0)))
			naming_beta++;
	}
	assert_int_equal(naming_beta, 1);
	assert_null(diagnose_find(&lab->dx, "no_direct_dial"));
	assert_null(diagnose_find(&lab->dx, "host_blocked"));
	lab_free(lab);
}

/* The fixture's other planted patterns, each once, ranked. */
static void
test_heatmap_fixture_patterns_ranked(void **state)
{
	struct lab *lab = lab_of(load("heatmap", heatmap_files), NULL);
	const struct finding *f;

	(void)state;
	check_cover(lab);
	f = expect(lab, "one_way", "delta", "alpha");
	assert_string_equal(f->title,
	    "delta -> alpha fails, alpha -> delta works (ICMP echo)");
	f = expect(lab, "one_way", "gamma", "delta");
	assert_non_null(strstr(f->title, "iperf3's TCP port 5301"));
	f = expect(lab, "convergence", "delta", NULL);
	assert_non_null(strstr(f->evidence, "60.0 s"));
	assert_non_null(strstr(f->advice, "bootstrap_extra"));
	f = expect(lab, "intermittent_peer", "beta", "gamma");
	assert_int_equal(f->lost, 3);
	assert_int_equal(f->sent, 20);
	f = expect(lab, "http_overhead", "alpha", "gamma");
	assert_int_equal(f->severity, DX_SEV_INFO);
	assert_true(f == &lab->dx.findings[lab->dx.nfindings - 1]);
	/* delta's iperf3 and throughput at half its peers': its link */
	f = expect(lab, "host_link", "delta", NULL);
	assert_true(f->what & DX_W_NARROW);
	assert_int_equal(lab->dx.nfindings, 7);
	lab_free(lab);
}

/* ping's "Do you want to ping broadcast?" is the tool refusing a broadcast
 * address: a setup finding on bc, no network finding. */
static void
test_broadcast_ping_is_setup(void **state)
{
	static const char *const files[] = { "collect.jsonl", NULL };
	struct lab *lab = lab_of(load("upstream", files), NULL);
	const struct finding *f;

	(void)state;
	check_cover(lab);
	assert_int_equal(lab->dx.nfindings, 1);
	f = expect(lab, "setup", "bc", NULL);
	assert_string_equal(f->category, "setup");
	assert_non_null(strstr(f->title, "broadcast"));
	assert_non_null(strstr(f->advice, "machines.json"));
	lab_free(lab);
}

/* Hosts called a and b: the title says which is which, never the rule's
 * placeholders. */
static void
test_titles_name_the_real_hosts(void **state)
{
	const char *path = temp_jsonl(
	    "{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"b\",\"ok\":true,"
	    "\"metrics\":{\"avg\":1}}\n"
	    "{\"kind\":\"ping\",\"source\":\"b\",\"target\":\"a\",\"ok\":false,"
	    "\"error\":\"100% packet loss: 5 sent, none answered\"}\n"
	    "{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"c\",\"ok\":true,"
	    "\"metrics\":{\"avg\":1}}\n"
	    "{\"kind\":\"ping\",\"source\":\"c\",\"target\":\"a\",\"ok\":true,"
	    "\"metrics\":{\"avg\":1}}\n"
	    "{\"kind\":\"ping\",\"source\":\"b\",\"target\":\"c\",\"ok\":true,"
	    "\"metrics\":{\"avg\":1}}\n"
	    "{\"kind\":\"ping\",\"source\":\"c\",\"target\":\"b\",\"ok\":true,"
	    "\"metrics\":{\"avg\":1}}\n");
	struct matrix *hm = matrix_new();
	struct lab *lab;

	(void)state;
	assert_int_equal(matrix_read(hm, path, 0), 0);
	unlink(path);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	lab = lab_of(hm, NULL);
	assert_int_equal(lab->dx.nfindings, 1);
	assert_string_equal(lab->dx.findings[0].title,
	    "b -> a fails, a -> b works (ICMP echo)");
	assert_non_null(strstr(lab->dx.findings[0].advice,
	    "a drops what b sends"));
	lab_free(lab);
}

/* One switch: ratios of hundreds between tiny numbers, and no finding. */
static void
test_microsecond_lab_has_no_finding(void **state)
{
	static const char *const files[] = { "microsecond-lab.jsonl", NULL };
	struct lab *lab = lab_of(load("heatmap", files), NULL);

	(void)state;
	assert_int_equal(lab->dx.nfindings, 0);
	lab_free(lab);
}

/* No finding at warning or above (info: to measure again). */
static void
no_warning(const struct lab *lab)
{
	size_t i;

	for (i = 0; i < lab->dx.nfindings; i++)
		if (lab->dx.findings[i].severity != DX_SEV_INFO)
			fail_msg("a warning: %s", listing(lab));
}

/*
 * A healthy bench run on a loaded lab (6 hosts in 2 sites, every pair
 * direct, the stand-in node on 2 busy cores): libp2p round trips of 3 to
 * 80 ms where ICMP takes 0.04 and 30, one 1 MB transfer a pair. The
 * node's own stalls are no finding at warning: its round trips judged
 * by their fastest sample and against the span of its probes' samples,
 * one collapsed transfer one way at most info; and no pair said direct
 * is relayed.
 */
static void
test_loaded_bench_run_has_no_warning(void **state)
{
	static const char *const files[] = { "bench-loaded.jsonl", NULL };
	static const char *const sites[] = { "a", "a", "a", "b", "b", "b" };
	struct matrix *hm = load("heatmap", files);
	struct lab *lab;
	char name[8];
	size_t i;

	(void)state;
	for (i = 0; i < 6; i++) {	/* the lab's machines.json's sites */
		snprintf(name, sizeof name, "h%zu", i + 1);
		assert_int_equal(matrix_sites_hint(hm, name, sites[i]), 0);
	}
	assert_int_equal(matrix_sites_group(hm, MATRIX_GROUP_SITE, 5.0), 0);
	lab = lab_of(hm, NULL);
	check_cover(lab);
	no_warning(lab);
	for (i = 0; i < lab->dx.nfindings; i++)
		assert_string_not_equal(lab->dx.findings[i].rule, "relayed");
	lab_free(lab);
}

static const char *
jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static double
jnum(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

/* --diagnosis-json: the documented schema, the WAN fixture against its
 * old run (the slowed link first, worse 1.6x; the relayed pair). */
static void
test_json_schema(void **state)
{
	struct lab *lab = lab_of(load("wan", wan_new), load("wan", wan_old));
	const cJSON *fs, *f, *place, *cells, *c;
	char *text = NULL;
	size_t len = 0;
	cJSON *doc;
	FILE *out;

	(void)state;
	assert_non_null(out = open_memstream(&text, &len));
	assert_int_equal(heatmap_diagnosis_json(lab->hm, &lab->dx, out), 0);
	fclose(out);
	assert_non_null(doc = cJSON_Parse(text));
	assert_true(jnum(doc, "version") == 1);
	assert_true(jnum(doc, "hosts") == 9);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "compared")));
	assert_string_equal(jstr(doc, "worst"), "warning");
	fs = cJSON_GetObjectItem(doc, "findings");
	assert_int_equal(cJSON_GetArraySize(fs), 2);
	f = cJSON_GetArrayItem(fs, 0);
	assert_true(jnum(f, "rank") == 1);
	assert_string_equal(jstr(f, "rule"), "pair_degraded");
	assert_string_equal(jstr(f, "severity"), "warning");
	assert_string_equal(jstr(f, "category"), "network");
	assert_non_null(strstr(jstr(f, "title"), "n4 <-> n8"));
	place = cJSON_GetObjectItem(f, "place");
	assert_string_equal(jstr(place, "scope"), "pair");
	assert_string_equal(jstr(place, "direction"), "both");
	assert_true((strcmp(jstr(place, "source"), "n4") == 0 &&
	    strcmp(jstr(place, "target"), "n8") == 0) ||
	    (strcmp(jstr(place, "source"), "n8") == 0 &&
	    strcmp(jstr(place, "target"), "n4") == 0));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(f,
	    "protocols")), 3);
	assert_true(jnum(f, "score") > 0.8 && jnum(f, "score") <= 1);
	assert_true(jnum(f, "worse") > 1.5 && jnum(f, "worse") < 1.8);
	assert_true(jnum(f, "bad_cells") == 10);
	assert_non_null(strstr(jstr(f, "why"), "score"));
	assert_non_null(strstr(jstr(f, "evidence"), "typical"));
	assert_non_null(strstr(jstr(f, "try"), "n4"));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, "samples")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(f, "one_test")));
	cells = cJSON_GetObjectItem(f, "cells");
	assert_int_equal(cJSON_GetArraySize(cells), 10);
	c = cJSON_GetArrayItem(cells, 0);
	assert_string_equal(jstr(c, "kind"), "ping");
	assert_string_equal(jstr(c, "metric"), "p50");
	assert_string_equal(jstr(c, "unit"), "ms");
	assert_true(jnum(c, "value") > 145 && jnum(c, "typical") < 92 &&
	    jnum(c, "old") < 92);
	assert_true(jnum(c, "sent") == 5 && jnum(c, "lost") == 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "error")));
	assert_true(jnum(f, "cells_more") == 0);
	f = cJSON_GetArrayItem(fs, 1);
	assert_string_equal(jstr(f, "rule"), "relayed");
	assert_string_equal(jstr(f, "category"), "libp2p");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(f, "worse")));
	cJSON_Delete(doc);
	free(text);
	lab_free(lab);
}

/* --- generated matrices: each fault at its place --------------------------- */

static const size_t sites332[] = { 3, 3, 2, 0 };
static const double delays[] = { 5, 15, 30, 10 };

struct fault {
	const char *kind;	/* NULL: every kind */
	long host, peer;	/* the host (row and column), or the pair */
	int row, col;		/* which of the host's cells */
	long site;		/* a site's crossing cells */
	const char *error, *error_class;
	int fail, lost;
	double delay, mbps;
	int one_way;		/* the pair: host -> peer only */
};

static int
hits(const struct gen *g, const struct fault *f, const struct gen_rec *r)
{
	if (f->kind != NULL && strcmp(f->kind, r->kind) != 0)
		return 0;
	if (f->site >= 0)
		return (g->site[r->src] == (size_t)f->site) !=
		    (g->site[r->tgt] == (size_t)f->site);
	if (f->peer >= 0)
		return ((long)r->src == f->host && (long)r->tgt == f->peer) ||
		    (!f->one_way && (long)r->src == f->peer &&
		    (long)r->tgt == f->host);
	return (f->row && (long)r->src == f->host) ||
	    (f->col && (long)r->tgt == f->host);
}

static void
apply(const struct gen *g, const struct fault *f, struct gen_rec *r)
{
	if (f->kind == NULL && f->host < 0 && f->site < 0)
		return;
	if (!hits(g, f, r))
		return;
	if (f->fail) {
		r->ok = 0;
		r->error = f->error;
		r->error_class = f->error_class;
	}
	if (f->lost > 0 && r->sent > 0)	/* 1 to lost+1 of them, varied */
		r->lost = (int)((r->src * 7 + r->tgt * 3) % (size_t)(f->lost +
		    1)) + f->lost / 2;
	r->latency += f->delay * (strcmp(r->kind, "latency") == 0 ? 2 : 1);
	if (f->mbps > 0 && r->mbps > f->mbps)
		r->mbps = f->mbps;
}

static void
faults_hook(const struct gen *g, struct gen_rec *r, void *arg)
{
	const struct fault *f;

	for (f = arg; f->kind != NULL || f->host >= 0 || f->site >= 0; f++)
		apply(g, f, r);
}

#define NOFAULT { NULL, -1, -1, 0, 0, -1, NULL, NULL, 0, 0, 0, 0, 0 }

static const char *gen_run_json;	/* read with the next gen_lab() */

/* The diagnosis of a generated mesh with faults (NOFAULT-terminated). */
static struct lab *
gen_lab(const size_t *sizes, int iperf, int libp2p, struct fault *faults,
    struct fault *old_faults)
{
	struct gen g;
	struct matrix *hm, *old = NULL;
	struct lab *lab;

	gen_init(&g, sizes, delays);
	g.run_json = gen_run_json;
	gen_run_json = NULL;
	g.iperf = iperf;
	g.libp2p = libp2p;
	g.hook = faults_hook;
	g.arg = faults;
	hm = gen_heatmap(&g);
	if (old_faults != NULL) {
		g.arg = old_faults;
		g.seed = 99;
		old = gen_heatmap(&g);
	}
	lab = lab_of(hm, old);
	gen_free(&g);
	check_cover(lab);
	return lab;
}

static const char *const down_row = "could not connect: 198.18.0.5:22: "
    "timed out after 5 s";

static void
test_gen_host_down(void **state)
{
	struct fault f[] = {
		{ NULL, 3, -1, 1, 0, -1, down_row, "unreachable", 1, 0, 0, 0, 0 },
		{ NULL, 3, -1, 0, 1, -1, "100% packet loss: 10 sent, none "
		  "answered", "tool_failed", 1, 0, 0, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	expect(lab, "host_down", "h4", NULL);
	assert_int_equal(lab->dx.findings[0].nbad, 28);	/* 7 x 2 x 2 kinds */
	lab_free(lab);
}

static void
test_gen_host_refuses_icmp(void **state)
{
	struct fault f[] = {
		{ "ping", 1, -1, 0, 1, -1, NULL, NULL, 1, 0, 0, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "host_blocked", "h2", NULL);
	assert_int_equal(x->dir, DX_DIR_IN);
	assert_int_equal(x->protos, DX_PROTO_ICMP);
	assert_non_null(strstr(x->title, "h2 refuses ICMP echo"));
	lab_free(lab);
}

static void
test_gen_host_refuses_iperf3(void **state)
{
	struct fault f[] = {
		{ "iperf3", 6, -1, 0, 1, -1, "iperf3: error - unable to connect "
		  "to server: Connection refused", "tool_failed", 1, 0, 0, 0,
		  0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "host_blocked", "h7", NULL);
	assert_int_equal(x->dir, DX_DIR_IN);
	assert_int_equal(x->protos, DX_PROTO_IPERF3);
	assert_non_null(strstr(x->title, "TCP port 5201"));
	lab_free(lab);
}

static const char *const backoff = "no successful samples: failed to dial: "
    "all dials failed * [/ip4/198.18.0.6/tcp/19091] dial backoff";

/*
 * h5's libp2p port refused: one finding, h5 blocked; the other nodes'
 * convergence, short of h5 (run.json), is that finding's too, not a
 * finding each.
 */
static void
test_gen_host_refuses_libp2p(void **state)
{
	const char *run = temp_jsonl("{\"run_id\": \"r\", \"machines\": "
	    "[{\"name\": \"h1\"}, {\"name\": \"h5\"}], \"convergence\": "
	    "{\"h1\": {\"complete\": false, \"elapsed_s\": 10}, "
	    "\"h5\": {\"complete\": false, \"elapsed_s\": 10}}, "
	    "\"phases\": {}}\n");
	struct fault f[] = {
		{ "libp2p_ping", 4, -1, 0, 1, -1, backoff, "unreachable", 1, 0,
		  0, 0, 0 },
		{ "latency", 4, -1, 0, 1, -1, backoff, "unreachable", 1, 0, 0, 0,
		  0 },
		{ "throughput", 4, -1, 0, 1, -1, backoff, "unreachable", 1, 0, 0,
		  0, 0 },
		NOFAULT };
	struct lab *lab;
	const struct finding *x;

	(void)state;
	gen_run_json = run;
	lab = gen_lab(sites332, 0, 1, f, NULL);
	unlink(run);
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "host_blocked", "h5", NULL);
	assert_int_equal(x->dir, DX_DIR_IN);
	assert_int_equal(x->protos, DX_PROTO_LIBP2P);
	assert_non_null(strstr(x->title, "libp2p port 19091"));
	lab_free(lab);
}

static void
test_gen_host_link_lossy(void **state)
{
	struct fault f[] = {
		{ "ping", 2, -1, 1, 1, -1, NULL, NULL, 0, 3, 0, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 0, 0, f, NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "host_link", "h3", NULL);
	assert_true(x->what & DX_W_LOSS);
	assert_string_equal(x->loss_kind, "ping");
	assert_true(x->lost > 10 && x->sent == 140);
	lab_free(lab);
}

static void
test_gen_host_link_slow(void **state)
{
	struct fault f[] = {
		{ NULL, 5, -1, 1, 1, -1, NULL, NULL, 0, 0, 20, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);
	const struct finding *x;

	(void)state;
	if (lab->dx.nfindings != 1)
		fail_msg("slow h6: %s", listing(lab));
	x = expect(lab, "host_link", "h6", NULL);
	assert_int_equal(x->dir, DX_DIR_BOTH);
	assert_true(x->what & DX_W_SLOW);
	lab_free(lab);
}

/* A rate on what h1 sends: its iperf3 row only. */
static void
test_gen_host_outbound_capped(void **state)
{
	struct fault f[] = {
		{ "iperf3", 0, -1, 1, 0, -1, NULL, NULL, 0, 0, 0, 10, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "host_link", "h1", NULL);
	assert_int_equal(x->dir, DX_DIR_OUT);
	assert_true(x->what & DX_W_NARROW);
	assert_non_null(strstr(x->title, "(what it sends)"));
	lab_free(lab);
}

static void
test_gen_site_uplink_lossy(void **state)
{
	struct fault f[] = {
		{ "ping", -1, -1, 0, 0, 2, NULL, NULL, 0, 3, 0, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 0, 0, f, NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "site_uplink", "c", NULL);
	assert_int_equal(x->scope, DX_SCOPE_SITE);
	assert_true(x->what & DX_W_LOSS);
	lab_free(lab);
}

/* A site's uplink 30 ms slower than in the old run: only the comparison
 * can tell a slower uplink from a farther site. */
static void
test_gen_site_uplink_slower_than_old_run(void **state)
{
	struct fault f[] = {
		{ NULL, -1, -1, 0, 0, 1, NULL, NULL, 0, 0, 30, 0, 0 },
		NOFAULT };
	struct fault none[] = { NOFAULT };
	struct lab *lab = gen_lab(sites332, 0, 0, f, none);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "site_uplink", "b", NULL);
	assert_true(x->what & DX_W_WORSE);
	assert_true(x->worse > 1.3);
	lab_free(lab);
	/* the same run alone: a farther site, no finding */
	lab = gen_lab(sites332, 0, 0, f, NULL);
	assert_int_equal(lab->dx.nfindings, 0);
	lab_free(lab);
}

static void
test_gen_site_cut_off(void **state)
{
	struct fault f[] = {
		{ NULL, -1, -1, 0, 0, 0, NULL, NULL, 1, 0, 0, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	expect(lab, "site_down", "a", NULL);
	lab_free(lab);
}

static void
test_gen_pair_slow_both_ways(void **state)
{
	struct fault f[] = {
		{ "ping", 1, 4, 0, 0, -1, NULL, NULL, 0, 0, 50, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "pair_degraded", "h2", "h5");
	assert_int_equal(x->dir, DX_DIR_BOTH);
	assert_true(x->what & DX_W_SLOW);
	lab_free(lab);
}

static void
test_gen_pair_lossy(void **state)
{
	struct fault f[] = {
		{ "ping", 0, 7, 0, 0, -1, NULL, NULL, 0, 4, 0, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 0, 0, f, NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "pair_degraded", "h1", "h8");
	assert_true(x->what & DX_W_LOSS);
	lab_free(lab);
}

/* udp's loss reaches the diagnosis through its row (the datagrams its
 * records count lost and sent): alpha -> gamma loses 87 of 1,042, the
 * other pairs none or one. */
static void
test_udp_lossy_pair_named(void **state)
{
	static const char *const files[] = { "udp-lossy.jsonl", NULL };
	struct lab *lab = lab_of(load("heatmap", files), NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "pair_degraded", "alpha", "gamma");
	assert_true(x->what & DX_W_LOSS);
	assert_string_equal(x->loss_kind, "udp");
	assert_int_equal(x->lost, 87);
	lab_free(lab);
}

/* The kinds the diagnosis reads since their rows say how: a path that
 * carries no packet of theirs is the network's failure, not the tool's. */
static void
test_kind_failures_are_the_networks(void **state)
{
	(void)state;
	assert_int_equal(diagnose_evidence_classify("no packet crossed with "
	    "don't-fragment set, 68 bytes and smaller, in 3 tries",
	    "tool_failed", "h1", "h2"), EV_FAIL);
	assert_int_equal(diagnose_evidence_classify("the target did not "
	    "answer (100% packet loss): 1 hop, the last 198.18.71.1",
	    "tool_failed", "h1", "h2"), EV_FAIL);
}

/* mtu's size reaches the diagnosis through its row (the rate it judges,
 * its floor in bytes): beta and delta cross 1,420 bytes both ways (a
 * tunnel), every other pair 1,500. */
static void
test_mtu_narrow_pair_named(void **state)
{
	static const char *const files[] = { "mtu-narrow.jsonl", NULL };
	struct lab *lab = lab_of(load("heatmap", files), NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "pair_degraded", "beta", "delta");
	assert_int_equal(x->dir, DX_DIR_BOTH);
	assert_true(x->what & DX_W_NARROW);
	assert_non_null(strstr(x->evidence, "mtu 1420 bytes against 1500 "
	    "bytes typical"));
	lab_free(lab);
}

/*
 * One iperf3 test one way far below its site pair's: a hint (info) until
 * measured again, for a short TCP test now and then collapses; both ways
 * (two tests) is a warning.
 */
static void
test_gen_pair_narrow_one_test(void **state)
{
	struct fault f[] = {
		{ "iperf3", 0, 4, 0, 0, -1, NULL, NULL, 0, 0, 0, 10, 1 },
		NOFAULT };
	struct fault both[] = {
		{ "iperf3", 0, 4, 0, 0, -1, NULL, NULL, 0, 0, 0, 10, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);
	const struct finding *x;
	const cJSON *j;
	char *text = NULL;
	size_t len = 0;
	cJSON *doc;
	FILE *out;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "pair_degraded", "h1", "h5");
	assert_true(x->one_test);
	assert_int_equal(x->severity, DX_SEV_INFO);
	assert_int_equal(x->dir, DX_DIR_OUT);
	assert_string_equal(host_of(lab, x, 0), "h1");
	assert_non_null(strstr(x->title, "in one test"));
	assert_non_null(strstr(x->evidence, "iperf3: mbps "));
	assert_non_null(strstr(x->evidence, " Mbit/s typical of its site "
	    "pair, in one test"));
	assert_non_null(strstr(x->advice, "-H h1,h5"));
	/* and in JSON, with its severity */
	assert_non_null(out = open_memstream(&text, &len));
	assert_int_equal(heatmap_diagnosis_json(lab->hm, &lab->dx, out), 0);
	fclose(out);
	assert_non_null(doc = cJSON_Parse(text));
	j = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "findings"), 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "one_test")));
	assert_string_equal(jstr(j, "severity"), "info");
	assert_string_equal(jstr(doc, "worst"), "info");
	cJSON_Delete(doc);
	free(text);
	lab_free(lab);
	lab = gen_lab(sites332, 1, 0, both, NULL);
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "pair_degraded", "h1", "h5");
	assert_false(x->one_test);
	assert_int_equal(x->severity, DX_SEV_WARNING);
	assert_int_equal(x->dir, DX_DIR_BOTH);
	assert_non_null(strstr(x->evidence, "iperf3: mbps "));
	assert_non_null(strstr(x->evidence, "(medians of both ways)"));
	lab_free(lab);
}

/* h5 -> h3 blocked, h3 -> h5 fine: one way, named in its order. */
static void
test_gen_one_way_block(void **state)
{
	struct fault f[] = {
		{ "ping", 4, 2, 0, 0, -1, NULL, NULL, 1, 0, 0, 0, 1 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "one_way", "h5", "h3");
	assert_string_equal(host_of(lab, x, 0), "h5");
	assert_string_equal(x->title, "h5 -> h3 fails, h3 -> h5 works "
	    "(ICMP echo)");
	lab_free(lab);
}

/* ping missing on h2: a setup finding, no network one. */
static void
test_gen_tool_missing_is_setup(void **state)
{
	struct fault f[] = {
		{ "ping", 1, -1, 1, 0, -1, "h2: ping is not installed or not on "
		  "PATH there (exit 127)", "tool_missing", 1, 0, 0, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);
	const struct finding *x;

	(void)state;
	assert_int_equal(lab->dx.nfindings, 1);
	x = expect(lab, "setup", "h2", NULL);
	assert_string_equal(x->category, "setup");
	assert_int_equal(x->nbad, 7);
	lab_free(lab);
}

/* Jitter of 2 % (5 % for throughput) in a star of sites, and a single
 * switch of microseconds: no finding. */
static void
test_gen_healthy_has_no_finding(void **state)
{
	static const size_t one[] = { 8, 0 };
	struct fault none[] = { NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 1, none, none);

	(void)state;
	if (lab->dx.nfindings != 0)
		fail_msg("healthy: %s", listing(lab));
	lab_free(lab);
	lab = gen_lab(one, 1, 1, none, NULL);
	assert_int_equal(lab->dx.nfindings, 0);
	lab_free(lab);
}

/* collect --sample 1: pairs inside a site, and host i's one peer across
 * sites, (i + 1) mod its peers', a sweep; the others not measured. */
static void
sample_hook(const struct gen *g, struct gen_rec *r, void *arg)
{
	size_t j, m = 0, at = 0;

	(void)arg;
	if (g->site[r->src] == g->site[r->tgt])
		return;
	for (j = 0; j < g->n; j++)
		if (g->site[j] != g->site[r->src]) {
			if (j == r->tgt)
				at = m;
			m++;
		}
	r->skip = at != (r->src + 1) % m;
}

/*
 * A sampled sweep's partial matrix (each host one pair across sites, of
 * 5 or 6): the cells not measured are no failure and no finding; the
 * matrix says it is a sample; a host that fails in it is still found.
 */
static void
test_gen_sampled_sweep_is_no_failure(void **state)
{
	struct gen g;
	struct matrix *hm;
	struct lab *lab;
	size_t k, s, t, missing = 0;

	(void)state;
	gen_init(&g, sites332, delays);
	g.iperf = 1;
	g.sample = 1;
	g.hook = sample_hook;
	hm = gen_heatmap(&g);
	gen_free(&g);
	assert_int_equal(hm->sample, 1);
	for (k = 0; k < hm->nkinds; k++)
		for (s = 0; s < hm->nhosts; s++)
			for (t = 0; t < hm->nhosts; t++)
				missing += s != t && matrix_cell_at(hm,
				    &hm->kinds[k], s, t)->state == CELL_MISSING;
	assert_int_equal(missing, 2 * 34);	/* 42 pairs across, 8 measured */
	lab = lab_of(hm, NULL);
	check_cover(lab);
	if (lab->dx.nfindings != 0)
		fail_msg("sampled: %s", listing(lab));
	lab_free(lab);
}

/*
 * 40 hosts, one site, a probe in 30 failing here and there: one finding,
 * scattered, not 50 pairs; and the same with a host down among them: the
 * host, then the scattered rest.
 */
static const char *const refused = "iperf3: error - unable to connect to "
    "server: Connection refused";

static void
scatter_hook(const struct gen *g, struct gen_rec *r, void *arg)
{
	long *down = arg;

	(void)g;
	if ((long)r->src == *down || (long)r->tgt == *down ||
	    (r->src * 7 + r->tgt * 13) % 30 == 0) {
		r->ok = 0;
		r->error = refused;
		r->error_class = "tool_failed";
	}
}

static void
test_gen_scattered_failures(void **state)
{
	static const size_t one[] = { 40, 0 };
	struct gen g;
	struct lab *lab;
	long down = -1;

	(void)state;
	gen_init(&g, one, delays);
	g.hook = scatter_hook;
	g.arg = &down;
	lab = lab_of(gen_heatmap(&g), NULL);
	check_cover(lab);
	if (lab->dx.nfindings != 1)
		fail_msg("scattered: %s", listing(lab));
	assert_string_equal(lab->dx.findings[0].rule, "scattered");
	assert_int_equal(lab->dx.findings[0].severity, DX_SEV_ERROR);
	assert_true(lab->dx.findings[0].nbad >= 40);
	lab_free(lab);
	down = 12;
	lab = lab_of(gen_heatmap(&g), NULL);
	check_cover(lab);
	expect(lab, "host_down", "h13", NULL);
	expect(lab, "scattered", NULL, NULL);
	assert_int_equal(lab->dx.nfindings, 2);
	lab_free(lab);
	gen_free(&g);
}

/* A host down and a site's lossy uplink at once: both named. */
static void
test_gen_two_faults(void **state)
{
	struct fault f[] = {
		{ NULL, 1, -1, 1, 0, -1, down_row, "unreachable", 1, 0, 0, 0, 0 },
		{ NULL, 1, -1, 0, 1, -1, NULL, NULL, 1, 0, 0, 0, 0 },
		{ "ping", -1, -1, 0, 0, 2, NULL, NULL, 0, 3, 0, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sites332, 1, 0, f, NULL);

	(void)state;
	expect(lab, "host_down", "h2", NULL);
	expect(lab, "site_uplink", "c", NULL);
	assert_int_equal(lab->dx.nfindings, 2);
	lab_free(lab);
}

/*
 * 1,000 hosts in four sites of 250: a host down, a site's lossy uplink
 * and one slow pair are three findings, nothing else (the time it takes
 * is tests/perf/diagnose.sh's to measure).
 */
static void
test_gen_thousand_hosts(void **state)
{
	static const size_t sizes[] = { 250, 250, 250, 250, 0 };
	struct fault f[] = {
		{ NULL, 9, -1, 1, 0, -1, down_row, "unreachable", 1, 0, 0, 0, 0 },
		{ NULL, 9, -1, 0, 1, -1, NULL, NULL, 1, 0, 0, 0, 0 },
		{ "ping", -1, -1, 0, 0, 3, NULL, NULL, 0, 3, 0, 0, 0 },
		{ "ping", 299, 599, 0, 0, -1, NULL, NULL, 0, 0, 40, 0, 0 },
		NOFAULT };
	struct lab *lab = gen_lab(sizes, 0, 0, f, NULL);

	(void)state;
	expect(lab, "host_down", "h10", NULL);
	expect(lab, "site_uplink", "d", NULL);
	expect(lab, "pair_degraded", "h300", "h600");
	if (lab->dx.nfindings != 3)
		fail_msg("1,000 hosts: %s", listing(lab));
	assert_string_equal(lab->dx.findings[0].rule, "host_down");
	lab_free(lab);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wan_slowed_link_is_one_pair_finding),
		cmocka_unit_test(test_wan_records_path_read),
		cmocka_unit_test(test_wan_compare_localises_the_regression),
		cmocka_unit_test(test_wan_collect_compared),
		cmocka_unit_test(test_one_failing_pair_is_one_finding),
		cmocka_unit_test(test_heatmap_fixture_patterns_ranked),
		cmocka_unit_test(test_broadcast_ping_is_setup),
		cmocka_unit_test(test_titles_name_the_real_hosts),
		cmocka_unit_test(test_microsecond_lab_has_no_finding),
		cmocka_unit_test(test_loaded_bench_run_has_no_warning),
		cmocka_unit_test(test_json_schema),
		cmocka_unit_test(test_gen_host_down),
		cmocka_unit_test(test_gen_host_refuses_icmp),
		cmocka_unit_test(test_gen_host_refuses_iperf3),
		cmocka_unit_test(test_gen_host_refuses_libp2p),
		cmocka_unit_test(test_gen_host_link_lossy),
		cmocka_unit_test(test_gen_host_link_slow),
		cmocka_unit_test(test_gen_host_outbound_capped),
		cmocka_unit_test(test_gen_site_uplink_lossy),
		cmocka_unit_test(test_gen_site_uplink_slower_than_old_run),
		cmocka_unit_test(test_gen_site_cut_off),
		cmocka_unit_test(test_gen_pair_slow_both_ways),
		cmocka_unit_test(test_gen_pair_lossy),
		cmocka_unit_test(test_udp_lossy_pair_named),
		cmocka_unit_test(test_mtu_narrow_pair_named),
		cmocka_unit_test(test_kind_failures_are_the_networks),
		cmocka_unit_test(test_gen_pair_narrow_one_test),
		cmocka_unit_test(test_gen_one_way_block),
		cmocka_unit_test(test_gen_tool_missing_is_setup),
		cmocka_unit_test(test_gen_healthy_has_no_finding),
		cmocka_unit_test(test_gen_sampled_sweep_is_no_failure),
		cmocka_unit_test(test_gen_two_faults),
		cmocka_unit_test(test_gen_scattered_failures),
		cmocka_unit_test(test_gen_thousand_hosts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
