/*
 * Progress reporting. The ETA is the elapsed time of the phase scaled by
 * the probes still to run: probes of one phase take about the same time,
 * and rounds run back to back. The live line is redrawn at most ten times
 * a second so that a fast sweep does not flood the terminal.
 */
#include <stdlib.h>
#include <unistd.h>

#include "progress.h"
#include "timeutil.h"

struct progress {
	FILE *f;
	enum progress_mode mode;
	const char *phase;
	size_t n_rounds, rounds_done;
	size_t n_probes, ok, failed;
	uint64_t phase_start_ns;
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

static double
eta_seconds(const struct progress *p)
{
	size_t done = p->ok + p->failed;
	double elapsed = (time_mono_ns() - p->phase_start_ns) / 1e9;

	if (done == 0 || done >= p->n_probes)
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
	/* the round in progress (rounds overlap: the oldest unfinished) */
	fprintf(p->f, "\r\033[K%s: round %zu/%zu, probes %zu/%zu ok %zu "
	    "failed %zu, ETA %.0fs", p->phase, p->rounds_done < p->n_rounds ?
	    p->rounds_done + 1 : p->n_rounds, p->n_rounds,
	    p->ok + p->failed, p->n_probes, p->ok, p->failed, eta_seconds(p));
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
	p->rounds_done = p->ok = p->failed = 0;
	p->phase_start_ns = time_mono_ns();
	draw(p, 1);
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
	draw(p, 0);
}

void
progress_round(struct progress *p, size_t round)
{
	if (p == NULL)
		return;
	p->rounds_done++;
	if (p->mode == PROGRESS_LINES) {
		fprintf(p->f, "netprof: %s round %zu/%zu done (%zu/%zu probes, "
		    "%zu failed)\n", p->phase, round, p->n_rounds,
		    p->ok + p->failed, p->n_probes, p->failed);
		fflush(p->f);
	} else
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
	free(p);
}
