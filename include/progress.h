/*
 * Progress of a collect run on stderr: on a terminal one live line
 * (round i/n, probes ok/failed, ETA) rewritten in place; otherwise one line
 * per completed round; nothing when quiet.
 */
#ifndef NETPROF_PROGRESS_H
#define NETPROF_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

enum progress_mode {
	PROGRESS_QUIET = 0,
	PROGRESS_LINES,		/* one line per round (not a terminal) */
	PROGRESS_LIVE		/* a live line on a terminal */
};

struct progress;

/* Picks LIVE when f is a terminal, else LINES; quiet wins. */
struct progress *progress_new(FILE *f, int quiet);

/* A new phase ("ping", "iperf3") with n_rounds rounds and n_probes probes. */
void progress_phase(struct progress *p, const char *name, size_t n_rounds,
    size_t n_probes);

/* One probe finished. */
void progress_probe(struct progress *p, int ok);

/* Round (1-based) of the current phase finished. */
void progress_round(struct progress *p, size_t round);

/* End the live line (before other output, and at the end). */
void progress_end(struct progress *p);

void progress_free(struct progress *p);

#endif
