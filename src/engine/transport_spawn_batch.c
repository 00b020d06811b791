/*
 * The slurm transport's batches: the jobs of a batch (engine_request.batch,
 * collect's fan-outs of a sweep, exec's command on every node) as ONE job
 * step with a task per node, launched once through slurmd's tree, where a
 * step per command would be a srun process here and a step request to
 * slurmctld each. Each task runs its own node's command
 * (inventory_slurm_batch_argv(): the wrapper, its lines); srun labels
 * every line with its task, and the lines are split back per job here, so
 * each job has its own output, exit status, timeout and result, as if it
 * had a step of its own.
 *
 * Stopping one job (its timeout, engine_cancel()) tells its task over
 * srun's stdin, which srun sends to every task: that node's wrapper kills
 * its command's session and reports its end; the others run on. When
 * every job of the step is stopping (Ctrl-C, engine_close(), timeouts of
 * all of them) the step is killed whole by the single step's path: SIGTERM
 * to srun, SIGKILL 2 s later and the step cancelled by name (scancel).
 * The stops of one loop turn are decided together on the next (the
 * transport's pump), so a Ctrl-C is one kill of the step, not one per
 * node. A job whose node was drained fails at once, as a single step's;
 * one whose task ended without its end line (killed, its node lost) fails
 * with what srun said of it, when the step ends.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "inventory_slurm.h"
#include "log.h"
#include "template.h"
#include "transport.h"
#include "util.h"

#define STEP_KILL_GRACE_MS 2000	/* from srun's SIGTERM to SIGKILL */
#define STEP_GONE_GRACE_MS 1000	/* from SIGKILL to giving up on srun */
/* A task told to kill: its wrapper's SIGTERM, SIGKILL 2 s later, and the
   end line's way back */
#define TASK_KILL_GRACE_MS 5000
#define LINE_MAX_LEN 8192	/* srun's lines are 1024 bytes and a label */
#define MESSAGES_MAX 65536	/* srun's own lines, kept for the errors */

struct spawn_step {
	TAILQ_ENTRY(spawn_step) entry;	/* on the deciding list */
	struct engine *e;
	struct spawn_step_list *deciding;
	struct engine_job **jobs;
	size_t n;
	struct engine_job **tasks;	/* by task id, from its start line */
	struct spawn_child child;	/* srun */
	uv_timer_t timer;		/* the whole step's kill stages */
	int eof[2], ended, gave_up, on_list;
	int exit_status, term_signal;
	int kill_stage;		/* -1: none; 0: SIGTERM sent; 1: SIGKILL */
	struct buf line[2];	/* stdout's and stderr's partial line */
	struct buf messages;	/* srun's lines, the drained nodes' */
	char step_name[48];
};

size_t
transport_spawn_batch_cost(const struct engine_job *j)
{
	/* the two words and their pointers */
	return strlen(j->machine->name) + strlen(j->command) + 2 +
	    2 * sizeof(char *);
}

static void
step_free(struct spawn_step *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		s->jobs[i]->t.spawn.step = NULL;
		engine_job_unref(s->jobs[i]);
	}
	free(s->jobs);
	free(s->tasks);
	free(s->line[0].data);
	free(s->line[1].data);
	free(s->messages.data);
	free(s);
}

static void
step_closed(void *owner)
{
	step_free(owner);
}

/* srun's pipes, its process once reaped, and the timer. */
static void
step_close_all(struct spawn_step *s)
{
	transport_spawn_child_close_all(&s->child);
	transport_spawn_child_close(&s->child, (uv_handle_t *)&s->timer);
}

/* The job of node name, or NULL. */
static struct engine_job *
job_of_node(struct spawn_step *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strlen(s->jobs[i]->machine->name) == len &&
		    memcmp(s->jobs[i]->machine->name, name, len) == 0)
			return s->jobs[i];
	return NULL;
}

/* What srun said of j's node, for its error: its lines naming it, or the
   first of srun's lines. */
static char *
messages_of(struct spawn_step *s, const struct engine_job *j)
{
	const char *p = s->messages.data, *nl;
	const char *name = j->machine->name;
	struct buf b = { 0 };
	size_t len;

	for (; p != NULL && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		len = (size_t)(nl - p);
		if (memmem(p, len, name, strlen(name)) != NULL &&
		    (b.len > 0 ? buf_append(&b, "; ", 2) : 0) == 0)
			buf_append(&b, p, len);
	}
	if (b.len == 0 && s->messages.len > 0) {
		p = s->messages.data;
		len = strcspn(p, "\n");
		buf_append(&b, p, len > 512 ? 512 : len);
	}
	if (b.len == 0 || buf_append(&b, "", 1) != 0) {
		free(b.data);
		return NULL;
	}
	return b.data;
}

/* j is over as its task, or the step, says. */
static void
job_end(struct spawn_step *s, struct engine_job *j)
{
	const char *name = j->machine->name;
	char *said;
	int k;

	if (j->state == JOB_DONE)
		return;
	for (k = 0; k < 2; k++)
		if (j->t.spawn.held_nl[k])	/* no EOF line: its own */
			engine_job_output(j, k + 1, "\n", 1);
	if (j->stop_error == NP_ERR_TIMEOUT)
		engine_job_finish(j, NP_ERR_TIMEOUT, -1, "%s: command timed "
		    "out after %g s; its process group was killed", name,
		    j->timeout_s);
	else if (j->stop_error != 0)
		engine_job_finish(j, j->stop_error, -1, "%s: %s", name,
		    error_string(j->stop_error));
	else if (j->t.spawn.out_end)
		engine_job_finish(j, NP_OK, j->t.spawn.task_status, NULL);
	else {
		said = messages_of(s, j);
		engine_job_finish(j, NP_ERR_SESSION_LOST, -1, "%s: the job "
		    "step %s ended before the command on the node did%s%s",
		    name, s->step_name, said != NULL ? ": " : "",
		    said != NULL ? said : "");
		free(said);
	}
}

/* srun has exited and its output has ended: every job is over. */
static void
step_maybe_done(struct spawn_step *s)
{
	size_t i;

	if ((!s->child.exited && !s->gave_up) || !s->eof[0] || !s->eof[1] ||
	    s->ended)
		return;
	s->ended = 1;
	log_debug(NULL, "step %s ended: srun status %d, signal %d",
	    s->step_name, s->exit_status, s->term_signal);
	if (s->on_list) {
		TAILQ_REMOVE(s->deciding, s, entry);
		s->on_list = 0;
	}
	uv_timer_stop(&s->timer);
	for (i = 0; i < s->n; i++)
		job_end(s, s->jobs[i]);
	step_close_all(s);
}

/*
 * A line of the command's output: '|' a whole one, '+' part of one. Its
 * newline is held back until more comes: the output's end (the EOF line)
 * drops it, being the wrapper's; a command killed before it keeps it.
 */
static void
task_output(struct engine_job *j, int stream, const char *text, size_t len)
{
	const size_t eof = strlen(INVENTORY_SLURM_TASK_EOF);
	int k = stream - 1;

	if (j->state == JOB_DONE)
		return;
	if (text[0] == '|' && len - 1 == eof &&
	    memcmp(text + 1, INVENTORY_SLURM_TASK_EOF, eof) == 0) {
		j->t.spawn.held_nl[k] = 0;
		return;
	}
	if (j->t.spawn.held_nl[k]) {
		engine_job_output(j, stream, "\n", 1);
		j->t.spawn.held_nl[k] = 0;
	}
	engine_job_output(j, stream, text + 1, len - 1);
	if (text[0] == '|')
		j->t.spawn.held_nl[k] = 1;
}

/* A task's end line on one stream: the job ends with both (or the step). */
static void
task_end(struct spawn_step *s, struct engine_job *j, int stream,
    const char *status)
{
	if (stream == 1) {
		j->t.spawn.out_end = 1;
		j->t.spawn.task_status = atoi(status);
	} else
		j->t.spawn.err_end = 1;
	if (j->t.spawn.out_end && j->t.spawn.err_end)
		job_end(s, j);
}

/* A line srun printed unlabelled: its own, or the check's drained node. */
static void
step_message(struct spawn_step *s, int stream, const char *l, size_t len)
{
	const size_t mark = strlen(INVENTORY_SLURM_BATCH_MARK);
	struct engine_job *j;
	size_t name;

	if (stream == 2 && len > mark &&
	    memcmp(l, INVENTORY_SLURM_BATCH_MARK, mark) == 0) {
		name = strcspn(l + mark, " ");
		if ((j = job_of_node(s, l + mark, name)) != NULL &&
		    j->state != JOB_DONE && mark + name < len)
			engine_job_finish(j, NP_ERR_CONNECT, -1, "%s: Slurm "
			    "node is %.*s; no step started there",
			    j->machine->name, (int)(len - mark - name - 1),
			    l + mark + name + 1);
		return;
	}
	log_debug(NULL, "step %s: %.*s", s->step_name, (int)len, l);
	if (s->messages.len + len + 1 <= MESSAGES_MAX &&
	    buf_append(&s->messages, l, len) == 0)
		buf_append(&s->messages, "\n", 1);
}

/* One whole line of srun's stdout (1) or stderr (2). */
static void
step_line(struct spawn_step *s, int stream, const char *l, size_t len)
{
	const size_t start = strlen(INVENTORY_SLURM_TASK_START);
	const size_t end = strlen(INVENTORY_SLURM_TASK_END);
	struct engine_job *j;
	size_t i = 0, task = 0;
	char status[16];

	while (i < len && l[i] == ' ')
		i++;
	if (i == len || l[i] < '0' || l[i] > '9') {
		step_message(s, stream, l, len);
		return;
	}
	for (; i < len && l[i] >= '0' && l[i] <= '9' && task < s->n + 1; i++)
		task = task * 10 + (size_t)(l[i] - '0');
	if (i + 1 >= len || l[i] != ':' || l[i + 1] != ' ' || task >= s->n) {
		if (i < len && l[i] == ':' && task < s->n && i + 1 == len)
			return;		/* an empty line of a task */
		step_message(s, stream, l, len);
		return;
	}
	l += i + 2;
	len -= i + 2;
	/* a task's first line names its node (the wrapper's, before the
	   command runs); a start line after it, or naming a node another
	   task has, is the command's: its output never becomes another
	   node's */
	if (stream == 1 && len > start &&
	    memcmp(l, INVENTORY_SLURM_TASK_START, start) == 0) {
		if (s->tasks[task] == NULL && (j = job_of_node(s, l + start,
		    len - start)) != NULL && !j->t.spawn.has_task) {
			j->t.spawn.has_task = 1;
			s->tasks[task] = j;
		} else
			log_debug(NULL, "step %s: task %zu: a start line "
			    "ignored: %.*s", s->step_name, task, (int)len, l);
		return;
	}
	if ((j = s->tasks[task]) == NULL || len == 0)
		return;
	if (l[0] == '|' || l[0] == '+')
		task_output(j, stream, l, len);
	else if (len > end && len - end < sizeof status &&
	    memcmp(l, INVENTORY_SLURM_TASK_END, end) == 0) {
		memcpy(status, l + end, len - end);
		status[len - end] = '\0';
		task_end(s, j, stream, status);
	}
}

static void
step_read_cb(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	struct spawn_step *s = st->data;
	int stream = st == (uv_stream_t *)&s->child.pipes[1] ? 1 : 2;
	struct buf *line = &s->line[stream - 1];
	const char *p = buf->base, *nl, *e;

	if (n < 0) {
		uv_read_stop(st);
		if (line->len > 0)
			step_line(s, stream, line->data, line->len);
		line->len = 0;
		s->eof[stream - 1] = 1;
		step_maybe_done(s);
		return;
	}
	for (e = p + n; p < e; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(e - p))) == NULL) {
			if (line->len + (size_t)(e - p) <= LINE_MAX_LEN)
				buf_append(line, p, (size_t)(e - p));
			return;
		}
		if (line->len > 0) {
			if (line->len + (size_t)(nl - p) <= LINE_MAX_LEN)
				buf_append(line, p, (size_t)(nl - p));
			step_line(s, stream, line->data, line->len);
			line->len = 0;
		} else
			step_line(s, stream, p, (size_t)(nl - p));
	}
}

static void
step_exit_cb(uv_process_t *p, int64_t status, int term_signal)
{
	struct spawn_step *s = p->data;

	log_debug(NULL, "step %s: srun %d exited: status %lld, signal %d",
	    s->step_name, p->pid, (long long)status, term_signal);
	s->child.exited = 1;
	s->exit_status = (int)status;
	s->term_signal = term_signal;
	if (s->ended) {
		/* reported already (gave up on it): now it can be closed */
		transport_spawn_child_close(&s->child, (uv_handle_t *)p);
		return;
	}
	step_maybe_done(s);
}

/* The whole step's kill stages: SIGTERM, SIGKILL and scancel, give up. */
static void
step_timer_cb(uv_timer_t *t)
{
	struct spawn_step *s = t->data;

	if (s->ended)
		return;
	if (s->kill_stage == 0) {
		s->kill_stage = 1;
		transport_spawn_kill_group(NULL, s->child.process.pid, SIGKILL);
		transport_spawn_scancel(s->e, NULL, s->step_name);
		uv_timer_start(&s->timer, step_timer_cb, STEP_GONE_GRACE_MS, 0);
		return;
	}
	log_debug(NULL, "step %s: %s still open 1 s after SIGKILL; reporting "
	    "its jobs", s->step_name, s->child.exited ? "srun's output" : "srun");
	s->eof[0] = s->eof[1] = 1;
	s->gave_up = 1;
	step_maybe_done(s);
}

static void
step_kill(struct spawn_step *s)
{
	if (s->kill_stage >= 0 || s->ended || s->gave_up)
		return;
	log_debug(NULL, "step %s: every job stopping: the step is ended",
	    s->step_name);
	s->kill_stage = 0;
	transport_spawn_kill_group(NULL, s->child.process.pid, SIGTERM);
	uv_timer_start(&s->timer, step_timer_cb, STEP_KILL_GRACE_MS, 0);
}

static void
stdin_write_cb(uv_write_t *req, int status)
{
	(void)status;	/* srun gone: its end says the rest */
	free(req);
}

/* Tell j's task (every task reads it; j's node acts) to kill its command. */
static void
task_kill(struct spawn_step *s, struct engine_job *j)
{
	uv_write_t *req;
	char *text;
	uv_buf_t b;
	size_t len;

	j->t.spawn.kill_sent = 1;
	engine_job_timer(j, TASK_KILL_GRACE_MS);
	if (uv_is_closing((uv_handle_t *)&s->child.pipes[0]))
		return;
	len = strlen(INVENTORY_SLURM_TASK_KILL) + strlen(j->machine->name) + 1;
	if ((req = malloc(sizeof *req + len + 1)) == NULL)
		return;
	text = (char *)(req + 1);
	snprintf(text, len + 1, "%s%s\n", INVENTORY_SLURM_TASK_KILL,
	    j->machine->name);
	log_debug(j->machine->name, "step %s: its task told to kill its "
	    "command", s->step_name);
	b = uv_buf_init(text, (unsigned int)len);
	if (uv_write(req, (uv_stream_t *)&s->child.pipes[0], &b, 1,
	    stdin_write_cb) != 0)
		free(req);
}

void
transport_spawn_batch_pump(struct spawn_step_list *deciding)
{
	struct spawn_step *s;
	size_t i, live, stopping;

	while ((s = TAILQ_FIRST(deciding)) != NULL) {
		TAILQ_REMOVE(deciding, s, entry);
		s->on_list = 0;
		if (s->ended || s->kill_stage >= 0)
			continue;
		for (i = live = stopping = 0; i < s->n; i++) {
			if (s->jobs[i]->state == JOB_DONE)
				continue;
			live++;
			if (s->jobs[i]->state == JOB_KILLING)
				stopping++;
		}
		if (live > 0 && stopping == live) {
			step_kill(s);
			continue;
		}
		for (i = 0; i < s->n; i++)
			if (s->jobs[i]->state == JOB_KILLING &&
			    !s->jobs[i]->t.spawn.kill_sent)
				task_kill(s, s->jobs[i]);
	}
}

void
transport_spawn_batch_stop(struct engine_job *j)
{
	struct spawn_step *s = j->t.spawn.step;

	if (j->state != JOB_RUNNING)
		return;
	j->state = JOB_KILLING;
	if (!s->on_list) {
		TAILQ_INSERT_TAIL(s->deciding, s, entry);
		s->on_list = 1;
	}
	engine_schedule(s->e);
}

void
transport_spawn_batch_timer(struct engine_job *j)
{
	if (j->state == JOB_RUNNING) {
		j->stop_error = NP_ERR_TIMEOUT;
		transport_spawn_batch_stop(j);
		return;
	}
	if (j->state != JOB_KILLING)
		return;
	/* its task did not say it ended: reported, its lines from now on
	   dropped; the step's end (or kill) takes care of the rest */
	log_debug(j->machine->name, "step %s: no end from its task %d s "
	    "after the kill; reporting the job", j->t.spawn.step->step_name,
	    TASK_KILL_GRACE_MS / 1000);
	job_end(j->t.spawn.step, j);
}

void
transport_spawn_batch_start(struct engine *e,
    struct spawn_step_list *deciding, struct engine_job **jobs, size_t n)
{
	struct spawn_step *s = NULL;
	char **nodes = NULL, **commands = NULL, **argv = NULL;
	const char *why = error_string(NP_ERR_NOMEM);
	size_t i;
	int r = NP_ERR_NOMEM;

	if (engine_inventory(e)->slurm_job == NULL) {
		r = NP_ERR_INVENTORY;
		why = "transport \"slurm\" needs a job (--slurm)";
		goto fail;
	}
	if ((s = calloc(1, sizeof *s)) == NULL ||
	    (s->jobs = calloc(n, sizeof *s->jobs)) == NULL ||
	    (s->tasks = calloc(n, sizeof *s->tasks)) == NULL ||
	    (nodes = calloc(n, sizeof *nodes)) == NULL ||
	    (commands = calloc(n, sizeof *commands)) == NULL)
		goto fail;
	for (i = 0; i < n; i++) {
		nodes[i] = (char *)jobs[i]->machine->name;
		commands[i] = jobs[i]->command;
	}
	transport_spawn_step_name(s->step_name, sizeof s->step_name);
	if ((argv = inventory_slurm_batch_argv(engine_inventory(e)->slurm_job,
	    s->step_name, nodes, commands, n)) == NULL)
		goto fail;
	s->e = e;
	s->deciding = deciding;
	s->n = n;
	s->kill_stage = -1;
	memcpy(s->jobs, jobs, n * sizeof *jobs);
	uv_timer_init(engine_loop(e), &s->timer);
	s->timer.data = s;
	s->child.closed = step_closed;
	for (i = 0; i < n; i++) {
		jobs[i]->t.spawn.step = s;
		engine_job_ref(jobs[i]);	/* dropped in step_free() */
	}
	/* srun's handles and the timer */
	r = transport_spawn_child_start(&s->child, engine_loop(e), argv,
	    step_exit_cb, s, 1);
	template_argv_free(argv);
	free(nodes);
	free(commands);
	if (r != 0) {
		for (i = 0; i < n; i++)
			engine_job_finish(jobs[i], NP_ERR_SPAWN, -1, "%s: could "
			    "not run srun: %s", jobs[i]->machine->name,
			    uv_strerror(r));
		s->ended = 1;
		step_close_all(s);
		return;
	}
	log_debug(NULL, "step %s: srun %d started for %zu nodes", s->step_name,
	    s->child.process.pid, n);
	for (i = 0; i < n; i++) {
		jobs[i]->state = JOB_RUNNING;
		engine_job_started(jobs[i]);
	}
	uv_read_start((uv_stream_t *)&s->child.pipes[1],
	    transport_spawn_child_alloc_cb, step_read_cb);
	uv_read_start((uv_stream_t *)&s->child.pipes[2],
	    transport_spawn_child_alloc_cb, step_read_cb);
	return;
fail:
	for (i = 0; i < n; i++)
		engine_job_finish(jobs[i], r, -1, "%s: %s", jobs[i]->machine->name,
		    why);
	if (s != NULL) {
		free(s->jobs);
		free(s->tasks);
		free(s);
	}
	free(nodes);
	free(commands);
}
