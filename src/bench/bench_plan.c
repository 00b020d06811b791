/*
 * What a bench run is before it runs: its run id (upstream's form, so run
 * directories sort by time), and per host the directory on the host, the
 * ports and how otela is called there; which kinds its sweep has, and a
 * pair phase's list of tasks as bench_sweep.c and bench_throughput.c fill
 * it. Its phases are bench_phase.c's, its kinds of probe the kinds'
 * table's (probe_kind.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "bench.h"
#include "error.h"
#include "log.h"
#include "shell.h"
#include "timeutil.h"
#include "util.h"

double
bench_now(void)
{
	return (double)time_mono_ns() / 1e9;
}

void
bench_host_fail(struct bench_host *h, enum bench_phase p,
    enum error_class cls, char *error)
{
	h->status[p] = BENCH_ST_FAILED;
	if (h->failed) {	/* the first reason is the real one */
		free(error);
		return;
	}
	h->failed = 1;
	h->failed_phase = p;
	h->error_class = cls;
	h->error = error != NULL ? error : strdup("out of memory");
	log_debug(h->m->name, "%s failed: %s", bench_phase_name(p), h->error);
}

void
bench_run_id_new(char *buf, size_t size)
{
	unsigned char rnd[3] = { 0 };
	time_t now = time(NULL);
	struct tm tm;
	char when[32];

	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		rnd[0] = (unsigned char)now;
		rnd[1] = (unsigned char)(time_mono_ns() >> 8);
		rnd[2] = (unsigned char)time_mono_ns();
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H-%M-%S", &tm);
	snprintf(buf, size, "%s-%02x%02x%02x", when, rnd[0], rnd[1], rnd[2]);
}

char *
bench_host_dir(const char *run_id, const char *name)
{
	return str_printf("/tmp/otela-bench-%s-%s", run_id, name);
}

int
bench_plan_hosts(struct bench *b)
{
	const struct bench_options *o = b->o;
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct bench_host *h = &b->hosts[i];
		const struct machine *m = &b->inv->machines[i];

		h->b = b;
		h->m = m;
		h->http_port = m->http_port;
		h->libp2p_port = m->libp2p_port;
		/* a port set on the machine wins over the option */
		if (o->http_port > 0 &&
		    m->http_port == INVENTORY_DEFAULT_HTTP_PORT)
			h->http_port = o->http_port;
		if (o->libp2p_port > 0 &&
		    m->libp2p_port == INVENTORY_DEFAULT_LIBP2P_PORT)
			h->libp2p_port = o->libp2p_port;
		if ((h->dir = bench_host_dir(b->run_id, m->name)) == NULL ||
		    (h->otela = strdup("otela")) == NULL)
			return NP_ERR_NOMEM;
	}
	return 0;
}

int
bench_plan_has(const struct bench *b, const struct probe_kind *k)
{
	return k->via == PROBE_VIA_NODE &&
	    ((b->o->kinds >> probe_kind_index(k)) & 1);
}

void
bench_pairs_add(struct bench *b, enum bench_phase p, const struct probe_kind *k,
    size_t src, size_t dst, int round)
{
	b->pairs.tasks[b->pairs.n++] = (struct bench_task){ .b = b,
	    .phase = p, .kind = k, .src = src, .dst = dst, .round = round };
}

/*
 * The environment of every otela command. HOME is the run's directory:
 * otela init writes ~/.config/opentela and a wallet (accounts.json, not
 * atomically), the node keeps ~/.ocfcore/ocfcore.<peerid>.db; in D they
 * cannot race with another host sharing the home (NFS, two nodes on one
 * machine), and they go with D at teardown. OF_* variables override
 * cfg.yaml in the node and AXIOM_* turn on its remote tracing: a host's
 * profile must not change the node netprof configured, so both are
 * removed; NETPROF_OF_X, set knowingly in remote_setup, is passed as
 * OF_X. The words before "HOME=" are statements; HOME=D is an assignment
 * for the command that follows (so "$HOME" in that command is still the
 * user's, as a deployed binary's path wants).
 */
char *
bench_otela_env(const char *dir)
{
	char *qdir = shell_quote(dir), *s;

	if (qdir == NULL)
		return NULL;
	s = str_printf("for v in $(env | sed -n -e 's/^\\(OF_[A-Za-z0-9_]*\\)="
	    ".*/\\1/p' -e 's/^\\(AXIOM_[A-Za-z0-9_]*\\)=.*/\\1/p'); do "
	    "unset \"$v\"; done; for v in $(env | sed -n 's/^NETPROF_\\(OF_"
	    "[A-Za-z0-9_]*\\)=.*/\\1/p'); do eval \"$v=\\$NETPROF_$v; "
	    "export $v\"; done; HOME=%s", qdir);
	free(qdir);
	return s;
}
