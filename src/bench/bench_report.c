/*
 * What a bench run tells its user on stderr: per phase, hosts done and
 * failed (or probes ok and failed), as a live line on a terminal redrawn
 * at most ten times a second, or one line per phase otherwise; and at the
 * end a summary: phase times, failed hosts with their reasons, the pairs
 * by the path their probes ran over, the punch step, and the slowest
 * pairs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "log.h"

/* Pairs that are not direct, listed in the summary at most. */
#define SUMMARY_PAIRS 10

static int
quiet(const struct bench *b)
{
	return log_quiet();
}

static int
is_pair_phase(enum bench_phase p)
{
	return bench_phases[p].scope == BENCH_SCOPE_PAIR;
}

static void
draw(struct bench *b, int force)
{
	double now = bench_now();

	if (!b->progress_live || (!force && now - b->prog_drawn < 0.1))
		return;
	b->prog_drawn = now;
	fprintf(stderr, "\r\033[Kbench %s: %zu/%zu %s, ok %zu failed %zu, "
	    "%.1f s", bench_phase_name(b->phase), b->prog_ok + b->prog_failed,
	    b->prog_total, is_pair_phase(b->phase) ? "probes" : "hosts",
	    b->prog_ok, b->prog_failed, now - b->phase_t0);
	fflush(stderr);
	b->progress_open = 1;
}

void
bench_report_open(struct bench *b)
{
	b->progress_live = !quiet(b) && isatty(STDERR_FILENO);
}

void
bench_report_close(struct bench *b)
{
	if (b->progress_open) {
		fputc('\n', stderr);
		b->progress_open = 0;
	}
}

void
bench_report_interrupt(struct bench *b)
{
	bench_report_close(b);
}

void
bench_report_phase(struct bench *b)
{
	size_t i;

	b->prog_ok = b->prog_failed = 0;
	if (!is_pair_phase(b->phase)) {
		b->prog_total = 0;
		for (i = 0; i < b->n; i++)
			if (bench_phase_visits(b->phase, &b->hosts[i]))
				b->prog_total++;
	}
	draw(b, 1);
}

void
bench_report_host(struct bench *b, const struct bench_host *h)
{
	if (h->status[b->phase] != BENCH_ST_OK)
		b->prog_failed++;
	else
		b->prog_ok++;
	draw(b, 0);
}

void
bench_report_task(struct bench *b, const struct bench_task *t)
{
	if (t->phase != b->phase)	/* beside it: said at its end */
		return;
	if (t->rec.ok)
		b->prog_ok++;
	else
		b->prog_failed++;
	draw(b, 0);
}

void
bench_report_phase_end(struct bench *b, enum bench_phase p)
{
	size_t i, ok = b->prog_ok, failed = b->prog_failed;

	if (quiet(b))
		return;
	if (p != b->phase) {	/* beside the current phase: its own line */
		for (i = ok = failed = 0; i < b->n_task_sets[p]; i++)
			if (b->task_sets[p][i].rec.ok)
				ok++;
			else
				failed++;
		bench_report_close(b);
	} else if (b->progress_live) {
		draw(b, 1);
		bench_report_close(b);
		return;
	}
	fprintf(stderr, "netprof: bench %s: %zu %s ok, %zu failed (%.2f s)\n",
	    bench_phase_name(p), ok, is_pair_phase(p) ? "probes" : "hosts",
	    failed, b->phase_s[p]);
}

/*
 * The punch step in one line: the pairs it found connected, and its
 * failures; the node's own defect named as such, not the network's.
 */
static void
summary_punch(const struct bench *b, FILE *f)
{
	size_t i, n = b->n_task_sets[BENCH_PUNCH], before = 0, after = 0;
	size_t failed = 0, disabled = 0;
	const struct bench_task *other = NULL;

	if (n == 0)
		return;
	for (i = 0; i < n; i++) {
		const struct bench_task *t = &b->task_sets[BENCH_PUNCH][i];

		if (t->state != 2)
			continue;
		if (t->rec.ok)
			t->attempts == 0 ? before++ : after++;
		else
			failed++;
		if (t->rec.error != NULL &&
		    strstr(t->rec.error, BENCH_PUNCH_DISABLED) != NULL)
			disabled++;
		else if (!t->rec.ok && other == NULL)
			other = t;
	}
	fprintf(f, "  punch: %zu pairs connected before it, %zu after "
	    "attempts, %zu not", before, after, failed);
	if (disabled > 0)
		fprintf(f, "; %zu answered '%s': the node's hole punching is "
		    "disabled (its own defect, not the network's)", disabled,
		    BENCH_PUNCH_DISABLED);
	if (other != NULL) {
		fprintf(f, "; %s->%s: ", b->hosts[other->src].m->name,
		    b->hosts[other->dst].m->name);
		log_fputs_safe(other->rec.error != NULL ? other->rec.error :
		    (other->connectedness != NULL ? other->connectedness :
		    "not connected"), f);
	}
	fputc('\n', f);
}

/* A pair's path, from its probes' records. */
struct pair_path {
	size_t ok, n;
	size_t by[4];		/* ok records by class (BENCH_PATH_*) */
	long relay;		/* the relay a relayed record named */
	const struct bench_task *failed;	/* a failed record */
};

static const char *const path_words[] = { "unknown", "direct",
	"hole-punched", "relayed" };

/* The class a pair ran over: its ok records' most frequent known one. */
static int
pair_class(const struct pair_path *p)
{
	int c, best = 0;

	for (c = 1; c < 4; c++)
		if (p->by[c] > p->by[best] || (best == 0 && p->by[c] > 0))
			best = c;
	return best;
}

/*
 * The pairs by the path their probes ran over (the records' path), not
 * the punch's connectedness: a pair an OpenTela relay joins is as
 * Connected as a direct one. Those not direct are listed.
 */
/* Does host h's table lack the peer named name? */
static int
lacks(const struct bench_host *h, const char *name)
{
	size_t k;

	for (k = 0; k < h->n_missing; k++)
		if (strcmp(h->missing[k], name) == 0)
			return 1;
	return 0;
}

/*
 * The hosts that did not converge, each with the peers its table lacks,
 * then the hosts that no other host's table lists: a host, or a site,
 * cut off from the mesh (every other host then lacks only it).
 */
static void
summary_converge(const struct bench *b, FILE *f)
{
	const struct bench_host *h;
	size_t i, j, k, others, lacking, cut = 0;

	for (i = 0; i < b->n; i++) {
		h = &b->hosts[i];
		if (h->failed || h->converged || h->n_missing == 0)
			continue;
		fprintf(f, "  %s did not converge: %zu peer%s missing (",
		    h->m->name, h->n_missing, h->n_missing == 1 ? "" : "s");
		for (k = 0; k < h->n_missing && k < SUMMARY_PAIRS; k++)
			fprintf(f, "%s%s", k > 0 ? ", " : "", h->missing[k]);
		fputs(k < h->n_missing ? ", ...)\n" : ")\n", f);
	}
	for (j = 0; j < b->n; j++) {
		if (b->hosts[j].failed)
			continue;
		others = lacking = 0;
		for (i = 0; i < b->n; i++) {
			h = &b->hosts[i];
			if (i == j || h->failed)
				continue;
			others++;
			if (!h->converged && lacks(h, b->hosts[j].m->name))
				lacking++;
		}
		if (others == 0 || lacking < others)
			continue;
		fprintf(f, "%s%s", cut++ == 0 ? "  in no other host's table "
		    "(cut off from the mesh): " : ", ", b->hosts[j].m->name);
	}
	if (cut > 0)
		fputc('\n', f);
}

static void
summary_paths(const struct bench *b, FILE *f)
{
	size_t n = b->n, i, count[5] = { 0 }, shown = 0, pairs = 0;
	struct pair_path *pp;
	int c;

	if (b->n_task_sets[BENCH_SWEEP] == 0 ||
	    (pp = calloc(n * n + 1, sizeof *pp)) == NULL)
		return;
	for (i = 0; i < n * n; i++)
		pp[i].relay = -1;
	for (i = 0; i < b->n_task_sets[BENCH_SWEEP]; i++) {
		const struct bench_task *t = &b->task_sets[BENCH_SWEEP][i];
		struct pair_path *p;

		if (t->state != 2 || t->dst >= n || t->kind == NULL ||
		    t->kind->via != PROBE_VIA_NODE ||
		    t->cls == ERROR_CLASS_UNSUPPORTED)
			continue;
		p = &pp[t->src * n + t->dst];
		p->n++;
		if (!t->rec.ok) {
			p->failed = t;
			continue;
		}
		p->ok++;
		p->by[t->path < 4 ? t->path : 0]++;
		if (t->relay >= 0)
			p->relay = t->relay;
	}
	for (i = 0; i < n * n; i++) {
		if (pp[i].n == 0)
			continue;
		pairs++;
		count[pp[i].ok == 0 ? 4 : pair_class(&pp[i])]++;
	}
	fprintf(f, "  pairs: %zu direct, %zu hole-punched, %zu relayed, %zu "
	    "not connected", count[1], count[2], count[3], count[4]);
	if (count[0] > 0)
		fprintf(f, ", %zu unknown", count[0]);
	fputc('\n', f);
	for (i = 0; i < n * n && pairs > 0; i++) {
		const struct pair_path *p = &pp[i];

		if (p->n == 0 || (p->ok > 0 && pair_class(p) == 1))
			continue;
		if (++shown > SUMMARY_PAIRS) {
			fprintf(f, "    ... (the records' path fields have "
			    "them all)\n");
			break;
		}
		c = p->ok == 0 ? -1 : pair_class(p);
		fprintf(f, "    %s->%s %s", b->hosts[i / n].m->name,
		    b->hosts[i % n].m->name, c < 0 ? "not connected" :
		    path_words[c]);
		if (c == 3 && p->relay >= 0)
			fprintf(f, " through %s", bench_target_name(b,
			    (size_t)p->relay));
		if (c < 0 && p->failed != NULL && p->failed->rec.error != NULL) {
			fputs(": ", f);
			log_fputs_safe(p->failed->rec.error, f);
		}
		fputc('\n', f);
	}
	free(pp);
}

/* The worst ok probe of kind k: by its summary's figure (highest p50,
   lowest Mbps). */
static void
summary_slowest(const struct bench *b, FILE *f, const struct probe_kind *k)
{
	const struct probe_metric *m = probe_kind_metric(k, k->summary.metric);
	int higher_better = m != NULL && m->unit->higher_better;
	const struct bench_task *worst = NULL;
	size_t i;

	for (i = 0; i < b->n_task_sets[BENCH_SWEEP]; i++) {
		const struct bench_task *t = &b->task_sets[BENCH_SWEEP][i];

		if (t->phase != BENCH_SWEEP || t->kind != k || !t->rec.ok ||
		    t->dst >= b->n)	/* a relay's leg is not a pair */
			continue;
		if (worst == NULL || (higher_better ?
		    t->value < worst->value : t->value > worst->value))
			worst = t;
	}
	if (worst == NULL)
		return;
	fprintf(f, "  slowest %s: %s->%s %.*f %s%s%s%s\n", k->name,
	    b->hosts[worst->src].m->name, b->hosts[worst->dst].m->name,
	    k->summary.decimals, worst->value, k->summary.unit,
	    k->summary.what != NULL ? " (" : "",
	    k->summary.what != NULL ? k->summary.what : "",
	    k->summary.what != NULL ? ")" : "");
}

void
bench_report_summary(const struct bench *b, FILE *f)
{
	size_t i;
	const struct probe_kind *k;
	int p;

	if (b->teardown_only) {
		for (i = 0; i < b->n; i++)
			if (b->hosts[i].touched)
				fprintf(f, "netprof: %s: %s\n",
				    b->hosts[i].m->name, b->hosts[i].torn_down ?
				    "torn down" : "NOT torn down");
		return;
	}
	fprintf(f, "netprof: bench %s: %zu probes ok, %zu failed", b->run_id,
	    b->ok, b->failed);
	if (b->unsupported > 0)
		fprintf(f, ", %zu of a kind the nodes do not know",
		    b->unsupported);
	if (b->o->baseline)
		fprintf(f, "; baseline ping %zu ok, %zu failed", b->baseline_ok,
		    b->baseline_failed);
	fprintf(f, "\n  phases:");
	for (p = 0; p < BENCH_N_PHASES; p++)
		if (b->phase_ran[p])
			fprintf(f, " %s %.2fs", bench_phase_name(p),
			    b->phase_s[p]);
	fputc('\n', f);
	for (i = 0; i < b->n; i++)
		if (b->hosts[i].failed)
		{
			fprintf(f, "  %s FAILED at %s: ",
			    b->hosts[i].m->name,
			    bench_phase_name(b->hosts[i].failed_phase));
			log_fputs_safe(b->hosts[i].error, f);
			fputc('\n', f);
		}
	summary_converge(b, f);
	summary_paths(b, f);
	summary_punch(b, f);
	for (k = probe_kinds; k->name != NULL; k++)
		if (k->via == PROBE_VIA_NODE)
			summary_slowest(b, f, k);
	fprintf(f, "  records: %s\n", b->records_path);
}
