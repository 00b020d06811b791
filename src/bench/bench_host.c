/*
 * The host phases of a bench run (bench_phases[]'s HOST entries): a
 * launcher that starts a phase's step on every host it visits at once
 * through the engine, or host by host with --serial (the upstream order,
 * for comparison), and tells the run when the last step has ended
 * (b->hooks.phase_ended); then the steps of init, discover, configure,
 * push, start (and the health wait) and converge, in that order (deploy's
 * is bench_deploy.c's, teardown's bench_teardown.c's). A step that fails
 * marks its host failed with the reason; the phase goes on with the
 * others. Waiting (health, convergence) is a per-host uv_timer with
 * backoff, so a host that is slow to come up holds nobody else back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_cfg.h"
#include "bench_dir.h"
#include "bench_teardown.h"
#include "engine.h"
#include "error.h"
#include "log.h"
#include "node_api.h"
#include "node_json.h"
#include "shell.h"
#include "timeutil.h"
#include "util.h"

/* Seconds a lifecycle command (init, peer-id, push, start) may take. */
#define STEP_TIMEOUT 30.0
/* Health and table polls: first retry, and the longest wait between. */
#define POLL_FIRST_MS 50
#define POLL_MAX_MS 1000
/* Every so many failed health polls, check that the node still runs. */
#define LIVENESS_EVERY 4

/* ---- the launcher -------------------------------------------------- */

static void
launch_more(struct bench *b)
{
	enum bench_phase p = b->phase;
	const struct bench_phase_spec *ph = &bench_phases[p];
	int cleanup = (ph->flags & BENCH_PHASE_CLEANUP) != 0;
	struct bench_host *h;
	int r;

	if (b->launching)
		return;
	b->launching = 1;
	while (b->next_host < b->n && !(b->o->serial && b->outstanding > 0) &&
	    !(b->interrupted && !cleanup)) {
		h = &b->hosts[b->next_host++];
		if (!bench_phase_visits(p, h)) {
			if (!cleanup)	/* it failed before */
				h->status[p] = BENCH_ST_SKIPPED;
			continue;
		}
		b->outstanding++;
		h->step_t0 = bench_now();
		h->step_at[p] = time_wall();
		h->span = trace_span_start(b->trace, b->phase_span,
		    bench_phase_name(p));
		trace_span_str(h->span, "netprof.host", h->m->name);
		if ((r = ph->host_start(h)) != 0)
			bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: "
			    "%s: %s", h->m->name, bench_phase_name(p),
			    error_string(r)));
		else if (ph->flags & BENCH_PHASE_LOCAL)
			bench_host_step_done(h);
	}
	b->launching = 0;
	if (b->outstanding == 0 && (b->next_host >= b->n || b->interrupted))
		b->hooks.phase_ended(b);
}

void
bench_hosts_start(struct bench *b)
{
	b->outstanding = 0;
	b->next_host = 0;
	bench_report_phase(b);
	launch_more(b);
}

/* The step's span (and the health wait's in it) with how it ended. */
static void
step_span_end(struct bench_host *h, enum bench_phase p)
{
	const char *why = h->status[p] == BENCH_ST_FAILED ? h->error :
	    h->status[p] == BENCH_ST_INTERRUPTED ? "interrupted" : NULL;

	if (h->span == NULL)
		return;
	if (h->health != NULL) {
		trace_span_int(h->health, "netprof.polls", h->attempts + 1);
		if (why != NULL)
			trace_span_error(h->health, why);
		trace_span_end(&h->health);
	}
	if (p == BENCH_CONVERGE) {
		trace_span_bool(h->span, "netprof.converged", h->converged);
		trace_span_int(h->span, "netprof.missing", (long long)h->n_missing);
	}
	if (p == BENCH_DISCOVER && h->peer_id != NULL)
		trace_span_str(h->span, "netprof.peer_id", h->peer_id);
	if (p == BENCH_START && h->pid > 0)
		trace_span_int(h->span, "netprof.pid", h->pid);
	if (why != NULL) {
		trace_span_str(h->span, "netprof.error_class",
		    error_class_name(h->error_class));
		trace_span_error(h->span, why);
	}
	trace_span_end(&h->span);
}

void
bench_host_step_done(struct bench_host *h)
{
	struct bench *b = h->b;
	enum bench_phase p = b->phase;

	h->phase_s[p] = bench_now() - h->step_t0;
	h->step_end[p] = time_wall();
	if (h->status[p] == BENCH_ST_NONE)
		h->status[p] = b->interrupted &&
		    !(bench_phases[p].flags & BENCH_PHASE_CLEANUP) ?
		    BENCH_ST_INTERRUPTED : BENCH_ST_OK;
	step_span_end(h, p);
	bench_report_host(b, h);
	b->outstanding--;
	launch_more(b);
}

void
bench_host_step_fail(struct bench_host *h, enum error_class cls, char *error)
{
	bench_host_fail(h, h->b->phase, cls, error);
	bench_host_step_done(h);
}

int
bench_host_submit(struct bench_host *h, const char *command,
    const char *input, double timeout, engine_done_cb cb)
{
	struct engine_request req = {
		.command = command,
		.input = input,
		.input_len = input != NULL ? strlen(input) : 0,
		.timeout_s = timeout,
		.on_done = cb,
		.arg = h,
	};

	log_debug(h->m->name, "%s: %s", bench_phase_name(h->b->phase),
	    command);
	return engine_submit(h->b->engine, h->m, &req, &h->job);
}

/* The first line of text, at most 200 bytes of it, into buf. */
static void
first_line(const char *text, char *buf, size_t size)
{
	size_t n = strcspn(text, "\n");

	snprintf(buf, size, "%.*s", (int)(n < 200 ? n : 200), text);
}

/* Its last non-empty line (where a failed otela init says why). */
static void
last_line(const char *text, char *buf, size_t size)
{
	const char *s = text, *best = NULL;
	size_t n, best_n = 0;

	while (*s != '\0') {
		n = strcspn(s, "\n");
		while (n > 0 && strchr(" \t\r", s[n - 1]) != NULL)
			n--;
		if (n > 0) {
			best = s;
			best_n = n;
		}
		s += strcspn(s, "\n");
		if (*s == '\n')
			s++;
	}
	snprintf(buf, size, "%.*s", (int)(best_n < 200 ? best_n : 200),
	    best != NULL ? best : "");
}

/* An engine result that is not a clean exit 0: fail the step, return 1. */
static int
check_job(struct bench_host *h, const struct engine_result *res,
    const char *what)
{
	char line[256], out[256];

	if (res->error == NP_ERR_CANCELLED && h->b->interrupted) {
		bench_host_step_done(h);
		return 1;
	}
	if (res->error != NP_OK) {
		bench_host_step_fail(h, error_class_of_code(res->error), str_printf(
		    "%s: %s: %s", h->m->name, what, res->error_text != NULL ?
		    res->error_text : error_string(res->error)));
		return 1;
	}
	if (res->exit_status == 0)
		return 0;
	if (res->exit_status == 127 || strstr(res->err, ": not found") ||
	    strstr(res->err, "command not found")) {
		bench_host_step_fail(h, ERROR_CLASS_TOOL_MISSING, str_printf("%s: otela "
		    "is not installed or not on PATH there (%s: exit %d); put "
		    "it on PATH in remote_setup, or deploy it with --otela-bin "
		    "DIR", h->m->name, what, res->exit_status));
		return 1;
	}
	/* otela init prints its errors on stdout: say what either said */
	first_line(res->err, line, sizeof line);
	last_line(res->out, out, sizeof out);
	bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: %s "
	    "exited %d%s%s%s%s%s", h->m->name, what, res->exit_status,
	    *line || *out ? ": " : "", line, *line && *out ? " (stdout: " : "",
	    out, *line && *out ? ")" : ""));
	return 1;
}

/* ---- init, discover, configure, push ------------------------------- */

/* init first creates the directory; every other step checks it. */
static int
run_otela(struct bench_host *h, const char *verb, engine_done_cb cb)
{
	char *qdir = shell_quote(h->dir), *env = bench_otela_env(h->dir);
	char *dir = strcmp(verb, "init") == 0 ? bench_dir_create(h->dir) :
	    bench_dir_guard(h->dir);
	char *cmd = NULL;
	int r = NP_ERR_NOMEM;

	if (qdir != NULL && env != NULL && dir != NULL && (cmd =
	    str_printf("%s%s %s %s --config-dir %s", dir, env, h->otela, verb,
	    qdir)) != NULL)
		r = bench_host_submit(h, cmd, NULL, STEP_TIMEOUT, cb);
	free(env);
	free(dir);
	free(qdir);
	free(cmd);
	return r;
}

static void
init_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;

	(void)m;
	h->job = NULL;
	/* Only the refusal itself says the directory is not ours: otela
	 * init, or remote_setup, may exit 75 (EX_TEMPFAIL) too, after
	 * netprof made the directory, which the teardown then removes. */
	if (res->error == NP_OK && res->exit_status == BENCH_DIR_REFUSED &&
	    bench_dir_refusal(h->dir, res->err)) {
		/* not ours: teardown must neither signal nor remove anything */
		h->touched = 0;
		bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf(
		    "%s: %.*s", m->name, (int)strcspn(res->err, "\n"),
		    res->err));
		return;
	}
	if (!check_job(h, res, "otela init"))
		bench_host_step_done(h);
}

int
bench_host_init(struct bench_host *h)
{
	h->touched = 1;		/* from now on, teardown must visit */
	return run_otela(h, "init", init_done_cb);
}

static void
discover_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;
	char *id = NULL;

	(void)m;
	h->job = NULL;
	if (check_job(h, res, "otela peer-id"))
		return;
	if (bench_peer_id_from_output(res->out, &id) != 0) {
		bench_host_step_fail(h, ERROR_CLASS_PARSE, str_printf("%s: otela peer-id "
		    "printed %s, not a PeerID (base58 12D3KooW... or Qm...)",
		    m->name, id != NULL ? id : "nothing"));
		free(id);
		return;
	}
	h->peer_id = id;
	bench_host_step_done(h);
}

int
bench_host_discover(struct bench_host *h)
{
	return run_otela(h, "peer-id", discover_done_cb);
}

/* Render the host's cfg.yaml (no remote work: BENCH_PHASE_LOCAL). */
int
bench_host_configure(struct bench_host *h)
{
	struct bench *b = h->b;
	struct bench_cfg_peer *peers;
	struct bench_cfg c = {
		.run_id = b->run_id,
		.http_port = h->http_port,
		.libp2p_port = h->libp2p_port,
		.extra = b->bootstrap,
		.n_extra = b->o->n_bootstrap,
		.host_extra = h->m->bootstrap_extra,
		.n_host_extra = h->m->n_bootstrap_extra,
		.reachability = bench_reachability_names[b->o->reachability],
		.relays = b->relays,
		.n_relays = b->o->relay_circuits ? b->n_relays : 0,
	};
	size_t i;

	if ((peers = calloc(b->n + 1, sizeof *peers)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < b->n; i++) {
		const struct bench_host *o = &b->hosts[i];

		if (o == h || o->failed || o->peer_id == NULL)
			continue;
		peers[c.n_peers].m = o->m;
		peers[c.n_peers].libp2p_port = o->libp2p_port;
		peers[c.n_peers++].peer_id = o->peer_id;
	}
	c.peers = peers;
	h->cfg = bench_cfg_render(&c);
	free(peers);
	return h->cfg != NULL ? 0 : NP_ERR_NOMEM;
}

static void
push_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;

	(void)m;
	h->job = NULL;
	if (!check_job(h, res, "writing cfg.yaml"))
		bench_host_step_done(h);
}

int
bench_host_push(struct bench_host *h)
{
	char *qdir = shell_quote(h->dir), *cmd = NULL;
	char *guard = bench_dir_guard(h->dir);
	int r = NP_ERR_NOMEM;

	/*
	 * Through the channel's stdin: no temporary file here, no base64.
	 * set -C: the temp is created new (O_EXCL), never through a link.
	 */
	if (qdir != NULL && guard != NULL && (cmd = str_printf("%srm -f -- "
	    "%s/cfg.yaml.tmp && set -C && cat >%s/cfg.yaml.tmp && mv -f -- "
	    "%s/cfg.yaml.tmp %s/cfg.yaml", guard, qdir, qdir, qdir, qdir))
	    != NULL)
		r = bench_host_submit(h, cmd, h->cfg, STEP_TIMEOUT,
		    push_done_cb);
	free(guard);
	free(qdir);
	free(cmd);
	return r;
}

/* ---- start and the health wait ------------------------------------- */

static void health_poll(struct bench_host *h);
static void self_poll(struct bench_host *h);
static void health_again(struct bench_host *h);
static void check_alive(struct bench_host *h);

static void
health_timer_cb(uv_timer_t *t)
{
	struct bench_host *h = t->data;

	h->timer_active = 0;
	if (h->b->interrupted)
		bench_host_step_done(h);
	else
		health_poll(h);
}

static void
poll_later(struct bench_host *h, void (*fn)(uv_timer_t *))
{
	uint64_t ms = POLL_FIRST_MS;
	int i;

	for (i = 0; i < h->attempts && ms < POLL_MAX_MS; i++)
		ms *= 2;
	if (ms > POLL_MAX_MS)
		ms = POLL_MAX_MS;
	h->timer_active = 1;
	uv_timer_start(&h->timer, fn, ms, 0);
}

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
	poll_later(h, health_timer_cb);
}

static void
check_alive(struct bench_host *h)
{
	char *cmd = str_printf("if kill -0 %ld 2>/dev/null; then echo alive;"
	    " else echo dead; fi", h->pid);

	if (cmd == NULL ||
	    bench_host_submit(h, cmd, NULL, 10, alive_done_cb) != 0)
		poll_later(h, health_timer_cb);
	free(cmd);
}

static void
health_reply_cb(const struct machine *m, const struct node_reply *r,
    void *arg)
{
	struct bench_host *h = arg;
	double waited = bench_now() - h->step_t0;

	(void)m;
	h->call = NULL;
	if (h->b->interrupted) {
		bench_host_step_done(h);
		return;
	}
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
	if (h->attempts % LIVENESS_EVERY == 0)
		check_alive(h);
	else
		poll_later(h, health_timer_cb);
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

	h->call = NULL;
	if (h->b->interrupted) {
		bench_host_step_done(h);
		return;
	}
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
	int r = node_api_call(h->b->api, h->m, h->http_port, "GET",
	    "/v1/self", NULL, 2.0, h->health, self_reply_cb, h, &h->call);

	if (r != 0)
		bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: "
		    "node id check: %s", h->m->name, error_string(r)));
}

static void
health_poll(struct bench_host *h)
{
	int r;

	if (h->health == NULL)	/* the node is started: it is awaited */
	{
		h->health = trace_span_start(h->b->trace, h->span, "health");
		trace_span_str(h->health, "netprof.host", h->m->name);
	}
	r = node_api_call(h->b->api, h->m, h->http_port, "GET", "/v1/health",
	    NULL, 2.0, h->health, health_reply_cb, h, &h->call);

	if (r != 0)
		bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: health "
		    "check: %s", h->m->name, error_string(r)));
}

static void
start_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;
	char *end;
	long pid;

	(void)m;
	h->job = NULL;
	/*
	 * The PID (and its start time) are printed whether or not the pid
	 * file could be written: a node whose pid file failed is still known,
	 * and stopped. Taken from a job that was cancelled or timed out too:
	 * a node started is stopped by the teardown, whatever came after.
	 */
	if (bench_pid_parse(res->out, &pid, &end) && *end == '\n') {
		h->pid = pid;
		h->pid_start = strtoll(end + 1, &end, 10);
		if (h->pid_start < 0 || (*end != '\n' && *end != '\0'))
			h->pid_start = 0;
		log_debug(m->name, "node started, pid %ld (start time %lld)",
		    pid, h->pid_start);
		h->b->hooks.node_started(h);
	}
	if (check_job(h, res, "otela start"))
		return;
	if (h->pid == 0) {
		bench_host_step_fail(h, ERROR_CLASS_PARSE, str_printf("%s: starting the "
		    "node printed no PID: '%.80s'", m->name, res->out));
		return;
	}
	h->attempts = 0;
	health_poll(h);
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
	 * started there.
	 */
	if (qdir != NULL && env != NULL && guard != NULL && (cmd = str_printf(
	    "%sset -C; : >%s/log || exit 1; %s nohup %s start --config "
	    "%s/cfg.yaml --config-dir %s >>%s/log 2>&1 </dev/null & P=$!; "
	    "echo $P >%s/pid; w=$?; echo $P; sed 's/.*) //' /proc/$P/stat "
	    "2>/dev/null | cut -d' ' -f20; exit $w", guard, qdir, env,
	    h->otela, qdir, qdir, qdir, qdir)) != NULL)
		r = bench_host_submit(h, cmd, NULL, STEP_TIMEOUT,
		    start_done_cb);
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

static void
node_pid_read(struct bench_host *h)
{
	char *end;
	long pid;

	if (!bench_pid_parse(h->node_out, &pid, &end) || *end != '\n')
		return;
	h->pid = pid;
	h->pid_start = strtoll(end + 1, &end, 10);
	if (h->pid_start < 0 || *end != '\n')
		h->pid_start = 0;
	log_debug(h->m->name, "node started in its own job step, pid %ld "
	    "(start time %lld)", pid, h->pid_start);
	h->b->hooks.node_started(h);
}

static void
node_output_cb(const struct machine *m, int stream, const char *buf,
    size_t len, void *arg)
{
	struct bench_host *h = arg;
	size_t room = sizeof h->node_out - 1 - h->node_out_len, lines = 0, i;

	(void)m;
	if (stream != 1 || h->pid != 0 || room == 0)
		return;
	if (len > room)
		len = room;
	memcpy(h->node_out + h->node_out_len, buf, len);
	h->node_out_len += len;
	h->node_out[h->node_out_len] = '\0';
	for (i = 0; i < h->node_out_len; i++)
		lines += h->node_out[i] == '\n';
	if (lines < 2 && h->node_out_len < sizeof h->node_out - 1)
		return;
	node_pid_read(h);
	if (!h->node_wait)
		return;
	h->node_wait = 0;
	if (h->pid == 0) {
		bench_host_step_fail(h, ERROR_CLASS_PARSE, str_printf("%s: "
		    "starting the node printed no PID: '%.40s'", h->m->name,
		    h->node_out));
		return;
	}
	h->attempts = 0;
	health_poll(h);
}

static void
node_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;

	h->node_job = NULL;
	log_debug(m->name, "the node's job step ended: %s, exit %d",
	    error_string(res->error), res->exit_status);
	if (h->node_wait) {
		/* it ended before it printed the node's PID */
		h->node_wait = 0;
		if (check_job(h, res, "otela start"))
			return;
		bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf(
		    "%s: the node's job step ended before the node started "
		    "(printed '%.40s')", m->name, h->node_out));
		return;
	}
	if (h->node_end_wait) {
		h->node_end_wait = 0;
		uv_timer_stop(&h->timer);
		h->timer_active = 0;
		bench_host_step_done(h);
		return;
	}
	if (h->b->phase != BENCH_TEARDOWN && !h->b->closing &&
	    !h->b->interrupted)
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
	 * the pid file first, as in the background */
	if (qdir != NULL && env != NULL && guard != NULL && (cmd = str_printf(
	    "%sset -C; : >%s/log || exit 1; echo $$ >%s/pid; echo $$; "
	    "sed 's/.*) //' /proc/$$/stat 2>/dev/null | cut -d' ' -f20; "
	    "%s exec %s start --config %s/cfg.yaml --config-dir %s >>%s/log "
	    "2>&1 </dev/null", guard, qdir, qdir, env, h->otela, qdir, qdir,
	    qdir)) != NULL) {
		req.command = cmd;
		h->node_out_len = 0;
		h->node_out[0] = '\0';
		log_debug(h->m->name, "start: %s", cmd);
		if ((r = engine_submit(h->b->engine, h->m, &req,
		    &h->node_job)) == 0)
			h->node_wait = 1;
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

/* ---- converge ------------------------------------------------------ */

static void converge_poll(struct bench_host *h);

static void
converge_timer_cb(uv_timer_t *t)
{
	struct bench_host *h = t->data;

	h->timer_active = 0;
	if (h->b->interrupted)
		bench_host_step_done(h);
	else
		converge_poll(h);
}

/*
 * Which live peers the table does not list; fills h->missing by name.
 * 0 when it lists them all, 1 when some are missing, -1 when the table
 * is unreadable (or no memory).
 */
static int
find_missing(struct bench_host *h, const struct node_reply *r)
{
	struct bench *b = h->b;
	const char **want = NULL;
	unsigned char *found = NULL;
	char *cause = NULL;
	size_t i, k, missing;
	int rc = -1;

	for (k = 0; k < h->n_missing; k++)
		free(h->missing[k]);
	h->n_missing = 0;
	if ((want = calloc(b->n + 1, sizeof *want)) == NULL ||
	    (found = calloc(b->n + 1, 1)) == NULL)
		goto out;
	for (i = 0; i < b->n; i++) {
		const struct bench_host *o = &b->hosts[i];

		want[i] = o == h || o->failed ? NULL : o->peer_id;
	}
	if (node_table_find(r->body, r->body_len, want, b->n, found,
	    &missing, &cause) != 0)
		goto out;
	for (i = 0; i < b->n; i++)
		if (want[i] != NULL && !found[i] && h->missing != NULL)
			h->missing[h->n_missing++] = strdup(b->hosts[i].m->name);
	rc = h->n_missing > 0;
out:
	free(cause);
	free(want);
	free(found);
	return rc;
}

static void
table_reply_cb(const struct machine *m, const struct node_reply *r,
    void *arg)
{
	struct bench_host *h = arg;
	double waited = bench_now() - h->step_t0;
	(void)m;
	h->call = NULL;
	if (h->b->interrupted) {
		bench_host_step_done(h);
		return;
	}
	if (r->error == NP_OK && r->status == 200 && find_missing(h, r) == 0) {
		h->converged = 1;
		h->converge_s = waited;
	}
	if (h->converged) {
		bench_host_step_done(h);
		return;
	}
	if (waited >= h->b->o->converge_wait) {
		/* not a host failure: its pairs are still measured */
		h->converge_s = waited;
		h->status[BENCH_CONVERGE] = BENCH_ST_FAILED;
		log_warn("%s: the mesh did not converge within %g s", m->name,
		    h->b->o->converge_wait);
		bench_host_step_done(h);
		return;
	}
	h->attempts++;
	poll_later(h, converge_timer_cb);
}

static void
converge_poll(struct bench_host *h)
{
	int r = node_api_call(h->b->api, h->m, h->http_port, "GET",
	    "/v1/dnt/table", NULL, 5.0, h->span, table_reply_cb, h, &h->call);

	if (r != 0)
		bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: dnt "
		    "table: %s", h->m->name, error_string(r)));
}

int
bench_host_converge(struct bench_host *h)
{
	if (h->missing == NULL &&
	    (h->missing = calloc(h->b->n + 1, sizeof *h->missing)) == NULL)
		return NP_ERR_NOMEM;
	h->attempts = 0;
	converge_poll(h);
	return 0;
}

/* A step stopped while it waited (health, convergence): it ends now. */
static void
cancelled_timer_cb(uv_timer_t *t)
{
	struct bench_host *h = t->data;

	h->timer_active = 0;
	bench_host_step_done(h);
}

void
bench_host_cancel(struct bench_host *h)
{
	if (h->job != NULL)
		engine_cancel(h->job);
	if (h->call != NULL)
		node_call_cancel(h->call);
	if (h->node_wait) {
		/* the node's step is left to the teardown; the step ends */
		h->node_wait = 0;
		uv_timer_start(&h->timer, health_timer_cb, 0, 0);
		h->timer_active = 1;
	} else if (h->timer_active) {
		uv_timer_stop(&h->timer);
		h->timer_active = 0;
		/* the step ended waiting: end it on a later turn */
		uv_timer_start(&h->timer, cancelled_timer_cb, 0, 0);
		h->timer_active = 1;
	}
}

void
bench_hosts_open(struct bench *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		uv_timer_init(b->loop, &b->hosts[i].timer);
		b->hosts[i].timer.data = &b->hosts[i];
	}
}

void
bench_hosts_close(struct bench *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		uv_close((uv_handle_t *)&b->hosts[i].timer, NULL);
}

int
bench_peer_id_from_output(const char *out, char **id)
{
	const char *line = NULL, *p = out;
	size_t n = 0, len;

	*id = NULL;
	/* the last non-empty line, without surrounding blanks */
	while (*p != '\0') {
		const char *s = p + strspn(p, " \t\r");

		len = strcspn(s, "\n");
		while (len > 0 && strchr(" \t\r", s[len - 1]) != NULL)
			len--;
		if (len > 0) {
			line = s;
			n = len;
		}
		p = s + strcspn(s, "\n");
		if (*p == '\n')
			p++;
	}
	if (line == NULL)
		return NP_ERR_PARSE;
	if ((*id = strndup(line, n > 120 ? 120 : n)) == NULL)
		return NP_ERR_NOMEM;
	return node_json_peer_id_valid(*id) ? 0 : NP_ERR_PARSE;
}
