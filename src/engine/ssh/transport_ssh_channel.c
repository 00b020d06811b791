/*
 * The ssh transport's channels: one job's channel from open to exit
 * status (open, exec, stdin, output through libssh's callbacks, EOF, exit
 * status), and its stop: the "signal" request with KILL, which OpenSSH's
 * sshd answers with killpg() on the session's process group; the channel
 * is released only when the host reports the exit or closes it.
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

/* A new channel whose events libssh reports to cb (userdata: arg). */
struct transport_ssh_chan *
transport_ssh_chan_new(struct transport_ssh_host *h,
    ssh_channel_data_callback data_cb,
    ssh_channel_eof_callback event_cb,
    ssh_channel_exit_status_callback status_cb, void *arg)
{
	struct transport_ssh_chan *c;

	if ((c = calloc(1, sizeof *c)) == NULL)
		return NULL;
	if ((c->channel = ssh_channel_new(h->session)) == NULL) {
		free(c);
		return NULL;
	}
	ssh_callbacks_init(&c->callbacks);
	c->callbacks.userdata = arg;
	c->callbacks.channel_data_function = data_cb;
	c->callbacks.channel_eof_function = event_cb;
	c->callbacks.channel_close_function = event_cb;
	c->callbacks.channel_exit_status_function = status_cb;
	ssh_set_channel_callbacks(c->channel, &c->callbacks);
	return c;
}

void
transport_ssh_chan_free(struct transport_ssh_host *h,
    struct transport_ssh_chan *c)
{
	if (c == NULL)
		return;
	/* a close for a channel the server never opened ends the whole
	   connection (OpenSSH disconnects) */
	if (h->session != NULL && ssh_is_connected(h->session) &&
	    ssh_channel_is_open(c->channel))
		ssh_channel_close(c->channel);
	/* libssh keeps a channel until the server's close arrives and would
	   call back into its owner after it is freed */
	ssh_remove_channel_callbacks(c->channel, &c->callbacks);
	ssh_channel_free(c->channel);
	free(c);
	log_debug(transport_ssh_host_name(h), "channel closed");
}

void
transport_ssh_release_channel(struct transport_ssh_host *h,
    struct engine_job *j)
{
	TAILQ_REMOVE(&h->channels, j, entry);
	h->n_channels--;
	if (j->state != JOB_OPENING)
		h->cap = 0;	/* one ended: try the full number again */
	transport_ssh_chan_free(h, j->t.ssh.chan);
	j->t.ssh.chan = NULL;
}

/* ------------------------------------------------------------------ */

void
transport_ssh_finish_stopped(struct transport_ssh_host *h, struct engine_job *j,
    int status)
{
	transport_ssh_release_channel(h, j);
	if (j->stop_error == NP_ERR_TIMEOUT)
		engine_job_finish(j, NP_ERR_TIMEOUT, status, "%s: command timed "
		    "out after %g s; the remote process group was killed",
		    transport_ssh_host_name(h), j->timeout_s);
	else
		engine_job_finish(j, j->stop_error, status, "%s: %s",
		    transport_ssh_host_name(h), error_string(j->stop_error));
}

void
transport_ssh_send_kill(struct transport_ssh_host *h, struct engine_job *j)
{
	log_debug(transport_ssh_host_name(h),
	    "sending signal KILL to the command");
	ssh_channel_request_send_signal(j->t.ssh.chan->channel, "KILL");
	if (!j->t.ssh.chan->eof_sent) {
		ssh_channel_send_eof(j->t.ssh.chan->channel);
		j->t.ssh.chan->eof_sent = 1;
	}
	j->state = JOB_KILLING;
	engine_job_timer(j, KILL_GRACE_MS);
}

/* libssh read output for j (during any call): hand it over whole. */
static int
channel_data_cb(ssh_session session, ssh_channel channel, void *data,
    uint32_t len, int is_stderr, void *userdata)
{
	struct engine_job *j = userdata;

	engine_job_output(j, is_stderr ? 2 : 1, data, len);
	j->t.ssh.host->activity = 1;
	return (int)len;
}

/* EOF, exit status or close arrived for j: its state machine must look. */
static void
channel_event_cb(ssh_session session, ssh_channel channel, void *userdata)
{
	struct engine_job *j = userdata;

	j->t.ssh.host->activity = 1;
}

static void
channel_status_cb(ssh_session session, ssh_channel channel, int status,
    void *userdata)
{
	channel_event_cb(session, channel, userdata);
}

/*
 * Let libssh read what has arrived; the callbacks take it. -1 on error.
 * (ssh_channel_poll reads packets only while the channel's buffer is
 * empty, which the data callback keeps it.)
 */
int
transport_ssh_chan_read(struct transport_ssh_chan *c)
{
	int n = ssh_channel_poll(c->channel, 0);

	return n == SSH_ERROR ? -1 : 0;
}

/*
 * Send buf[*off..len) as the remote window allows, then EOF if eof and all
 * of it is sent. 1 if something moved, 0 if not, -1 on error.
 */
int
transport_ssh_chan_write(struct transport_ssh_chan *c, const char *buf,
    size_t *off, size_t len,
    int eof)
{
	int moved = 0, n;
	uint32_t window;
	size_t part;

	while (*off < len) {
		window = ssh_channel_window_size(c->channel);
		if (window == 0)
			break;
		part = len - *off;
		if (part > window)
			part = window;
		if (part > WRITE_CHUNK)
			part = WRITE_CHUNK;
		n = ssh_channel_write(c->channel, buf + *off, (uint32_t)part);
		if (n < 0)
			return TRANSPORT_SSH_STEP_FAILED;
		if (n == 0)
			break;
		*off += (size_t)n;
		moved = 1;
	}
	if (eof && *off == len && !c->eof_sent) {
		if (ssh_channel_send_eof(c->channel) == SSH_ERROR)
			return TRANSPORT_SSH_STEP_FAILED;
		c->eof_sent = 1;
		moved = 1;
	}
	return moved;
}

/* Advance one channel; 1 if it moved, 0 if it waits, -1 on error. */
int
transport_ssh_channel_step(struct transport_ssh_host *h, struct engine_job *j)
{
	struct transport_ssh_chan *c = j->t.ssh.chan;
	int r, status, w;

	switch (j->state) {
	case JOB_OPENING:
		if (c == NULL && (c = j->t.ssh.chan = transport_ssh_chan_new(h,
		    channel_data_cb, channel_event_cb, channel_status_cb,
		    j)) == NULL)
			return TRANSPORT_SSH_STEP_FAILED;
		r = ssh_channel_open_session(c->channel);
		if (r == SSH_AGAIN)
			return 0;
		if (r != SSH_OK) {
			if (!ssh_is_connected(h->session))
				return TRANSPORT_SSH_STEP_FAILED;
			transport_ssh_release_channel(h, j);
			if (h->n_channels > 0 && j->stop_error == 0) {
				/*
				 * sshd frees a closed channel's session only
				 * after its current batch of packets, so it
				 * may still count one we closed against
				 * MaxSessions: wait for a channel to end.
				 */
				log_debug(transport_ssh_host_name(h),
				    "channel refused with "
				    "%d open; waiting for one to end",
				    h->n_channels);
				h->cap = h->n_channels;
				j->state = JOB_QUEUED;
				TAILQ_INSERT_HEAD(&h->queue, j, entry);
				return 1;
			}
			engine_job_finish(j, NP_ERR_CHANNEL, -1, "%s: could not "
			    "open a channel: %s", transport_ssh_host_name(h),
			    ssh_get_error(h->session));
			return 1;
		}
		log_debug(transport_ssh_host_name(h), "channel open");
		if (j->stop_error != 0) {
			transport_ssh_finish_stopped(h, j, -1);
			return 1;
		}
		j->state = JOB_EXEC;
		/* FALLTHROUGH */
	case JOB_EXEC:
		/* refused as the open above, but a refused exec is final:
		   no MaxSessions count to wait out */
		r = ssh_channel_request_exec(c->channel, j->command);
		if (r == SSH_AGAIN)
			return 0;
		if (r != SSH_OK) {
			if (!ssh_is_connected(h->session))
				return TRANSPORT_SSH_STEP_FAILED;
			transport_ssh_release_channel(h, j);
			engine_job_finish(j, NP_ERR_CHANNEL, -1, "%s: the exec "
			    "request was refused: %s",
			    transport_ssh_host_name(h),
			    ssh_get_error(h->session));
			return 1;
		}
		log_debug(transport_ssh_host_name(h), "exec: %s", j->command);
		j->state = JOB_RUNNING;
		engine_job_started(j);
		if (j->stop_error != 0) {
			transport_ssh_send_kill(h, j);
			return 1;
		}
		/* FALLTHROUGH */
	case JOB_RUNNING:
		if ((w = transport_ssh_chan_write(c, j->input, &j->input_off,
		    j->input_len,
		    1)) < 0 || (r = transport_ssh_chan_read(c)) < 0)
			return TRANSPORT_SSH_STEP_FAILED;
		if (!ssh_channel_is_eof(c->channel) &&
		    !ssh_channel_is_closed(c->channel))
			return w || r;
		log_debug(transport_ssh_host_name(h), "eof");
		j->state = JOB_WAIT_STATUS;
		/* FALLTHROUGH */
	case JOB_WAIT_STATUS:
		status = ssh_channel_get_exit_status(c->channel);
		if (status == -1 && !ssh_channel_is_closed(c->channel)) {
			if (!ssh_is_connected(h->session))
				return TRANSPORT_SSH_STEP_FAILED;
			return 0;
		}
		log_debug(transport_ssh_host_name(h), "exit status %d", status);
		transport_ssh_release_channel(h, j);
		engine_job_finish(j, NP_OK, status, NULL);
		return 1;
	case JOB_KILLING:
		if (transport_ssh_chan_read(c) < 0)
			return TRANSPORT_SSH_STEP_FAILED;
		status = ssh_channel_get_exit_status(c->channel);
		if (status == -1 && !ssh_channel_is_closed(c->channel)) {
			if (!ssh_is_connected(h->session))
				return TRANSPORT_SSH_STEP_FAILED;
			return 0;
		}
		log_debug(transport_ssh_host_name(h), "killed command ended");
		transport_ssh_finish_stopped(h, j, status);
		return 1;
	default:
		return 0;
	}
}

