/*
 * A finding: what the diagnosis returns (diagnose.h: struct diagnosis, a
 * list of them), its cause at its place, what its cells show and their
 * figures; and a finding in words (diagnose_findings.c). Below the model
 * that makes the findings (diagnose_model.c, diagnose.c, diagnose_cover.c,
 * diagnose_pair.c), above the evidence it reads.
 */
#ifndef NETPROF_DIAGNOSE_FINDINGS_H
#define NETPROF_DIAGNOSE_FINDINGS_H

#include <stddef.h>
#include <stdio.h>

#include "diagnose_evidence.h"
#include "matrix.h"

/* Ports named when the records do not show them (upstream's defaults). */
#define DIAGNOSE_IPERF3_PORT 5201
#define DIAGNOSE_LIBP2P_PORT 19091
/* Cells a finding keeps for its links, its JSON and its lines; the count
 * of the others is kept. */
#define DIAGNOSE_CELLS_MAX 1000

/* How bad a finding is; --fail-on takes one by name. */
enum dx_severity {
	DX_SEV_NONE = 0,
	DX_SEV_INFO,		/* worth knowing, nothing broken */
	DX_SEV_WARNING,		/* degraded: slower, lossier, narrower */
	DX_SEV_ERROR		/* something does not work */
};

/* Where a finding is. */
enum dx_scope {
	DX_SCOPE_MESH,		/* every pair */
	DX_SCOPE_SITE,		/* place[0]: a group of hm->groups */
	DX_SCOPE_SITE_PAIR,	/* place[0], place[1]: two groups */
	DX_SCOPE_HOST,		/* place[0]: a host */
	DX_SCOPE_PAIR		/* place[0] -> place[1]: two hosts */
};

/* Which way: a host's both ways, what it sends or what it receives; a
 * pair's both ways or place[0] -> place[1] only. */
enum dx_dir { DX_DIR_BOTH, DX_DIR_OUT, DX_DIR_IN };

/* What a cell shows (struct dx_cell's what, bits). */
#define DX_W_FAIL	0x01u	/* failed: the network */
#define DX_W_LOSS	0x02u	/* samples lost */
#define DX_W_SLOW	0x04u	/* latency above its site pair's */
#define DX_W_NARROW	0x08u	/* throughput below its site pair's */
#define DX_W_WORSE	0x10u	/* worse than in the old run */
#define DX_W_SETUP	0x20u	/* failed: the tool, setup or SSH */
#define DX_W_DETOUR	0x40u	/* libp2p far above ICMP: relayed */
#define DX_W_GAP	0x80u	/* HTTP over libp2p far above libp2p_ping */

/* One affected cell, its figures against what is typical. */
struct dx_cell {
	size_t kind;		/* index into hm->kinds */
	size_t src, tgt;
	unsigned what;		/* DX_W_* */
	const char *metric;	/* what value and typical are; NULL if none */
	const char *unit;
	double value, typical;	/* NAN if none */
	double old;		/* --compare: the old run's, NAN if none */
	double base;		/* a detour: the pair's ICMP round trip; a
				 * gap: its libp2p_ping (else ICMP); NAN */
	int lost, sent;		/* samples lost of sent; sent 0 if unknown */
	const char *error;	/* a failure's text, or NULL */
};

struct finding {
	unsigned cause;		/* the model's (diagnose_evidence.h) */
	const char *rule;	/* the cause, a stable id: "host_down", ... */
	enum dx_severity severity;
	const char *category;	/* "network", "setup" or "libp2p" */
	enum dx_scope scope;
	size_t place[2];
	enum dx_dir dir;
	unsigned protos;	/* DX_PROTO_* (diagnose_evidence.h) */
	unsigned what;		/* DX_W_* of its cells */
	char *title;		/* the cause at its place, with real names */
	char *evidence;		/* the figures against what is typical */
	char *why;		/* the score's reasons */
	char *advice;		/* what to try */
	double score;		/* how sure, 0 to 1 */
	double worse;		/* --compare: median times worse than the old
				 * run, INFINITY if failed since; 0 if not */
	size_t nbad;		/* bad cells it explains */
	size_t nexpected;	/* cells the cause predicts bad, measured */
	size_t lost, sent;	/* its cells' samples lost of sent (of the kind
				 * whose loss is the evidence), or 0 */
	double ref_rate;	/* the rate lost elsewhere; NAN if no loss */
	const char *loss_kind;	/* the kind of lost and sent, or NULL */
	double elapsed_s;	/* convergence: when the node gave up, or NAN */
	int one_test;		/* its evidence is one throughput test, one
				 * way, nothing else on the pair: a hint
				 * (severity info) until the pair is measured
				 * again; short TCP tests now and then
				 * collapse */
	struct dx_cell *cells;	/* the first DIAGNOSE_CELLS_MAX it explains */
	size_t ncells, cells_more;
};

struct diagnosis {
	struct finding *findings;	/* most likely first */
	size_t nfindings;
	int compared;		/* an old run was given */
};

/* "error", "warning", "info"; parse: DX_SEV_NONE if none of them. */
const char *diagnose_severity_name(enum dx_severity s);
enum dx_severity diagnose_severity_parse(const char *name);

/*
 * One line for a cell of a finding, fit for a terminal or an HTML escape:
 * "ping h1 -> h3: failed (100% packet loss ...)",
 * "ping n4 -> n8: p50 148 ms, typical 89.9 ms (5 samples)".
 */
void diagnose_cell_text(const struct matrix *hm, const struct dx_cell *c,
    char *buf, size_t size);

/*
 * A finding's words (diagnose_findings.c), from its cause, place, cells
 * and counts: rule, severity, category, title, evidence, why, advice.
 * 0 or NP_ERR_NOMEM.
 */
int diagnose_findings_words(const struct evidence *ev, struct finding *f);

#endif
