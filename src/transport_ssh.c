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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "log.h"
#include "transport.h"

#define KILL_GRACE_MS 3000	/* wait this long for a killed command */
#define MAX_PASSES 64		/* bound of one host_step's loop */
#define WRITE_CHUNK 32768
/*
 * Sessions in key exchange or authentication at once. sshd drops new
 * unauthenticated connections beyond MaxStartups (10 by default: "10:30:
 * 100"): sessions that reach their hosts through one jump host (the same
 * ProxyCommand or ProxyJump) all count against that host's limit, so at
 * most 8 of them handshake at once. Direct sessions each meet a sshd of
 * their own; they are bounded only so that a large inventory's start is a
 * series of bursts rather than one (sockets, memory and CPU for the key
 * exchanges).
 */
#define MAX_HANDSHAKES_PROXIED 8
#define MAX_HANDSHAKES_DIRECT 32

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
	int cap;		/* lower limit after a refusal; 0: none */
	int reopened;		/* re-opened after a loss, not yet ready */
	int handshake_started;	/* connecting for real, not waiting */
	enum auth_step auth;
	ssh_key key;
	int agent_tried, key_tried;
	int dirty;
	int activity;		/* a channel callback ran during this step */
	char hostname[256];	/* the host connected to (after HostName) */
	char target[300];	/* host:port as connected to */
	char kh_host[310];	/* its name in known_hosts: host or [host]:port */
	char scan_args[320];	/* ssh-keyscan's arguments for it */
	char proxy[600];	/* ProxyCommand (or ProxyJump's), or "" */
};

static void host_step(struct ssh_host *h);
static void host_teardown(struct ssh_host *h);

static int
host_handshaking(const struct ssh_host *h)
{
	return h->handshake_started && (h->state == HOST_CONNECTING ||
	    h->state == HOST_AUTH);
}

/* May h start its handshake now: fewer than the limit in a handshake
   of the same kind (through a proxy command, or direct)? */
static int
handshake_allowed(const struct ssh_host *h)
{
	const struct engine *e = h->engine;
	size_t i, n = 0;

	for (i = 0; i < e->n_hosts; i++) {
		const struct ssh_host *o = e->hosts[i];

		if (o != NULL && host_handshaking(o) &&
		    (o->proxy[0] != '\0') == (h->proxy[0] != '\0'))
			n++;
	}
	return n < (h->proxy[0] != '\0' ? MAX_HANDSHAKES_PROXIED :
	    MAX_HANDSHAKES_DIRECT);
}

/* A handshake ended: hosts waiting for a slot may connect now. */
static void
handshake_slot_freed(struct engine *e)
{
	size_t i;

	for (i = 0; i < e->n_hosts; i++) {
		struct ssh_host *o = e->hosts[i];

		if (o != NULL && o->state == HOST_CONNECTING &&
		    !o->handshake_started)
			o->dirty = 1;
	}
	engine_schedule(e);
}

/* ------------------------------------------------------------------ */

static void
host_timer_closed_cb(uv_handle_t *hd)
{
	struct ssh_host *h = hd->data;

	h->timer_open = 0;
	h->engine->handles_open--;
	engine_maybe_closed(h->engine);
}

static struct ssh_host *
host_get(struct engine *e, const struct machine *m)
{
	struct ssh_host *h = e->hosts[m->index];

	if (h != NULL)
		return h;
	if ((h = calloc(1, sizeof *h)) == NULL)
		return NULL;
	h->engine = e;
	h->machine = m;
	TAILQ_INIT(&h->queue);
	TAILQ_INIT(&h->channels);
	uv_timer_init(e->loop, &h->timer);
	h->timer.data = h;
	h->timer_open = 1;
	e->handles_open++;
	e->hosts[m->index] = h;
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

static void
release_channel(struct ssh_host *h, struct engine_job *j)
{
	TAILQ_REMOVE(&h->channels, j, entry);
	h->n_channels--;
	if (j->state != JOB_OPENING)
		h->cap = 0;	/* one ended: try the full number again */
	if (j->channel != NULL) {
		/* a close for a channel the server never opened ends the
		   whole connection (OpenSSH disconnects) */
		if (h->session != NULL && ssh_is_connected(h->session) &&
		    ssh_channel_is_open(j->channel))
			ssh_channel_close(j->channel);
		/* libssh keeps a channel until the server's close arrives and
		   would call back into the job after it is freed */
		ssh_remove_channel_callbacks(j->channel, &j->callbacks);
		ssh_channel_free(j->channel);
		j->channel = NULL;
		log_debug(host_name(h), "channel closed");
	}
}

/* The host could not be reached or refused us: every queued job fails. */
static void
host_fail(struct ssh_host *h, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
host_fail(struct ssh_host *h, int error, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	log_debug(host_name(h), "session failed: %s", text);
	host_teardown(h);
	fail_queue(h, error, text);
}

/* ------------------------------------------------------------------ */

static void
poll_closed_cb(uv_handle_t *hd)
{
	struct engine *e = hd->data;

	free(hd);
	e->handles_open--;
	engine_maybe_closed(e);
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
	if (host_handshaking(h)) {
		h->state = HOST_IDLE;
		handshake_slot_freed(h->engine);
	}
	h->state = HOST_IDLE;
	h->handshake_started = 0;
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
		if (uv_poll_init(e->loop, h->poll, fd) != 0) {
			free(h->poll);
			h->poll = NULL;
			return;
		}
		h->poll->data = h;
		e->handles_open++;
	}
	/*
	 * An idle, ready session is not watched: nothing would read what
	 * arrives, and a level-triggered watcher would spin. A loss is
	 * found when the next channel is opened.
	 */
	if (h->state != HOST_READY || h->n_channels > 0) {
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
	    h->engine->opts.connect_timeout_s, proxy_note(h, note, sizeof note));
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
	const struct inventory *inv = h->engine->inv;
	const struct machine *m = h->machine;
	ssh_session s;
	unsigned int port = 22;
	long timeout = (long)h->engine->opts.connect_timeout_s;
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
	h->agent_tried = h->key_tried = 0;
	h->handshake_started = 0;	/* session_step starts it */
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
	const char *kh = h->engine->inv->known_hosts_file;
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
		if (!h->engine->opts.accept_new_host_keys) {
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
			h->key_tried = 1;
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

	if (h->state == HOST_CONNECTING && !h->handshake_started) {
		if (!handshake_allowed(h))
			return 0;	/* woken when a handshake ends */
		h->handshake_started = 1;
		uv_timer_start(&h->timer, connect_timer_cb,
		    (uint64_t)(h->engine->opts.connect_timeout_s * 1000), 0);
		log_debug(host_name(h), "connecting to %s", h->target);
	}
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
		handshake_slot_freed(h->engine);
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
	ssh_channel_request_send_signal(j->channel, "KILL");
	if (!j->eof_sent) {
		ssh_channel_send_eof(j->channel);
		j->eof_sent = 1;
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
	j->host->activity = 1;
	return (int)len;
}

/* EOF, exit status or close arrived for j: its state machine must look. */
static void
channel_event_cb(ssh_session session, ssh_channel channel, void *userdata)
{
	struct engine_job *j = userdata;

	j->host->activity = 1;
}

static void
channel_status_cb(ssh_session session, ssh_channel channel, int status,
    void *userdata)
{
	channel_event_cb(session, channel, userdata);
}

static ssh_channel
job_channel_new(struct ssh_host *h, struct engine_job *j)
{
	ssh_channel c;

	if ((c = ssh_channel_new(h->session)) == NULL)
		return NULL;
	memset(&j->callbacks, 0, sizeof j->callbacks);
	ssh_callbacks_init(&j->callbacks);
	j->callbacks.userdata = j;
	j->callbacks.channel_data_function = channel_data_cb;
	j->callbacks.channel_eof_function = channel_event_cb;
	j->callbacks.channel_close_function = channel_event_cb;
	j->callbacks.channel_exit_status_function = channel_status_cb;
	ssh_set_channel_callbacks(c, &j->callbacks);
	return c;
}

/*
 * Let libssh read what has arrived; the callbacks take it. -1 on error.
 * (ssh_channel_poll reads packets only while the channel's buffer is
 * empty, which the data callback keeps it.)
 */
static int
chan_read(struct engine_job *j)
{
	int n = ssh_channel_poll(j->channel, 0);

	return n == SSH_ERROR ? -1 : 0;
}

static int
chan_write(struct ssh_host *h, struct engine_job *j)
{
	int moved = 0, n;
	uint32_t window;
	size_t len;

	while (j->input_off < j->input_len) {
		window = ssh_channel_window_size(j->channel);
		if (window == 0)
			break;
		len = j->input_len - j->input_off;
		if (len > window)
			len = window;
		if (len > WRITE_CHUNK)
			len = WRITE_CHUNK;
		n = ssh_channel_write(j->channel, j->input + j->input_off,
		    (uint32_t)len);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		j->input_off += (size_t)n;
		moved = 1;
	}
	if (j->input_off == j->input_len && !j->eof_sent) {
		if (ssh_channel_send_eof(j->channel) == SSH_ERROR)
			return -1;
		j->eof_sent = 1;
		log_debug(host_name(h), "stdin sent (%zu bytes), eof",
		    j->input_len);
		moved = 1;
	}
	return moved;
}

/* Advance one channel; 1 if it moved, 0 if it waits, -1 on error. */
static int
channel_step(struct ssh_host *h, struct engine_job *j)
{
	int r, status, w;

	switch (j->state) {
	case JOB_OPENING:
		if (j->channel == NULL &&
		    (j->channel = job_channel_new(h, j)) == NULL)
			return -1;
		r = ssh_channel_open_session(j->channel);
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
		r = ssh_channel_request_exec(j->channel, j->command);
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
		if ((w = chan_write(h, j)) < 0 ||
		    (r = chan_read(j)) < 0)
			return -1;
		if (!ssh_channel_is_eof(j->channel) &&
		    !ssh_channel_is_closed(j->channel))
			return w || r;
		log_debug(host_name(h), "eof");
		j->state = JOB_WAIT_STATUS;
		/* FALLTHROUGH */
	case JOB_WAIT_STATUS:
		status = ssh_channel_get_exit_status(j->channel);
		if (status == -1 && !ssh_channel_is_closed(j->channel)) {
			if (!ssh_is_connected(h->session))
				return -1;
			return 0;
		}
		log_debug(host_name(h), "exit status %d", status);
		release_channel(h, j);
		engine_job_finish(j, NP_OK, status, NULL);
		return 1;
	case JOB_KILLING:
		if (chan_read(j) < 0)
			return -1;
		status = ssh_channel_get_exit_status(j->channel);
		if (status == -1 && !ssh_channel_is_closed(j->channel)) {
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

/*
 * The session broke: jobs whose command may have started fail with the
 * reason; jobs still opening their channel go back to the queue, which
 * gets one new session.
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
	if (TAILQ_EMPTY(&h->queue) || h->engine->closing)
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
	struct engine_job *j, *next;
	int pass, moved, r;

	h->dirty = 0;
	if (h->state == HOST_IDLE) {
		if (TAILQ_EMPTY(&h->queue) || e->closing)
			goto out;
		if (host_open(h) != 0)
			goto out;
	}
	/* closing: a session still connecting is abandoned, not waited for */
	if (e->closing && h->state != HOST_READY)
		goto out;
	if ((r = session_step(h)) <= 0) {
		host_update_poll(h);
		return;
	}
	for (pass = 0; pass < MAX_PASSES; pass++) {
		moved = 0;
		while (h->n_channels < (h->cap > 0 ? h->cap :
		    e->opts.max_channels) &&
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
		if (!moved && !h->activity)
			break;
	}
	if (pass == MAX_PASSES)
		log_debug(host_name(h), "step: still moving after %d passes", pass);
out:
	if (e->closing && h->n_channels == 0) {
		host_teardown(h);
		if (h->timer_open && !uv_is_closing((uv_handle_t *)&h->timer))
			uv_close((uv_handle_t *)&h->timer, host_timer_closed_cb);
		return;
	}
	host_update_poll(h);
}

/* ------------------------------------------------------------------ */

int
ssh_transport_submit(struct engine *e, struct engine_job *j)
{
	struct ssh_host *h;

	if ((h = host_get(e, j->machine)) == NULL)
		return NP_ERR_NOMEM;
	j->host = h;
	j->state = JOB_QUEUED;
	TAILQ_INSERT_TAIL(&h->queue, j, entry);
	h->dirty = 1;
	engine_schedule(e);
	return 0;
}

void
ssh_transport_stop(struct engine_job *j)
{
	struct ssh_host *h = j->host;

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

void
ssh_transport_timer(struct engine_job *j)
{
	struct ssh_host *h = j->host;

	if (j->state == JOB_KILLING) {
		log_debug(host_name(h), "no exit reported %d ms after the "
		    "kill; closing the channel", KILL_GRACE_MS);
		finish_stopped(h, j, -1);
	} else if (j->state != JOB_DONE && j->stop_error == 0) {
		j->stop_error = NP_ERR_TIMEOUT;
		log_debug(host_name(h), "command timed out after %g s",
		    j->timeout_s);
		ssh_transport_stop(j);
		return;
	}
	h->dirty = 1;
	engine_schedule(h->engine);
}

void
ssh_transport_pump(struct engine *e)
{
	size_t i;

	for (i = 0; i < e->n_hosts; i++) {
		if (e->hosts[i] != NULL && (e->hosts[i]->dirty ||
		    (e->closing && e->hosts[i]->timer_open)))
			host_step(e->hosts[i]);
	}
}

int
ssh_transport_busy(struct engine *e)
{
	size_t i;

	for (i = 0; i < e->n_hosts; i++)
		if (e->hosts[i] != NULL && (e->hosts[i]->dirty ||
		    (e->closing && e->hosts[i]->timer_open)))
			return 1;
	return 0;
}

void
ssh_transport_close(struct engine *e)
{
	size_t i;

	for (i = 0; i < e->n_hosts; i++)
		if (e->hosts[i] != NULL)
			e->hosts[i]->dirty = 1;
}

int
ssh_transport_closed(struct engine *e)
{
	size_t i;

	if (e->handles_open > 1)	/* the pump is the one left */
		return 0;
	for (i = 0; i < e->n_hosts; i++)
		if (e->hosts[i] != NULL && (e->hosts[i]->session != NULL ||
		    e->hosts[i]->timer_open))
			return 0;
	return 1;
}

void
ssh_transport_free(struct engine *e)
{
	size_t i;

	for (i = 0; i < e->n_hosts; i++) {
		if (e->hosts[i] == NULL)
			continue;
		ssh_key_free(e->hosts[i]->key);
		if (e->hosts[i]->session != NULL)
			ssh_free(e->hosts[i]->session);
		free(e->hosts[i]);
	}
}
