/*
 * Private to diagnose*.c: the diagnosis's model over the matrix
 * (the evidence, the candidate causes and the findings made so far), and
 * what its three files share (diagnose_model.c: a finding made, its cells
 * explained, its times worse): diagnose.c makes the model and ranks the
 * findings, diagnose_cover.c the candidate causes of more than a
 * pair and their greedy cover, diagnose_pair.c what is left, pair
 * by pair. The calls go down: none of the three calls another's file but
 * diagnose.c, theirs.
 */
#ifndef NETPROF_DIAGNOSE_MODEL_H
#define NETPROF_DIAGNOSE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "diagnose.h"
#include "diagnose_evidence.h"

struct hyp {
	unsigned char cause;	/* enum dx_cause */
	unsigned char scope;	/* enum dx_scope */
	unsigned char dir;	/* enum dx_dir */
	unsigned char protos;	/* DX_PROTO_*: the kinds it concerns */
	unsigned char taken;	/* a finding already */
	size_t a, b;		/* host, site or sites */
	double gain, score;	/* last evaluated; gain < 0: not valid */
};

/* What a walk over a candidate's cells counts. */
struct tally {
	size_t bad, fresh, contra;
	size_t opp_ok, opp_fail;	/* a block: the other way */
	size_t other_ok;	/* a block: its host's other protocols' */
	/* degradations, per evidence kind: cells bad and measured per
	 * dimension (slow, narrow, worse, detour), samples */
	size_t dbad[MATRIX_MAX_KINDS][4], dmeas[MATRIX_MAX_KINDS][4];
	size_t lost[MATRIX_MAX_KINDS], sent[MATRIX_MAX_KINDS];
	size_t lossy[MATRIX_MAX_KINDS], lcells[MATRIX_MAX_KINDS];
	/* of those, in cells another finding explains */
	size_t dlost[MATRIX_MAX_KINDS], dsent[MATRIX_MAX_KINDS];
	double best_share;
	int loss_kind;			/* the kind whose loss is valid, -1 */
	double ref_rate;
};

struct model {
	const struct matrix *hm;
	struct evidence ev;
	struct diagnosis *dx;
	size_t *site_first, *site_hosts;	/* hosts by site */
	/* per evidence kind, per host: lost and sent samples and lossy
	 * cells of the cells walked that involve the host (leave one
	 * out) */
	size_t *ulost, *usent, *ulossy, *ucells;
	/* per evidence kind: samples of the cells findings explain */
	size_t dlost[MATRIX_MAX_KINDS], dsent[MATRIX_MAX_KINDS];
	struct hyp *cands;
	size_t ncands, cands_alloc;
};

/* The host a failure of SSH or setup belongs to. */
static inline size_t
diagnose_owner(uint16_t f, size_t s, size_t t)
{
	return (f & EV_BYTGT) ? t : s;
}

static inline uint16_t *
diagnose_flag(struct model *m, size_t ki, size_t s, size_t t)
{
	return &m->ev.kinds[ki].flag[s * m->ev.n + t];
}

/* diagnose_model.c: a new finding of cause at its place, appended to m's;
 * NULL: no memory. */
struct finding *diagnose_finding(struct model *m, unsigned cause,
    unsigned scope, size_t a, size_t b, unsigned dir, unsigned protos);
/* Cell s -> t of kind ki explained by f: marked, and kept as evidence. */
int diagnose_explain(struct model *m, struct finding *f, size_t ki,
    size_t s, size_t t);
/* f's worse: the median times worse of its cells that got worse. */
void diagnose_worse(const struct model *m, struct finding *f);

/* diagnose_cover.c: the candidate causes at places, then the
 * greedy cover that takes them as findings. */
int diagnose_candidates(struct model *m);
int diagnose_cover(struct model *m);

/* diagnose_pair.c: what is left pair by pair (and scattered),
 * the tool and setup failures by host, run.json's convergence. */
int diagnose_pairs(struct model *m);
int diagnose_setups(struct model *m);
int diagnose_convergence(struct model *m);

#endif
