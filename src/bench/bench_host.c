/*
 * The host phases of a bench run (bench_phases[]'s HOST entries): a
 * launcher that starts a phase's step on every host it visits at once
 * through the engine, or host by host with --serial (the upstream order,
 * for comparison), and tells the run when the last step has ended
 * (b->hooks.phase_ended); what the steps share (a remote command, its
 * failure said once, the step's one wait); then the steps of init,
 * discover, configure, push and converge (deploy's is bench_deploy.c's,
 * start's and the health wait's bench_start.c's, teardown's
 * bench_teardown.c's). A step that fails marks its host failed with the
 * reason; the phase goes on with the others. Waiting (health,
 * convergence) is a per-host uv_timer with backoff, so a host that is
 * slow to come up holds nobody else back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_cfg.h"
#include "bench_dir.h"
#include "engine.h"
#include "error.h"
#include "log.h"
#include "node_api.h"
#include "node_json.h"
#include "shell.h"
#include "timeutil.h"
#include "util.h"

/* Health and table polls: first retry, and the longest wait between
   (short: a node is noticed about as soon as it answers). */
#define POLL_FIRST_MS 50
#define POLL_MAX_MS 200

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
	    !(p == BENCH_START && b->starting != NULL) &&
	    !(b->interrupted && !cleanup)) {
		h = &b->hosts[b->next_host++];
		if (!bench_phase_visits(p, h)) {
			if (!cleanup)	/* it failed before */
				h->status[p] = BENCH_ST_SKIPPED;
			continue;
		}
		b->outstanding++;
		h->step_t0 = bench_now();
		if (h->step_at[p] == 0)	/* the stop may have begun earlier */
			h->step_at[p] = time_wall();
		h->span = trace_span_start(b->trace, b->phase_span,
		    bench_phase_name(p));
		trace_span_str(h->span, "netprof.host", h->m->name);
		if ((r = ph->host_start(h)) < 0)
			bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: "
			    "%s: %s", h->m->name, bench_phase_name(p),
			    error_string(r)));
		else if (r > 0 || (ph->flags & BENCH_PHASE_LOCAL))
			bench_host_step_done(h);
	}
	b->launching = 0;
	if (b->outstanding == 0 && (b->next_host >= b->n || b->interrupted))
		b->hooks.phase_ended(b, p);
}

void
bench_hosts_launch(struct bench *b)
{
	launch_more(b);
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

void
bench_host_get(struct bench_host *h, const char *path, double timeout,
    const struct trace_span *span, node_reply_cb cb, const char *what)
{
	int r = node_api_call(h->b->api, h->m, h->http_port, "GET", path,
	    NULL, timeout, span, cb, h, &h->call);

	if (r != 0)
		bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: "
		    "%s: %s", h->m->name, what, error_string(r)));
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

/* ---- the step's one wait ----------------------------------------- */

static void
wait_cb(uv_timer_t *t)
{
	struct bench_host *h = t->data;
	void (*fn)(struct bench_host *) = h->wait_fn;

	h->timer_active = 0;
	h->wait_fn = NULL;
	if (h->b->interrupted || fn == NULL)
		bench_host_step_done(h);
	else
		fn(h);
}

static void
wait_ms(struct bench_host *h, uint64_t ms, void (*fn)(struct bench_host *))
{
	h->wait_fn = fn;
	h->timer_active = 1;
	uv_timer_start(&h->timer, wait_cb, ms, 0);
}

void
bench_host_poll(struct bench_host *h, void (*fn)(struct bench_host *h))
{
	uint64_t ms = POLL_FIRST_MS;
	int i;

	for (i = 0; i < h->attempts && ms < POLL_MAX_MS; i++)
		ms *= 2;
	wait_ms(h, ms < POLL_MAX_MS ? ms : POLL_MAX_MS, fn);
}

int
bench_host_check_job(struct bench_host *h, const struct engine_result *res,
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

/* The line between init's output and peer-id's in init's command. */
#define PEER_ID_NEXT "netprof: peer-id"

/*
 * init first creates the directory; every other step checks it. init's
 * command reads the PeerID too, after it (one exec where there were two,
 * and one wait for the slowest host), except with --serial (upstream's
 * order, every step on its own).
 */
static int
run_otela(struct bench_host *h, const char *verb, engine_done_cb cb)
{
	int init = strcmp(verb, "init") == 0;
	char *qdir = shell_quote(h->dir), *env = bench_otela_env(h->dir);
	char *dir = init ? bench_dir_create(h->dir) : bench_dir_guard(h->dir);
	char *then = NULL, *cmd = NULL;
	int r = NP_ERR_NOMEM;

	if (qdir == NULL || env == NULL || dir == NULL)
		goto out;
	if (init && !h->b->o->serial)
		then = str_printf(" && echo && echo '" PEER_ID_NEXT "' && "
		    "HOME=%s %s peer-id --config-dir %s", qdir, h->otela, qdir);
	else
		then = strdup("");
	if (then != NULL && (cmd = str_printf("%s%s %s %s --config-dir %s%s",
	    dir, env, h->otela, verb, qdir, then)) != NULL)
		r = bench_host_submit(h, cmd, NULL, BENCH_STEP_TIMEOUT, cb);
out:
	free(env);
	free(dir);
	free(qdir);
	free(then);
	free(cmd);
	return r;
}

/*
 * The PeerID that init's command printed after init succeeded: discover
 * then has nothing to run. Else (peer-id failed, or printed no PeerID)
 * discover runs it on its own and says why.
 */
static void
take_peer_id(struct bench_host *h, const struct engine_result *res,
    const char *next)
{
	char *id = NULL;

	if (res->error == NP_OK && res->exit_status == 0 &&
	    bench_peer_id_from_output(next + strlen("\n" PEER_ID_NEXT "\n"),
	    &id) == 0)
		h->peer_id = id;
	else
		free(id);
}

static void
init_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;
	const char *next;

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
	/* init has run to its end: what follows is peer-id's */
	if ((next = strstr(res->out, "\n" PEER_ID_NEXT "\n")) != NULL) {
		take_peer_id(h, res, next);
		bench_host_step_done(h);
	} else if (!bench_host_check_job(h, res, "otela init"))
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
	if (bench_host_check_job(h, res, "otela peer-id"))
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
	if (h->peer_id != NULL)		/* init's command read it */
		return 1;
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
	if (!bench_host_check_job(h, res, "writing cfg.yaml"))
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
		r = bench_host_submit(h, cmd, h->cfg, BENCH_STEP_TIMEOUT,
		    push_done_cb);
	free(guard);
	free(qdir);
	free(cmd);
	return r;
}

/* ---- converge ------------------------------------------------------ */

static void converge_poll(struct bench_host *h);

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

int
bench_host_reply_taken(struct bench_host *h)
{
	h->call = NULL;
	if (!h->b->interrupted)
		return 0;
	bench_host_step_done(h);
	return 1;
}

static void
table_reply_cb(const struct machine *m, const struct node_reply *r,
    void *arg)
{
	struct bench_host *h = arg;
	double waited = bench_now() - h->step_t0;
	(void)m;
	if (bench_host_reply_taken(h))
		return;
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
	bench_host_poll(h, converge_poll);
}

static void
converge_poll(struct bench_host *h)
{
	bench_host_get(h, "/v1/dnt/table", 5.0, h->span, table_reply_cb,
	    "dnt table");
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

void
bench_host_cancel(struct bench_host *h)
{
	if (h->job != NULL)
		engine_cancel(h->job);
	if (h->call != NULL)
		node_call_cancel(h->call);
	/* waiting (for the node step's PID, a poll): it ends on a later
	   turn; the node's step is left to the teardown */
	if (h->node_wait || h->timer_active) {
		h->node_wait = 0;
		uv_timer_stop(&h->timer);
		wait_ms(h, 0, NULL);
	}
}

void
bench_hosts_open(struct bench *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		uv_timer_init(b->loop, &b->hosts[i].timer);
		b->hosts[i].timer.data = &b->hosts[i];
		uv_timer_init(b->loop, &b->hosts[i].stop_timer);
		b->hosts[i].stop_timer.data = &b->hosts[i];
	}
}

void
bench_hosts_close(struct bench *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		uv_close((uv_handle_t *)&b->hosts[i].timer, NULL);
		uv_close((uv_handle_t *)&b->hosts[i].stop_timer, NULL);
	}
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
