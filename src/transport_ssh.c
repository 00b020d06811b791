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
 * nothing can wait in a libssh buffer after the socket has gone quiet. libssh is not thread safe; everything here runs on
 * the loop's thread.
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

#include <libssh/libssh.h>
#include <libssh/callbacks.h>

#include "error.h"
#include "log.h"
#include "transport.h"

#define KILL_GRACE_MS 3000	/* wait this long for a killed command */
#define MAX_PASSES 64		/* bound of one host_step's loop */
#define WRITE_CHUNK 32768
#define TUNNEL_BUF (256 * 1024)	/* read no more from the caller's end */

enum host_state {
	HOST_IDLE = 0,		/* no session */
	HOST_CONNECTING,	/* TCP, key exchange */
	HOST_AUTH,		/* user authentication */
	HOST_READY
};

enum auth_step {
	AUTH_AGENT = 0,
	AUTH_KEY,
	AUTH_AUTO,
	AUTH_FAILED
};

/* A channel of a session, with the callbacks libssh calls for it. */
struct ssh_chan {
	ssh_channel channel;
	struct ssh_channel_callbacks_struct callbacks;
	int eof_sent;
};

enum tunnel_state {
	TUN_WAIT = 0,		/* for the session */
	TUN_OPENING,		/* direct-tcpip open requested */
	TUN_OPEN		/* relaying */
};

/*
 * A tunnel: the direct-tcpip channel and our end of the socket pair, with
 * what each side has sent and the other has not taken yet.
 */
struct ssh_tunnel {
	TAILQ_ENTRY(ssh_tunnel) entry;	/* the host's tunnels */
	struct engine_tunnel *et;	/* NULL once ended */
	struct ssh_host *host;
	enum tunnel_state state;
	char *target_host;
	int target_port;
	struct ssh_chan *chan;
	int fd;				/* our end of the pair */
	uv_poll_t poll;
	int poll_events;
	struct buf up;		/* from fd, for the channel */
	size_t up_off;
	struct buf down;		/* from the channel, for fd */
	size_t down_off;
	int local_eof, caller_closed, remote_eof;
};

TAILQ_HEAD(tunnel_queue, ssh_tunnel);

struct ssh_host {
	struct engine *engine;
	const struct machine *machine;
	enum host_state state;
	ssh_session session;
	uv_poll_t *poll;
	int poll_events;
	uv_timer_t timer;	/* connect timeout */
	int timer_open;
	struct job_list queue;	/* waiting for a channel */
	struct job_list channels;	/* jobs with a channel */
	int n_channels;
	struct tunnel_queue tunnels;
	int cap;		/* lower limit after a refusal; 0: none */
	int reopened;		/* re-opened after a loss, not yet ready */
	enum auth_step auth;
	ssh_key key;
	int agent_tried;
	int dirty;
	int activity;		/* a channel callback ran during this step */
	char hostname[256];	/* the host connected to (after HostName) */
	char target[300];	/* host:port as connected to */
	char kh_host[310];	/* its name in known_hosts: host or [host]:port */
	char scan_args[320];	/* ssh-keyscan's arguments for it */
	char proxy[600];	/* ProxyCommand (or ProxyJump's), or "" */
};

/* The transport's state: hosts by machine index, NULL until used. */
struct ssh_transport {
	struct engine *engine;
	struct ssh_host **hosts;
	size_t n_hosts;
};

static void host_step(struct ssh_host *h);
static void host_teardown(struct ssh_host *h);
static void tunnels_fail(struct ssh_host *h, int error, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ */

static void
host_timer_closed_cb(uv_handle_t *hd)
{
	struct ssh_host *h = hd->data;

	h->timer_open = 0;
	engine_handle_closed(h->engine);
}

static struct ssh_host *
host_get(struct ssh_transport *st, const struct machine *m)
{
	struct engine *e = st->engine;
	struct ssh_host *h = st->hosts[m->index];

	if (h != NULL)
		return h;
	if ((h = calloc(1, sizeof *h)) == NULL)
		return NULL;
	h->engine = e;
	h->machine = m;
	TAILQ_INIT(&h->queue);
	TAILQ_INIT(&h->channels);
	TAILQ_INIT(&h->tunnels);
	uv_timer_init(engine_loop(e), &h->timer);
	h->timer.data = h;
	h->timer_open = 1;
	engine_handle_opened(e);
	st->hosts[m->index] = h;
	return h;
}

static const char *
host_name(const struct ssh_host *h)
{
	return h->machine->name;
}

/* Fail every queued job with the same reason. */
static void
fail_queue(struct ssh_host *h, int error, const char *text)
{
	struct engine_job *j;

	while ((j = TAILQ_FIRST(&h->queue)) != NULL) {
		TAILQ_REMOVE(&h->queue, j, entry);
		engine_job_finish(j, error, -1, "%s", text);
	}
}

/* A new channel whose events libssh reports to cb (userdata: arg). */
static struct ssh_chan *
chan_new(struct ssh_host *h, ssh_channel_data_callback data_cb,
    ssh_channel_eof_callback event_cb,
    ssh_channel_exit_status_callback status_cb, void *arg)
{
	struct ssh_chan *c;

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

static void
chan_free(struct ssh_host *h, struct ssh_chan *c)
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
	log_debug(host_name(h), "channel closed");
}

static void
release_channel(struct ssh_host *h, struct engine_job *j)
{
	TAILQ_REMOVE(&h->channels, j, entry);
	h->n_channels--;
	if (j->state != JOB_OPENING)
		h->cap = 0;	/* one ended: try the full number again */
	chan_free(h, j->t.ssh.chan);
	j->t.ssh.chan = NULL;
}

/* The host could not be reached or refused us: every queued job fails. */
static void
host_fail(struct ssh_host *h, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
host_fail(struct ssh_host *h, int error, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = str_vprintf(fmt, ap);
	va_end(ap);
	if (text == NULL)
		text = strdup(host_name(h));
	log_debug(host_name(h), "session failed: %s", text);
	tunnels_fail(h, error, "%s", text);
	host_teardown(h);
	fail_queue(h, error, text);
	free(text);
}

/* ------------------------------------------------------------------ */

static void
poll_closed_cb(uv_handle_t *hd)
{
	struct engine *e = hd->data;

	free(hd);
	engine_handle_closed(e);
}

static void
host_teardown(struct ssh_host *h)
{
	struct engine_job *j;

	uv_timer_stop(&h->timer);
	while ((j = TAILQ_FIRST(&h->channels)) != NULL)
		release_channel(h, j);
	if (h->poll != NULL) {
		uv_poll_stop(h->poll);
		h->poll->data = h->engine;
		uv_close((uv_handle_t *)h->poll, poll_closed_cb);
		h->poll = NULL;
		h->poll_events = 0;
	}
	if (h->session != NULL) {
		if (ssh_is_connected(h->session))
			ssh_disconnect(h->session);
		ssh_free(h->session);
		h->session = NULL;
		log_debug(host_name(h), "session closed");
	}
	ssh_key_free(h->key);
	h->key = NULL;
	h->state = HOST_IDLE;
}

static void
poll_cb(uv_poll_t *p, int status, int events)
{
	(void)status;
	(void)events;
	host_step(p->data);
}

/* Watch the socket for what libssh waits for. */
static void
host_update_poll(struct ssh_host *h)
{
	struct engine *e = h->engine;
	int events = 0, fd;

	if (h->session == NULL)
		return;
	if (h->poll == NULL) {
		if ((fd = ssh_get_fd(h->session)) < 0)
			return;
		if ((h->poll = malloc(sizeof *h->poll)) == NULL)
			return;
		if (uv_poll_init(engine_loop(e), h->poll, fd) != 0) {
			free(h->poll);
			h->poll = NULL;
			return;
		}
		h->poll->data = h;
		engine_handle_opened(e);
	}
	/*
	 * An idle, ready session is not watched: nothing would read what
	 * arrives, and a level-triggered watcher would spin. A loss is
	 * found when the next channel is opened.
	 */
	if (h->state != HOST_READY || h->n_channels > 0 ||
	    !TAILQ_EMPTY(&h->tunnels)) {
		events = UV_READABLE;
		if (ssh_get_poll_flags(h->session) & SSH_WRITE_PENDING)
			events |= UV_WRITABLE;
	}
	if (events == h->poll_events)
		return;
	log_debug(host_name(h), "poll events %d -> %d", h->poll_events,
	    events);
	h->poll_events = events;
	if (events == 0)
		uv_poll_stop(h->poll);
	else
		uv_poll_start(h->poll, events, poll_cb);
}

/*
 * What a connect error adds when the ssh config routes the connection
 * through a command (ProxyCommand, or ProxyJump, which libssh 0.10 runs as
 * OpenSSH's "ssh -W"): libssh sends that command's stderr to /dev/null, so
 * its own reason is lost and only a closed socket remains.
 */
static const char *
proxy_note(const struct ssh_host *h, char *buf, size_t size)
{
	if (h->proxy[0] == '\0')
		return "";
	snprintf(buf, size, "; the connection goes through the command \"%s\" "
	    "(ProxyCommand or ProxyJump of the ssh config), whose error "
	    "messages are discarded: run it by hand to see them (for ProxyJump "
	    "it is OpenSSH's ssh, which reads ~/.ssh/config and "
	    "~/.ssh/known_hosts, not the inventory's files; a ProxyCommand "
	    "\"ssh -F FILE -W [%%h]:%%p JUMPHOST\" can use the same ssh config)",
	    h->proxy);
	return buf;
}

static void
connect_timer_cb(uv_timer_t *t)
{
	struct ssh_host *h = t->data;
	char note[1024];

	host_fail(h, NP_ERR_CONNECT, "%s: could not connect: %s: timed out "
	    "after %g s (connect_timeout_seconds)%s", host_name(h), h->target,
	    engine_options(h->engine)->connect_timeout_s, proxy_note(h, note, sizeof note));
}

/* The ProxyCommand as it will run: %h, %p and %% replaced. */
static void
proxy_expand(struct ssh_host *h, const char *cmd, const char *host,
    unsigned int port)
{
	size_t n = 0, size = sizeof h->proxy;
	const char *p;
	int w;

	h->proxy[0] = '\0';
	for (p = cmd; *p != '\0' && n + 1 < size; p++) {
		w = 0;
		if (p[0] == '%' && p[1] == 'h') {
			w = snprintf(h->proxy + n, size - n, "%s", host);
			p++;
		} else if (p[0] == '%' && p[1] == 'p') {
			w = snprintf(h->proxy + n, size - n, "%u", port);
			p++;
		} else {
			if (p[0] == '%' && p[1] == '%')
				p++;
			h->proxy[n] = *p;
			h->proxy[n + 1] = '\0';
			w = 1;
		}
		if (w < 0 || (size_t)w >= size - n)
			break;
		n += (size_t)w;
	}
}

/* target, kh_host, scan_args and proxy, from the session's final options. */
static void
host_names(struct ssh_host *h)
{
	char *host = NULL, *proxy = NULL;
	unsigned int port = 22;

	ssh_options_get_port(h->session, &port);
	if (ssh_options_get(h->session, SSH_OPTIONS_HOST, &host) != SSH_OK)
		return;
	snprintf(h->hostname, sizeof h->hostname, "%s", host);
	snprintf(h->target, sizeof h->target, "%s:%u", host, port);
	if (port == 22) {
		snprintf(h->kh_host, sizeof h->kh_host, "%s", host);
		snprintf(h->scan_args, sizeof h->scan_args, "%s", host);
	} else {
		snprintf(h->kh_host, sizeof h->kh_host, "'[%s]:%u'", host,
		    port);
		snprintf(h->scan_args, sizeof h->scan_args, "-p %u %s", port,
		    host);
	}
	h->proxy[0] = '\0';
	if (ssh_options_get(h->session, SSH_OPTIONS_PROXYCOMMAND, &proxy) ==
	    SSH_OK) {
		if (strcmp(proxy, "none") != 0)
			proxy_expand(h, proxy, host, port);
		ssh_string_free_char(proxy);
	}
	ssh_string_free_char(host);
}

static int
file_exists(const char *path)
{
	struct stat st;

	return path != NULL && stat(path, &st) == 0;
}

/* A new session with the options of the machine, its ssh config, and ours. */
static int
host_open(struct ssh_host *h)
{
	const struct inventory *inv = engine_inventory(h->engine);
	const struct machine *m = h->machine;
	ssh_session s;
	unsigned int port = 22;
	long timeout = (long)engine_options(h->engine)->connect_timeout_s;
	int verbosity = log_get_level() >= LOG_TRACE ? SSH_LOG_PROTOCOL :
	    SSH_LOG_NOLOG, nodelay = 1;
	int process_config = 0;

	if ((s = ssh_new()) == NULL)
		return NP_ERR_NOMEM;
	ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY, &verbosity);
	ssh_options_set(s, SSH_OPTIONS_HOST, m->ssh_host);
	/* config first: Host blocks match the alias; explicit values win */
	if (inv->ssh_config_file != NULL && file_exists(inv->ssh_config_file) &&
	    ssh_options_parse_config(s, inv->ssh_config_file) != 0) {
		host_fail(h, NP_ERR_INVENTORY, "%s: could not read ssh config "
		    "%s: %s", m->name, inv->ssh_config_file, ssh_get_error(s));
		ssh_free(s);
		return NP_ERR_INVENTORY;
	}
	ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &process_config);
	if (m->user != NULL)
		ssh_options_set(s, SSH_OPTIONS_USER, m->user);
	if (m->port > 0) {
		port = (unsigned int)m->port;
		ssh_options_set(s, SSH_OPTIONS_PORT, &port);
	}
	if (inv->known_hosts_file != NULL)
		ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, inv->known_hosts_file);
	ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
	ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);
	ssh_options_set(s, SSH_OPTIONS_NODELAY, &nodelay);
	ssh_set_blocking(s, 0);
	h->session = s;
	host_names(h);
	h->state = HOST_CONNECTING;
	h->auth = getenv("SSH_AUTH_SOCK") != NULL ? AUTH_AGENT :
	    m->identity_file != NULL ? AUTH_KEY : AUTH_AUTO;
	h->agent_tried = 0;
	uv_timer_start(&h->timer, connect_timer_cb,
	    (uint64_t)(engine_options(h->engine)->connect_timeout_s * 1000), 0);
	log_debug(m->name, "connecting to %s", h->target);
	return 0;
}

/* ------------------------------------------------------------------ */

static void
fingerprint(ssh_session s, char *buf, size_t size)
{
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hlen = 0;
	char *fp = NULL;

	snprintf(buf, size, "unknown key");
	if (ssh_get_server_publickey(s, &key) != SSH_OK)
		return;
	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash,
	    &hlen) == 0 &&
	    (fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash,
	    hlen)) != NULL)
		snprintf(buf, size, "%s key %s", ssh_key_type_to_char(
		    ssh_key_type(key)), fp);
	ssh_string_free_char(fp);
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
}

/* known_hosts, as OpenSSH's StrictHostKeyChecking yes or accept-new. */
static int
check_host_key(struct ssh_host *h)
{
	const char *kh = engine_inventory(h->engine)->known_hosts_file;
	const char *name = host_name(h), *host = h->hostname;
	char fp[200];

	if (kh == NULL)
		kh = "~/.ssh/known_hosts";
	fingerprint(h->session, fp, sizeof fp);
	switch (ssh_session_is_known_server(h->session)) {
	case SSH_KNOWN_HOSTS_OK:
		log_debug(name, "host key ok (%s)", fp);
		return 0;
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		host_fail(h, NP_ERR_HOSTKEY_CHANGED, "%s (%s): WARNING: REMOTE "
		    "HOST KEY HAS CHANGED: it sent %s, which is not the key "
		    "recorded in %s; someone may be intercepting the "
		    "connection, or the host was reinstalled; if this is "
		    "expected, remove the old key with ssh-keygen -R %s -f %s "
		    "and connect again", name, host, fp, kh, h->kh_host, kh);
		return NP_ERR_HOSTKEY_CHANGED;
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		if (!engine_options(h->engine)->accept_new_host_keys) {
			host_fail(h, NP_ERR_HOSTKEY_UNKNOWN, "%s (%s): host key "
			    "is not in %s (%s); verify it and add it "
			    "(ssh-keyscan %s >> %s) or run with "
			    "--accept-new-host-keys", name, host, kh, fp,
			    h->scan_args, kh);
			return NP_ERR_HOSTKEY_UNKNOWN;
		}
		if (ssh_session_update_known_hosts(h->session) != SSH_OK) {
			host_fail(h, NP_ERR_HOSTKEY_UNKNOWN, "%s (%s): could "
			    "not add the host key to %s: %s", name, host, kh,
			    ssh_get_error(h->session));
			return NP_ERR_HOSTKEY_UNKNOWN;
		}
		log_info("%s (%s): new host key recorded in %s: %s", name,
		    host, kh, fp);
		return 0;
	default:
		host_fail(h, NP_ERR_HOSTKEY_UNKNOWN, "%s (%s): could not check "
		    "the host key against %s: %s", name, host, kh,
		    ssh_get_error(h->session));
		return NP_ERR_HOSTKEY_UNKNOWN;
	}
}

static void
auth_failed(struct ssh_host *h)
{
	const struct machine *m = h->machine;
	char *user = NULL, tried[600] = "";

	ssh_options_get(h->session, SSH_OPTIONS_USER, &user);
	if (m->identity_file != NULL)
		snprintf(tried, sizeof tried, "identity_file %s%s",
		    m->identity_file, h->agent_tried ? ", agent" : "");
	else if (getenv("SSH_AUTH_SOCK") == NULL)
		snprintf(tried, sizeof tried, "the keys of the ssh config or "
		    "~/.ssh; no ssh-agent: SSH_AUTH_SOCK is not set");
	else
		snprintf(tried, sizeof tried, "agent and the keys of the ssh "
		    "config or ~/.ssh");
	host_fail(h, NP_ERR_AUTH, "%s: authentication failed for user %s: no "
	    "key accepted (tried %s); check identity_file or the remote "
	    "authorized_keys", m->name, user != NULL ? user : "?", tried);
	ssh_string_free_char(user);
}

/*
 * What one libssh auth call said: SSH_AGAIN (in progress), SSH_OK, SSH_ERROR
 * (the connection broke), or 1: this method failed, move on to next.
 */
static int
auth_result(struct ssh_host *h, int r, enum auth_step next)
{
	if (r == SSH_AUTH_AGAIN)
		return SSH_AGAIN;
	if (r == SSH_AUTH_SUCCESS)
		return SSH_OK;
	if (r == SSH_AUTH_ERROR && !ssh_is_connected(h->session))
		return SSH_ERROR;
	h->auth = next;
	return 1;
}

/* Public keys only, never a prompt: agent, then identity_file. */
static int
auth_step(struct ssh_host *h)
{
	const struct machine *m = h->machine;
	int r;

	for (;;) {
		switch (h->auth) {
		case AUTH_AGENT:
			h->agent_tried = 1;
			r = auth_result(h, ssh_userauth_agent(h->session, NULL),
			    m->identity_file != NULL ? AUTH_KEY : AUTH_AUTO);
			break;
		case AUTH_KEY:
			if (h->key == NULL && ssh_pki_import_privkey_file(
			    m->identity_file, NULL, NULL, NULL, &h->key) !=
			    SSH_OK) {
				log_warn("%s: could not read identity_file %s "
				    "(missing, or protected by a passphrase: "
				    "use ssh-agent)", m->name,
				    m->identity_file);
				h->auth = AUTH_FAILED;
				continue;
			}
			r = auth_result(h, ssh_userauth_publickey(h->session,
			    NULL, h->key), AUTH_FAILED);
			break;
		case AUTH_AUTO:
			r = auth_result(h, ssh_userauth_publickey_auto(
			    h->session, NULL, NULL), AUTH_FAILED);
			break;
		case AUTH_FAILED:
		default:
			auth_failed(h);
			return NP_ERR_AUTH;
		}
		if (r != 1)
			return r;
	}
}

/* Connect, check the host key, authenticate. 1 when ready. */
static int
session_step(struct ssh_host *h)
{
	char note[1024];
	int r;

	if (h->state == HOST_CONNECTING) {
		r = ssh_connect(h->session);
		if (r == SSH_AGAIN)
			return 0;
		if (r != SSH_OK) {
			host_fail(h, NP_ERR_CONNECT, "%s: could not connect: "
			    "%s: %s%s", host_name(h), h->target,
			    ssh_get_error(h->session),
			    proxy_note(h, note, sizeof note));
			return -1;
		}
		log_debug(host_name(h), "connected to %s, %s", h->target,
		    ssh_get_serverbanner(h->session));
		if (check_host_key(h) != 0)
			return -1;
		h->state = HOST_AUTH;
	}
	if (h->state == HOST_AUTH) {
		r = auth_step(h);
		if (r == SSH_AGAIN)
			return 0;
		if (r == SSH_ERROR) {
			host_fail(h, NP_ERR_CONNECT, "%s: could not connect: "
			    "%s: connection lost during authentication: %s",
			    host_name(h), h->target,
			    ssh_get_error(h->session));
			return -1;
		}
		if (r != SSH_OK)
			return -1;
		uv_timer_stop(&h->timer);
		h->state = HOST_READY;
		h->reopened = 0;
		log_debug(host_name(h), "authenticated");
	}
	return h->state == HOST_READY;
}

/* ------------------------------------------------------------------ */

static void
finish_stopped(struct ssh_host *h, struct engine_job *j, int status)
{
	release_channel(h, j);
	if (j->stop_error == NP_ERR_TIMEOUT)
		engine_job_finish(j, NP_ERR_TIMEOUT, status, "%s: command timed "
		    "out after %g s; the remote process group was killed",
		    host_name(h), j->timeout_s);
	else
		engine_job_finish(j, j->stop_error, status, "%s: %s",
		    host_name(h), error_string(j->stop_error));
}

static void
send_kill(struct ssh_host *h, struct engine_job *j)
{
	log_debug(host_name(h), "sending signal KILL to the command");
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
static int
chan_read(struct ssh_chan *c)
{
	int n = ssh_channel_poll(c->channel, 0);

	return n == SSH_ERROR ? -1 : 0;
}

/*
 * Send buf[*off..len) as the remote window allows, then EOF if eof and all
 * of it is sent. 1 if something moved, 0 if not, -1 on error.
 */
static int
chan_write(struct ssh_chan *c, const char *buf, size_t *off, size_t len,
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
			return -1;
		if (n == 0)
			break;
		*off += (size_t)n;
		moved = 1;
	}
	if (eof && *off == len && !c->eof_sent) {
		if (ssh_channel_send_eof(c->channel) == SSH_ERROR)
			return -1;
		c->eof_sent = 1;
		moved = 1;
	}
	return moved;
}

/* Advance one channel; 1 if it moved, 0 if it waits, -1 on error. */
static int
channel_step(struct ssh_host *h, struct engine_job *j)
{
	struct ssh_chan *c = j->t.ssh.chan;
	int r, status, w;

	switch (j->state) {
	case JOB_OPENING:
		if (c == NULL && (c = j->t.ssh.chan = chan_new(h,
		    channel_data_cb, channel_event_cb, channel_status_cb,
		    j)) == NULL)
			return -1;
		r = ssh_channel_open_session(c->channel);
		if (r == SSH_AGAIN)
			return 0;
		if (r != SSH_OK) {
			if (!ssh_is_connected(h->session))
				return -1;
			release_channel(h, j);
			if (h->n_channels > 0 && j->stop_error == 0) {
				/*
				 * sshd frees a closed channel's session only
				 * after its current batch of packets, so it
				 * may still count one we closed against
				 * MaxSessions: wait for a channel to end.
				 */
				log_debug(host_name(h), "channel refused with "
				    "%d open; waiting for one to end",
				    h->n_channels);
				h->cap = h->n_channels;
				j->state = JOB_QUEUED;
				TAILQ_INSERT_HEAD(&h->queue, j, entry);
				return 1;
			}
			engine_job_finish(j, NP_ERR_CHANNEL, -1, "%s: could not "
			    "open a channel: %s", host_name(h),
			    ssh_get_error(h->session));
			return 1;
		}
		log_debug(host_name(h), "channel open");
		if (j->stop_error != 0) {
			finish_stopped(h, j, -1);
			return 1;
		}
		j->state = JOB_EXEC;
		/* FALLTHROUGH */
	case JOB_EXEC:
		r = ssh_channel_request_exec(c->channel, j->command);
		if (r == SSH_AGAIN)
			return 0;
		if (r != SSH_OK) {
			if (!ssh_is_connected(h->session))
				return -1;
			release_channel(h, j);
			engine_job_finish(j, NP_ERR_CHANNEL, -1, "%s: the exec "
			    "request was refused: %s", host_name(h),
			    ssh_get_error(h->session));
			return 1;
		}
		log_debug(host_name(h), "exec: %s", j->command);
		j->state = JOB_RUNNING;
		engine_job_started(j);
		if (j->stop_error != 0) {
			send_kill(h, j);
			return 1;
		}
		/* FALLTHROUGH */
	case JOB_RUNNING:
		if ((w = chan_write(c, j->input, &j->input_off, j->input_len,
		    1)) < 0 || (r = chan_read(c)) < 0)
			return -1;
		if (!ssh_channel_is_eof(c->channel) &&
		    !ssh_channel_is_closed(c->channel))
			return w || r;
		log_debug(host_name(h), "eof");
		j->state = JOB_WAIT_STATUS;
		/* FALLTHROUGH */
	case JOB_WAIT_STATUS:
		status = ssh_channel_get_exit_status(c->channel);
		if (status == -1 && !ssh_channel_is_closed(c->channel)) {
			if (!ssh_is_connected(h->session))
				return -1;
			return 0;
		}
		log_debug(host_name(h), "exit status %d", status);
		release_channel(h, j);
		engine_job_finish(j, NP_OK, status, NULL);
		return 1;
	case JOB_KILLING:
		if (chan_read(c) < 0)
			return -1;
		status = ssh_channel_get_exit_status(c->channel);
		if (status == -1 && !ssh_channel_is_closed(c->channel)) {
			if (!ssh_is_connected(h->session))
				return -1;
			return 0;
		}
		log_debug(host_name(h), "killed command ended");
		finish_stopped(h, j, status);
		return 1;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/*
 * Tunnels. Bytes from the caller are read from our end of the socket pair
 * into up and written to the channel as its window allows; bytes from the
 * channel (its data callback) go into down and are written to our end as
 * the socket takes them. Our end is watched for reading only while up has
 * room and the channel is open, for writing only while down has bytes, so
 * that a caller that writes before the channel opens just fills the pair.
 */

static const char *
tunnel_host(const struct ssh_tunnel *t)
{
	return t->host->machine->name;
}

static void
tunnel_poll_closed_cb(uv_handle_t *hd)
{
	struct ssh_tunnel *t = hd->data;
	struct engine *e = t->host->engine;
	char sink[4096];

	/*
	 * The caller reads EOF, as from a TCP peer's close: a socket closed
	 * with unread bytes would reset the pair (ECONNRESET) instead.
	 */
	shutdown(t->fd, SHUT_WR);
	while (recv(t->fd, sink, sizeof sink, MSG_DONTWAIT) > 0)
		continue;
	close(t->fd);
	free(t->up.data);
	free(t->down.data);
	free(t->target_host);
	free(t);
	engine_handle_closed(e);
}

/*
 * The end: the engine hears why (on a later turn), the channel is closed
 * and our end of the pair with it, so the caller reads EOF.
 */
static void
tunnel_end(struct ssh_tunnel *t, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
tunnel_end(struct ssh_tunnel *t, int error, const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;

	if (fmt != NULL) {
		va_start(ap, fmt);
		text = str_vprintf(fmt, ap);
		va_end(ap);
	}
	log_debug(tunnel_host(t), "tunnel to %s:%d ended (%s)",
	    t->target_host, t->target_port, error_string(error));
	engine_tunnel_finish(t->et, error, "%s", text != NULL ? text :
	    error_string(error));
	free(text);
	TAILQ_REMOVE(&t->host->tunnels, t, entry);
	chan_free(t->host, t->chan);
	t->chan = NULL;
	uv_close((uv_handle_t *)&t->poll, tunnel_poll_closed_cb);
}

static void
tunnels_fail(struct ssh_host *h, int error, const char *fmt, ...)
{
	struct ssh_tunnel *t;
	va_list ap;
	char *text;

	if (TAILQ_EMPTY(&h->tunnels))
		return;
	va_start(ap, fmt);
	text = str_vprintf(fmt, ap);
	va_end(ap);
	while ((t = TAILQ_FIRST(&h->tunnels)) != NULL)
		tunnel_end(t, error, "%s (tunnel to %s:%d)", text != NULL ?
		    text : host_name(h), t->target_host, t->target_port);
	free(text);
}

/* Write down to our end; -1 when the caller has closed its end. */
static int
tunnel_flush_down(struct ssh_tunnel *t)
{
	ssize_t n;

	while (t->down_off < t->down.len) {
		n = send(t->fd, t->down.data + t->down_off,
		    t->down.len - t->down_off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return -1;
		t->down_off += (size_t)n;
	}
	t->down.len = t->down_off = 0;
	return 0;
}

static void tunnel_poll_cb(uv_poll_t *p, int status, int events);

static void
tunnel_update_poll(struct ssh_tunnel *t)
{
	int events = 0;

	if (t->state == TUN_OPEN && !t->local_eof && t->up.len < TUNNEL_BUF)
		events |= UV_READABLE;
	if (t->down_off < t->down.len)
		events |= UV_WRITABLE;
	if (events == t->poll_events)
		return;
	t->poll_events = events;
	if (events == 0)
		uv_poll_stop(&t->poll);
	else
		uv_poll_start(&t->poll, events, tunnel_poll_cb);
}

/* Read what the caller wrote into up; notes its EOF and whether it closed. */
static int
tunnel_read_up(struct ssh_tunnel *t)
{
	struct pollfd pfd;
	char buf[65536];
	ssize_t n;
	size_t room;

	while (!t->local_eof && t->up.len < TUNNEL_BUF) {
		room = TUNNEL_BUF - t->up.len;
		n = recv(t->fd, buf, room < sizeof buf ? room : sizeof buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			/* EOF: a shutdown(SHUT_WR) half-closes, a close
			   (POLLHUP: both directions gone) ends the tunnel */
			t->local_eof = 1;
			pfd.fd = t->fd;
			pfd.events = POLLOUT;
			if (n < 0 || (poll(&pfd, 1, 0) == 1 &&
			    (pfd.revents & (POLLHUP | POLLERR))))
				t->caller_closed = 1;
			return 0;
		}
		if (buf_append(&t->up, buf, (size_t)n) != 0)
			return -1;
	}
	return 0;
}

static void
tunnel_poll_cb(uv_poll_t *p, int status, int events)
{
	struct ssh_tunnel *t = p->data;
	struct ssh_host *h = t->host;

	if (status < 0 || ((events & UV_WRITABLE) &&
	    tunnel_flush_down(t) < 0)) {
		t->caller_closed = t->local_eof = 1;
	} else if ((events & UV_READABLE) && tunnel_read_up(t) < 0) {
		tunnel_end(t, NP_ERR_NOMEM, "%s: tunnel to %s:%d: %s",
		    tunnel_host(t), t->target_host, t->target_port,
		    error_string(NP_ERR_NOMEM));
		return;
	}
	/* step now: the bytes go out without waiting for the pump */
	host_step(h);
}

static int
tunnel_data_cb(ssh_session session, ssh_channel channel, void *data,
    uint32_t len, int is_stderr, void *userdata)
{
	struct ssh_tunnel *t = userdata;

	t->host->activity = 1;
	if (len == 0)
		return 0;
	if (t->down_off > 0 && t->down_off == t->down.len)
		t->down.len = t->down_off = 0;
	if (buf_append(&t->down, data, len) != 0)
		return 0;
	return (int)len;
}

static void
tunnel_event_cb(ssh_session session, ssh_channel channel, void *userdata)
{
	struct ssh_tunnel *t = userdata;

	t->host->activity = 1;
}

/* Advance one tunnel; 1 if it moved, 0 if it waits, -1: the session broke. */
static int
tunnel_step(struct ssh_host *h, struct ssh_tunnel *t)
{
	int r, w;

	switch (t->state) {
	case TUN_WAIT:
		if ((t->chan = chan_new(h, tunnel_data_cb, tunnel_event_cb,
		    NULL, t)) == NULL)
			return -1;
		t->state = TUN_OPENING;
		/* FALLTHROUGH */
	case TUN_OPENING:
		r = ssh_channel_open_forward(t->chan->channel, t->target_host,
		    t->target_port, "127.0.0.1", 0);
		if (r == SSH_AGAIN)
			return 0;
		if (r != SSH_OK) {
			if (!ssh_is_connected(h->session))
				return -1;
			tunnel_end(t, NP_ERR_CHANNEL, "%s: tunnel to %s:%d "
			    "could not open: %s (is something listening on "
			    "%s:%d on %s?)", host_name(h), t->target_host,
			    t->target_port, ssh_get_error(h->session),
			    t->target_host, t->target_port, host_name(h));
			return 1;
		}
		log_debug(host_name(h), "tunnel to %s:%d open",
		    t->target_host, t->target_port);
		t->state = TUN_OPEN;
		tunnel_read_up(t);
		/* FALLTHROUGH */
	case TUN_OPEN:
	default:
		if ((w = chan_write(t->chan, t->up.data, &t->up_off, t->up.len,
		    t->local_eof)) < 0 || chan_read(t->chan) < 0)
			return -1;
		if (t->up_off == t->up.len)
			t->up.len = t->up_off = 0;
		if (tunnel_flush_down(t) < 0)
			t->caller_closed = t->local_eof = 1;
		if (t->caller_closed && t->up.len == 0) {
			tunnel_end(t, NP_OK, NULL);
			return 1;
		}
		if ((ssh_channel_is_eof(t->chan->channel) ||
		    ssh_channel_is_closed(t->chan->channel)) &&
		    t->down_off == t->down.len) {
			tunnel_end(t, NP_OK, NULL);
			return 1;
		}
		tunnel_update_poll(t);
		return w;
	}
}

/* Step every tunnel of h; -1 when the session broke. */
static int
tunnels_step(struct ssh_host *h, int *moved)
{
	struct ssh_tunnel *t, *next;
	int r;

	for (t = TAILQ_FIRST(&h->tunnels); t != NULL; t = next) {
		next = TAILQ_NEXT(t, entry);
		if ((r = tunnel_step(h, t)) < 0)
			return -1;
		*moved |= r;
	}
	return 0;
}

static int
ssh_tunnel_open(void *state, struct engine_tunnel *et, const char *host,
    int port, int *fdp)
{
	struct ssh_transport *st = state;
	struct engine *e = st->engine;
	struct ssh_tunnel *t;
	struct ssh_host *h;
	int sv[2];

	if ((h = host_get(st, et->machine)) == NULL)
		return NP_ERR_NOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return NP_ERR_NOMEM;
	if ((t = calloc(1, sizeof *t)) == NULL ||
	    (t->target_host = strdup(host)) == NULL ||
	    uv_poll_init(engine_loop(e), &t->poll, sv[0]) != 0) {
		if (t != NULL)
			free(t->target_host);
		free(t);
		close(sv[0]);
		close(sv[1]);
		return NP_ERR_NOMEM;
	}
	engine_handle_opened(e);
	t->poll.data = t;
	t->et = et;
	t->host = h;
	t->fd = sv[0];
	t->target_port = port;
	TAILQ_INSERT_TAIL(&h->tunnels, t, entry);
	log_debug(host_name(h), "tunnel to %s:%d requested", host, port);
	h->dirty = 1;
	engine_schedule(e);
	*fdp = sv[1];
	return 0;
}

/* ------------------------------------------------------------------ */

/*
 * The session broke: jobs whose command may have started fail with the
 * reason, and every tunnel; jobs still opening their channel go back to
 * the queue, which gets one new session.
 */
static void
host_lost(struct ssh_host *h)
{
	struct engine_job *j, *next;
	char reason[512];
	int n_requeued = 0;

	snprintf(reason, sizeof reason, "%s", h->session != NULL ?
	    ssh_get_error(h->session) : "");
	if (*reason == '\0')
		snprintf(reason, sizeof reason, "connection closed");
	log_debug(host_name(h), "session lost: %s", reason);
	tunnels_fail(h, NP_ERR_SESSION_LOST, "%s: SSH session lost: %s",
	    host_name(h), reason);
	for (j = TAILQ_LAST(&h->channels, job_list); j != NULL; j = next) {
		next = TAILQ_PREV(j, job_list, entry);
		if (j->state == JOB_OPENING && j->stop_error == 0) {
			release_channel(h, j);
			j->state = JOB_QUEUED;
			TAILQ_INSERT_HEAD(&h->queue, j, entry);
			n_requeued++;
			continue;
		}
		release_channel(h, j);
		if (j->stop_error != 0)
			engine_job_finish(j, j->stop_error, -1, "%s: %s (and the "
			    "SSH session was lost: %s)", host_name(h),
			    error_string(j->stop_error), reason);
		else
			engine_job_finish(j, NP_ERR_SESSION_LOST, -1, "%s: SSH "
			    "session lost while the command ran: %s",
			    host_name(h), reason);
	}
	host_teardown(h);
	if (TAILQ_EMPTY(&h->queue) || engine_closing(h->engine))
		return;
	if (h->reopened) {
		fail_queue(h, NP_ERR_SESSION_LOST, reason);
		return;
	}
	h->reopened = 1;
	log_debug(host_name(h), "re-opening the session for %zu queued "
	    "commands", (size_t)n_requeued);
	if (host_open(h) == 0)
		host_step(h);
}

static void
host_step(struct ssh_host *h)
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
		if (host_open(h) != 0)
			goto out;
	}
	/* closing: a session still connecting is abandoned, not waited for */
	if (closing && h->state != HOST_READY)
		goto out;
	if ((r = session_step(h)) <= 0) {
		host_update_poll(h);
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
			if ((r = channel_step(h, j)) < 0 ||
			    !ssh_is_connected(h->session)) {
				host_lost(h);
				return;
			}
			moved |= r;
		}
		if (tunnels_step(h, &moved) < 0 ||
		    !ssh_is_connected(h->session)) {
			host_lost(h);
			return;
		}
		if (!moved && !h->activity)
			break;
	}
	if (pass == MAX_PASSES)
		log_debug(host_name(h), "step: still moving after %d passes", pass);
out:
	if (closing && h->n_channels == 0) {
		host_teardown(h);
		if (h->timer_open && !uv_is_closing((uv_handle_t *)&h->timer))
			uv_close((uv_handle_t *)&h->timer, host_timer_closed_cb);
		return;
	}
	host_update_poll(h);
}

/* ------------------------------------------------------------------ */

static int
ssh_submit(void *state, struct engine_job *j)
{
	struct ssh_transport *st = state;
	struct ssh_host *h;

	if ((h = host_get(st, j->machine)) == NULL)
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
	struct ssh_host *h = j->t.ssh.host;

	switch (j->state) {
	case JOB_QUEUED:
		TAILQ_REMOVE(&h->queue, j, entry);
		engine_job_finish(j, j->stop_error, -1, "%s: %s", host_name(h),
		    error_string(j->stop_error));
		return;
	case JOB_RUNNING:
	case JOB_WAIT_STATUS:
		send_kill(h, j);
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
	struct ssh_host *h = j->t.ssh.host;

	if (j->state == JOB_KILLING) {
		log_debug(host_name(h), "no exit reported %d ms after the "
		    "kill; closing the channel", KILL_GRACE_MS);
		finish_stopped(h, j, -1);
	} else if (j->state != JOB_DONE && j->stop_error == 0) {
		j->stop_error = NP_ERR_TIMEOUT;
		log_debug(host_name(h), "command timed out after %g s",
		    j->timeout_s);
		ssh_stop(j);
		return;
	}
	h->dirty = 1;
	engine_schedule(h->engine);
}

static int
host_wants_step(const struct ssh_host *h)
{
	return h != NULL && (h->dirty || (engine_closing(h->engine) &&
	    h->timer_open));
}

static int
ssh_pump(void *state)
{
	struct ssh_transport *st = state;
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
	struct ssh_transport *st = state;
	struct ssh_tunnel *t;
	struct ssh_host *h;
	size_t i;

	for (i = 0; i < st->n_hosts; i++) {
		if ((h = st->hosts[i]) == NULL)
			continue;
		while ((t = TAILQ_FIRST(&h->tunnels)) != NULL)
			tunnel_end(t, NP_ERR_CANCELLED, "%s: tunnel to %s:%d: "
			    "%s", host_name(h), t->target_host, t->target_port,
			    error_string(NP_ERR_CANCELLED));
		h->dirty = 1;
	}
}

static int
ssh_closed(void *state)
{
	struct ssh_transport *st = state;
	size_t i;

	for (i = 0; i < st->n_hosts; i++)
		if (st->hosts[i] != NULL && (st->hosts[i]->session != NULL ||
		    st->hosts[i]->timer_open))
			return 0;
	return 1;
}

static int
ssh_new_state(struct engine *e, void **state)
{
	struct ssh_transport *st;
	size_t n = engine_inventory(e)->n_machines;

	if ((st = calloc(1, sizeof *st)) == NULL)
		return NP_ERR_NOMEM;
	st->engine = e;
	st->n_hosts = n;
	if (n > 0 && (st->hosts = calloc(n, sizeof *st->hosts)) == NULL) {
		free(st);
		return NP_ERR_NOMEM;
	}
	*state = st;
	return 0;
}

static void
ssh_free_state(void *state)
{
	struct ssh_transport *st = state;
	size_t i;

	for (i = 0; i < st->n_hosts; i++) {
		if (st->hosts[i] == NULL)
			continue;
		ssh_key_free(st->hosts[i]->key);
		if (st->hosts[i]->session != NULL)
			ssh_free(st->hosts[i]->session);
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
	.tunnel_open = ssh_tunnel_open,
};
