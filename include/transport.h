/*
 * Between the engine (engine.c: jobs, timeouts, delivery of results) and
 * its transports (transport_ssh.c: libssh sessions and channels;
 * transport_spawn.c: local processes for the "command" and "local"
 * transports). Not a public interface: only the engine's files include it.
 *
 * A job's life: engine_submit() makes it and hands it to its transport,
 * which queues it, starts it (engine_job_started), feeds its output
 * (engine_job_output) and, once nothing on the host refers to it any
 * more, finishes it (engine_job_finish). The engine delivers on_done on a
 * later loop turn and frees the job when its last reference is dropped.
 */
#ifndef NETPROF_TRANSPORT_H
#define NETPROF_TRANSPORT_H

#include <stddef.h>
#include <sys/queue.h>
#include <uv.h>

#include <libssh/libssh.h>
#include <libssh/callbacks.h>

#include "engine.h"

struct ssh_host;

enum job_state {
	JOB_QUEUED = 0,		/* waiting for its host or a channel */
	JOB_OPENING,		/* ssh: channel open requested */
	JOB_EXEC,		/* ssh: exec request sent, no reply yet */
	JOB_RUNNING,		/* the command runs on the host */
	JOB_WAIT_STATUS,	/* ssh: output ended, exit status awaited */
	JOB_KILLING,		/* stopped: waiting until the process is gone */
	JOB_DONE		/* finished; on_done delivered or pending */
};

struct out_buf {
	char *data;
	size_t len, size;
};

struct engine_job {
	TAILQ_ENTRY(engine_job) all_entry;	/* engine's jobs */
	TAILQ_ENTRY(engine_job) entry;		/* a host's queue or channels,
						   or the engine's done list */
	struct engine *engine;
	const struct machine *machine;
	enum job_state state;
	int refs;		/* freed when this drops to 0 */

	char *command;		/* remote_setup and command, as run */
	char *input;
	size_t input_len, input_off;
	int input_closed;
	double timeout_s;
	engine_output_cb on_output;
	engine_done_cb on_done;
	void *arg;

	uv_timer_t timer;	/* the command timeout and kill grace */
	int timer_open;
	int stop_error;		/* why it is being stopped: _TIMEOUT, ... */

	struct out_buf out, err;
	int error;
	char *error_text;
	int exit_status;
	double queued_at, started_at, ended_at;

	/* ssh */
	struct ssh_host *host;
	ssh_channel channel;
	struct ssh_channel_callbacks_struct callbacks;
	int eof_sent;

	/* command and local */
	uv_process_t process;
	uv_pipe_t pipes[3];
	int handles_open;	/* uv handles of the process not yet closed */
	int exited, out_eof, err_eof;
	uv_write_t write_req;
	uv_shutdown_t shutdown_req;
	int kill_stage;		/* 0: TERM sent, 1: KILL sent */
	int term_signal;
};

TAILQ_HEAD(job_list, engine_job);

struct engine {
	uv_loop_t *loop;
	const struct inventory *inv;
	struct engine_options opts;
	struct job_list jobs;		/* every job not yet freed */
	struct job_list done;		/* finished, on_done not yet called */
	size_t pending;			/* jobs before on_done */
	uv_idle_t pump;			/* delivers results, kicks hosts */
	int pump_active;
	struct ssh_host **hosts;	/* by machine index; NULL until used */
	size_t n_hosts;
	int closing;
	int handles_open;		/* engine-level handles not closed */
	void (*closed_cb)(struct engine *, void *);
	void *closed_arg;
	int closed_called;
};

/* engine.c, for the transports */
void engine_job_started(struct engine_job *j);
void engine_job_output(struct engine_job *j, int stream, const char *buf,
    size_t len);
void engine_job_finish(struct engine_job *j, int error, int exit_status,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void engine_job_ref(struct engine_job *j);
void engine_job_unref(struct engine_job *j);
void engine_schedule(struct engine *e);
void engine_handle_closed(struct engine *e);
void engine_maybe_closed(struct engine *e);
/* Arm the job's timer for ms (command timeout or kill grace). */
void engine_job_timer(struct engine_job *j, uint64_t ms);
void engine_job_timer_stop(struct engine_job *j);

/* transport_ssh.c */
int ssh_transport_submit(struct engine *e, struct engine_job *j);
void ssh_transport_stop(struct engine_job *j);
void ssh_transport_timer(struct engine_job *j);
void ssh_transport_pump(struct engine *e);
int ssh_transport_busy(struct engine *e);	/* hosts still need pumping */
void ssh_transport_close(struct engine *e);
int ssh_transport_closed(struct engine *e);
void ssh_transport_free(struct engine *e);

/* transport_spawn.c */
int spawn_transport_submit(struct engine *e, struct engine_job *j);
void spawn_transport_stop(struct engine_job *j);
void spawn_transport_timer(struct engine_job *j);

#endif
