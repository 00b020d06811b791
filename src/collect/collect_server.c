/*
 * collect's tests of the kinds that need a server on the target
 * (PROBE_SERVER: iperf3): the servers, and the client of each test. A
 * duplex host keeps one server for every test it serves in the phase;
 * exclusive mode starts a one-off server per test. Every server ends by
 * itself within a bound (the kind's server_bound), and says each time it
 * listens for a client (the kind's server_ready).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "log.h"
#include "timeutil.h"
#include "util.h"

static void start_client(struct task *t);

/* "iperf3 server: ", "iperf3 client: ": before a text of t's tool's */
static const char *
who(const struct task *t, const char *role, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s: ", t->stage->kind->tool, role);
	return buf;
}

/* ---- one server per host for the phase --------------------------------- */

/*
 * Count the ready lines in a chunk of the server's output. The marker's
 * first letter does not recur in it, so after a mismatch a new match can
 * only begin at the current character: no back-tracking is needed.
 */
static size_t
server_count_ready(struct probe_server *s, const char *buf, size_t len)
{
	const char *marker = s->ready;
	size_t i, n = 0, mlen = strlen(marker);

	for (i = 0; i < len; i++) {
		if (buf[i] == marker[s->matched])
			s->matched++;
		else
			s->matched = buf[i] == marker[0];
		if (s->matched == mlen) {
			n++;
			s->matched = 0;
		}
	}
	return n;
}

static void
server_cancel(struct probe_server *s)
{
	if (s->job != NULL && !s->cancelled) {
		s->cancelled = 1;
		engine_cancel(s->job);
	}
}

static void server_serve(struct probe_server *s);

/* The server listens again (a new test may come): hand it to its waiter. */
static void
server_output_cb(const struct machine *m, int stream, const char *buf,
    size_t len, void *arg)
{
	struct probe_server *s = arg;
	size_t n;

	if (stream != 1 || (n = server_count_ready(s, buf, len)) == 0)
		return;
	s->listening = 1;
	s->listens += n;
	log_debug(m->name, "server listening");
	server_serve(s);
}

/* The first line of the server's words, for a server that never listened. */
static void
server_fail_waiter(struct probe_server *s, const struct machine *m,
    const struct engine_result *res)
{
	struct task *t = s->waiter;
	char *line, buf[64];

	s->waiter = NULL;
	t->ended_at = res->ended_at;
	if (!collect_check_result(t, m, res, who(t, "server", buf,
	    sizeof buf))) {
		line = str_first_line(res->err[0] != '\0' ? res->err : res->out,
		    200);
		collect_task_fail(t, ERROR_CLASS_TOOL_FAILED, str_printf("%s "
		    "server on %s did not start (exit %d): %s",
		    t->stage->kind->tool, m->name, res->exit_status,
		    line != NULL ? line : ""));
		free(line);
	}
	t->c->hooks.task_ended(t);
}

static void
server_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct probe_server *s = arg;
	struct collector *c = s->c;
	int renew = s->renewing, listened = s->listening;

	s->job = NULL;
	s->renewing = s->cancelled = 0;
	c->servers_up--;
	log_debug(m->name, "server ended");
	if (s->waiter != NULL) {	/* it was waiting for this server */
		if (c->interrupted) {
			struct task *t = s->waiter;

			s->waiter = NULL;
			t->c->hooks.task_ended(t);		/* not recorded: --resume */
		} else if (!listened)
			server_fail_waiter(s, m, res);
		else if (renew || s->restarts++ < 2)
			server_serve(s);	/* a new one for the waiter */
		else
			server_fail_waiter(s, m, res);
	}
	if (s->finishing != NULL) {	/* one-off: its test can be recorded */
		struct task *t = s->finishing;

		s->finishing = NULL;
		t->c->hooks.task_ended(t);
	}
	c->hooks.jobs_changed(c);
}

/*
 * A new server for the host's waiter: one still running (too near its
 * bound for the waiter's test) is cancelled, and its end starts the next;
 * else it starts now. On failure the waiter fails.
 */
static void
server_start(struct probe_server *s)
{
	struct collector *c = s->c;
	const struct machine *m = s->m;
	struct task *t = s->waiter;
	struct engine_request req = {
		.command = t->server_command,
		.timeout_s = c->ps.server_bound + 10,
		.on_output = server_output_cb,
		.on_done = server_done_cb,
		.arg = s,
	};
	int r;

	if (s->job != NULL) {
		s->renewing = 1;
		server_cancel(s);
		return;
	}
	s->ready = t->stage->kind->server_ready;
	s->listening = 0;
	s->listens = s->served = s->matched = 0;
	/* the remote `timeout` starts later than this: it ends later too */
	s->expires_at = time_wall() + c->ps.server_bound;
	log_debug(m->name, "%s server: %s", t->stage->kind->tool,
	    t->server_command);
	if ((r = engine_submit(c->engine, m, &req, &s->job)) == 0) {
		c->servers_up++;
		return;
	}
	/* not a callback: the waiter fails on this turn */
	s->waiter = NULL;
	collect_task_fail(t, ERROR_CLASS_TOOL_FAILED, str_printf("%s server on "
	    "%s: %s", t->stage->kind->tool, m->name, error_string(r)));
	t->c->hooks.task_ended(t);
}

/*
 * Give the server to its waiting test once it listens for a new client; a
 * server too close to its bound for one more test is replaced first.
 */
static void
server_serve(struct probe_server *s)
{
	struct collector *c = s->c;
	struct task *t = s->waiter;

	if (t == NULL || c->interrupted)
		return;
	if (s->job != NULL && (s->cancelled || s->listens <= s->served))
		return;		/* ending, or not listening yet: it comes back */
	if (s->job == NULL || (c->ps.server_keep && time_wall() +
	    t->stage->kind->timeout(&c->ps, c->connect_timeout) >
	    s->expires_at)) {
		server_start(s);
		return;
	}
	s->waiter = NULL;
	s->served++;
	s->restarts = 0;
	s->client = t;
	start_client(t);
}

/* A host none of whose tests as a server is left: its server can go. */
static void
server_stop_if_unused(struct collector *c, size_t h)
{
	struct probe_server *s = &c->hosts[h].srv;

	struct dispatch_task *next = dispatch_host_next_waiting(c->d, h, 1);

	/* the host's next test as a target is of a later stage, if any */
	if (s->job != NULL && s->waiter == NULL && s->client == NULL &&
	    (next == NULL || next->stage != dispatch_stage(c->d)))
		server_cancel(s);
}

static void
client_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct task *t = arg;
	struct collector *c = t->c;
	struct probe_server *s = &c->hosts[t->target].srv;
	char buf[64];
	struct probe_output o = { .out = res->out, .err = res->err,
	    .exit_status = res->exit_status, .kind = t->stage->kind,
	    .host = m->name, .who = who(t, "client", buf, sizeof buf) };

	t->job = NULL;
	s->client = NULL;
	t->ended_at = res->ended_at;
	if (res->error == NP_ERR_CANCELLED) {
		if (!c->interrupted)
			collect_task_fail(t, ERROR_CLASS_TIMEOUT, strdup("cancelled"));
	} else if (!collect_check_result(t, m, res, o.who)) {
		o.len = strlen(res->out);
		if (t->stage->kind->parse(&o, &t->rec) != 0)
			collect_task_fail(t, ERROR_CLASS_TOOL_FAILED, NULL);
	}
	if (!c->ps.server_keep && s->job != NULL) {
		/* its one test is over: gone, it frees the port for the next */
		s->finishing = t;
		server_cancel(s);
		return;
	}
	if (!t->rec.ok)
		server_cancel(s);	/* it may be stuck in the failed test */
	t->c->hooks.task_ended(t);
	server_stop_if_unused(c, t->target);
}

static void
start_client(struct task *t)
{
	if (collect_task_submit(t, "client", client_done_cb) != 0) {
		t->c->hosts[t->target].srv.client = NULL;
		t->c->hooks.task_ended(t);
	}
}

/* A test has its hosts: it waits for the target's server to listen. */
void
collect_server_start(struct task *t)
{
	struct probe_server *s = &t->c->hosts[t->target].srv;

	t->started_at = time_wall();
	s->waiter = t;
	server_serve(s);
}

/* End every server: the phase is over, or the run stops. */
void
collect_servers_stop(struct collector *c)
{
	size_t h;

	for (h = 0; h < c->inv->n_machines; h++)
		server_cancel(&c->hosts[h].srv);
}
