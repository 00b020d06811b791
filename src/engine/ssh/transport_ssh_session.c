/*
 * The ssh transport's sessions: a host's libssh session opened with the
 * machine's options, its ssh config and ours; connect (with a timeout
 * that also bounds the name lookup and TCP of transport_ssh_connect.c),
 * the host key against known_hosts (OpenSSH's StrictHostKeyChecking yes
 * or accept-new), public-key authentication (agent, identity_file, the
 * defaults), the uv_poll watcher on its socket, and its teardown. Errors
 * name the host, what was tried and the fix.
 *
 * Handshakes come in bounded bursts. sshd drops new unauthenticated
 * connections beyond MaxStartups (10 by default: "10:30:100"): sessions
 * that reach their hosts through a jump host (ProxyCommand, ProxyJump)
 * all count against that host's limit, so at most 8 of them handshake at
 * once. Direct sessions each meet a sshd of their own; they are bounded
 * only so that a large inventory starts in a series of bursts (sockets,
 * memory and CPU for the key exchanges). A session waiting for its turn
 * has no connect timeout running yet.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "transport_ssh.h"
#include "util.h"

#define MAX_HANDSHAKES_PROXIED 8
#define MAX_HANDSHAKES_DIRECT 32

void
transport_ssh_host_timer_closed_cb(uv_handle_t *hd)
{
	struct transport_ssh_host *h = hd->data;

	h->timer_open = 0;
	engine_handle_closed(h->engine);
}

struct transport_ssh_host *
transport_ssh_host_get(struct transport_ssh *st, const struct machine *m)
{
	struct engine *e = st->engine;
	struct transport_ssh_host *h = st->hosts[m->index];

	if (h != NULL)
		return h;
	if ((h = calloc(1, sizeof *h)) == NULL)
		return NULL;
	h->engine = e;
	h->st = st;
	h->machine = m;
	TAILQ_INIT(&h->queue);
	TAILQ_INIT(&h->channels);
	TAILQ_INIT(&h->tunnels);
	uv_timer_init(engine_loop(e), &h->timer);
	h->timer.data = h;
	h->timer_open = 1;
	h->sock = h->sock_given = -1;
	engine_handle_opened(e);
	st->hosts[m->index] = h;
	return h;
}

static int
host_handshaking(const struct transport_ssh_host *h)
{
	return h->handshake_started && (h->state == HOST_CONNECTING ||
	    h->state == HOST_AUTH);
}

/* May h start its handshake now: fewer than the limit in a handshake
   of the same kind (through a proxy command, or direct)? */
static int
handshake_allowed(const struct transport_ssh_host *h)
{
	const struct transport_ssh *st = h->st;
	size_t i, n = 0;

	for (i = 0; i < st->n_hosts; i++) {
		const struct transport_ssh_host *o = st->hosts[i];

		if (o != NULL && host_handshaking(o) &&
		    (o->proxy[0] != '\0') == (h->proxy[0] != '\0'))
			n++;
	}
	return n < (h->proxy[0] != '\0' ? MAX_HANDSHAKES_PROXIED :
	    MAX_HANDSHAKES_DIRECT);
}

/* A handshake ended: hosts waiting for a slot may connect now. */
static void
handshake_slot_freed(struct transport_ssh *st)
{
	size_t i;

	for (i = 0; i < st->n_hosts; i++) {
		struct transport_ssh_host *o = st->hosts[i];

		if (o != NULL && o->state == HOST_CONNECTING &&
		    !o->handshake_started)
			o->dirty = 1;
	}
	engine_schedule(st->engine);
}

/* Tell the engine's observer that step begins, once. */
static void
report_step(struct transport_ssh_host *h, enum engine_session_step step)
{
	if (h->reported > (int)step)
		return;
	h->reported = step == ENGINE_SESSION_READY ? 0 : (int)step + 1;
	engine_session_step(h->engine, h->machine, step, NP_OK, NULL);
}

/* A session that was coming up will not: the observer is told why. */
static void
report_failed(struct transport_ssh_host *h, int error, const char *text)
{
	if (h->reported == 0)
		return;
	h->reported = 0;
	engine_session_step(h->engine, h->machine, ENGINE_SESSION_FAILED,
	    error, text);
}

/* Fail every queued job with the same reason. */
void
transport_ssh_fail_queue(struct transport_ssh_host *h, int error,
    const char *text)
{
	struct engine_job *j;

	while ((j = TAILQ_FIRST(&h->queue)) != NULL) {
		TAILQ_REMOVE(&h->queue, j, entry);
		engine_job_finish(j, error, -1, "%s", text);
	}
}

/* The host could not be reached or refused us: every queued job fails. */
void
transport_ssh_host_fail(struct transport_ssh_host *h, int error,
    const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = str_vprintf(fmt, ap);
	va_end(ap);
	if (text == NULL)
		text = strdup(transport_ssh_host_name(h));
	log_debug(transport_ssh_host_name(h), "session failed: %s", text);
	report_failed(h, error, text);
	transport_ssh_tunnels_fail(h, error, "%s", text);
	transport_ssh_host_teardown(h);
	transport_ssh_fail_queue(h, error, text);
	free(text);
}

/* ------------------------------------------------------------------ */

void
transport_ssh_host_teardown(struct transport_ssh_host *h)
{
	struct engine_job *j;

	uv_timer_stop(&h->timer);
	report_failed(h, NP_ERR_CANCELLED, "closed before the session was up");
	while ((j = TAILQ_FIRST(&h->channels)) != NULL)
		transport_ssh_release_channel(h, j);
	transport_ssh_tcp_poll_close(h);
	if (h->session != NULL) {
		transport_ssh_tcp_release_session(h);
		log_debug(transport_ssh_host_name(h), "session closed");
	}
	transport_ssh_tcp_abort(h);
	ssh_key_free(h->key);
	h->key = NULL;
	if (host_handshaking(h)) {
		h->state = HOST_IDLE;
		handshake_slot_freed(h->st);
	}
	h->state = HOST_IDLE;
	h->handshake_started = 0;
}

static void
poll_cb(uv_poll_t *p, int status, int events)
{
	struct transport_ssh_host *h = p->data;

	(void)status;
	(void)events;
	h->st->step(h);
}

/*
 * Watch the socket for what libssh waits for. A socket that cannot be
 * watched would never be stepped again: 0, or a negative libuv code.
 */
int
transport_ssh_host_update_poll(struct transport_ssh_host *h)
{
	struct engine *e = h->engine;
	int events = 0, fd, r;

	if (h->session == NULL)
		return 0;
	if (h->poll == NULL) {
		/* our socket while it connects, then libssh's (the same) */
		if ((fd = h->sock >= 0 ? h->sock : ssh_get_fd(h->session)) < 0)
			return 0;	/* not connecting yet */
		if ((h->poll = malloc(sizeof *h->poll)) == NULL)
			return UV_ENOMEM;
		if ((r = uv_poll_init(engine_loop(e), h->poll, fd)) != 0) {
			free(h->poll);
			h->poll = NULL;
			return r;
		}
		h->poll->data = h;
		engine_handle_opened(e);
	}
	/*
	 * An idle, ready session is not watched: nothing would read what
	 * arrives, and a level-triggered watcher would spin. A loss is
	 * found when the next channel is opened.
	 */
	if (h->sock >= 0)
		events = UV_WRITABLE;	/* the end of a TCP connect */
	else if (h->state != HOST_READY || h->n_channels > 0 ||
	    !TAILQ_EMPTY(&h->tunnels)) {
		events = UV_READABLE;
		if (ssh_get_poll_flags(h->session) & SSH_WRITE_PENDING)
			events |= UV_WRITABLE;
	}
	if (events == h->poll_events)
		return 0;
	log_debug(transport_ssh_host_name(h), "poll events %d -> %d",
	    h->poll_events,
	    events);
	if (events == 0)
		uv_poll_stop(h->poll);
	else if ((r = uv_poll_start(h->poll, events, poll_cb)) != 0)
		return r;
	h->poll_events = events;
	return 0;
}

/*
 * The socket cannot be watched (out of memory, epoll refused it): nothing
 * would ever step this host again, so everything on it fails now.
 */
void
transport_ssh_host_unwatchable(struct transport_ssh_host *h, int uv_error)
{
	struct engine_job *j;
	char *text;

	text = str_printf("%s: cannot watch the SSH connection's socket: %s",
	    transport_ssh_host_name(h), uv_strerror(uv_error));
	log_debug(transport_ssh_host_name(h), "%s",
	    text != NULL ? text : "unwatchable");
	transport_ssh_tunnels_fail(h, NP_ERR_SYSTEM, "%s", text != NULL ? text :
	    transport_ssh_host_name(h));
	while ((j = TAILQ_FIRST(&h->channels)) != NULL) {
		transport_ssh_release_channel(h, j);
		engine_job_finish(j, j->stop_error != 0 ? j->stop_error :
		    NP_ERR_SYSTEM, -1, "%s", text != NULL ? text :
		    transport_ssh_host_name(h));
	}
	transport_ssh_host_teardown(h);
	transport_ssh_fail_queue(h, NP_ERR_SYSTEM,
	    text != NULL ? text : transport_ssh_host_name(h));
	free(text);
}



/*
 * What a connect error adds when the ssh config routes the connection
 * through a command (ProxyCommand, or ProxyJump, which libssh 0.10 runs as
 * OpenSSH's "ssh -W"): libssh sends that command's stderr to /dev/null, so
 * its own reason is lost and only a closed socket remains.
 */
static const char *
proxy_note(const struct transport_ssh_host *h, char *buf, size_t size)
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
	struct transport_ssh_host *h = t->data;
	double s = engine_options(h->engine)->connect_timeout_s;
	char note[1024], where[700];

	if (h->conn == CONN_RESOLVING) {
		transport_ssh_host_fail(h, NP_ERR_CONNECT,
		    "%s: could not connect: %s: name "
		    "resolution of %s timed out after %g s "
		    "(connect_timeout_seconds): the resolver did not answer; "
		    "check the name servers in /etc/resolv.conf, or give the "
		    "host's address", transport_ssh_host_name(h), h->target,
		    h->hostname, s);
		return;
	}
	transport_ssh_host_fail(h, NP_ERR_CONNECT,
	    "%s: could not connect: %s: %stimed out "
	    "after %g s (connect_timeout_seconds)%s",
	    transport_ssh_host_name(h), h->target,
	    transport_ssh_tcp_timeout_where(h, where, sizeof where), s,
	    proxy_note(h, note, sizeof note));
}

/* The ProxyCommand as it will run: %h, %p and %% replaced. */
static void
proxy_expand(struct transport_ssh_host *h, const char *cmd, const char *host,
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
host_names(struct transport_ssh_host *h)
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

/*
 * libssh talks to ssh-agent with blocking I/O on the loop's thread: an
 * agent that accepts and never answers would stop every host. So the
 * agent is asked for its identities once, with a bound of AGENT_WAIT_MS,
 * before it is used; one that does not answer is left out (with a
 * warning) and the other keys are tried.
 */
#define AGENT_WAIT_MS 2000

static int
agent_probe(const char *path)
{
	static const unsigned char req[5] = { 0, 0, 0, 1, 11 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd p;
	unsigned char ans[5];
	size_t got = 0;
	ssize_t n;
	int fd, ok = 0;

	if (strlen(path) >= sizeof sa.sun_path ||
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return 0;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    send(fd, req, sizeof req, MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)sizeof req)
		goto out;
	p.fd = fd;
	p.events = POLLIN;
	while (got < sizeof ans && poll(&p, 1, AGENT_WAIT_MS) == 1) {
		if ((n = recv(fd, ans + got, sizeof ans - got,
		    MSG_DONTWAIT)) <= 0)
			break;
		got += (size_t)n;
	}
	ok = got == sizeof ans;
out:
	close(fd);
	return ok;
}

/* 1 if SSH_AUTH_SOCK's agent answers; asked once per process. */
static int
agent_answers(void)
{
	static int known = -1;
	const char *path = getenv("SSH_AUTH_SOCK");

	if (known != -1)
		return known;
	known = path != NULL && agent_probe(path);
	if (path != NULL && !known)
		log_warn("the ssh-agent at SSH_AUTH_SOCK (%s) did not answer "
		    "within %d s; not using it", path, AGENT_WAIT_MS / 1000);
	return known;
}

/* A new session with the options of the machine, its ssh config, and ours. */
int
transport_ssh_host_open(struct transport_ssh_host *h)
{
	const struct inventory *inv = engine_inventory(h->engine);
	const struct machine *m = h->machine;
	ssh_session s;
	long timeout = (long)engine_options(h->engine)->connect_timeout_s;
	int verbosity = log_get_level() >= LOG_TRACE ? SSH_LOG_PROTOCOL :
	    SSH_LOG_NOLOG, nodelay = 1;

	if ((s = ssh_new()) == NULL)
		return NP_ERR_NOMEM;
	ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY, &verbosity);
	if (transport_ssh_configure(s, inv, m) != 0) {
		transport_ssh_host_fail(h, NP_ERR_INVENTORY,
		    "%s: could not read ssh config "
		    "%s: %s", m->name, inv->ssh_config_file, ssh_get_error(s));
		ssh_free(s);
		return NP_ERR_INVENTORY;
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
	if (getenv("SSH_AUTH_SOCK") != NULL && !agent_answers())
		/* libssh's automatic method must not wait on it either */
		ssh_options_set(s, SSH_OPTIONS_IDENTITY_AGENT, "/dev/null");
	h->auth = getenv("SSH_AUTH_SOCK") != NULL && agent_answers() ?
	    AUTH_AGENT : m->identity_file != NULL ? AUTH_KEY : AUTH_AUTO;
	h->agent_tried = 0;
	h->handshake_started = 0;	/* session_step starts it */
	h->conn = CONN_START;
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
check_host_key(struct transport_ssh_host *h)
{
	const char *kh = engine_inventory(h->engine)->known_hosts_file;
	const char *name = transport_ssh_host_name(h), *host = h->hostname;
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
		transport_ssh_host_fail(h, NP_ERR_HOSTKEY_CHANGED,
		    "%s (%s): WARNING: REMOTE "
		    "HOST KEY HAS CHANGED: it sent %s, which is not the key "
		    "recorded in %s; someone may be intercepting the "
		    "connection, or the host was reinstalled; if this is "
		    "expected, remove the old key with ssh-keygen -R %s -f %s "
		    "and connect again", name, host, fp, kh, h->kh_host, kh);
		return NP_ERR_HOSTKEY_CHANGED;
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		if (!engine_options(h->engine)->accept_new_host_keys) {
			transport_ssh_host_fail(h, NP_ERR_HOSTKEY_UNKNOWN,
			    "%s (%s): host key "
			    "is not in %s (%s); verify it and add it "
			    "(ssh-keyscan %s >> %s) or run with "
			    "--accept-new-host-keys", name, host, kh, fp,
			    h->scan_args, kh);
			return NP_ERR_HOSTKEY_UNKNOWN;
		}
		if (ssh_session_update_known_hosts(h->session) != SSH_OK) {
			transport_ssh_host_fail(h, NP_ERR_HOSTKEY_UNKNOWN,
			    "%s (%s): could "
			    "not add the host key to %s: %s", name, host, kh,
			    ssh_get_error(h->session));
			return NP_ERR_HOSTKEY_UNKNOWN;
		}
		log_info("%s (%s): new host key recorded in %s: %s", name,
		    host, kh, fp);
		return 0;
	default:
		transport_ssh_host_fail(h, NP_ERR_HOSTKEY_UNKNOWN,
		    "%s (%s): could not check "
		    "the host key against %s: %s", name, host, kh,
		    ssh_get_error(h->session));
		return NP_ERR_HOSTKEY_UNKNOWN;
	}
}

static void
auth_failed(struct transport_ssh_host *h)
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
	transport_ssh_host_fail(h, NP_ERR_AUTH,
	    "%s: authentication failed for user %s: no "
	    "key accepted (tried %s); check identity_file or the remote "
	    "authorized_keys", m->name, user != NULL ? user : "?", tried);
	ssh_string_free_char(user);
}

/*
 * What one libssh auth call said: SSH_AGAIN (in progress), SSH_OK, SSH_ERROR
 * (the connection broke), or 1: this method failed, move on to next.
 */
static int
auth_result(struct transport_ssh_host *h, int r, enum auth_step next)
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
auth_step(struct transport_ssh_host *h)
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
int
transport_ssh_session_step(struct transport_ssh_host *h)
{
	char note[1024];
	int r;

	if (h->state == HOST_CONNECTING && !h->handshake_started) {
		if (!handshake_allowed(h))
			return 0;	/* woken when a handshake ends */
		h->handshake_started = 1;
		uv_timer_start(&h->timer, connect_timer_cb, (uint64_t)(
		    engine_options(h->engine)->connect_timeout_s * 1000), 0);
		log_debug(transport_ssh_host_name(h), "connecting to %s",
		    h->target);
		report_step(h, ENGINE_SESSION_CONNECT);
	}
	if (h->state == HOST_CONNECTING) {
		int handed = 0;

		if (h->conn != CONN_SSH) {
			char *why = NULL;

			/* resolution and TCP on the loop (a proxy: libssh's) */
			if ((r = transport_ssh_tcp_step(h, &why)) < 0) {
				transport_ssh_host_fail(h, NP_ERR_CONNECT,
				    "%s", why != NULL ? why :
				    transport_ssh_host_name(h));
				free(why);
			}
			if (r <= 0)
				return r;
			handed = h->sock_given >= 0;
		}
		report_step(h, ENGINE_SESSION_KEX);
		r = ssh_connect(h->session);
		if (handed)
			transport_ssh_tcp_handed_over(h);
		if (r == SSH_AGAIN)
			return 0;
		if (r != SSH_OK) {
			transport_ssh_host_fail(h, NP_ERR_CONNECT,
			    "%s: could not connect: "
			    "%s: %s%s", transport_ssh_host_name(h), h->target,
			    ssh_get_error(h->session),
			    proxy_note(h, note, sizeof note));
			return TRANSPORT_SSH_STEP_FAILED;
		}
		log_debug(transport_ssh_host_name(h), "connected to %s, %s",
		    h->target,
		    ssh_get_serverbanner(h->session));
		if (check_host_key(h) != 0)
			return TRANSPORT_SSH_STEP_FAILED;
		h->state = HOST_AUTH;
		report_step(h, ENGINE_SESSION_AUTH);
	}
	if (h->state == HOST_AUTH) {
		r = auth_step(h);
		if (r == SSH_AGAIN)
			return 0;
		if (r == SSH_ERROR) {
			transport_ssh_host_fail(h, NP_ERR_CONNECT,
			    "%s: could not connect: "
			    "%s: connection lost during authentication: %s",
			    transport_ssh_host_name(h), h->target,
			    ssh_get_error(h->session));
			return TRANSPORT_SSH_STEP_FAILED;
		}
		if (r != SSH_OK)
			return TRANSPORT_SSH_STEP_FAILED;
		uv_timer_stop(&h->timer);
		h->state = HOST_READY;
		h->reopened = 0;
		handshake_slot_freed(h->st);
		log_debug(transport_ssh_host_name(h), "authenticated");
		report_step(h, ENGINE_SESSION_READY);
	}
	return h->state == HOST_READY;
}

