/*
 * Scheduling the ordered pairs of hosts into rounds, by how a kind of
 * probe shares the hosts (probe_kind.h's shape).
 *
 * Overlapping (ping, the light bench kinds): shift round k (1 <= k < N)
 * has every host i probe host (i + k) mod N, so each host sends one probe
 * and answers one (mpiGraph's shift steps). schedule_overlap() groups
 * `width` consecutive shifts into one round: width 1 gives the N-1 shift
 * rounds (--rounds), width = the per-host channel cap gives
 * ceil((N-1)/cap) rounds in which every host has at most cap probes in
 * flight.
 *
 * Exclusive (iperf3, throughput): no host is in two tests of one round, as
 * client or server. The circle method pairs the hosts into N-1 perfect
 * matchings (N even; for odd N a "bye" host makes N matchings); each
 * matching gives two rounds, one per direction, so 2(N-1) rounds (2N for
 * odd N). Duplex (full-duplex links, no shared bottleneck between the
 * pairs of a round) runs the N-1 shift rounds instead: in each, every
 * host is the client of one test and the server of another.
 *
 * Sampled (collect --sample K, for large N): the full mesh inside each
 * site and K pairs per host across sites, rotating over consecutive
 * sweeps so that every pair is measured within ceil(M/K) sweeps (M: the
 * host's peers in other sites); schedule_pairs() puts such a list of
 * pairs into rounds by the same shapes.
 */
#ifndef NETPROF_SCHEDULE_H
#define NETPROF_SCHEDULE_H

#include <stddef.h>

struct pair {
	size_t source;		/* machine index */
	size_t target;
};

struct round {
	struct pair *pairs;
	size_t n_pairs;
};

struct schedule {
	size_t n_hosts;
	struct round *rounds;
	size_t n_rounds;
};


/* Shift rounds for n hosts, width shifts per round (width >= 1). */
int schedule_overlap(size_t n, size_t width, struct schedule **out);

/* Exclusive rounds over n hosts (the circle method). */
int schedule_exclusive(size_t n, struct schedule **out);

/* Duplex rounds: N-1 shift rounds, round k: i -> (i+k) mod n. */
int schedule_duplex(size_t n, struct schedule **out);

/* Every ordered pair in its own round, source-major (the upstream order). */
int schedule_serial(size_t n, struct schedule **out);

/*
 * The pairs of sweep `sweep` (from 0) of a sample: with group[i] the site
 * of host i (any numbers; equal: the same site), every ordered pair
 * inside a site, and from each host i, K of its M_i peers in other sites
 * (in index order): those at positions (i + sweep * K + t) mod M_i, t < K
 * (all M_i when K >= M_i). So any ceil(M_i / K) consecutive sweeps
 * measure each of i's pairs, and each host is the target of about K. The
 * pairs are source-major (each source's site peers first). *out: an
 * array (free()), NULL when there is none.
 */
int schedule_sample(size_t n, const size_t *group, size_t k, long sweep,
    struct pair **out, size_t *n_out);

/* Sweeps after which every pair of a sample has been measured: the
   largest ceil(M_i / K). */
size_t schedule_sample_cycle(size_t n, const size_t *group, size_t k);

/* How schedule_pairs() puts pairs into rounds. */
enum schedule_rule {
	SCHEDULE_OVERLAP = 0,	/* up to width pairs per source a round */
	SCHEDULE_EXCLUSIVE,	/* no host in two pairs of a round */
	SCHEDULE_DUPLEX,	/* a host the source of one and target of one */
	SCHEDULE_SERIAL		/* one pair a round */
};

/*
 * pairs[0..n_pairs-1] (hosts below n) in rounds by rule: each pair, in
 * order, in the first round that takes it (OVERLAP: a source's pairs in
 * rounds of width, >= 1, in order). First fit: not always the fewest
 * rounds for EXCLUSIVE and DUPLEX, at most twice the most pairs a host
 * is in, less one.
 */
int schedule_pairs(size_t n, const struct pair *pairs, size_t n_pairs,
    enum schedule_rule rule, size_t width, struct schedule **out);

/* Total pairs over all rounds. */
size_t schedule_n_pairs(const struct schedule *s);

/* Nonzero if no host appears twice in any round (as source or target). */
int schedule_is_exclusive(const struct schedule *s);

/* Nonzero if no host is the source of two pairs, or the target of two
   pairs, in any round (one client and one server per host at a time). */
int schedule_is_duplex(const struct schedule *s);

void schedule_free(struct schedule *s);

#endif
