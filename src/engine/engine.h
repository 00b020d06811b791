/*
 * The dispatch engine: run shell commands on the machines of an inventory,
 * many at once, from one libuv loop. Each machine's transport (inventory.h)
 * decides how: one libssh session per host with a channel per command
 * (TRANSPORT_SSH), the remote_command argv template run locally
 * (TRANSPORT_COMMAND), or /bin/sh -c here (TRANSPORT_LOCAL).
 *
 * Contract, as libuv's: on_done is called exactly once per submitted request,
 * always from a later loop iteration than the engine_submit() that queued
 * it, even for an early error.
 */
#ifndef NETPROF_ENGINE_H
#define NETPROF_ENGINE_H

#include <stddef.h>
#include <uv.h>

#include "inventory.h"

struct engine;
struct engine_job;

/* OpenSSH's sshd allows MaxSessions (10) channels per connection. */
#define ENGINE_DEFAULT_MAX_CHANNELS 8
/* Output kept of a job, per stream; more stops the command and fails the
 * job (a request may ask for less stdout: max_output). */
#define ENGINE_OUTPUT_MAX (80u << 20)

struct engine_result {
	int error;		/* NP_OK if the command ran to an exit status;
				   else NP_ERR_CONNECT, _HOSTKEY_*, _AUTH,
				   _TIMEOUT, _CHANNEL, _SESSION_LOST, _SPAWN,
				   _CANCELLED ... (error.h) */
	const char *error_text;	/* the reason in words, with the host and
				   the fix where there is one; NULL if ok */
	int exit_status;	/* the command's exit status; -1 if none */
	const char *out;	/* stdout, NUL-terminated (never NULL) */
	size_t out_len;
	const char *err;	/* stderr, NUL-terminated (never NULL) */
	size_t err_len;
	int output_cut;		/* stdout or stderr passed its cap: the
				   command was stopped (error NP_ERR_PROTOCOL) */
	double queued_at;	/* wall clock, Unix seconds (ms precision) */
	double started_at;	/* when the command was handed to the host */
	double ended_at;
};

/* Output as it arrives: stream is 1 (stdout) or 2 (stderr). */
typedef void (*engine_output_cb)(const struct machine *m, int stream,
    const char *buf, size_t len, void *arg);
/* The result; its strings live until the callback returns. */
typedef void (*engine_done_cb)(const struct machine *m,
    const struct engine_result *res, void *arg);

struct engine_request {
	const char *command;	/* a shell command line; the machine's
				   remote_setup is run before it */
	const char *input;	/* stdin; NULL: stdin is closed at once */
	size_t input_len;
	double timeout_s;	/* 0: none. From when the command starts
				   on the host; the remote process is killed */
	size_t max_output;	/* stdout kept, counted as it arrives: past
				   it the command is stopped and the job fails
				   (NP_ERR_PROTOCOL, output_cut); 0 or more than
				   ENGINE_OUTPUT_MAX: ENGINE_OUTPUT_MAX */
	engine_output_cb on_output; /* optional; output is collected too */
	engine_done_cb on_done;	/* required */
	void *arg;
	/*
	 * A batch: the requests that name the same key (any pointer; NULL:
	 * none), are submitted on one loop turn, have no input and run on
	 * different machines are handed to their transport together. The
	 * slurm transport runs such a batch as one job step, a task per node
	 * (docs/slurm.md); the ssh transport opens a channel each, as ever.
	 * Each job keeps its own output, timeout, cancel and result.
	 */
	const void *batch;
};

/*
 * The opening of a host's SSH session, step by step, for an observer
 * (the run's trace): each step begins when the one before has ended.
 */
enum engine_session_step {
	ENGINE_SESSION_CONNECT = 0,	/* name lookup and TCP connect (or
					   the ssh config's proxy command) */
	ENGINE_SESSION_KEX,	/* SSH's banners, key exchange, host key */
	ENGINE_SESSION_AUTH,	/* user authentication */
	ENGINE_SESSION_READY,	/* authenticated: the session is up */
	ENGINE_SESSION_FAILED	/* it did not come up: error and text say why */
};

/*
 * Called as each step begins (and at READY or FAILED), at that moment,
 * from inside the transport: it may only take note (a span), never call
 * into the engine. error and text are FAILED's (NP_OK and NULL else).
 */
typedef void (*engine_session_cb)(const struct machine *m,
    enum engine_session_step step, int error, const char *text, void *arg);

struct engine_options {
	int max_channels;	/* per SSH session; 0: default */
	int accept_new_host_keys; /* like OpenSSH StrictHostKeyChecking
				   accept-new: record unknown keys, never
				   accept a changed one */
	double connect_timeout_s; /* 0: the inventory's */
	size_t max_hosts;	/* hosts in flight at once (a session
				   connecting or open, spawned commands);
				   0: no bound. See "Hosts in flight" */
	const char *max_hosts_why; /* what sets it, for the note shown
				   when hosts wait ("the open-file limit
				   (64)"); NULL: "the limit" */
	engine_session_cb on_session;	/* optional observer */
	void *session_arg;
	int no_batch;		/* every command on its own: requests'
				   batch keys are not looked at */
};

/* A new engine on loop for inv's machines (inv must outlive it). */
int engine_new(uv_loop_t *loop, const struct inventory *inv,
    const struct engine_options *opts, struct engine **out);

/*
 * Queue req on machine m (one of inv's). Sessions open on first use and are
 * reused. *jobp (if not NULL) is valid until on_done has been called.
 *
 * Hosts in flight: with opts.max_hosts set, a host holds a slot from its
 * first job until it has no job or tunnel left (after the last on_done
 * returned; an on_done that submits the next job keeps it). A host without
 * a slot waits, its jobs held by the engine (no connect, no timer runs),
 * and gets one, in the order hosts came, when another host is done with:
 * that host's session is then closed to free its descriptors. A host with
 * nothing to do keeps its session while no one waits. Tunnels always get a
 * slot, past the bound if need be (their callers refuse up front an
 * inventory the bound cannot hold at once: runner_fd_room()).
 */
int engine_submit(struct engine *e, const struct machine *m,
    const struct engine_request *req, struct engine_job **jobp);

/* Stop a job: its remote process is killed; on_done gets NP_ERR_CANCELLED. */
void engine_cancel(struct engine_job *job);

/* Jobs queued or running. */
size_t engine_pending(const struct engine *e);

/*
 * Cancel every job and close every session and handle; closed_cb runs once
 * all of them are closed. Then engine_free().
 */
void engine_close(struct engine *e, void (*closed_cb)(struct engine *e,
    void *arg), void *arg);

/*
 * Free a closed engine (closed_cb has run). An engine that is not closed is
 * refused (logged, left allocated): its handles are still on the loop.
 */
void engine_free(struct engine *e);

/*
 * Tunnels: a TCP connection from machine m to host:port as m sees it (the
 * node API on 127.0.0.1 there), carried by a direct-tcpip channel of m's
 * existing SSH session: no new connection, no remote process.
 *
 * engine_tunnel_open() gives, at once, *fd: one end of a local stream
 * socket pair, usable right away (bytes written before the channel opens
 * wait in the pair; a session still connecting is waited for). The engine
 * relays between the other end and the channel until either side closes.
 * The caller owns *fd and ends the tunnel by closing it (libcurl's
 * CURLOPT_OPENSOCKETFUNCTION / CLOSESOCKETFUNCTION do exactly this).
 *
 * on_closed is called exactly once, on a later loop turn, when the tunnel
 * is gone: error NP_OK when the caller closed fd or the remote end closed
 * the connection; otherwise why the channel could not open or broke
 * (error_text names the host and the target), and fd then reads EOF.
 * engine_close() ends every tunnel (NP_ERR_CANCELLED).
 *
 * Only the ssh transport has tunnels: on the others this returns
 * NP_ERR_UNSUPPORTED at once and never calls on_closed.
 */
typedef void (*engine_tunnel_cb)(const struct machine *m, int error,
    const char *error_text, void *arg);

int engine_tunnel_open(struct engine *e, const struct machine *m,
    const char *host, int port, engine_tunnel_cb on_closed, void *arg,
    int *fd);

#endif
