/*
 * The ssh transport: one libssh session per host, opened on first use and
 * kept, with one channel per command, at most max_channels at a time (the
 * rest wait in the host's FIFO queue; OpenSSH's sshd allows MaxSessions,
 * 10, per connection). libssh runs non-blocking: a uv_poll watcher on the
 * session's socket calls host_step(), which advances the host's state
 * machine (connect, host key, auth) and then every channel's, over and
 * over until none moves, because any libssh call may read packets meant
 * for another channel. Output, EOF, exit status and close reach the job
 * through libssh's channel callbacks, whichever call read the packet, so
 * nothing can wait in a libssh buffer after the socket has gone quiet.
 * libssh is not thread safe; everything here runs on the loop's thread.
 * This file steps a host and is the ops table; sessions, channels and
 * tunnels have a file each (transport_ssh.h), which call nothing here: a
 * uv_poll callback of theirs steps its host through st->step.
 *
 * A command is stopped (timeout, cancel, close) with the "signal" channel
 * request: OpenSSH's sshd answers it with killpg() on the session's
 * process group, which is the remote shell and everything it started.
 * The channel is released only when the remote side reports the exit or
 * closes, so "stopped" means "gone" (see docs/engine.md).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "transport_ssh.h"
#include "util.h"

static void host_step(struct transport_ssh_host *h);

/* ------------------------------------------------------------------ */

/*
 * The session broke: jobs whose command may have started fail with the
 * reason, and every tunnel; jobs still opening their channel go back to
 * the queue, which gets one new session.
 */
static void
host_lost(struct transport_ssh_host *h)
{
	struct engine_job *j, *next;
	char reason[512];
	int n_requeued = 0;

	snprintf(reason, sizeof reason, "%s", h->session != NULL ?
	    ssh_get_error(h->session) : "");
	if (*reason == '\0')
		snprintf(reason, sizeof reason, "connection closed");
	log_debug(transport_ssh_host_name(h), "session lost: %s", reason);
	transport_ssh_tunnels_fail(h, NP_ERR_SESSION_LOST,
	    "%s: SSH session lost: %s",
	    transport_ssh_host_name(h), reason);
	for (j = TAILQ_LAST(&h->channels, job_list); j != NULL; j = next) {
		next = TAILQ_PREV(j, job_list, entry);
		if (j->state == JOB_OPENING && j->stop_error == 0) {
			transport_ssh_release_channel(h, j);
			j->state = JOB_QUEUED;
			TAILQ_INSERT_HEAD(&h->queue, j, entry);
			n_requeued++;
			continue;
		}
		transport_ssh_release_channel(h, j);
		if (j->stop_error != 0)
			engine_job_finish(j, j->stop_error, -1, "%s: %s (and the "
			    "SSH session was lost: %s)",
			    transport_ssh_host_name(h),
			    error_string(j->stop_error), reason);
		else
			engine_job_finish(j, NP_ERR_SESSION_LOST, -1, "%s: SSH "
			    "session lost while the command ran: %s",
			    transport_ssh_host_name(h), reason);
	}
	transport_ssh_host_teardown(h);
	if (TAILQ_EMPTY(&h->queue) || engine_closing(h->engine))
		return;
	if (h->reopened) {
		transport_ssh_fail_queue(h, NP_ERR_SESSION_LOST, reason);
		return;
	}
	h->reopened = 1;
	log_debug(transport_ssh_host_name(h),
	    "re-opening the session for %zu queued "
	    "commands", (size_t)n_requeued);
	if (transport_ssh_host_open(h) == 0)
		host_step(h);
}

static void
host_step(struct transport_ssh_host *h)
{
	struct engine *e = h->engine;
	int closing = engine_closing(e);
	struct engine_job *j, *next;
	int pass, moved, r;

	h->dirty = 0;
	if (h->state == HOST_IDLE) {
		if ((TAILQ_EMPTY(&h->queue) && TAILQ_EMPTY(&h->tunnels)) ||
		    closing)
			goto out;
		if (transport_ssh_host_open(h) != 0)
			goto out;
	}
	/* closing: a session still connecting is abandoned, not waited for */
	if (closing && h->state != HOST_READY)
		goto out;
	if ((r = transport_ssh_session_step(h)) <= 0) {
		if ((r = transport_ssh_host_update_poll(h)) != 0)
			transport_ssh_host_unwatchable(h, r);
		return;
	}
	for (pass = 0; pass < MAX_PASSES; pass++) {
		moved = 0;
		while (h->n_channels < (h->cap > 0 ? h->cap :
		    engine_options(e)->max_channels) &&
		    (j = TAILQ_FIRST(&h->queue)) != NULL) {
			TAILQ_REMOVE(&h->queue, j, entry);
			TAILQ_INSERT_TAIL(&h->channels, j, entry);
			h->n_channels++;
			j->state = JOB_OPENING;
			moved = 1;
		}
		h->activity = 0;
		for (j = TAILQ_FIRST(&h->channels); j != NULL; j = next) {
			next = TAILQ_NEXT(j, entry);
			if ((r = transport_ssh_channel_step(h, j)) < 0 ||
			    !ssh_is_connected(h->session)) {
				host_lost(h);
				return;
			}
			moved |= r;
		}
		if (transport_ssh_tunnels_step(h, &moved) < 0 ||
		    !ssh_is_connected(h->session)) {
			host_lost(h);
			return;
		}
		if (!moved && !h->activity)
			break;
	}
	if (pass == MAX_PASSES)
		log_debug(transport_ssh_host_name(h),
		    "step: still moving after %d passes", pass);
out:
	if (closing && h->n_channels == 0) {
		transport_ssh_host_teardown(h);
		if (h->timer_open && !uv_is_closing((uv_handle_t *)&h->timer))
			uv_close((uv_handle_t *)&h->timer,
			    transport_ssh_host_timer_closed_cb);
		return;
	}
	if ((r = transport_ssh_host_update_poll(h)) != 0)
		transport_ssh_host_unwatchable(h, r);
}

/* ------------------------------------------------------------------ */

static int
ssh_submit(void *state, struct engine_job *j)
{
	struct transport_ssh *st = state;
	struct transport_ssh_host *h;

	if ((h = transport_ssh_host_get(st, j->machine)) == NULL)
		return NP_ERR_NOMEM;
	j->t.ssh.host = h;
	j->state = JOB_QUEUED;
	TAILQ_INSERT_TAIL(&h->queue, j, entry);
	h->dirty = 1;
	engine_schedule(st->engine);
	return 0;
}

static void
ssh_stop(struct engine_job *j)
{
	struct transport_ssh_host *h = j->t.ssh.host;

	switch (j->state) {
	case JOB_QUEUED:
		TAILQ_REMOVE(&h->queue, j, entry);
		engine_job_finish(j, j->stop_error, -1, "%s: %s",
		    transport_ssh_host_name(h),
		    error_string(j->stop_error));
		return;
	case JOB_RUNNING:
	case JOB_WAIT_STATUS:
		transport_ssh_send_kill(h, j);
		break;
	default:
		/* opening or exec pending: channel_step acts on stop_error */
		break;
	}
	h->dirty = 1;
	engine_schedule(h->engine);
}

static void
ssh_timer(struct engine_job *j)
{
	struct transport_ssh_host *h = j->t.ssh.host;

	if (j->state == JOB_KILLING) {
		log_debug(transport_ssh_host_name(h),
		    "no exit reported %d ms after the "
		    "kill; closing the channel", KILL_GRACE_MS);
		transport_ssh_finish_stopped(h, j, -1);
	} else if (j->state != JOB_DONE && (j->stop_error == 0 ||
	    j->output_lost == 2)) {
		if (j->stop_error == 0) {	/* else its output passed the cap */
			j->stop_error = NP_ERR_TIMEOUT;
			log_debug(transport_ssh_host_name(h),
			    "command timed out after %g s", j->timeout_s);
		}
		ssh_stop(j);
		return;
	}
	h->dirty = 1;
	engine_schedule(h->engine);
}

static int
host_wants_step(const struct transport_ssh_host *h)
{
	return h != NULL && (h->dirty || (engine_closing(h->engine) &&
	    h->timer_open));
}

static int
ssh_pump(void *state)
{
	struct transport_ssh *st = state;
	size_t i;
	int busy = 0;

	for (i = 0; i < st->n_hosts; i++)
		if (host_wants_step(st->hosts[i]))
			host_step(st->hosts[i]);
	for (i = 0; i < st->n_hosts; i++)
		if (host_wants_step(st->hosts[i]))
			busy = 1;
	return busy;
}

/* Tunnels end now (cancelled); sessions close once their channels have. */
static void
ssh_close(void *state)
{
	struct transport_ssh *st = state;
	struct transport_ssh_tunnel *t;
	struct transport_ssh_host *h;
	size_t i;

	for (i = 0; i < st->n_hosts; i++) {
		if ((h = st->hosts[i]) == NULL)
			continue;
		while ((t = TAILQ_FIRST(&h->tunnels)) != NULL)
			transport_ssh_tunnel_end(t, NP_ERR_CANCELLED,
			    "%s: tunnel to %s:%d: "
			    "%s", transport_ssh_host_name(h), t->target_host,
			    t->target_port,
			    error_string(NP_ERR_CANCELLED));
		h->dirty = 1;
	}
	transport_ssh_resolve_close(st);
}

/* The engine gives m's slot to a waiting host: free its socket now. */
static void
ssh_release(void *state, const struct machine *m)
{
	struct transport_ssh *st = state;
	struct transport_ssh_host *h = st->hosts[m->index];

	if (h == NULL || h->session == NULL || h->n_channels > 0 ||
	    !TAILQ_EMPTY(&h->queue) || !TAILQ_EMPTY(&h->tunnels))
		return;
	transport_ssh_host_teardown(h);
	h->reopened = 0;
}

static int
ssh_closed(void *state)
{
	struct transport_ssh *st = state;
	size_t i;

	if (st->resolved_open)
		return 0;
	for (i = 0; i < st->n_hosts; i++)
		if (st->hosts[i] != NULL && (st->hosts[i]->session != NULL ||
		    st->hosts[i]->timer_open))
			return 0;
	return 1;
}

static int
ssh_new_state(struct engine *e, void **state)
{
	struct transport_ssh *st;
	size_t n = engine_inventory(e)->n_machines;

	if ((st = calloc(1, sizeof *st)) == NULL)
		return NP_ERR_NOMEM;
	st->engine = e;
	st->step = host_step;
	st->n_hosts = n;
	if (n > 0 && (st->hosts = calloc(n, sizeof *st->hosts)) == NULL) {
		free(st);
		return NP_ERR_NOMEM;
	}
	*state = st;
	return 0;
}

static int
ssh_tunnel_open(void *state, struct engine_tunnel *et, const char *host,
    int port, int *fdp)
{
	struct transport_ssh_host *h;

	if ((h = transport_ssh_host_get(state, et->machine)) == NULL)
		return NP_ERR_NOMEM;
	return transport_ssh_tunnel_open(h, et, host, port, fdp);
}

static void
ssh_free_state(void *state)
{
	struct transport_ssh *st = state;
	size_t i;

	for (i = 0; i < st->n_hosts; i++) {
		if (st->hosts[i] == NULL)
			continue;
		ssh_key_free(st->hosts[i]->key);
		if (st->hosts[i]->session != NULL)
			ssh_free(st->hosts[i]->session);
		if (st->hosts[i]->addrs != NULL)
			freeaddrinfo(st->hosts[i]->addrs);
		free(st->hosts[i]);
	}
	free(st->hosts);
	free(st);
}

const struct transport_ops transport_ssh_ops = {
	.name = "ssh",
	.new = ssh_new_state,
	.free = ssh_free_state,
	.submit = ssh_submit,
	.stop = ssh_stop,
	.timer = ssh_timer,
	.pump = ssh_pump,
	.close = ssh_close,
	.closed = ssh_closed,
	.release = ssh_release,
	.tunnel_open = ssh_tunnel_open,
};

