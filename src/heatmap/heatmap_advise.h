/*
 * heatmap --advise (heatmap_advise.c): where to put the relay. For every
 * host that cannot be dialled and every candidate relay (a host every
 * other host can dial, or a --bootstrap relay whose legs were measured),
 * the round trip each of its pairs would get through that relay (leg +
 * leg, libp2p_ping), per host the relay whose pairs' median is the
 * lowest, within a cap of hosts per relay and drawn at random (seeded)
 * among the relays within a tolerance of the best, the gain over today's
 * paths, and the patch: each machine's bootstrap_extra, the --bootstrap
 * line (a machine of the run: public); as text, JSON and the page's panel.
 */
#ifndef NETPROF_HEATMAP_ADVISE_H
#define NETPROF_HEATMAP_ADVISE_H

#include <stddef.h>
#include <stdio.h>

#include "matrix.h"
#include "records_read.h"

/* What makes a machine of the run a relay: public (its remote_setup). */
#define HEATMAP_ADVISE_PUBLIC "export NETPROF_OF_REACHABILITY=public"

struct heatmap_advise_options {
	int cap;		/* hosts a relay takes at most; 0: no cap */
	double within;		/* %: a relay this close to the best may be drawn */
	int seed;		/* the draw's */
};

/* A host that cannot be dialled, and its relay. */
struct heatmap_advised {
	size_t host;		/* index into the matrix's hosts */
	size_t npairs;		/* its pairs with no direct way either way */
	size_t nfailed;		/* of them, not connected today */
	double today_ms;	/* their round trips' median today; NAN if none */
	double *via_ms;		/* per candidate: the median through it, or NAN */
	size_t usable;		/* candidates with a figure */
	long relay;		/* the chosen candidate, or -1 */
};

struct heatmap_advice {
	const char *kind;	/* the kind the legs are of (the table's node round trip) */
	const char *metric;	/* its metric the figures are of */
	struct heatmap_advise_options opt;
	size_t *cands;		/* candidate relays: indexes of hosts */
	size_t ncands;
	struct heatmap_advised *hosts;
	size_t nhosts;
	char **multiaddr;	/* per matrix host: its multiaddr, or NULL */
	size_t nmultiaddr;
	unsigned char *member;	/* per matrix host: a machine of the run */
};

/*
 * The advice from a built matrix and the run.json its records reader read
 * (NULL: the records' paths alone say which pairs cannot dial). NP_ERR_NOT_FOUND: no
 * libp2p_ping records; NP_ERR_NOMEM.
 */
int heatmap_advise(const struct matrix *hm, const struct run_info *run,
    const struct heatmap_advise_options *opt, struct heatmap_advice *out);
void heatmap_advice_free(struct heatmap_advice *a);

/* The advice in words, and as JSON (docs/heatmap.md); 0 or NP_ERR_IO. */
int heatmap_advice_text(const struct matrix *hm,
    const struct heatmap_advice *a, FILE *f);
int heatmap_advice_json(const struct matrix *hm,
    const struct heatmap_advice *a, FILE *f);
/* The page's panel beside the path view (hidden unless shown: the script
   shows it with the path kind); nothing when no host needs a relay. */
int heatmap_advice_html(const struct matrix *hm,
    const struct heatmap_advice *a, int shown, FILE *f);

#endif
