/*
 * Progress of a collect run on stderr: on a terminal one live line
 * (probes done/total, failed, ETA; the round where rounds are real)
 * rewritten in place; otherwise lines: one per round, in round order,
 * where rounds are real, else one per tenth of the probes; nothing when
 * quiet. Rounds that finish out of order are reported when every earlier
 * one has finished, so the lines always count up.
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

/*
 * The schedule of the current phase (after progress_phase): each round
 * lasts about round_seconds, which gives the ETA; rounds_real is 0 when
 * the rounds are only a way of counting (a fan-out sweep runs them at
 * once), and then no round numbers are shown.
 */
void progress_schedule(struct progress *p, double round_seconds,
    int rounds_real);

/* ETA in seconds now (for tests and the live line). */
double progress_eta(const struct progress *p);

/* One probe finished. */
void progress_probe(struct progress *p, int ok);

/* Round (1-based) of the current phase finished. */
void progress_round(struct progress *p, size_t round);

/* End the live line (before other output, and at the end). */
void progress_end(struct progress *p);

void progress_free(struct progress *p);

#endif
