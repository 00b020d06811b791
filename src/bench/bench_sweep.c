/*
 * The pair phases of a bench run (bench_phases[]'s PAIR entries): punch
 * (a holepunch request for every ordered pair), the sweep (POST
 * /v1/probe/run to the source's node for every pair and node kind of the
 * kinds' table) and, with --baseline, the PROBE_BASELINE shell kind (ICMP
 * ping) over the same pairs, all on the pair dispatcher (dispatch.h), as
 * collect's sweep. Tasks run in stages by their kind's shape: the light
 * kinds (libp2p_ping, latency) overlap, at most max_probes per node at
 * once as source or target (holepunch requests and ICMP pings, being no
 * load, as many as a session has channels, as collect's pings); then the
 * exclusive ones (throughput) in the rounds of bench_throughput.c (a pair
 * run both ways at once: one task holds both hosts' room until both ways
 * have ended, the other taken with it). --serial runs one
 * task at a time in the upstream order (kind, source, target). Each
 * record is written the moment its probe ends; when the phase's last task
 * has ended, the run is told (b->hooks.phase_ended).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_counters.h"
#include "bench_path.h"
#include "bench_record.h"
#include "command_line.h"
#include "engine.h"
#include "error.h"
#include "log.h"
#include "node_api.h"
#include "node_json.h"
#include "dispatch.h"
#include "probe.h"
#include "probe_kind.h"
#include "probe_node.h"
#include "schedule.h"
#include "timeutil.h"
#include "util.h"

/* Seconds added to a node's own timeout before netprof gives up. */
#define CALL_SLACK 10.0
/*
 * The holepunch request netprof sends (the node's defaults, said out
 * loud so the call's limit follows from them). The handler checks its
 * deadline only before an attempt, and an attempt is a DCUtR round (its
 * direct dial alone may take 10 s) then wait_ms: an answer can come one
 * attempt after the deadline, and never after attempts whole attempts.
 */
#define PUNCH_ATTEMPTS 5
#define PUNCH_WAIT_MS 2000
#define PUNCH_TIMEOUT_MS 30000
#define PUNCH_DCUTR_S 20.0
/*
 * A pair's first request is a look: one attempt, 1 ms after it (the node
 * takes 0 for its default). It answers at once for a pair connected
 * before any attempt and for a node that cannot punch (BENCH_PUNCH_
 * DISABLED: the node's loop would otherwise sleep out all its attempts,
 * 10 s a pair); a node that tried and did not connect is asked for the
 * rest of PUNCH_ATTEMPTS at once, with the waits between them. A node that
 * answered BENCH_PUNCH_DISABLED is asked no more than the look for its
 * other pairs, which still says their connectedness.
 */
#define PUNCH_LOOK_ATTEMPTS 1
#define PUNCH_LOOK_WAIT_MS 1
/*
 * Channels of a host's session a phase beside the start leaves to the
 * host's own step (its command, and its node call).
 */
#define BESIDE_RESERVE 2

enum task_state { T_WAITING = 0, T_RUNNING, T_DONE };

/*
 * The stage of a task: a sweep's light kinds (STAGE_LIGHT), those of the
 * pairs the punch left apart (STAGE_LATE: punch_left_apart()), then the
 * exclusive kinds (STAGE_EXCLUSIVE); a punch's or baseline's, the one.
 */
enum { STAGE_LIGHT, STAGE_LATE, STAGE_EXCLUSIVE, SWEEP_STAGES };

static size_t
task_stage(const struct bench_task *t)
{
	if (t->phase != BENCH_SWEEP)
		return STAGE_LIGHT;
	return t->kind->shape == PROBE_EXCLUSIVE ? STAGE_EXCLUSIVE :
	    t->late ? STAGE_LATE : STAGE_LIGHT;
}

static const struct bench_host *
src_of(const struct bench_task *t)
{
	return &t->b->hosts[t->src];
}

/* The target host; a relay's legs have none (bench_target_*()). */
static const struct bench_host *
dst_of(const struct bench_task *t)
{
	return t->dst < t->b->n ? &t->b->hosts[t->dst] : NULL;
}

static void
task_fail(struct bench_task *t, enum error_class cls, char *error)
{
	t->rec.ok = 0;
	if (t->rec.error != NULL) {
		free(error);
		return;
	}
	t->cls = cls;
	t->rec.error_class = error_class_name(cls);
	t->rec.error = error != NULL ? error : strdup("out of memory");
}

/* ---- records ------------------------------------------------------- */

/* A node kind's count, and its bytes (-1: it moves none, null). */
static int
kind_count(const struct bench *b, const struct probe_kind *k)
{
	return (k->flags & PROBE_TRANSFER) ? b->o->throughput_count :
	    b->o->latency_count;
}

static long
kind_bytes(const struct bench *b, const struct probe_kind *k)
{
	return (k->flags & PROBE_TRANSFER) ? b->o->throughput_bytes : -1;
}

/*
 * A sweep or baseline task's record, its outcome filled already, written
 * in its kind's form (record.c): a node kind's with the run, the peers and
 * the config (its command the `otela probe` line), the baseline's as
 * collect's. Either way the command is the line that runs it on the
 * source, from here (upstream's form).
 */
static void
write_record(struct bench *b, struct bench_task *t)
{
	const struct bench_host *s = src_of(t);
	int node = t->kind->via == PROBE_VIA_NODE;
	long bytes = node ? kind_bytes(b, t->kind) : -1;
	const char *tid = bench_target_peer_id(b, t->dst);
	char *command = node ? probe_node_command(s->otela, tid, t->kind,
	    kind_count(b, t->kind), bytes >= 0 ? bytes : 0, s->dir,
	    b->o->probe_timeout) : NULL;
	struct record *rec = &t->rec;
	char *line = NULL, *evidence = NULL;

	rec->kind = t->kind->name;
	rec->source = s->m->name;
	rec->target = bench_target_name(b, t->dst);
	rec->started_at = t->started_at;
	rec->ended_at = t->ended_at;
	rec->round = t->round;
	rec->command = node ? command : t->command;
	rec->target_address = bench_target_address(b, t->dst);
	rec->run_id = node ? b->run_id : NULL;	/* bench's form */
	rec->source_peer_id = s->peer_id;
	rec->target_peer_id = tid;
	rec->count = node ? kind_count(b, t->kind) : 0;
	rec->bytes = bytes;
	if (node)	/* what the probe ran over (bench_path.c) */
		bench_path_record(b, t, rec, &evidence);
	if (rec->command != NULL && command_line_reproduce(b->inv, s->m,
	    rec->command, &line) == 0)
		rec->command = line;
	if (record_writer_write(b->writer, rec) != 0)
		b->write_failed = 1;
	record_finish_free(rec);	/* written: the run keeps none */
	rec->command = rec->path_evidence = NULL;
	free(command);
	free(line);
	free(evidence);
	if (node && t->cls == ERROR_CLASS_UNSUPPORTED)
		b->unsupported++;
	else if (node)
		rec->ok ? b->ok++ : b->failed++;
	else
		rec->ok ? b->baseline_ok++ : b->baseline_failed++;
}

/* ---- the task's span ----------------------------------------------- */

static const char *
task_name(const struct bench_task *t)
{
	return t->kind != NULL ? t->kind->name : "holepunch";
}

/* A pair task as a span of its phase's: the probe the node is asked for
   (its traceparent goes with the call), the punch, the ICMP ping. */
static void
task_span_start(struct bench *b, struct bench_task *t)
{
	char name[48];

	if (b->trace == NULL)
		return;
	snprintf(name, sizeof name, "probe %s", task_name(t));
	t->span = trace_span_start(b->trace, t->phase == b->beside ?
	    b->beside_span : b->phase_span, name);
	trace_span_kind(t->span, t->phase == BENCH_BASELINE ?
	    TRACE_KIND_INTERNAL : TRACE_KIND_CLIENT);
	trace_span_str(t->span, "netprof.kind", task_name(t));
	trace_span_str(t->span, "netprof.source", src_of(t)->m->name);
	trace_span_str(t->span, "netprof.target", bench_target_name(b, t->dst));
	trace_span_int(t->span, "netprof.round", t->round);
}

static void
task_span_end(struct bench_task *t, const char *dropped)
{
	if (t->span == NULL)
		return;
	trace_span_bool(t->span, "netprof.ok", t->rec.ok);
	trace_span_metrics(t->span, t->rec.metrics_text);
	if (t->connectedness != NULL)
		trace_span_str(t->span, "netprof.connectedness",
		    t->connectedness);
	if (dropped != NULL || !t->rec.ok) {
		if (t->rec.error_class != NULL)
			trace_span_str(t->span, "netprof.error_class",
			    t->rec.error_class);
		trace_span_error(t->span, dropped != NULL ? dropped :
		    t->rec.error != NULL ? t->rec.error : "failed");
	}
	trace_span_end(&t->span);
}

/* ---- finishing a task ---------------------------------------------- */

/* t's end to the dispatcher: a pair run both ways holds its room until
   both ways have ended */
static void
pair_end(struct bench_task *t)
{
	struct dispatch *d = t->b->pairs.d;

	if (t->with != NULL && t->with->state != T_DONE)
		return;
	dispatch_task_end(d, t->dt);
	if (t->with != NULL)
		dispatch_task_end(d, t->with->dt);
}

static void
task_finish(struct bench_task *t)
{
	struct bench *b = t->b;

	t->state = T_DONE;
	if (t->ended_at == 0)
		t->ended_at = time_wall();
	if (t->started_at == 0)
		t->started_at = t->ended_at;
	task_span_end(t, NULL);
	pair_end(t);
	if (t->phase == BENCH_SWEEP || t->phase == BENCH_BASELINE)
		write_record(b, t);
	if (t->phase == BENCH_SWEEP && t->rec.ok)
		b->hosts[t->src].ok++;
	else if (t->phase == BENCH_SWEEP)
		b->hosts[t->src].fail++;
	bench_report_task(b, t);
}

/* A task cancelled by an interrupt: not recorded, as in collect. */
static void
task_drop(struct bench_task *t)
{
	t->state = T_DONE;
	task_span_end(t, "cancelled: interrupted (not recorded)");
	pair_end(t);
}

/* ---- node replies -------------------------------------------------- */

static int
reply_failed(struct bench_task *t, const struct node_reply *r,
    const char *what)
{
	const char *m = src_of(t)->m->name;
	size_t n;

	if (r->error != NP_OK) {
		task_fail(t, error_class_of_code(r->error), str_printf(
		    "%s: %s: %s", m, what, r->error_text != NULL ?
		    r->error_text : error_string(r->error)));
		return 1;
	}
	if (r->status != 200) {
		char *why = node_error_text(r->body, r->body_len);

		n = strcspn(r->body, "\n");
		/* a kind the node does not know (connect on the real node):
		   unsupported, not a failure of the pair */
		task_fail(t, why != NULL && error_class_of_text(why) ==
		    ERROR_CLASS_UNSUPPORTED ? ERROR_CLASS_UNSUPPORTED :
		    ERROR_CLASS_TOOL_FAILED, why != NULL ?
		    str_printf("%s: %s: HTTP %ld: %s", m, what, r->status,
		    why) : str_printf("%s: %s: HTTP %ld%s%.*s", m, what,
		    r->status, n > 0 ? ": " : "", (int)(n < 300 ? n : 300),
		    r->body));
		free(why);
		return 1;
	}
	return 0;
}

/* The outcome of a probe, as its kind's parser made it in t->rec. */
static void
take_result(struct bench_task *t)
{
	struct record *rec = &t->rec;

	if (!rec->ok) {
		t->cls = error_class_of_name(rec->error_class);
		if (rec->error == NULL)
			task_fail(t, t->cls, NULL);
	} else {
		free((char *)rec->error);
		rec->error = NULL;
		t->value = probe_kind_value(t->kind, rec);
	}
}

/* A probe's answer: the node's metrics and verdict. */
static void
take_probe(struct bench_task *t, const struct node_reply *r)
{
	struct probe_output o = { .out = r->body, .len = r->body_len,
	    .err = "", .kind = t->kind, .host = src_of(t)->m->name, .who = "" };

	if (t->kind->parse(&o, &t->rec) != 0) {
		record_outcome_clear(&t->rec);
		task_fail(t, ERROR_CLASS_TOOL_FAILED, NULL);
	} else
		take_result(t);
}

/* A holepunch answer: connectedness and attempts, for run.json; 1: the
   look tried and did not connect, the rest of the attempts to ask for. */
static int
take_punch(struct bench_task *t, const struct node_reply *r)
{
	struct node_holepunch hp;
	char *cause = NULL;

	if (node_parse_holepunch(r->body, r->body_len, &hp, &cause) != 0) {
		task_fail(t, ERROR_CLASS_PARSE, str_printf("%s: holepunch: "
		    "%s", src_of(t)->m->name, cause != NULL ? cause :
		    "unreadable answer"));
		free(cause);
		return 0;
	}
	t->attempts += hp.attempts;
	free(t->connectedness);
	t->connectedness = hp.connectedness;
	hp.connectedness = NULL;
	if (hp.last_error != NULL &&
	    strstr(hp.last_error, BENCH_PUNCH_DISABLED) != NULL)
		t->b->hosts[t->src].punch_unable = 1;	/* later pairs: short */
	else if (!t->looked && !hp.ok && hp.attempts > 0 &&
	    t->attempts < PUNCH_ATTEMPTS && !t->b->interrupted) {
		t->looked = 1;	/* it can punch: the rest of its attempts */
		node_holepunch_free(&hp);
		return 1;
	}
	if (hp.last_error != NULL)
		task_fail(t, ERROR_CLASS_TOOL_FAILED, strdup(hp.last_error));
	t->rec.ok = hp.ok;
	node_holepunch_free(&hp);
	return 0;
}

static void
task_reply_cb(const struct machine *m, const struct node_reply *r,
    void *arg)
{
	struct bench_task *t = arg;

	(void)m;
	t->call = NULL;
	t->ended_at = time_wall();
	if (r->error == NP_ERR_CANCELLED && t->b->interrupted)
		task_drop(t);
	else {
		if (!reply_failed(t, r, t->phase == BENCH_PUNCH ? "holepunch" :
		    "probe")) {
			if (t->phase != BENCH_PUNCH)
				take_probe(t, r);
			else if (take_punch(t, r) == 1) {
				int rc = bench_sweep_punch(t->b, t);

				if (rc == 0)
					return;	/* the task runs on */
				task_fail(t, error_class_of_code(rc),
				    str_printf("%s: holepunch: %s",
				    src_of(t)->m->name, error_string(rc)));
			}
		}
		task_finish(t);
	}
	dispatch_run(t->b->pairs.d);
}

/* --baseline's shell kind has ended: its parser reads what it printed. */
static void
baseline_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_task *t = arg;
	struct probe_output o = { .out = res->out, .len = strlen(res->out),
	    .err = res->err, .exit_status = res->exit_status, .kind = t->kind,
	    .host = m->name, .who = "" };

	t->job = NULL;
	t->started_at = res->started_at > 0 ? res->started_at : res->queued_at;
	t->ended_at = res->ended_at;
	if (res->error == NP_ERR_CANCELLED && t->b->interrupted) {
		task_drop(t);
		dispatch_run(t->b->pairs.d);
		return;
	}
	if (res->error != NP_OK)
		task_fail(t, error_class_of_code(res->error), str_printf(
		    "%s", res->error_text != NULL ? res->error_text :
		    error_string(res->error)));
	else if (t->kind->parse(&o, &t->rec) != 0) {
		record_outcome_clear(&t->rec);
		task_fail(t, ERROR_CLASS_TOOL_FAILED, NULL);
	} else
		take_result(t);
	task_finish(t);
	dispatch_run(t->b->pairs.d);
}

/* ---- starting tasks ------------------------------------------------ */

long long
bench_timeout_ms(double seconds)
{
	long long ms = (long long)(seconds * 1000.0 + 0.5);

	return ms > 0 ? ms : 1;
}

double
bench_punch_limit(int attempts, int wait_ms, int timeout_ms, double dcutr_s)
{
	double per = dcutr_s + wait_ms / 1000.0, all = attempts * per;
	double late = timeout_ms / 1000.0 + per;

	return all < late ? all : late;
}

int
bench_sweep_probe(struct bench *b, struct bench_task *t)
{
	long bytes = kind_bytes(b, t->kind);
	char *body;
	int r;

	if ((body = probe_node_request(t->kind, bench_target_peer_id(b, t->dst),
	    kind_count(b, t->kind), bytes >= 0 ? bytes : 0, bench_timeout_ms(
	    b->o->probe_timeout))) == NULL)
		return NP_ERR_NOMEM;
	r = node_api_call(b->api, src_of(t)->m, src_of(t)->http_port, "POST",
	    "/v1/probe/run", body, b->o->probe_timeout + CALL_SLACK, t->span,
	    task_reply_cb, t, &t->call);
	cJSON_free(body);
	return r;
}

int
bench_sweep_punch(struct bench *b, struct bench_task *t)
{
	char *body;
	int r, look = !t->looked || src_of(t)->punch_unable;
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "target", dst_of(t)->peer_id);
	cJSON_AddNumberToObject(o, "attempts", look ? PUNCH_LOOK_ATTEMPTS :
	    PUNCH_ATTEMPTS - t->attempts);
	cJSON_AddNumberToObject(o, "wait_ms", look ? PUNCH_LOOK_WAIT_MS :
	    PUNCH_WAIT_MS);
	cJSON_AddNumberToObject(o, "timeout_ms", PUNCH_TIMEOUT_MS);
	body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (body == NULL)
		return NP_ERR_NOMEM;
	r = node_api_call(b->api, src_of(t)->m, src_of(t)->http_port, "POST",
	    "/v1/probe/holepunch", body, bench_punch_limit(PUNCH_ATTEMPTS,
	    PUNCH_WAIT_MS, PUNCH_TIMEOUT_MS, PUNCH_DCUTR_S) + CALL_SLACK,
	    t->span, task_reply_cb, t, &t->call);
	cJSON_free(body);
	return r;
}

int
bench_sweep_ping(struct bench *b, struct bench_task *t)
{
	struct probe_settings ps = {
		.ping_count = b->inv->ping_count,
		.ping_interval = b->inv->ping_interval,
	};
	struct engine_request req = {
		.on_done = baseline_done_cb,
		.arg = t,
	};

	if (t->command == NULL && (t->command = t->kind->command(&ps,
	    dst_of(t)->m->address)) == NULL)
		return NP_ERR_NOMEM;
	req.command = t->command;
	req.timeout_s = t->kind->timeout(&ps,
	    b->inv->connect_timeout_seconds);
	return engine_submit(b->engine, src_of(t)->m, &req, &t->job);
}

static struct bench_task *
task_of(struct dispatch_task *dt)
{
	return dt->arg;
}

static void
task_begin(struct bench *b, struct bench_task *t)
{
	int r;

	t->started_at = time_wall();
	task_span_start(b, t);
	t->view = b->view;	/* the node views it starts under */
	if ((r = bench_phases[t->phase].pair_start(b, t)) != 0) {
		task_fail(t, ERROR_CLASS_TOOL_FAILED, str_printf("%s: %s",
		    src_of(t)->m->name, error_string(r)));
		task_finish(t);
	}
}

/* A task has its room: it starts, and the other way of a pair run both
   ways with it (taken: the lead holds the room of both) */
static void
start_cb(struct dispatch *d, struct dispatch_task *dt)
{
	struct bench_task *t = task_of(dt), *w = t->lead ? t->with : NULL;

	t->state = T_RUNNING;
	if (w != NULL) {
		dispatch_take(d, w->dt);
		w->state = T_RUNNING;
	}
	task_begin(t->b, t);
	if (w != NULL)
		task_begin(t->b, w);
}

/*
 * The phase's last task has ended: each host took part, or had failed
 * before; then the run is told.
 */
static void
pairs_end(struct bench *b)
{
	enum bench_phase p = b->pair_phase;
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->hosts[i].status[p] == BENCH_ST_NONE)
			b->hosts[i].status[p] = b->hosts[i].failed ?
			    BENCH_ST_SKIPPED : b->interrupted ?
			    BENCH_ST_INTERRUPTED : BENCH_ST_OK;
	b->hooks.phase_ended(b, p);
}

static void
ended_cb(struct dispatch *d)
{
	struct bench *b = dispatch_arg(d);

	/* the nodes' counters at the sweep's end, before they are stopped */
	if (b->pair_phase != BENCH_SWEEP || !bench_counters_after(b, pairs_end))
		pairs_end(b);
}

static void
views_done(struct bench *b)
{
	dispatch_run(b->pairs.d);
}

/*
 * The sweep's light stages have ended: the nodes' views again, so that an
 * exclusive probe's path is told by the connections the light ones
 * opened (a circuit through a limited relay, say), then the next stage.
 */
static int
stage_ended_cb(struct dispatch *d, size_t stage)
{
	struct bench *b = dispatch_arg(d);
	size_t i;

	if (b->pair_phase != BENCH_SWEEP || stage != STAGE_LATE ||
	    b->view > 0 || b->interrupted)
		return 1;
	for (i = 0; i < b->pairs.n; i++)
		if (task_stage(&b->pairs.tasks[i]) == STAGE_EXCLUSIVE)
			break;
	if (i == b->pairs.n)
		return 1;
	return !bench_path_views(b, views_done);
}

/* ---- building the task list ---------------------------------------- */

static void tasks_free(struct bench_task *tasks, size_t n);

/*
 * Did the punch leave src -> dst not connected? Its light probes then
 * wait for every other pair's to end (STAGE_LATE): the nodes' own dials
 * (and the backoff of one that failed at the start) have that time to
 * join the pair, as the punch's waits gave them when every pair was asked
 * for five attempts (a node that cannot punch now answers at once). The
 * punch's tasks are in add_light()'s shift order: i -> i+k at
 * (k - 1) * n + i.
 */
static int
punch_left_apart(const struct bench *b, size_t src, size_t dst)
{
	size_t n = b->n, k = (dst + n - src) % n, at = (k - 1) * n + src;
	const struct bench_task *t;

	if (b->task_sets[BENCH_PUNCH] == NULL || k == 0 ||
	    at >= b->n_task_sets[BENCH_PUNCH])
		return 0;
	t = &b->task_sets[BENCH_PUNCH][at];
	return t->src == src && t->dst == dst && t->connectedness != NULL &&
	    strcmp(t->connectedness, "NotConnected") == 0;
}

/* Light tasks: shift rounds (i -> i+k), so that load spreads evenly;
   in the sweep, those of every pair but the ones the punch left apart,
   or (late) of those only. */
static void
add_light(struct bench *b, enum bench_phase p,
    const struct probe_kind *const *kinds, size_t n_kinds, int late)
{
	size_t i, k, j;

	if (b->o->serial) {	/* upstream: kind, source, target */
		for (j = 0; j < n_kinds && !late; j++)
			for (i = 0; i < b->n; i++)
				for (k = 0; k < b->n; k++)
					if (i != k)
						bench_pairs_add(b, p, kinds[j], i, k,
						    (int)b->pairs.n + 1);
		return;
	}
	for (k = 1; k < b->n; k++)
		for (i = 0; i < b->n; i++) {
			size_t d = (i + k) % b->n;

			if ((p == BENCH_SWEEP && punch_left_apart(b, i, d)) !=
			    late)
				continue;
			for (j = 0; j < n_kinds; j++) {
				bench_pairs_add(b, p, kinds[j], i, d, (int)k);
				b->pairs.tasks[b->pairs.n - 1].late = late;
			}
		}
}

/*
 * Each host's legs to each relay (a --bootstrap peer) with the light
 * kinds, in a round after the pairs': a relayed pair's round trip is then
 * held against the sum of its two legs, from the same run.
 */
static void
add_legs(struct bench *b, const struct probe_kind *const *kinds,
    size_t n_kinds)
{
	size_t r, i, j;

	for (r = 0; r < b->n_relays; r++)
		for (i = 0; i < b->n; i++)
			for (j = 0; j < n_kinds; j++)
				bench_pairs_add(b, BENCH_SWEEP, kinds[j], i, b->n + r,
				    b->o->serial ? (int)b->pairs.n + 1 :
				    (int)b->n);
}

/* Pairs with a failed host are recorded failed with its reason at once. */
static void
fail_dead_pairs(struct bench *b)
{
	size_t i;

	for (i = 0; i < b->pairs.n; i++) {
		struct bench_task *t = &b->pairs.tasks[i];
		const struct bench_host *dead = src_of(t)->failed ? src_of(t) :
		    dst_of(t) != NULL && dst_of(t)->failed ? dst_of(t) : NULL;

		if (dead == NULL || t->phase == BENCH_BASELINE)
			continue;
		task_fail(t, dead->error_class, str_printf("%s failed at %s: "
		    "%s", dead->m->name, bench_phase_name(dead->failed_phase),
		    dead->error));
		task_span_start(b, t);
		task_finish(t);
	}
}

/* The phase's tasks, in the order they are to run. */
static int
add_tasks(struct bench *b, enum bench_phase p)
{
	const struct probe_kind *light[sizeof b->o->kinds * 8] = { NULL }, *k;
	size_t n_light = 0, n_kinds = 0;
	size_t per = b->n * (b->n - 1) + b->n * b->n_relays;
	struct bench_pairs *ps = &b->pairs;

	tasks_free(b->task_sets[p], b->n_task_sets[p]);
	b->task_sets[p] = NULL;
	b->n_task_sets[p] = 0;
	dispatch_free(ps->d);
	memset(ps, 0, sizeof *ps);
	for (k = probe_kinds; k->name != NULL; k++)
		n_kinds += bench_plan_has(b, k);
	if ((ps->tasks = calloc(per * (n_kinds > 0 ? n_kinds : 1) + 1,
	    sizeof *ps->tasks)) == NULL)
		return NP_ERR_NOMEM;
	b->task_sets[p] = ps->tasks;	/* freed at the end, whatever comes */
	if (p != BENCH_SWEEP) {	/* punch, baseline: a task per pair */
		light[0] = NULL;	/* punch: no kind of probe */
		for (k = probe_kinds; p == BENCH_BASELINE && k->name != NULL;
		    k++)
			if (k->flags & PROBE_BASELINE)
				light[0] = k;
		add_light(b, p, light, 1, 0);
		return 0;
	}
	for (k = probe_kinds; k->name != NULL; k++)
		if (bench_plan_has(b, k) && k->shape == PROBE_OVERLAP)
			light[n_light++] = k;
	/* in the dispatcher's order: each stage's tasks after the last's */
	add_light(b, p, light, n_light, 0);
	add_legs(b, light, n_light);
	add_light(b, p, light, n_light, 1);
	for (k = probe_kinds; k->name != NULL; k++)
		if (bench_plan_has(b, k) && k->shape == PROBE_EXCLUSIVE &&
		    bench_throughput_add(b, k) != 0)
			return NP_ERR_NOMEM;
	return 0;
}

/* The phase's dispatcher: its stages, its tasks in order. */
static int
dispatch_build(struct bench *b, enum bench_phase p)
{
	static const struct dispatch_hooks hooks = { .start = start_cb,
	    .stage_ended = stage_ended_cb, .ended = ended_cb };
	struct dispatch_hooks h = hooks;
	struct bench_pairs *ps = &b->pairs;
	/* ICMP pings and holepunch requests are no load: as collect */
	struct dispatch_stage stages[SWEEP_STAGES] = {
		[STAGE_LIGHT] = { DISPATCH_BOTH_WAYS, p == BENCH_SWEEP ?
		    (size_t)b->o->max_probes : p == b->beside ?
		    ENGINE_DEFAULT_MAX_CHANNELS - BESIDE_RESERVE :
		    ENGINE_DEFAULT_MAX_CHANNELS },
		[STAGE_LATE] = { DISPATCH_BOTH_WAYS, (size_t)b->o->max_probes },
		[STAGE_EXCLUSIVE] = { DISPATCH_EXCLUSIVE, 0 },
	};
	size_t i;
	int r;

	if (bench_throughput_duplex(b))
		stages[STAGE_EXCLUSIVE].share = DISPATCH_DUPLEX;
	h.arg = b;
	if ((r = dispatch_new(b->n + b->n_relays, ps->n, stages,
	    p == BENCH_SWEEP ? SWEEP_STAGES : 1, &h, &ps->d)) != 0)
		return r;
	dispatch_set_serial(ps->d, b->o->serial);
	for (i = 0; i < ps->n; i++) {
		struct bench_task *t = &ps->tasks[i];

		t->dt = dispatch_add(ps->d, t->src, t->dst, task_stage(t),
		    (size_t)t->round - 1, t);
	}
	return 0;
}

void
bench_pairs_start(struct bench *b, enum bench_phase p)
{
	struct bench_pairs *ps = &b->pairs;
	int r;

	b->pair_phase = p;

	if ((r = add_tasks(b, p)) != 0 || (r = dispatch_build(b, p)) != 0) {
		log_error("bench: %s: %s", bench_phase_name(p),
		    error_string(r));
		b->interrupted = 1;	/* stop, but tear down */
		pairs_end(b);
		return;
	}
	if (p == b->phase) {	/* the progress line is the current phase's */
		b->prog_total = ps->n;
		bench_report_phase(b);
	}
	b->n_task_sets[p] = ps->n;
	fail_dead_pairs(b);
	dispatch_run(ps->d);
}

void
bench_pairs_cancel(struct bench *b)
{
	size_t i;

	if (b->pairs.d != NULL)
		dispatch_stop(b->pairs.d);
	for (i = 0; i < b->pairs.n; i++) {
		struct bench_task *t = &b->pairs.tasks[i];

		if (t->state != T_RUNNING)
			continue;
		if (t->call != NULL)
			node_call_cancel(t->call);
		if (t->job != NULL)
			engine_cancel(t->job);
	}
}

static void
tasks_free(struct bench_task *tasks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		record_outcome_clear(&tasks[i].rec);
		free(tasks[i].connectedness);
		free(tasks[i].command);
	}
	free(tasks);
}

void
bench_pairs_free(struct bench *b)
{
	int p;

	for (p = 0; p < BENCH_N_PHASES; p++) {
		tasks_free(b->task_sets[p], b->n_task_sets[p]);
		b->task_sets[p] = NULL;
		b->n_task_sets[p] = 0;
	}
	dispatch_free(b->pairs.d);
	memset(&b->pairs, 0, sizeof b->pairs);
}
