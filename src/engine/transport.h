/*
 * Between the engine (engine.c: jobs, timeouts, tunnels' delivery, the
 * pump) and its transports, each of which the engine knows only through a
 * struct transport_ops: transport_ssh_ops.c (libssh sessions, channels and
 * tunnels) and transport_spawn.c (local processes for the "command" and
 * "local" kinds). Private to src/: only the engine and the transports
 * include it.
 *
 * A job's life: engine_submit() makes it and hands it to its transport,
 * which queues it, starts it (engine_job_started), feeds its output
 * (engine_job_output) and, once nothing on the host refers to it any
 * more, finishes it (engine_job_finish). The engine delivers on_done on a
 * later loop turn and frees the job when its last reference is dropped.
 * A tunnel's life is the same with engine_tunnel_finish(). Every uv handle
 * a transport opens outside a job is counted with engine_handle_opened()
 * and engine_handle_closed(), so the engine knows when it may close.
 */
#ifndef NETPROF_TRANSPORT_H
#define NETPROF_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <uv.h>

#include "engine.h"
#include "util.h"

enum job_state {
	JOB_QUEUED = 0,		/* waiting for its host or a channel */
	JOB_OPENING,		/* ssh: channel open requested */
	JOB_EXEC,		/* ssh: exec request sent, no reply yet */
	JOB_RUNNING,		/* the command runs on the host */
	JOB_WAIT_STATUS,	/* ssh: output ended, exit status awaited */
	JOB_KILLING,		/* stopped: waiting until the process is gone */
	JOB_DONE		/* finished; on_done delivered or pending */
};

struct transport_ssh_host;
struct transport_ssh_chan;

/* the ssh transport's part of a job */
struct transport_ssh_job {
	struct transport_ssh_host *host;
	struct transport_ssh_chan *chan;	/* NULL until its channel is opened */
};

struct spawn_step;

/*
 * A child process and its pipes (stdin, stdout, stderr), as both spawn
 * transports run one (transport_spawn.c a job's command,
 * transport_spawn_batch.c a batch's srun): started, and closed by one
 * reaper, the process handle only once the child is reaped (closed before
 * its exit, libuv would never wait for it: a zombie until we end).
 * closed(owner) comes when the last of its handles has closed, those the
 * owner adds to handles_open (and closes with
 * transport_spawn_child_close()) included.
 */
struct spawn_child {
	uv_process_t process;
	uv_pipe_t pipes[3];
	int handles_open;	/* handles not yet closed */
	int exited;		/* reaped, or never started */
	void *owner;		/* every handle's data until it closes */
	void (*closed)(void *owner);
};

/*
 * argv run as c's child, detached, its pipes' and process' data owner,
 * exit_cb its exit; handles_open 4 + extra. 0, or libuv's error (then
 * exited is set: transport_spawn_child_close_all() lets it go).
 */
int transport_spawn_child_start(struct spawn_child *c, uv_loop_t *loop,
    char **argv, uv_exit_cb exit_cb, void *owner, int extra);
/* The read buffer of every child's pipes (the read callbacks copy what
   they keep before the next read). */
void transport_spawn_child_alloc_cb(uv_handle_t *h, size_t suggested,
    uv_buf_t *buf);
void transport_spawn_child_close(struct spawn_child *c, uv_handle_t *h);
/* Its pipes, and its process once reaped. */
void transport_spawn_child_close_all(struct spawn_child *c);

/*
 * transport_spawn.c's part of a job: the process and its pipes; or, for a
 * job of a batch on the slurm transport (transport_spawn_batch.c), its
 * task in the batch's step, which holds the process.
 */
struct spawn_job {
	struct spawn_child child;
	int out_eof, err_eof;
	int gave_up;		/* reported before the process was reaped */
	uv_write_t write_req;
	uv_shutdown_t shutdown_req;
	int kill_stage;		/* 0: TERM sent, 1: KILL sent */
	int term_signal;
	char step_name[48];	/* slurm: the step's --job-name, for scancel */
	/* a batch's job: its task in a step of several nodes */
	struct spawn_step *step;	/* NULL: a process of its own */
	int has_task;		/* a task's start line named its node */
	int out_end, err_end;	/* the task's end line seen on each stream */
	int held_nl[2];		/* a newline of stdout, stderr held back: the
				   last one is the task wrapper's */
	int task_status;	/* the command's, from the end line */
	int kill_sent;		/* its task was told to kill the command */
};

struct engine_job {
	TAILQ_ENTRY(engine_job) all_entry;	/* engine's jobs */
	TAILQ_ENTRY(engine_job) entry;		/* a host's queue or channels,
						   or the engine's done list */
	struct engine *engine;
	const struct machine *machine;
	const struct transport_ops *ops;
	enum job_state state;
	int refs;		/* freed when this drops to 0 */
	int held;		/* the engine holds it: its host waits for a
				   slot (engine.c); no transport has seen it */
	const void *batch;	/* the request's batch key, or NULL */
	int batching;		/* waits for the end of the turn to be handed
				   over with its batch (engine.c) */

	char *command;		/* remote_setup and command, as run */
	char *input;
	size_t input_len, input_off;
	double timeout_s;
	engine_output_cb on_output;
	engine_done_cb on_done;
	void *arg;

	uv_timer_t timer;	/* the command timeout and kill grace */
	int stop_error;		/* why it is being stopped: _TIMEOUT, ... */

	struct buf out, err;
	size_t max_out;		/* stdout's cap (engine_request.max_output) */
	size_t cap_passed;	/* the cap its output passed, if it did */
	int setup_noise;	/* stdout is remote_setup's until the marker */
	size_t marker_scan;	/* where the search for it goes on */
	int output_lost;	/* an append failed (1) or a cap was passed
				   (2): the output is cut */
	int error;
	char *error_text;
	int exit_status;
	double queued_at, started_at, ended_at;

	union {
		struct transport_ssh_job ssh;
		struct spawn_job spawn;
	} t;
};

TAILQ_HEAD(job_list, engine_job);

/* A tunnel as the engine sees it; the transport keeps the rest in priv. */
struct engine_tunnel {
	TAILQ_ENTRY(engine_tunnel) entry;	/* engine's tunnels */
	struct engine *engine;
	const struct machine *machine;
	engine_tunnel_cb on_closed;
	void *arg;
	int finished;		/* on_closed queued */
	int error;
	char *error_text;
	void *priv;		/* the transport's */
};

TAILQ_HEAD(tunnel_list, engine_tunnel);

/*
 * One per transport kind. state is what new() made: the transport's own,
 * never looked into by the engine.
 */
struct transport_ops {
	const char *name;
	int (*new)(struct engine *e, void **state);
	void (*free)(void *state);
	/* take j (queued, or finished at once through engine_job_finish) */
	int (*submit)(void *state, struct engine_job *j);
	/* take jobs[0..n-1], a batch (n >= 1, each on another machine; the
	   array is the transport's to reorder), each as submit takes one;
	   NULL: the batch's jobs go through submit */
	void (*submit_batch)(void *state, struct engine_job **jobs, size_t n);
	/* j->stop_error is set: kill it, finish it once it is gone */
	void (*stop)(struct engine_job *j);
	/* j's timer fired (timeout or kill grace) */
	void (*timer)(struct engine_job *j);
	/* run from the pump; 1 if it wants to run again on the next turn */
	int (*pump)(void *state);
	/* engine_close(): end sessions and tunnels */
	void (*close)(void *state);
	/* 1 once nothing of the transport's is left open */
	int (*closed)(void *state);
	/* m has no job or tunnel left and its slot goes to a waiting host:
	   close what it holds open (its session). NULL: nothing to close */
	void (*release)(void *state, const struct machine *m);
	/* NULL: no tunnels (engine_tunnel_open says NP_ERR_UNSUPPORTED) */
	int (*tunnel_open)(void *state, struct engine_tunnel *t,
	    const char *host, int port, int *fd);
};

extern const struct transport_ops transport_ssh_ops;
extern const struct transport_ops transport_spawn_ops;

/*
 * transport_spawn_batch.c: a batch of slurm jobs as one job step, a task
 * per node (the spawn transport's state keeps the steps whose jobs are
 * being stopped, decided on its pump). For transport_spawn.c.
 */
TAILQ_HEAD(spawn_step_list, spawn_step);
/* Start jobs[0..n-1] (slurm machines, n >= 2) as one step. */
void transport_spawn_batch_start(struct engine *e,
    struct spawn_step_list *deciding, struct engine_job **jobs, size_t n);
/* The argv bytes a job adds to a step (its node and command). */
size_t transport_spawn_batch_cost(const struct engine_job *j);
void transport_spawn_batch_stop(struct engine_job *j);
void transport_spawn_batch_timer(struct engine_job *j);
/* Whole step or one task: what the stops since the last turn need. */
void transport_spawn_batch_pump(struct spawn_step_list *deciding);

/* transport_spawn.c, for its batches: the slurm kill path's parts (host
   names what is logged; NULL: a step of several) */
void transport_spawn_kill_group(const char *host, int pid, int sig);
/* scancel of the job's step of this name (a process of its own). */
void transport_spawn_scancel(struct engine *e, const char *host,
    const char *step_name);
/* A new step name, unique in this process (its --job-name). */
void transport_spawn_step_name(char *buf, size_t size);

/* engine.c, for the transports */
uv_loop_t *engine_loop(const struct engine *e);
const struct inventory *engine_inventory(const struct engine *e);
const struct engine_options *engine_options(const struct engine *e);
int engine_closing(const struct engine *e);
void engine_handle_opened(struct engine *e);
/* A session's step, for the observer of engine_options (if any). */
void engine_session_step(struct engine *e, const struct machine *m,
    enum engine_session_step step, int error, const char *text);
void engine_handle_closed(struct engine *e);
/* Run the pump on the next loop turn (results, transports' pump). */
void engine_schedule(struct engine *e);

void engine_job_started(struct engine_job *j);
void engine_job_output(struct engine_job *j, int stream, const char *buf,
    size_t len);
void engine_job_finish(struct engine_job *j, int error, int exit_status,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void engine_job_ref(struct engine_job *j);
void engine_job_unref(struct engine_job *j);
/* Arm the job's timer for ms (command timeout or kill grace). */
void engine_job_timer(struct engine_job *j, uint64_t ms);

/*
 * The tunnel is gone (the transport has closed its end and dropped priv):
 * on_closed on a later turn, then the engine frees t.
 */
void engine_tunnel_finish(struct engine_tunnel *t, int error,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
