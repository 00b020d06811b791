/*
 * Progress reporting. Rounds of a phase overlap (a pair starts as soon as
 * its hosts have room) and so finish out of order; the report follows the
 * frontier, the first round not yet finished, so what it prints only
 * counts up. The ETA comes from the schedule when there is one (rounds
 * left after the frontier times a round's duration, less the time the
 * frontier's round has already run), else from the rate so far. The live
 * line is redrawn at most ten times a second so that a fast sweep does
 * not flood the terminal.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "timeutil.h"

struct progress {
	FILE *f;
	enum progress_mode mode;
	const char *phase;
	size_t n_rounds, frontier;	/* rounds finished in order */
	unsigned char *round_done;	/* by round, 0-based */
	size_t n_probes, ok, failed;
	size_t tenths_shown;		/* LINES without real rounds */
	double round_seconds;		/* 0: no schedule */
	int rounds_real;
	uint64_t phase_start_ns, frontier_ns;
	uint64_t last_draw_ns;
	int line_open;
};

struct progress *
progress_new(FILE *f, int quiet)
{
	struct progress *p;

	if ((p = calloc(1, sizeof *p)) == NULL)
		return NULL;
	p->f = f;
	if (quiet)
		p->mode = PROGRESS_QUIET;
	else
		p->mode = isatty(fileno(f)) ? PROGRESS_LIVE : PROGRESS_LINES;
	return p;
}

double
progress_eta(const struct progress *p)
{
	size_t done = p->ok + p->failed;
	uint64_t now = time_mono_ns();
	double elapsed = (now - p->phase_start_ns) / 1e9, eta;

	if (done >= p->n_probes)
		return 0;
	if (p->round_seconds > 0) {
		eta = (double)(p->n_rounds - p->frontier) * p->round_seconds -
		    (now - p->frontier_ns) / 1e9;
		return eta > 0 ? eta : 0;
	}
	if (done == 0)
		return 0;
	return elapsed / (double)done * (double)(p->n_probes - done);
}

static void
draw(struct progress *p, int force)
{
	uint64_t now = time_mono_ns();

	if (p->mode != PROGRESS_LIVE || p->phase == NULL)
		return;
	if (!force && now - p->last_draw_ns < 100000000u)
		return;
	p->last_draw_ns = now;
	fprintf(p->f, "\r\033[K%s: ", p->phase);
	if (p->rounds_real)
		fprintf(p->f, "round %zu/%zu, ", p->frontier < p->n_rounds ?
		    p->frontier + 1 : p->n_rounds, p->n_rounds);
	fprintf(p->f, "probes %zu/%zu, failed %zu, ETA %.0fs",
	    p->ok + p->failed, p->n_probes, p->failed, progress_eta(p));
	fflush(p->f);
	p->line_open = 1;
}

void
progress_phase(struct progress *p, const char *name, size_t n_rounds,
    size_t n_probes)
{
	if (p == NULL)
		return;
	progress_end(p);
	p->phase = name;
	p->n_rounds = n_rounds;
	p->n_probes = n_probes;
	p->frontier = p->ok = p->failed = p->tenths_shown = 0;
	p->round_seconds = 0;
	p->rounds_real = 1;
	free(p->round_done);
	p->round_done = calloc(n_rounds + 1, 1);
	p->phase_start_ns = p->frontier_ns = time_mono_ns();
	draw(p, 1);
}

void
progress_schedule(struct progress *p, double round_seconds, int rounds_real)
{
	if (p == NULL)
		return;
	p->round_seconds = round_seconds;
	p->rounds_real = rounds_real;
	draw(p, 1);
}

/* LINES without real rounds: a line at each tenth of the probes. */
static void
line_by_tenths(struct progress *p)
{
	size_t done = p->ok + p->failed, tenths;

	if (p->mode != PROGRESS_LINES || p->rounds_real || p->n_probes == 0)
		return;
	tenths = done * 10 / p->n_probes;
	if (tenths <= p->tenths_shown)
		return;
	p->tenths_shown = tenths;
	fprintf(p->f, "netprof: %s: probes %zu/%zu, failed %zu, ETA %.0fs\n",
	    p->phase, done, p->n_probes, p->failed, progress_eta(p));
	fflush(p->f);
}

void
progress_probe(struct progress *p, int ok)
{
	if (p == NULL)
		return;
	if (ok)
		p->ok++;
	else
		p->failed++;
	line_by_tenths(p);
	draw(p, 0);
}

void
progress_round(struct progress *p, size_t round)
{
	if (p == NULL || round < 1 || round > p->n_rounds ||
	    p->round_done == NULL)
		return;
	p->round_done[round - 1] = 1;
	while (p->frontier < p->n_rounds && p->round_done[p->frontier]) {
		p->frontier++;
		p->frontier_ns = time_mono_ns();
		if (p->mode == PROGRESS_LINES && p->rounds_real) {
			fprintf(p->f, "netprof: %s round %zu/%zu done (probes "
			    "%zu/%zu, failed %zu, ETA %.0fs)\n", p->phase,
			    p->frontier, p->n_rounds, p->ok + p->failed,
			    p->n_probes, p->failed, progress_eta(p));
			fflush(p->f);
		}
	}
	draw(p, 1);
}

void
progress_end(struct progress *p)
{
	if (p == NULL || !p->line_open)
		return;
	draw(p, 1);
	fputc('\n', p->f);
	fflush(p->f);
	p->line_open = 0;
}

void
progress_free(struct progress *p)
{
	if (p == NULL)
		return;
	free(p->round_done);
	free(p);
}
