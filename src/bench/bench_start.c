/*
 * The start phase's step: the node started in the background (its PID and
 * start time printed, D/pid written at once), or, on the slurm transport,
 * in a job step of its own held for the run; then the health wait: GET
 * /v1/health polled on the step's one wait (bench_host_poll(), short, so
 * the node is noticed about as soon as it answers), the process checked
 * alive once a second meanwhile, then GET /v1/self, whose id must be the
 * PeerID discover read. A node that dies or never answers fails its host
 * with the tail of its log.
 *
 * The nodes start one after another: a host's start command returns once
 * its node listens on its libp2p port (1 s at most), and only
 * then is the next host's sent; the health waits run side by side. A node
 * dials every bootstrap peer as it starts, from its own listening port
 * (the real node's TCP port reuse): two nodes started together dial each
 * other at once, both dials become one TCP connection opened from both
 * ends, and its security handshake fails on both. The real node does not
 * dial again, and lists the pair only once its pubsub ping goes round,
 * 20 s later (docs/bench.md). Started in turn, each pair is dialled once,
 * by the later node, to a node that listens.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_dir.h"
#include "engine.h"
#include "error.h"
#include "log.h"
#include "node_api.h"
#include "shell.h"
#include "util.h"

/* Seconds between checks that a node not (yet) healthy still runs. */
#define ALIVE_EVERY_S 1.0
/*
 * The wait until the node listens on its libp2p port (%04X) in the host's
 * own socket table, 1 s at most (timeout(1)), or until its PID (%s) has
 * died; the next host's start waits for it.
 */
#define LISTEN_WAIT "timeout 1 sh -c \"until grep -qE ':%04X [0-9A-F]+:0000 " \
	"0A' /proc/net/tcp /proc/net/tcp6 2>/dev/null || ! kill -0 %s " \
	"2>/dev/null; do sleep 0.01; done\""

static void health_poll(struct bench_host *h);
static void self_poll(struct bench_host *h);
static void health_again(struct bench_host *h);
static void check_alive(struct bench_host *h);

/* The node's log tail, then fail the step with why. */
static void
tail_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;
	char *why = h->log_tail;	/* parked there by fail_with_log */

	(void)m;
	h->job = NULL;
	h->log_tail = NULL;
	if (res->error == NP_OK && res->out_len > 0)
		h->log_tail = strdup(res->out);
	bench_host_step_fail(h, h->error_class, why);
}

static void
fail_with_log(struct bench_host *h, enum error_class cls, char *why)
{
	char *qdir = shell_quote(h->dir), *cmd = NULL;
	char *guard = bench_dir_guard(h->dir);

	h->error_class = cls;
	h->log_tail = why;
	/* bytes first: a log of one endless line is still a short tail */
	if (qdir != NULL && guard != NULL && (cmd = str_printf("%stail -c "
	    "%d %s/log 2>&1 | tail -n 20", guard, BENCH_LOG_TAIL_MAX, qdir))
	    != NULL && bench_host_submit(h, cmd, NULL, 10, tail_done_cb) == 0) {
		free(guard);
		free(qdir);
		free(cmd);
		return;
	}
	free(guard);
	free(qdir);
	free(cmd);
	h->log_tail = NULL;
	bench_host_step_fail(h, cls, why);
}

static void
alive_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;

	(void)m;
	h->job = NULL;
	if (h->b->interrupted) {
		bench_host_step_done(h);
		return;
	}
	if (res->error == NP_OK && strncmp(res->out, "dead", 4) == 0) {
		fail_with_log(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: the "
		    "node (pid %ld) exited before it became healthy; see the "
		    "log tail in run.json or %s/log", h->m->name, h->pid,
		    h->dir));
		return;
	}
	bench_host_poll(h, health_poll);
}

static void
check_alive(struct bench_host *h)
{
	char *cmd = str_printf("if kill -0 %ld 2>/dev/null; then echo alive;"
	    " else echo dead; fi", h->pid);

	if (cmd == NULL ||
	    bench_host_submit(h, cmd, NULL, 10, alive_done_cb) != 0)
		bench_host_poll(h, health_poll);
	free(cmd);
}

static void
health_reply_cb(const struct machine *m, const struct node_reply *r,
    void *arg)
{
	struct bench_host *h = arg;
	double waited = bench_now() - h->step_t0;

	(void)m;
	if (bench_host_reply_taken(h))
		return;
	if (r->error == NP_OK && r->status == 200) {
		self_poll(h);	/* but is it our node that answers? */
		return;
	}
	if (waited >= h->b->o->health_wait) {
		fail_with_log(h, ERROR_CLASS_TIMEOUT, str_printf("%s: the node "
		    "did not become healthy within %g s (last answer: %s); "
		    "see its log tail in run.json (--health-wait to wait "
		    "longer)", h->m->name, h->b->o->health_wait,
		    r->error != NP_OK ? (r->error_text != NULL ? r->error_text :
		    error_string(r->error)) : r->status == 0 ? "none" :
		    r->body[0] != '\0' ? r->body : "an HTTP error"));
		return;
	}
	health_again(h);
}

/* Not (yet) an answer from our node: the next health poll, in a while. */
static void
health_again(struct bench_host *h)
{
	h->attempts++;
	if (bench_now() - h->alive_at >= ALIVE_EVERY_S) {
		h->alive_at = bench_now();
		check_alive(h);
	}
	else
		bench_host_poll(h, health_poll);
}

/*
 * GET /v1/self's answer after a healthy /v1/health. A node left on the
 * port (a previous run's, or anyone's) answers health as well as ours
 * would, and ours, finding the port taken, runs on without an API: the
 * node is ours only if its id is the PeerID discover read. An answer
 * without /v1/self (404) is not an otela node's (the contract's node has
 * it): a squatter on the port, refused.
 */
static void
self_reply_cb(const struct machine *m, const struct node_reply *r,
    void *arg)
{
	struct bench_host *h = arg;
	cJSON *doc = NULL;
	const char *id = NULL;

	if (bench_host_reply_taken(h))
		return;
	if (r->error == NP_OK && r->status == 404) {
		fail_with_log(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: port "
		    "%d on %s answers /v1/health but not /v1/self (HTTP 404): "
		    "not an otela node whose id netprof can check; another "
		    "program holds the port? choose another port (--http-port, "
		    "or the machine's http_port)",
		    m->name, h->http_port, m->name));
		return;
	}
	if (r->error == NP_OK && r->status == 200 &&
	    (doc = cJSON_ParseWithLength(r->body, r->body_len)) != NULL)
		id = cJSON_GetStringValue(cJSON_GetObjectItem(doc, "id"));
	if (id != NULL && strcmp(id, h->peer_id) == 0) {
		log_debug(m->name, "healthy after %.2f s", bench_now() -
		    h->step_t0);
		bench_host_step_done(h);
	} else if (id != NULL && *id != '\0')
		fail_with_log(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: port "
		    "%d on %s is held by another node (peer %.80s): a previous "
		    "run? try `netprof bench --teardown RUN`", m->name,
		    h->http_port, m->name, id));
	else
		health_again(h);
	cJSON_Delete(doc);
}

static void
self_poll(struct bench_host *h)
{
	bench_host_get(h, "/v1/self", 2.0, h->health, self_reply_cb,
	    "node id check");
}

static void
health_poll(struct bench_host *h)
{
	if (h->health == NULL)	/* the node is started: it is awaited */
	{
		h->health = trace_span_start(h->b->trace, h->span, "health");
		trace_span_str(h->health, "netprof.host", h->m->name);
	}
	bench_host_get(h, "/v1/health", 2.0, h->health, health_reply_cb,
	    "health check");
}

int
bench_pid_parse(const char *s, long *pid, char **end)
{
	const char *p = s;
	long v = 0;

	*pid = 0;
	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9' && p - s < 10)
		v = v * 10 + (*p++ - '0');
	if ((*p >= '0' && *p <= '9') || v > 2147483647L)
		return 0;
	*pid = v;
	if (end != NULL)
		*end = (char *)p;
	return 1;
}

/*
 * The node's PID and start time, a line each at the start of out (whole:
 * the command's whole output, else the first lines of a stream); run.json
 * has them from now on.
 */
static void
take_pid(struct bench_host *h, const char *out, int whole)
{
	char *end;
	long pid;

	if (!bench_pid_parse(out, &pid, &end) || *end != '\n')
		return;
	h->pid = pid;
	h->pid_start = strtoll(end + 1, &end, 10);
	if (h->pid_start < 0 || (*end != '\n' && (!whole || *end != '\0')))
		h->pid_start = 0;
	log_debug(h->m->name, "node started%s, pid %ld (start time %lld)",
	    whole ? "" : " in its own job step", pid, h->pid_start);
	h->b->hooks.node_started(h);
}

/* The node runs: its health is awaited. */
static void
health_begin(struct bench_host *h)
{
	h->attempts = 0;
	h->alive_at = bench_now();
	health_poll(h);
}

/* The start command's node listens, or its wait is over: the next host's
   start. */
static void
start_listened(struct bench_host *h)
{
	if (h->b->starting != h)
		return;
	h->b->starting = NULL;
	bench_hosts_launch(h->b);
}

static void
start_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;

	(void)m;
	h->job = NULL;
	start_listened(h);
	/*
	 * The PID (and its start time) are printed whether or not the pid
	 * file could be written: a node whose pid file failed is still known,
	 * and stopped. Taken from a job that was cancelled or timed out too:
	 * a node started is stopped by the teardown, whatever came after.
	 */
	take_pid(h, res->out, 1);
	if (!bench_host_check_job(h, res, "otela start")) {
		if (h->pid == 0)
			bench_host_step_fail(h, ERROR_CLASS_PARSE, str_printf(
			    "%s: starting the node printed no PID: '%.80s'",
			    m->name, res->out));
		else
			health_begin(h);
	}
}

static int
start_background(struct bench_host *h)
{
	char *qdir = shell_quote(h->dir), *env = bench_otela_env(h->dir);
	char *cmd = NULL;
	char *guard = bench_dir_guard(h->dir);
	int r = NP_ERR_NOMEM;

	/*
	 * Backgrounded with its output in D/log and its PID in D/pid (for
	 * --teardown after a killed netprof), written at once after the
	 * fork, before anything slower; then the PID and its start time
	 * (field 22 of /proc/PID/stat, fixed at fork, kept across exec) are
	 * printed, even if the pid file failed (the step fails then, but
	 * the node is known). A job cancelled in between leaves the node in
	 * the pid file or in its output, never in neither. set -C: log and
	 * pid are new files, never links; a log that exists says a node was
	 * started there. Then the wait for the node's libp2p port in the
	 * host's own socket table (no connection to it: a firewall cannot
	 * stall it), while the node runs.
	 */
	if (qdir != NULL && env != NULL && guard != NULL && (cmd = str_printf(
	    "%sset -C; : >%s/log || exit 1; %s nohup %s start --config "
	    "%s/cfg.yaml --config-dir %s >>%s/log 2>&1 </dev/null & P=$!; "
	    "echo $P >%s/pid; w=$?; echo $P; sed 's/.*) //' /proc/$P/stat "
	    "2>/dev/null | cut -d' ' -f20; " LISTEN_WAIT "; exit $w", guard,
	    qdir, env, h->otela, qdir, qdir, qdir, qdir, h->libp2p_port,
	    "$P")) != NULL &&
	    (r = bench_host_submit(h, cmd, NULL, BENCH_STEP_TIMEOUT,
	    start_done_cb)) == 0)
		h->b->starting = h;
	free(env);
	free(guard);
	free(qdir);
	free(cmd);
	return r;
}

/*
 * The slurm transport: the node in a job step of its own, held open by
 * netprof for the run. The step's shell prints its PID and start time,
 * writes D/pid, then execs the node in its place, so the step lives as
 * long as the node and the PID printed is the node's. A site whose
 * proctrack plugin ends what a step leaves behind (proctrack/cgroup)
 * would end a node started in the background of a short step with it.
 * With --keep the node must outlive netprof, which ends the steps it
 * holds when it exits: it is started in the background, as elsewhere.
 */
static int
node_held(const struct bench_host *h)
{
	return h->m->transport == TRANSPORT_SLURM && !h->b->o->keep;
}

/*
 * The step's output: the PID and start time, then "listening" once the
 * node listens (or its wait is over). A full buffer ends the wait too.
 */
static void
node_output_cb(const struct machine *m, int stream, const char *buf,
    size_t len, void *arg)
{
	struct bench_host *h = arg;
	size_t room = sizeof h->node_out - 1 - h->node_out_len, lines = 0, i;
	int full;

	(void)m;
	if (stream != 1 || room == 0)
		return;
	if (len > room)
		len = room;
	memcpy(h->node_out + h->node_out_len, buf, len);
	h->node_out_len += len;
	h->node_out[h->node_out_len] = '\0';
	full = h->node_out_len == sizeof h->node_out - 1;
	for (i = 0; i < h->node_out_len; i++)
		lines += h->node_out[i] == '\n';
	if (lines >= 3 || full)
		start_listened(h);
	if (h->pid != 0 || (lines < 2 && !full))
		return;
	take_pid(h, h->node_out, 0);
	if (!h->node_wait)
		return;
	h->node_wait = 0;
	if (h->pid == 0) {
		start_listened(h);
		bench_host_step_fail(h, ERROR_CLASS_PARSE, str_printf("%s: "
		    "starting the node printed no PID: '%.40s'", h->m->name,
		    h->node_out));
		return;
	}
	health_begin(h);
}

static void
node_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;

	h->node_job = NULL;
	start_listened(h);
	log_debug(m->name, "the node's job step ended: %s, exit %d",
	    error_string(res->error), res->exit_status);
	if (h->node_wait) {
		/* it ended before it printed the node's PID */
		h->node_wait = 0;
		if (bench_host_check_job(h, res, "otela start"))
			return;
		bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf(
		    "%s: the node's job step ended before the node started "
		    "(printed '%.40s')", m->name, h->node_out));
		return;
	}
	if (h->node_ended != NULL) {	/* after the stop: its end */
		void (*fn)(struct bench_host *) = h->node_ended;

		h->node_ended = NULL;
		fn(h);
		return;
	}
	if (h->stop_state == 0 && !h->b->closing && !h->b->interrupted)
		log_warn("%s: the node's job step ended before the teardown "
		    "(%s)", m->name, res->error != NP_OK ? (res->error_text !=
		    NULL ? res->error_text : error_string(res->error)) :
		    res->exit_status == 0 ? "the node exited" :
		    "the node exited with an error; see its log");
}

static int
start_held(struct bench_host *h)
{
	char *qdir = shell_quote(h->dir), *env = bench_otela_env(h->dir);
	char *cmd = NULL;
	char *guard = bench_dir_guard(h->dir);
	struct engine_request req = {
		.timeout_s = 0,		/* the node's life: the run's */
		.on_output = node_output_cb,
		.on_done = node_done_cb,
		.arg = h,
	};
	int r = NP_ERR_NOMEM;

	/* $$ is the shell that exec makes the node: its PID, its start time;
	 * the pid file first, as in the background; the listen wait in a
	 * process of its own (not the node's child: it leaves no zombie
	 * there), which prints "listening" when it is over */
	if (qdir != NULL && env != NULL && guard != NULL && (cmd = str_printf(
	    "%sset -C; : >%s/log || exit 1; echo $$ >%s/pid; echo $$; "
	    "sed 's/.*) //' /proc/$$/stat 2>/dev/null | cut -d' ' -f20; "
	    "( (" LISTEN_WAIT "; echo listening) & ); %s exec %s start "
	    "--config %s/cfg.yaml --config-dir %s >>%s/log 2>&1 </dev/null",
	    guard, qdir, qdir, h->libp2p_port, "$$", env, h->otela, qdir,
	    qdir, qdir)) != NULL) {
		req.command = cmd;
		h->node_out_len = 0;
		h->node_out[0] = '\0';
		log_debug(h->m->name, "start: %s", cmd);
		if ((r = engine_submit(h->b->engine, h->m, &req,
		    &h->node_job)) == 0) {
			h->node_wait = 1;
			h->b->starting = h;
		}
	}
	free(env);
	free(guard);
	free(qdir);
	free(cmd);
	return r;
}

/* The start phase's step: the node held in a step, or in the background. */
int
bench_host_start_node(struct bench_host *h)
{
	return node_held(h) ? start_held(h) : start_background(h);
}
