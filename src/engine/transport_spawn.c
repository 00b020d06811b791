/*
 * The "command" and "local" transports: a job is a local process. For
 * "command" it is the inventory's remote_command argv template expanded
 * for the machine (rcc, ssh, or any wrapper that runs a shell command on
 * the host); for "local" it is /bin/sh -c COMMAND. stdin, stdout and stderr
 * are pipes. Each process is its own process group (UV_PROCESS_DETACHED
 * makes it a session leader), so that a timeout or a cancel kills the
 * whole tree: SIGTERM to the group, SIGKILL after a grace period.
 *
 * The "slurm" transport is the same with srun as the process: a job step
 * of the inventory's job on the machine's node (srun --overlap, so steps
 * share the allocation with each other and with the job's own). srun
 * passes SIGTERM on to the step and waits for it to end; a srun killed
 * with SIGKILL cannot, and leaves its step running, so the SIGKILL stage
 * also has the step cancelled by its name (scancel, found with squeue).
 * A batch of slurm jobs (engine_request.batch: collect's fan-outs of a
 * sweep) runs as one step, a task per node: transport_spawn_batch.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "inventory_slurm.h"
#include "log.h"
#include "template.h"
#include "transport.h"
#include "util.h"

#define KILL_GRACE_MS 2000	/* from SIGTERM to SIGKILL */
#define GONE_GRACE_MS 1000	/* from SIGKILL to giving up on the pipes */
/*
 * The argv of one step: Linux's limit is a quarter of the stack limit
 * (2 MiB at the usual 8 MiB), environment included; and every byte of it
 * goes to every node of the step. A larger batch is several steps.
 */
#define BATCH_ARGV_MAX (512u << 10)

/* The transport's state: the engine, and the steps whose jobs are being
   stopped, to be decided on the next pump (transport_spawn_batch.c). */
struct spawn_transport {
	struct engine *e;
	struct spawn_step_list deciding;
};

static void
job_closed(void *owner)
{
	engine_job_unref(owner);
}

/* Finish once the process has exited and both output pipes have ended. */
static void
maybe_done(struct engine_job *j)
{
	const char *name = j->machine->name;
	int status;

	if ((!j->t.spawn.child.exited && !j->t.spawn.gave_up) ||
	    !j->t.spawn.out_eof || !j->t.spawn.err_eof || j->state == JOB_DONE)
		return;
	status = j->t.spawn.term_signal != 0 ? -1 : j->exit_status;
	if (j->machine->transport == TRANSPORT_SLURM && j->stop_error == 0 &&
	    status == INVENTORY_SLURM_NODE_EXIT && j->err.data != NULL &&
	    strncmp(j->err.data, INVENTORY_SLURM_NODE_MARK,
	    strlen(INVENTORY_SLURM_NODE_MARK)) == 0) {
		/* a host-level failure, as an unreachable host's */
		engine_job_finish(j, NP_ERR_CONNECT, -1, "%s: Slurm node is "
		    "%.*s; no step started there", name,
		    (int)strcspn(j->err.data + strlen(INVENTORY_SLURM_NODE_MARK),
		    "\n"), j->err.data + strlen(INVENTORY_SLURM_NODE_MARK));
	} else if (j->stop_error == NP_ERR_TIMEOUT)
		engine_job_finish(j, NP_ERR_TIMEOUT, status, "%s: command timed "
		    "out after %g s; its process group was killed", name,
		    j->timeout_s);
	else if (j->stop_error != 0)
		engine_job_finish(j, j->stop_error, status, "%s: %s", name,
		    error_string(j->stop_error));
	else
		engine_job_finish(j, NP_OK, status, NULL);
	transport_spawn_child_close_all(&j->t.spawn.child);
}

static void
exit_cb(uv_process_t *p, int64_t status, int term_signal)
{
	struct engine_job *j = p->data;

	log_debug(j->machine->name, "process %d exited: status %lld, "
	    "signal %d", p->pid, (long long)status, term_signal);
	j->t.spawn.child.exited = 1;
	if (j->state == JOB_DONE) {
		/* reported already (gave up on it): now it can be closed */
		transport_spawn_child_close(&j->t.spawn.child, (uv_handle_t *)p);
		return;
	}
	j->exit_status = (int)status;
	j->t.spawn.term_signal = term_signal;
	maybe_done(j);
}

static void
read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct engine_job *j = s->data;
	int stream = s == (uv_stream_t *)&j->t.spawn.child.pipes[1] ? 1 : 2;

	if (n > 0) {
		engine_job_output(j, stream, buf->base, (size_t)n);
		return;
	}
	if (n == 0)
		return;
	uv_read_stop(s);
	if (stream == 1)
		j->t.spawn.out_eof = 1;
	else
		j->t.spawn.err_eof = 1;
	maybe_done(j);
}

static void
stdin_closed(struct engine_job *j)
{
	transport_spawn_child_close(&j->t.spawn.child,
	    (uv_handle_t *)&j->t.spawn.child.pipes[0]);
}

static void
shutdown_cb(uv_shutdown_t *req, int status)
{
	(void)status;
	stdin_closed(req->data);
}

static void
write_cb(uv_write_t *req, int status)
{
	struct engine_job *j = req->data;

	if (status < 0 ||
	    uv_is_closing((uv_handle_t *)&j->t.spawn.child.pipes[0])) {
		/* the command did not read all of it: fine, as with a shell */
		stdin_closed(j);
		return;
	}
	j->t.spawn.shutdown_req.data = j;
	if (uv_shutdown(&j->t.spawn.shutdown_req,
	    (uv_stream_t *)&j->t.spawn.child.pipes[0], shutdown_cb) != 0)
		stdin_closed(j);
}

static int
make_argv(struct engine *e, struct engine_job *j, char ***argvp)
{
	const struct inventory *inv = engine_inventory(e);
	char **argv;

	*argvp = NULL;

	if (j->machine->transport == TRANSPORT_COMMAND) {
		if (inv->remote_command == NULL || inv->n_remote_command == 0)
			return NP_ERR_INVENTORY;
		return template_expand(inv->remote_command,
		    inv->n_remote_command, j->machine, j->command, argvp);
	}
	if (j->machine->transport == TRANSPORT_SLURM) {
		if (inv->slurm_job == NULL)
			return NP_ERR_INVENTORY;
		transport_spawn_step_name(j->t.spawn.step_name,
		    sizeof j->t.spawn.step_name);
		*argvp = inventory_slurm_step_argv(inv->slurm_job,
		    j->machine->name, j->t.spawn.step_name, j->command);
		return *argvp != NULL ? 0 : NP_ERR_NOMEM;
	}
	if ((argv = calloc(4, sizeof *argv)) == NULL)
		return NP_ERR_NOMEM;
	argv[0] = strdup("/bin/sh");
	argv[1] = strdup("-c");
	argv[2] = strdup(j->command);
	if (argv[0] == NULL || argv[1] == NULL || argv[2] == NULL) {
		template_argv_free(argv);
		return NP_ERR_NOMEM;
	}
	*argvp = argv;
	return 0;
}

static int
spawn_submit(void *state, struct engine_job *j)
{
	struct engine *e = ((struct spawn_transport *)state)->e;
	const char *name = j->machine->name;
	char **argv = NULL;
	uv_buf_t buf;
	int r;

	if ((r = make_argv(e, j, &argv)) != 0) {
		if (r == NP_ERR_INVENTORY && j->machine->transport ==
		    TRANSPORT_SLURM)
			engine_job_finish(j, r, -1, "%s: transport \"slurm\" "
			    "needs a job (--slurm)", name);
		else if (r == NP_ERR_INVENTORY)
			engine_job_finish(j, r, -1, "%s: transport \"command\" "
			    "needs remote_command in %s", name, engine_inventory(e)->path);
		return r;
	}
	j->t.spawn.child.closed = job_closed;
	engine_job_ref(j);	/* dropped when all four handles are closed */
	r = transport_spawn_child_start(&j->t.spawn.child, engine_loop(e),
	    argv, exit_cb, j, 0);
	if (r == UV_ENOENT && j->machine->transport == TRANSPORT_COMMAND)
		/* a full path is not looked up on PATH: it is not there */
		engine_job_finish(j, NP_ERR_SPAWN, -1, "%s: could not run %s: "
		    "%s (remote_command's program%s): install it, or give "
		    "its full path in the template", name, argv[0],
		    strchr(argv[0], '/') != NULL ? "no such file or directory" :
		    "not found on this machine's PATH", engine_inventory(e)->
		    remote_command_env ? ", from NETWORK_PROFILER_REMOTE_CMD" :
		    "");
	else if (r != 0)
		engine_job_finish(j, NP_ERR_SPAWN, -1, "%s: could not run "
		    "%s: %s", name, argv[0], uv_strerror(r));
	if (r != 0) {
		template_argv_free(argv);
		/* or the job would never be let go */
		transport_spawn_child_close_all(&j->t.spawn.child);
		return NP_ERR_SPAWN;
	}
	log_debug(name, "process %d started: %s", j->t.spawn.child.process.pid,
	    argv[0]);
	template_argv_free(argv);
	j->state = JOB_RUNNING;
	engine_job_started(j);
	uv_read_start((uv_stream_t *)&j->t.spawn.child.pipes[1],
	    transport_spawn_child_alloc_cb, read_cb);
	uv_read_start((uv_stream_t *)&j->t.spawn.child.pipes[2],
	    transport_spawn_child_alloc_cb, read_cb);
	if (j->input == NULL || j->input_len == 0) {
		stdin_closed(j);
		return 0;
	}
	buf = uv_buf_init(j->input, (unsigned int)j->input_len);
	j->t.spawn.write_req.data = j;
	if (uv_write(&j->t.spawn.write_req, (uv_stream_t *)&j->t.spawn.child.pipes[0], &buf, 1,
	    write_cb) != 0)
		stdin_closed(j);
	return 0;
}

static void
kill_group(struct engine_job *j, int sig)
{
	transport_spawn_kill_group(j->machine->name, j->t.spawn.child.process.pid,
	    sig);
}

static void
spawn_stop(struct engine_job *j)
{
	if (j->t.spawn.step != NULL) {
		transport_spawn_batch_stop(j);
		return;
	}
	if (j->state != JOB_RUNNING)
		return;
	j->state = JOB_KILLING;
	kill_group(j, SIGTERM);
	engine_job_timer(j, KILL_GRACE_MS);
}

static void
spawn_timer(struct engine_job *j)
{
	if (j->t.spawn.step != NULL) {
		transport_spawn_batch_timer(j);
		return;
	}
	if (j->state == JOB_RUNNING) {
		if (j->stop_error == 0)	/* else its output passed the cap */
			j->stop_error = NP_ERR_TIMEOUT;
		spawn_stop(j);
		return;
	}
	if (j->state != JOB_KILLING)
		return;
	if (j->t.spawn.kill_stage == 0) {
		j->t.spawn.kill_stage = 1;
		kill_group(j, SIGKILL);
		if (j->machine->transport == TRANSPORT_SLURM)
			transport_spawn_scancel(j->engine, j->machine->name,
			    j->t.spawn.step_name);
		engine_job_timer(j, GONE_GRACE_MS);
		return;
	}
	/*
	 * Something outside the group still holds the pipes, or the child
	 * has not died yet: report the job, but keep the process handle
	 * until libuv has reaped the child (exit_cb closes it then).
	 */
	log_debug(j->machine->name, "%s still open 1 s after SIGKILL; "
	    "reporting the job", j->t.spawn.child.exited ? "output pipes" :
	    "the process");
	j->t.spawn.out_eof = j->t.spawn.err_eof = 1;
	j->t.spawn.gave_up = 1;
	maybe_done(j);
}

/* Processes need nothing per host: the engine, and the batches' steps
   being stopped. */
static int
spawn_new(struct engine *e, void **state)
{
	struct spawn_transport *st;

	if ((st = calloc(1, sizeof *st)) == NULL)
		return NP_ERR_NOMEM;
	st->e = e;
	TAILQ_INIT(&st->deciding);
	*state = st;
	return 0;
}

static void
spawn_free(void *state)
{
	free(state);
}

/*
 * A batch: its slurm jobs as steps of a task per node, each step's argv
 * within BATCH_ARGV_MAX; the others (and a slurm job alone) as ever.
 */
static void
spawn_submit_batch(void *state, struct engine_job **jobs, size_t n)
{
	struct spawn_transport *st = state;
	size_t i, end, m = 0, cost;

	for (i = 0; i < n; i++) {
		if (jobs[i]->machine->transport != TRANSPORT_SLURM)
			spawn_submit(st, jobs[i]);
		else
			jobs[m++] = jobs[i];
	}
	for (i = 0; i < m; i = end) {
		cost = 0;
		for (end = i; end < m && (end == i || cost +
		    transport_spawn_batch_cost(jobs[end]) <= BATCH_ARGV_MAX);
		    end++)
			cost += transport_spawn_batch_cost(jobs[end]);
		if (end - i == 1)
			spawn_submit(st, jobs[i]);
		else
			transport_spawn_batch_start(st->e, &st->deciding,
			    jobs + i, end - i);
	}
}

static int
spawn_pump(void *state)
{
	struct spawn_transport *st = state;

	transport_spawn_batch_pump(&st->deciding);
	return 0;
}

static void
spawn_close(void *state)
{
}

/* Jobs hold their own handles; the engine waits for its jobs. */
static int
spawn_closed(void *state)
{
	return 1;
}

const struct transport_ops transport_spawn_ops = {
	.name = "spawn",
	.new = spawn_new,
	.free = spawn_free,
	.submit = spawn_submit,
	.submit_batch = spawn_submit_batch,
	.stop = spawn_stop,
	.timer = spawn_timer,
	.pump = spawn_pump,
	.close = spawn_close,
	.closed = spawn_closed,
	.tunnel_open = NULL,
};
