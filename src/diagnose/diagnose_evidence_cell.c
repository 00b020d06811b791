/*
 * What one cell says (diagnose_evidence.h): its failure's text read as the
 * network's, SSH's or the tool's (by its words, setup first), and its
 * figures: latency, throughput, the old run's, the base a libp2p figure
 * stands on, the samples lost and sent, its site pair's typical value,
 * how many times worse it got.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "diagnose_evidence.h"
#include "probe_kind.h"

/* --- failures ---------------------------------------------------------- */

/* What a failure's text says, by its words: setup first (the tool's own
 * refusals), then SSH, then the network. */
static const struct signature {
	const char *words;
	unsigned flags;
} signatures[] = {
	{ "do you want to ping broadcast", EV_SETUP | EV_BYTGT },
	{ "exec format error", EV_SETUP },
	{ "cannot execute", EV_SETUP },
	{ "not installed", EV_SETUP },
	{ "not on path", EV_SETUP },
	{ "command not found", EV_SETUP },
	{ ": not found", EV_SETUP },
	{ "text file busy", EV_SETUP },
	{ "no .rcc", EV_SETUP },
	{ "address already in use", EV_SETUP | EV_BYTGT },
	{ "server is busy", EV_SETUP | EV_BYTGT },
	{ "permission denied", EV_SETUP },
	{ "operation not permitted", EV_SETUP },
	{ "could not parse", EV_SETUP },
	{ "could not connect", EV_ACCESS },
	{ "cannot resolve host name", EV_ACCESS },
	{ "name resolution", EV_ACCESS },
	{ "host key", EV_ACCESS },
	{ "authentication", EV_ACCESS },
	{ "ssh session lost", EV_ACCESS },
	{ "ssh channel failed", EV_ACCESS },
	{ "packet loss", EV_FAIL },
	{ "no packet crossed", EV_FAIL },
	{ "connection refused", EV_FAIL },
	{ "no route to host", EV_FAIL },
	{ "network is unreachable", EV_FAIL },
	{ "host is unreachable", EV_FAIL },
	{ "destination host unreachable", EV_FAIL },
	{ "dial backoff", EV_FAIL },
	{ "failed to dial", EV_FAIL },
	{ "all dials failed", EV_FAIL },
	{ "stream reset", EV_FAIL },
	{ "connection reset", EV_FAIL },
	{ "i/o timeout", EV_FAIL },
	{ "deadline exceeded", EV_FAIL },
	{ "timed out", EV_FAIL },
	{ "no successful samples", EV_FAIL },
	{ "unable to connect", EV_FAIL },
};

/* "NAME failed at PHASE: " (bench: a pair of a host that failed): the
 * length of the prefix if text starts with it for name, else 0. */
static size_t
failed_at(const char *text, const char *name)
{
	size_t l = strlen(name);
	const char *colon;

	if (strncmp(text, name, l) != 0 || strncmp(text + l, " failed at ",
	    11) != 0 || (colon = strstr(text + l, ": ")) == NULL)
		return 0;
	return (size_t)(colon + 2 - text);
}

unsigned
diagnose_evidence_classify(const char *error, const char *error_class,
    const char *source, const char *target)
{
	const char *text = error != NULL ? error : "";
	const char *cls = error_class != NULL ? error_class : "";
	unsigned owner = 0, flags = 0;
	size_t i, skip;
	char server[160];

	/* Whose failure it is, when the text names the target. */
	if ((skip = failed_at(text, target)) > 0)
		owner = EV_BYTGT;
	else
		skip = failed_at(text, source);
	text += skip;
	snprintf(server, sizeof server, "server on %s", target);
	if (strncmp(text, "iperf3 server: ", 15) == 0 ||
	    strstr(text, server) != NULL)
		owner = EV_BYTGT;
	if (strcmp(cls, "auth") == 0)
		return EV_ACCESS | owner;
	for (i = 0; i < sizeof signatures / sizeof signatures[0]; i++)
		if (strcasestr(text, signatures[i].words) != NULL) {
			flags = signatures[i].flags;
			break;
		}
	if (flags & EV_BYTGT)
		owner = EV_BYTGT;
	flags &= ~EV_BYTGT;
	if (flags == 0) {
		if (strcmp(cls, "tool_missing") == 0 ||
		    strcmp(cls, "parse") == 0)
			flags = EV_SETUP;
		else if (strcmp(cls, "timeout") == 0)
			flags = EV_FAIL;
		else if (strcmp(cls, "unreachable") == 0)
			flags = EV_ACCESS;
		else
			flags = EV_SETUP;	/* the tool's own failure */
	}
	return flags == EV_FAIL ? flags : flags | owner;
}


/* --- figures of a cell -------------------------------------------------- */

static const struct matrix_cell *
cell_at(const struct evidence *ev, const struct ev_kind *ek, size_t s,
    size_t t)
{
	return matrix_cell_at(ev->hm, ek->kind, s, t);
}

static double
value_of(const struct matrix_cell *c, int metric)
{
	if (c->state != CELL_VALUE || metric < 0)
		return NAN;
	return c->values[metric];
}

double
diagnose_evidence_latency(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t)
{
	return value_of(cell_at(ev, ek, s, t), ek->lat);
}

double
diagnose_evidence_rate(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t)
{
	double v = value_of(cell_at(ev, ek, s, t), ek->rate);

	return v > 0 ? v : NAN;
}

double
diagnose_evidence_old(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t)
{
	const struct matrix_cell *c;

	if (ek->okind == NULL || ev->omap[s] < 0 || ev->omap[t] < 0)
		return NAN;
	c = matrix_cell_at(ev->old, ek->okind, (size_t)ev->omap[s],
	    (size_t)ev->omap[t]);
	return value_of(c, ek->lat >= 0 ? ek->olat : ek->orate);
}

double
diagnose_evidence_base(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t)
{
	unsigned as = ek->role.row->judge.as;
	double b = NAN;

	if (!ek->role.rtt)
		return NAN;
	if ((as & PROBE_AS_APP) && ev->p2p >= 0)
		b = diagnose_evidence_latency(ev, &ev->kinds[ev->p2p], s, t);
	if (isnan(b) && ev->icmp >= 0 && (as & (PROBE_AS_APP |
	    PROBE_AS_STREAM)))
		b = diagnose_evidence_latency(ev, &ev->kinds[ev->icmp], s, t);
	return b;
}

int
diagnose_evidence_tests(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t)
{
	const struct matrix_cell *c = cell_at(ev, ek, s, t);
	int n = ev->hm->aggregate == MATRIX_MEDIAN ? c->count - c->nfail : 1;

	if (c->nsamples > 1)
		n *= c->nsamples;
	return n > 1 ? n : 1;
}

void
diagnose_evidence_samples(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t, int *lost, int *sent)
{
	size_t i = s * ev->n + t;

	*lost = *sent = 0;
	if (ek->nsent == NULL)
		return;
	*lost = ek->nlost[i];
	*sent = ek->nsent[i];
}

double
diagnose_evidence_typical(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t)
{
	size_t b = ev->group[s] * ev->g + ev->group[t];

	return ek->typ_lat != NULL ? ek->typ_lat[b] :
	    ek->typ_rate != NULL ? ek->typ_rate[b] : NAN;
}

const char *
diagnose_evidence_error(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t)
{
	const struct matrix_cell *c = cell_at(ev, ek, s, t);

	return c->state == CELL_FAILED && c->last_failed != NULL ?
	    c->last_failed->error : NULL;
}

double
diagnose_evidence_factor(const struct evidence *ev, const struct ev_kind *ek,
    size_t s, size_t t)
{
	double o = diagnose_evidence_old(ev, ek, s, t), v;

	if (ek->lat >= 0) {
		v = diagnose_evidence_latency(ev, ek, s, t);
		return v > 0 && o > 0 ? v / o : NAN;
	}
	v = diagnose_evidence_rate(ev, ek, s, t);
	return v > 0 && o > 0 ? o / v : NAN;
}
