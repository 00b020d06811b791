/*
 * collect's run: ping (and iperf3) for every ordered pair of hosts, run
 * through the engine in the scheduler's rounds. Probes are dispatched
 * greedily in round order: a pair starts as soon as its hosts have room
 * (ping: at most `width` probes sent and answered per host; iperf3: both
 * hosts idle; --serial: nothing else running), so one slow pair never
 * holds back a whole round. The ping phase ends before the iperf3 phase
 * starts, so ping and iperf3 never share a host. Each probe's record is
 * written the moment it completes.
 *
 * Fan-out (the default for ping, collect_fanout.c): a source host's pairs
 * of a round run as one command on one channel. Duplex iperf3: a host may
 * be the client of one test and the server of another at once (one of
 * each), and keeps one iperf3 server for all the tests it serves
 * (collect_iperf.c). The state they share is in collect.h.
 *
 * cmd_collect.c parses the options and calls collect_run();
 * collect_report.c prints the summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "collect.h"
#include "collect_run.h"
#include "command_line.h"
#include "engine.h"
#include "error.h"
#include "fanout.h"
#include "inventory.h"
#include "log.h"
#include "ping_parse.h"
#include "plan.h"
#include "probe.h"
#include "progress.h"
#include "record.h"
#include "runner.h"
#include "schedule.h"
#include "timeutil.h"
#include "util.h"
void
collect_task_fail(struct task *t, enum error_class cls, char *error)
{
	if (t->error != NULL) {		/* the first reason is the real one */
		free(error);
		return;
	}
	t->ok = 0;
	t->error_class = cls;
	t->error = error != NULL ? error : strdup("out of memory");
}

/* A task goes back to waiting: no cursor of its phase may be past it. */
void
collect_task_requeue(struct collector *c, struct task *t)
{
	struct phase *ph = &c->phases[c->cur];
	size_t i = (size_t)(t - ph->tasks);

	t->state = TASK_WAITING;
	if (i < ph->first_waiting)
		ph->first_waiting = i;
	if (t->src_pos < ph->src_cur[t->pair.source])
		ph->src_cur[t->pair.source] = t->src_pos;
	if (t->dst_pos < ph->dst_cur[t->pair.target])
		ph->dst_cur[t->pair.target] = t->dst_pos;
}

/* Host h's k-th task as source (as_target: as target), or NULL. */
struct task *
collect_host_task(struct phase *ph, size_t h, int as_target, size_t k)
{
	const size_t *off = as_target ? ph->dst_off : ph->src_off;
	const size_t *list = as_target ? ph->by_dst : ph->by_src;

	return k < off[h + 1] - off[h] ? &ph->tasks[list[off[h] + k]] : NULL;
}

/* Host h's first waiting task as source (or target), in round order. */
struct task *
collect_host_next_waiting(struct phase *ph, size_t h, int as_target)
{
	size_t *cur = as_target ? &ph->dst_cur[h] : &ph->src_cur[h];
	struct task *t;

	while ((t = collect_host_task(ph, h, as_target, *cur)) != NULL &&
	    t->state != TASK_WAITING)
		(*cur)++;
	return t;
}

/* The first line of text, for error messages. */
char *
collect_first_line(const char *text, size_t max)
{
	size_t n = strcspn(text, "\n");
	char *s;

	while (*text == '\n' && *text != '\0')
		text++;
	n = strcspn(text, "\n");
	if (n > max)
		n = max;
	if ((s = malloc(n + 1)) == NULL)
		return NULL;
	memcpy(s, text, n);
	s[n] = '\0';
	return s;
}

/*
 * Fill the task's failure from an engine result that is not a clean run,
 * or from a nonzero exit. who is "" or "iperf3 server: ". Returns nonzero
 * if the result was a failure.
 */
int
collect_check_result(struct task *t, const struct machine *m,
    const struct engine_result *res, const char *who)
{
	struct host_state *h = &t->c->hosts[m->index];
	enum error_class cls;
	int host_level;

	if (res->error != NP_OK) {
		cls = class_of_engine_error(res->error, &host_level);
		collect_task_fail(t, cls, str_printf("%s%s", who, res->error_text != NULL ?
		    res->error_text : error_string(res->error)));
		if (host_level && h->down == NULL) {
			h->down = strdup(t->error);
			h->down_class = cls;
			log_debug(m->name, "host down: %s", t->error);
		}
		return 1;
	}
	if (res->exit_status == 127 || (res->exit_status != 0 &&
	    (strstr(res->err, ": not found") != NULL ||
	    strstr(res->err, "command not found") != NULL))) {
		collect_task_fail(t, ERROR_CLASS_TOOL_MISSING, str_printf("%s%s: %s is not "
		    "installed or not on PATH there (exit %d)", who, m->name,
		    t->kind == PROBE_PING ? "ping" : strstr(res->err,
		    "timeout: not found") != NULL ? "timeout (GNU coreutils)" :
		    "iperf3", res->exit_status));
		return 1;
	}
	return 0;
}

static void
ping_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct task *t = arg;
	struct ping_result *p = NULL;
	char *cause = NULL, *line = NULL;
	int r;

	t->job = NULL;
	t->started_at = res->started_at > 0 ? res->started_at : res->queued_at;
	t->ended_at = res->ended_at;
	if (res->error == NP_ERR_CANCELLED) {
		collect_task_requeue(t->c, t);	/* not recorded: --resume redoes it */
		t->c->running--;
		t->c->hosts[t->pair.source].sending--;
		t->c->hosts[t->pair.target].answering--;
		collect_dispatch(t->c);
		return;
	}
	if (collect_check_result(t, m, res, ""))
		goto out;
	if ((r = ping_parse(res->out, &p, &cause)) != 0) {
		if (res->exit_status != 0 && (line = collect_first_line(res->err,
		    200)) != NULL && *line != '\0') {
			collect_task_fail(t, ERROR_CLASS_TOOL_FAILED, str_printf("ping "
			    "exited %d: %s", res->exit_status, line));
			free(line);
			free(cause);
		} else {
			free(line);
			collect_task_fail(t, ERROR_CLASS_PARSE, cause);
		}
		goto out;
	}
	t->metrics = ping_result_metrics(p);
	if (p->received == 0) {
		collect_task_fail(t, ERROR_CLASS_TOOL_FAILED, str_printf("100%% packet "
		    "loss: %d sent, none answered", p->transmitted));
		goto out;
	}
	t->ok = 1;
	t->rtt_ms = p->p50_ms;
out:
	ping_result_free(p);
	collect_task_finish(t);
}

int
collect_task_submit(struct task *t, const struct machine *m, const char *command,
    double timeout, engine_output_cb on_output, engine_done_cb on_done,
    struct engine_job **jobp)
{
	struct engine_request req = {
		.command = command,
		.timeout_s = timeout,
		.on_output = on_output,
		.on_done = on_done,
		.arg = t,
	};

	log_debug(m->name, "%s %s->%s: %s", probe_kind_name(t->kind),
	    machine_at(t->c, t->pair.source)->name,
	    machine_at(t->c, t->pair.target)->name, command);
	return engine_submit(t->c->engine, m, &req, jobp);
}

static void
host_release(struct collector *c, const struct task *t)
{
	if (t->kind == PROBE_PING) {
		c->hosts[t->pair.source].sending--;
		c->hosts[t->pair.target].answering--;
	} else if (c->duplex) {
		c->hosts[t->pair.source].clients--;
		c->hosts[t->pair.target].servers--;
	} else {
		c->hosts[t->pair.source].testing--;
		c->hosts[t->pair.target].testing--;
	}
}

/*
 * The lines that reproduce the probe by hand (the server's for iperf3);
 * the remote command alone if the transport cannot say more.
 */
static void
task_command_lines(struct collector *c, const struct task *t, char **line,
    char **server_line)
{
	*server_line = NULL;
	if (command_line_reproduce(c->inv, machine_at(c, t->pair.source),
	    t->command, line) != 0)
		*line = strdup(t->command);
	if (t->server_command != NULL && command_line_reproduce(c->inv,
	    machine_at(c, t->pair.target), t->server_command,
	    server_line) != 0)
		*server_line = strdup(t->server_command);
}

static void
task_write(struct collector *c, struct task *t)
{
	const struct machine *src = machine_at(c, t->pair.source);
	const struct machine *dst = machine_at(c, t->pair.target);
	char *line, *server_line;
	struct record_out rec = {
		.kind = probe_kind_name(t->kind),
		.source = src->name,
		.target = dst->name,
		.target_address = dst->address,
		.ok = t->ok,
		.started_at = t->started_at,
		.ended_at = t->ended_at > 0 ? t->ended_at : t->started_at,
		.round = (int)t->round + 1,
		.sweep = collect_watch_sweep(c),
		.mode = t->mode,
		.error = t->ok ? NULL : t->error,
		.error_class = t->ok ? ERROR_CLASS_NONE : t->error_class,
		.metrics = t->metrics,
	};
	cJSON *o;

	t->metrics = NULL;	/* transferred */
	task_command_lines(c, t, &line, &server_line);
	rec.command = line != NULL ? line : t->command;
	rec.server_command = server_line;
	if ((o = record_to_json(&rec)) == NULL ||
	    record_writer_put(c->writer, o) != 0) {
		if (!c->write_failed && record_writer_error(c->writer) != 0)
			log_error("cannot write records to %s: %s; stopping "
			    "(the lines written are whole records; --resume "
			    "completes the run)", c->output,
			    strerror(record_writer_error(c->writer)));
		else if (!c->write_failed)
			log_error("cannot write the record of %s->%s: %s; "
			    "stopping", src->name, dst->name,
			    error_string(NP_ERR_NOMEM));
		c->write_failed = 1;
	} else
		collect_watch_record(c, o);
	cJSON_Delete(o);
	free(line);
	free(server_line);
}

/* Record a finished task, update the counts, and start what can start. */
void
collect_task_finish(struct task *t)
{
	struct collector *c = t->c;
	struct phase *ph = &c->phases[c->cur];
	struct host_state *h = &c->hosts[t->pair.source];
	int from_loop = t->state == TASK_RUNNING;

	if (c->interrupted && !t->ok && t->error == NULL) {
		/* cut short by Ctrl-C: leave it for --resume */
		collect_task_requeue(c, t);
	} else {
		if (!t->ok && t->error == NULL)
			collect_task_fail(t, ERROR_CLASS_TOOL_FAILED,
			    strdup("no result"));
		task_write(c, t);
		t->state = TASK_DONE;
		if (t->ok) {
			c->ok++;
			h->ok++;
			if (t->kind == PROBE_PING)
				h->rtts[h->n_rtts++] = t->rtt_ms;
		} else {
			c->failed++;
			h->failed++;
			log_debug(machine_at(c, t->pair.source)->name,
			    "%s ->%s failed (%s): %s", probe_kind_name(t->kind),
			    machine_at(c, t->pair.target)->name,
			    error_class_name(t->error_class), t->error);
		}
		progress_probe(c->progress, t->ok);
		ph->n_todo--;
		if (--ph->round_left[t->round] == 0)
			progress_round(c->progress, t->round + 1);
	}
	if (!from_loop)
		return;		/* failed before it ran: collect_dispatch() goes on */
	if (t->fan != NULL) {
		t->fan = NULL;	/* its fan-out ends on its own */
		return;
	}
	host_release(c, t);
	c->running--;
	collect_dispatch(c);
}

/* A host of the pair is known to be down: record it without running. */
static int
fail_if_host_down(struct collector *c, struct task *t)
{
	const struct host_state *h = &c->hosts[t->pair.source];

	if (h->down == NULL && t->kind == PROBE_IPERF3)
		h = &c->hosts[t->pair.target];
	if (h->down == NULL)
		return 0;
	t->started_at = t->ended_at = time_wall();
	collect_task_fail(t, h->down_class, strdup(h->down));
	collect_task_finish(t);
	return 1;
}

/*
 * Duplex: each host takes its client tests, and its server tests, in round
 * order. Started out of order, a test of a later round takes a server the
 * pair of the current round waits for, and such waits cascade round after
 * round; in order, a test waits only for its two neighbours' previous one.
 */
static int
duplex_turn(struct collector *c, struct task *t)
{
	struct phase *ph = &c->phases[c->cur];

	return collect_host_next_waiting(ph, t->pair.source, 0)->round == t->round &&
	    collect_host_next_waiting(ph, t->pair.target, 1)->round == t->round;
}

static int
can_start(struct collector *c, struct task *t)
{
	const struct host_state *a = &c->hosts[t->pair.source];
	const struct host_state *b = &c->hosts[t->pair.target];

	if (c->serial)
		return c->running == 0;
	if (t->kind == PROBE_PING)
		return a->sending < c->width && b->answering < c->width;
	if (c->duplex)
		return a->clients == 0 && b->servers == 0 && duplex_turn(c, t);
	return a->testing == 0 && b->testing == 0;
}

static void
task_start(struct collector *c, struct task *t)
{
	int r;

	t->state = TASK_RUNNING;
	c->running++;
	if (t->kind == PROBE_PING) {
		c->hosts[t->pair.source].sending++;
		c->hosts[t->pair.target].answering++;
		t->started_at = time_wall();
		r = collect_task_submit(t, machine_at(c, t->pair.source), t->command,
		    probe_ping_timeout(&c->ps, c->connect_timeout), NULL,
		    ping_done_cb, &t->job);
		if (r != 0) {
			collect_task_fail(t, ERROR_CLASS_TOOL_FAILED, str_printf("ping on "
			    "%s: %s", machine_at(c, t->pair.source)->name,
			    error_string(r)));
			collect_task_finish(t);
		}
		return;
	}
	if (c->duplex) {
		c->hosts[t->pair.source].clients++;
		c->hosts[t->pair.target].servers++;
	} else {
		c->hosts[t->pair.source].testing++;
		c->hosts[t->pair.target].testing++;
	}
	collect_iperf_start(t);
}


static void
collector_close(struct collector *c)
{
	if (c->closing)
		return;
	c->closing = 1;
	progress_end(c->progress);
	runner_finish(c->runner);
}

static void
phase_begin(struct collector *c)
{
	struct phase *ph = &c->phases[c->cur];
	size_t k;

	progress_phase(c->progress, probe_kind_name(ph->sched->kind),
	    ph->sched->n_rounds, ph->n_todo);
	if (ph->sched->kind == PROBE_PING)
		/* fan-out rounds are real only when a source has several */
		progress_schedule(c->progress, c->ps.ping_count *
		    c->ps.ping_interval, c->serial || (c->fanout > 0 &&
		    ph->sched->n_rounds > 1));
	else
		progress_schedule(c->progress, c->ps.iperf_seconds + 0.5, 1);
	for (k = 0; k < ph->sched->n_rounds; k++) {
		if (ph->round_left[k] == 0 && ph->sched->rounds[k].n_pairs > 0)
			progress_round(c->progress, k + 1);
	}
}

static void dispatch_once(struct collector *c);
static void collector_stop(struct collector *c);

/* Start every waiting task that has room, in round order. */
void
collect_dispatch(struct collector *c)
{

	if (c->closing)
		return;
	if (c->dispatching) {
		c->dispatch_again = 1;	/* a probe failed to start, inside */
		return;
	}
	c->dispatching = 1;
	do {
		c->dispatch_again = 0;
		dispatch_once(c);
	} while (c->dispatch_again && !c->closing);
	c->dispatching = 0;
}

static void
dispatch_once(struct collector *c)
{
	struct phase *ph;
	size_t i;

	if (c->write_failed && !c->interrupted)
		collector_stop(c);
	if (c->interrupted) {
		if (c->running == 0 && c->servers_up == 0)
			collector_close(c);
		return;
	}
	for (;;) {
		ph = &c->phases[c->cur];
		while (ph->first_waiting < ph->n_tasks &&
		    ph->tasks[ph->first_waiting].state != TASK_WAITING)
			ph->first_waiting++;
		for (i = ph->first_waiting; i < ph->n_tasks; i++) {
			struct task *t = &ph->tasks[i];

			if (t->state != TASK_WAITING)
				continue;
			if (fail_if_host_down(c, t)) {
				c->dispatch_again = 1;	/* turns moved */
				continue;
			}
			if (collect_fanout_take(c, ph, t))
				continue;
			if (can_start(c, t))
				task_start(c, t);
			if (c->serial && c->running > 0)
				break;
		}
		if (ph->n_todo > 0 || c->running > 0)
			return;
		if (c->servers_up > 0) {
			collect_servers_stop(c);	/* their done calls come back */
			return;
		}
		if (c->cur + 1 >= c->n_phases)
			break;
		c->cur++;
		phase_begin(c);
	}
	if (collect_watch_sweep_end(c))
		return;		/* the next sweep is due on a timer */
	collector_close(c);
}

/* A signal, or an output that takes no more: kill what runs, start nothing. */
static void
collector_stop(struct collector *c)
{
	struct phase *ph = &c->phases[c->cur];
	size_t i;

	c->interrupted = 1;
	progress_end(c->progress);
	log_warn("the probes running are killed and not recorded (--resume "
	    "redoes them)");
	for (i = 0; i < ph->n_tasks; i++) {
		struct task *t = &ph->tasks[i];

		if (t->state != TASK_RUNNING)
			continue;
		if (t->job != NULL)
			engine_cancel(t->job);
	}
	collect_servers_stop(c);
	for (i = 0; i < c->inv->n_machines; i++) {
		if (c->hosts[i].fanout != NULL &&
		    c->hosts[i].fanout->job != NULL)
			engine_cancel(c->hosts[i].fanout->job);
	}
}

/* The first signal: the probes running are killed, none is started. */
static void
interrupt_cb(struct runner *rn, void *arg)
{
	collector_stop(arg);
	collect_dispatch(arg);
}

/* Before the engine closes: the output's watcher, so the loop can end. */
static void
close_extra_cb(struct runner *rn, void *arg)
{
	struct collector *c = arg;

	record_writer_detach(c->writer);
	collect_watch_close(c);	/* then runner_extra_closed() */
}

/* Each host's tasks as source and as target, in round order. */
static int
phase_index_hosts(struct phase *ph, size_t n_hosts)
{
	size_t h, i, *src_fill, *dst_fill;

	if ((ph->by_src = calloc(ph->n_tasks + 1, sizeof(size_t))) == NULL ||
	    (ph->by_dst = calloc(ph->n_tasks + 1, sizeof(size_t))) == NULL ||
	    (ph->src_off = calloc(n_hosts + 1, sizeof(size_t))) == NULL ||
	    (ph->dst_off = calloc(n_hosts + 1, sizeof(size_t))) == NULL ||
	    (ph->src_cur = calloc(n_hosts + 1, sizeof(size_t))) == NULL ||
	    (ph->dst_cur = calloc(n_hosts + 1, sizeof(size_t))) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < ph->n_tasks; i++) {
		ph->src_off[ph->tasks[i].pair.source + 1]++;
		ph->dst_off[ph->tasks[i].pair.target + 1]++;
	}
	for (h = 0; h < n_hosts; h++) {
		ph->src_off[h + 1] += ph->src_off[h];
		ph->dst_off[h + 1] += ph->dst_off[h];
	}
	/* the cursors count as they fill, then start again at 0 */
	src_fill = ph->src_cur;
	dst_fill = ph->dst_cur;
	for (i = 0; i < ph->n_tasks; i++) {
		struct task *t = &ph->tasks[i];

		t->src_pos = src_fill[t->pair.source]++;
		t->dst_pos = dst_fill[t->pair.target]++;
		ph->by_src[ph->src_off[t->pair.source] + t->src_pos] = i;
		ph->by_dst[ph->dst_off[t->pair.target] + t->dst_pos] = i;
	}
	memset(ph->src_cur, 0, (n_hosts + 1) * sizeof(size_t));
	memset(ph->dst_cur, 0, (n_hosts + 1) * sizeof(size_t));
	return 0;
}

static int
phase_build(struct collector *c, struct phase *ph, struct schedule *s)
{
	size_t k, p, i = 0;

	ph->sched = s;		/* the phase owns it from here */
	if ((ph->tasks = calloc(schedule_n_pairs(s) + 1, sizeof *ph->tasks))
	    == NULL || (ph->round_left = calloc(s->n_rounds + 1,
	    sizeof *ph->round_left)) == NULL)
		return NP_ERR_NOMEM;
	ph->n_tasks = schedule_n_pairs(s);
	for (k = 0; k < s->n_rounds; k++) {
		for (p = 0; p < s->rounds[k].n_pairs; p++, i++) {
			struct task *t = &ph->tasks[i];
			const struct machine *dst;

			t->c = c;
			t->kind = s->kind;
			t->pair = s->rounds[k].pairs[p];
			t->round = k;
			t->mode = c->serial ? "serial" : s->kind == PROBE_PING ?
			    (c->fanout > 0 ? "fanout" : "channel") :
			    c->iperf_mode;
			dst = machine_at(c, t->pair.target);
			if (s->kind == PROBE_PING)
				t->command = probe_ping_command(&c->ps,
				    dst->address);
			else {
				t->command = probe_iperf3_client_command(&c->ps,
				    dst->address);
				t->server_command =
				    probe_iperf3_server_command(&c->ps);
				if (t->server_command == NULL)
					return NP_ERR_NOMEM;
			}
			if (t->command == NULL)
				return NP_ERR_NOMEM;
			if (record_done_has(c->done,
			    machine_at(c, t->pair.source)->name, dst->name,
			    probe_kind_name(s->kind))) {
				t->state = TASK_SKIPPED;
				continue;
			}
			ph->round_left[k]++;
			ph->n_todo++;
		}
	}
	return phase_index_hosts(ph, c->inv->n_machines);
}

static void
phase_free(struct phase *ph)
{
	size_t i;

	for (i = 0; i < ph->n_tasks; i++) {
		free(ph->tasks[i].command);
		free(ph->tasks[i].server_command);
		free(ph->tasks[i].error);
		cJSON_Delete(ph->tasks[i].metrics);
	}
	free(ph->tasks);
	free(ph->round_left);
	free(ph->by_src);
	free(ph->by_dst);
	free(ph->src_off);
	free(ph->dst_off);
	free(ph->src_cur);
	free(ph->dst_cur);
	schedule_free(ph->sched);
}

/*
 * The next sweep (--every): the phases built again (so a week of sweeps
 * holds one sweep's tasks), the hosts' per-sweep state cleared, a host
 * that was down tried again.
 */
int
collect_sweep_restart(struct collector *c)
{
	struct schedule *ping = NULL, *iperf3 = NULL;
	size_t i;
	int r;

	for (i = 0; i < c->n_phases; i++) {
		phase_free(&c->phases[i]);
		memset(&c->phases[i], 0, sizeof c->phases[i]);
	}
	c->n_phases = c->cur = 0;
	for (i = 0; i < c->inv->n_machines; i++) {
		struct host_state *h = &c->hosts[i];

		free(h->down);
		h->down = NULL;
		h->n_rtts = 0;
		memset(&h->srv, 0, sizeof h->srv);
		h->srv.c = c;
		h->srv.host = i;
	}
	if ((r = plan_schedules(c->inv, c->plan, &ping, &iperf3)) != 0)
		return r;
	r = phase_build(c, &c->phases[c->n_phases++], ping);
	if (r == 0 && iperf3 != NULL) {
		r = phase_build(c, &c->phases[c->n_phases++], iperf3);
		iperf3 = NULL;
	}
	schedule_free(iperf3);
	return r;
}

void
collect_sweep_begin(struct collector *c)
{
	phase_begin(c);
	collect_dispatch(c);
}

int
collect_run(const struct collect_options *o, struct inventory *inv)
{
	struct collector c;
	struct runner_hooks hooks = { .interrupt = interrupt_cb,
	    .close_extra = close_extra_cb };
	struct schedule *ping = NULL, *iperf3 = NULL;
	char *cause = NULL;
	size_t i;
	int r, status = NP_EXIT_FAILED;

	memset(&c, 0, sizeof c);
	c.inv = inv;
	c.output = strcmp(o->output, "-") == 0 ? "standard output" : o->output;
	probe_settings_init(&c.ps, &o->probes, inv);
	c.connect_timeout = inv->connect_timeout_seconds;
	c.serial = o->plan.serial;
	c.width = o->plan.rounds ? 1 : (size_t)(o->plan.max_channels > 0 ?
	    o->plan.max_channels : ENGINE_DEFAULT_MAX_CHANNELS);
	c.fanout = plan_fanout(&o->plan);
	c.tool = (enum fanout_tool)o->plan.ping_tool;
	c.duplex = o->plan.duplex && !c.serial;
	c.iperf_mode = plan_iperf_mode(&o->plan);
	c.plan = &o->plan;

	if (o->dry_run) {
		if ((r = plan_write(stdout, inv, &c.ps, &o->plan)) != 0) {
			log_error("collect: %s", error_string(r));
			return NP_EXIT_FAILED;
		}
		return NP_EXIT_OK;
	}
	if (o->resume && (r = record_done_load(o->output, &c.done,
	    &cause)) != 0) {
		log_error("--resume: %s", cause != NULL ? cause :
		    error_string(r));
		free(cause);
		return NP_EXIT_USAGE;
	}
	if ((r = record_writer_open(o->output, o->resume, &c.writer,
	    &cause)) != 0) {
		log_error("--output %s", cause != NULL ? cause :
		    error_string(r));
		free(cause);
		record_done_free(c.done);
		return NP_EXIT_USAGE;
	}
	if ((c.hosts = calloc(inv->n_machines + 1, sizeof *c.hosts)) == NULL)
		goto nomem;
	for (i = 0; i < inv->n_machines; i++) {
		c.hosts[i].srv.c = &c;
		c.hosts[i].srv.host = i;
		if ((c.hosts[i].rtts = calloc(inv->n_machines + 1,
		    sizeof(double))) == NULL)
			goto nomem;
	}
	if ((r = plan_schedules(inv, &o->plan, &ping, &iperf3)) != 0)
		goto nomem;
	r = phase_build(&c, &c.phases[c.n_phases++], ping);
	ping = NULL;		/* the phase frees it */
	if (r != 0)
		goto nomem;
	if (iperf3 != NULL) {
		c.ps.iperf_server_keep = c.duplex;
		c.ps.iperf_server_bound = probe_iperf3_server_bound(&c.ps,
		    c.connect_timeout, iperf3->n_rounds);
		if ((c.server_command = probe_iperf3_server_command(&c.ps)) ==
		    NULL)
			goto nomem;
		r = phase_build(&c, &c.phases[c.n_phases++], iperf3);
		iperf3 = NULL;
		if (r != 0)
			goto nomem;
	}
	if (record_done_count(c.done) > 0)
		log_info("resuming: %zu probes already recorded ok in %s",
		    record_done_count(c.done), o->output);

	hooks.arg = &c;
	if (runner_new(inv, &o->common, &hooks, &c.runner) != 0)
		goto out;
	c.loop = runner_loop(c.runner);
	c.engine = runner_engine(c.runner);
	if (record_writer_attach(c.writer, c.loop) != 0) {
		runner_free(c.runner);
		c.runner = NULL;
		goto nomem;
	}
	c.progress = progress_new(stderr, o->quiet ||
	    log_get_level() == LOG_QUIET);
	if (collect_watch_start(&c, &o->watch) != 0)
		c.write_failed = 1;	/* stops at once, through the close */
	else
		phase_begin(&c);
	collect_dispatch(&c);
	runner_run(c.runner);
	runner_free(c.runner);
	c.runner = NULL;
	progress_end(c.progress);
	if (!o->quiet && log_get_level() != LOG_QUIET)
		collect_report_summary(&c, stderr);
	if (c.write_failed)
		status = NP_EXIT_FAILED;
	else if (c.interrupted)
		status = NP_EXIT_INTERRUPTED;
	else if (c.failed > 0)
		status = NP_EXIT_FAILED;
	else
		status = NP_EXIT_OK;
	goto out;
nomem:
	log_error("collect: %s", error_string(NP_ERR_NOMEM));
out:
	/* after Ctrl-C the reader gets a few seconds, not forever */
	if (record_writer_close(c.writer, c.interrupted ? 3000 : -1) != 0) {
		log_error("%s: records could not all be written", c.output);
		if (status == NP_EXIT_OK)
			status = NP_EXIT_FAILED;
	}
	for (i = 0; i < c.n_phases; i++)
		phase_free(&c.phases[i]);
	schedule_free(ping);
	schedule_free(iperf3);
	for (i = 0; c.hosts != NULL && i < inv->n_machines; i++) {
		free(c.hosts[i].down);
		free(c.hosts[i].rtts);
	}
	free(c.hosts);
	free(c.server_command);
	record_done_free(c.done);
	progress_free(c.progress);
	collect_watch_free(&c);
	return status;
}
