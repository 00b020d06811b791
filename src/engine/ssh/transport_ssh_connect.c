/*
 * Reaching a host's SSH port without blocking the loop. libssh's own
 * connect resolves the host name with a blocking getaddrinfo() inside
 * ssh_connect(): a resolver that does not answer would stop every other
 * host, every timer and Ctrl-C for the resolver's whole timeout. So for a
 * direct connection (no ProxyCommand or ProxyJump, which stay libssh's)
 * the transport resolves the name itself (not at all when it is an
 * address), connects a non-blocking TCP socket on the loop, trying each
 * address in turn, and gives the connected socket to libssh with
 * SSH_OPTIONS_FD. SSH_OPTIONS_HOST and the port stay set, so known_hosts
 * ("[host]:port" off port 22) and the messages name the host as the user
 * wrote it. The connect timeout counts from the start of resolution.
 *
 * getaddrinfo() runs in a detached thread of its own, which hands its
 * answer to the loop through the transport's uv_async handle; not in
 * libuv's thread pool, because a getaddrinfo() that has started cannot be
 * cancelled (uv_cancel() only removes queued work) and libuv joins its
 * pool's threads when the process exits: a silent resolver would hold the
 * end of every run, and Ctrl-C, for its full timeout, and four of them
 * would hold every other resolution. A host that gives up on its request
 * (connect timeout, close) abandons it: the thread frees it once the
 * resolver answers, or ends with the process. getaddrinfo() is glibc's, as
 * libssh's was: /etc/hosts, nsswitch.conf and resolv.conf apply.
 *
 * The socket's owner: ours (h->sock) until it is given to libssh; libssh
 * closes it in ssh_free() and on its own errors, but since 0.10 not in
 * ssh_disconnect(), so after a disconnect it is ours again to close. Its
 * watcher (the session's uv_poll) is stopped here before it is closed.
 *
 * Below the session (transport_ssh_session.c), this file calls nothing of
 * it: a host that cannot be reached is failed by the session, with the
 * reason transport_ssh_tcp_step() gives.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "error.h"
#include "log.h"
#include "transport_ssh.h"
#include "util.h"

/* A getaddrinfo() in its thread; what both sides share is under the lock. */
struct resolve_job {
	char *name;
	char port[8];
	uv_async_t *async;	/* woken when done, unless abandoned */
	int done;		/* the answer is in: status, res */
	int abandoned;		/* the thread frees the job */
	int status;		/* getaddrinfo()'s, EAI_SYSTEM: sys_errno */
	int sys_errno;
	struct addrinfo *res;
};

static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;

static void
job_free(struct resolve_job *j)
{
	if (j->res != NULL)
		freeaddrinfo(j->res);
	free(j->name);
	free(j);
}

static void *
resolve_thread(void *arg)
{
	struct resolve_job *j = arg;
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV,
	};
	struct addrinfo *res = NULL;
	int r;

	r = getaddrinfo(j->name, j->port, &hints, &res);
	pthread_mutex_lock(&resolve_lock);
	j->status = r;
	j->sys_errno = errno;
	j->res = res;
	if (j->abandoned) {
		pthread_mutex_unlock(&resolve_lock);
		job_free(j);
		return NULL;
	}
	j->done = 1;
	uv_async_send(j->async);
	pthread_mutex_unlock(&resolve_lock);
	return NULL;
}

/* The host no longer waits for its request: free it, or let its thread. */
static void
resolve_abandon(struct transport_ssh_host *h)
{
	struct resolve_job *j = h->resolving;
	int done;

	if (j == NULL)
		return;
	h->resolving = NULL;
	pthread_mutex_lock(&resolve_lock);
	done = j->done;
	j->abandoned = 1;
	pthread_mutex_unlock(&resolve_lock);
	if (done)
		job_free(j);
}

static void
resolved_cb(uv_async_t *a)
{
	struct transport_ssh *st = a->data;
	size_t i;

	for (i = 0; i < st->n_hosts; i++)
		if (st->hosts[i] != NULL && st->hosts[i]->resolving != NULL)
			st->hosts[i]->dirty = 1;
	engine_schedule(st->engine);
}

static void
resolved_closed_cb(uv_handle_t *hd)
{
	struct transport_ssh *st = hd->data;

	st->resolved_open = 0;
	engine_handle_closed(st->engine);
}

/* engine_close(): every request is abandoned, then the async closed. */
void
transport_ssh_resolve_close(struct transport_ssh *st)
{
	size_t i;

	for (i = 0; i < st->n_hosts; i++)
		if (st->hosts[i] != NULL)
			resolve_abandon(st->hosts[i]);
	if (st->resolved_open && !uv_is_closing((uv_handle_t *)&st->resolved))
		uv_close((uv_handle_t *)&st->resolved, resolved_closed_cb);
}

/* Start h's getaddrinfo() in a thread of its own: 0 or a text. */
static const char *
resolve_start(struct transport_ssh_host *h, unsigned int port)
{
	struct transport_ssh *st = h->st;
	struct resolve_job *j;
	pthread_attr_t attr;
	pthread_t tid;
	sigset_t all, old;
	int r;

	if (!st->resolved_open) {
		if (uv_async_init(engine_loop(st->engine), &st->resolved,
		    resolved_cb) != 0)
			return "cannot create the resolver's wake-up handle";
		st->resolved.data = st;
		/* the connect timer keeps the loop alive, not this */
		uv_unref((uv_handle_t *)&st->resolved);
		st->resolved_open = 1;
		engine_handle_opened(st->engine);
	}
	if ((j = calloc(1, sizeof *j)) == NULL ||
	    (j->name = strdup(h->hostname)) == NULL) {
		free(j);
		return error_string(NP_ERR_NOMEM);
	}
	snprintf(j->port, sizeof j->port, "%u", port);
	j->async = &st->resolved;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* signals stay with the loop's thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&tid, &attr, resolve_thread, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		job_free(j);
		return "cannot start a resolver thread";
	}
	h->resolving = j;
	return NULL;
}

/* ------------------------------------------------------------------ */

static void
poll_closed_cb(uv_handle_t *hd)
{
	struct engine *e = hd->data;

	free(hd);
	engine_handle_closed(e);
}

/* Stop watching the socket (before it is closed). */
void
transport_ssh_tcp_poll_close(struct transport_ssh_host *h)
{
	if (h->poll == NULL)
		return;
	uv_poll_stop(h->poll);
	h->poll->data = h->engine;
	uv_close((uv_handle_t *)h->poll, poll_closed_cb);
	h->poll = NULL;
	h->poll_events = 0;
}

static void
addr_format(struct transport_ssh_host *h)
{
	const struct addrinfo *a = h->addr;
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (a->ai_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)a->ai_addr;

		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof ip);
		port = ntohs(sin->sin_port);
		snprintf(h->addr_text, sizeof h->addr_text, "%s:%u", ip, port);
	} else if (a->ai_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)a->ai_addr;

		inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof ip);
		port = ntohs(sin6->sin6_port);
		snprintf(h->addr_text, sizeof h->addr_text, "[%s]:%u", ip,
		    port);
	} else {
		snprintf(h->addr_text, sizeof h->addr_text, "(family %d)",
		    a->ai_family);
	}
}

/* Note why h->addr failed; an address the user gave is not repeated. */
static void
note_failure(struct transport_ssh_host *h, int err)
{
	size_t n = strlen(h->tried);
	int single = h->numeric && h->addrs->ai_next == NULL;

	snprintf(h->tried + n, sizeof h->tried - n, "%s%s%s%s",
	    n > 0 ? "; " : "", single ? "" : h->addr_text, single ? "" : ": ",
	    strerror(err));
}

/* Close our socket (its watcher first: libuv must stop polling it). */
static void
sock_close(struct transport_ssh_host *h)
{
	if (h->sock < 0)
		return;
	transport_ssh_tcp_poll_close(h);
	close(h->sock);
	h->sock = -1;
}

/*
 * Start connecting to h->addr, or the next address that takes it:
 * 0 in progress (h->sock), 1 connected already, -1 none left.
 */
static int
tcp_try(struct transport_ssh_host *h)
{
	int fd, one = 1;

	for (; h->addr != NULL; h->addr = h->addr->ai_next) {
		addr_format(h);
		fd = socket(h->addr->ai_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (fd < 0) {
			note_failure(h, errno);
			continue;
		}
		/* what SSH_OPTIONS_NODELAY does for libssh's own sockets */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		log_debug(transport_ssh_host_name(h), "connecting to %s",
		    h->addr_text);
		if (connect(fd, h->addr->ai_addr, h->addr->ai_addrlen) == 0) {
			h->sock = fd;
			return 1;
		}
		if (errno == EINPROGRESS) {
			h->sock = fd;
			return 0;
		}
		note_failure(h, errno);
		close(fd);
	}
	return TRANSPORT_SSH_STEP_FAILED;
}

/* Has h->sock's connect ended? 0 no, 1 connected, -1 failed (noted). */
static int
tcp_check(struct transport_ssh_host *h)
{
	struct pollfd p = { .fd = h->sock, .events = POLLOUT };
	socklen_t len = sizeof(int);
	int err = 0;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (getsockopt(h->sock, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		err = errno;
	if (err == 0)
		return 1;
	note_failure(h, err);
	sock_close(h);
	h->addr = h->addr->ai_next;
	return TRANSPORT_SSH_STEP_FAILED;
}

/* The resolver's reason for a failed getaddrinfo(). */
static const char *
resolve_reason(const struct resolve_job *j)
{
	if (j->status == EAI_SYSTEM)
		return strerror(j->sys_errno);
	return gai_strerror(j->status);
}

/* The thread's answer, if it is in: 0 wait, 1 addresses, -1 failed (*why). */
static int
resolve_result(struct transport_ssh_host *h, char **why)
{
	struct resolve_job *j = h->resolving;
	const char *name = transport_ssh_host_name(h);
	int done;

	pthread_mutex_lock(&resolve_lock);
	done = j->done;
	pthread_mutex_unlock(&resolve_lock);
	if (!done)
		return 0;
	h->resolving = NULL;
	if (j->status != 0) {
		*why = str_printf("%s: could not connect: %s: cannot "
		    "resolve host name %s: %s (check the name, the ssh config's "
		    "HostName, or the resolver: /etc/hosts, /etc/resolv.conf)",
		    name, h->target, j->name, resolve_reason(j));
		job_free(j);
		return TRANSPORT_SSH_STEP_FAILED;
	}
	h->addrs = j->res;
	j->res = NULL;
	job_free(j);
	log_debug(name, "%s resolved", h->hostname);
	return 1;
}

/* h->hostname as an address, without any lookup: 1, or 0 for a name. */
static int
numeric_addrs(struct transport_ssh_host *h, unsigned int port)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	};
	char p[8];

	snprintf(p, sizeof p, "%u", port);
	return getaddrinfo(h->hostname, p, &hints, &h->addrs) == 0;
}

/* Give the connected socket to libssh; its ssh_connect() goes on. */
static void
hand_over(struct transport_ssh_host *h)
{
	ssh_options_set(h->session, SSH_OPTIONS_FD, &h->sock);
	h->sock_given = h->sock;
	h->sock = -1;	/* the watcher stays: libssh's fd is the same */
	h->conn = CONN_SSH;
	log_debug(transport_ssh_host_name(h), "TCP connected to %s",
	    h->addr_text);
}

/*
 * Resolve, then connect, until libssh can take over: 1 when it has (or
 * the connection goes through a proxy command, which libssh runs), 0 to
 * wait for the resolver or the socket, -1 when the host cannot be
 * reached: *why says why (the caller frees it; NULL: out of memory).
 */
int
transport_ssh_tcp_step(struct transport_ssh_host *h, char **why)
{
	unsigned int port = 22;
	const char *err;
	int r;

	switch (h->conn) {
	case CONN_START:
		if (h->proxy[0] != '\0') {
			h->conn = CONN_SSH;
			return 1;
		}
		ssh_options_get_port(h->session, &port);
		h->tried[0] = '\0';
		if ((h->numeric = numeric_addrs(h, port))) {
			h->addr = h->addrs;
			h->conn = CONN_TCP;
			break;
		}
		if ((err = resolve_start(h, port)) != NULL) {
			*why = str_printf("%s: could not connect: %s: %s",
			    transport_ssh_host_name(h), h->target, err);
			return TRANSPORT_SSH_STEP_FAILED;
		}
		log_debug(transport_ssh_host_name(h), "resolving %s",
		    h->hostname);
		h->conn = CONN_RESOLVING;
		return 0;
	case CONN_RESOLVING:
		if ((r = resolve_result(h, why)) <= 0)
			return r;
		h->addr = h->addrs;
		h->conn = CONN_TCP;
		break;
	case CONN_TCP:
		if ((r = tcp_check(h)) == 0)
			return 0;
		if (r == 1) {
			hand_over(h);
			return 1;
		}
		break;		/* try the next address */
	case CONN_SSH:
	default:
		return 1;
	}
	if ((r = tcp_try(h)) < 0) {
		*why = str_printf("%s: could not connect: %s: %s",
		    transport_ssh_host_name(h), h->target,
		    h->tried[0] != '\0' ? h->tried :
		    "no address to connect to");
		return TRANSPORT_SSH_STEP_FAILED;
	}
	if (r == 1) {
		hand_over(h);
		return 1;
	}
	return 0;
}

/*
 * After the first ssh_connect() with the given socket: libssh holds it,
 * or has closed it after an error; if it holds nothing and reports no
 * error, it never took the socket (it failed before) and we close it.
 */
void
transport_ssh_tcp_handed_over(struct transport_ssh_host *h)
{
	if (h->sock_given < 0 || ssh_get_fd(h->session) == h->sock_given)
		return;
	if (!(ssh_get_status(h->session) & (SSH_CLOSED | SSH_CLOSED_ERROR))) {
		transport_ssh_tcp_poll_close(h);
		close(h->sock_given);
	}
	h->sock_given = -1;
}

/*
 * Disconnect and free the session. A socket we gave libssh is closed by
 * ssh_free() while libssh still holds it, but libssh 0.10 and later leave
 * it open in ssh_disconnect() (and then forget it): we close it then.
 */
void
transport_ssh_tcp_release_session(struct transport_ssh_host *h)
{
	int held = h->sock_given >= 0 &&
	    ssh_get_fd(h->session) == h->sock_given;

	if (ssh_is_connected(h->session)) {
		ssh_disconnect(h->session);
#if LIBSSH_VERSION_INT >= SSH_VERSION_INT(0, 10, 0)
		if (held)
			close(h->sock_given);
#endif
	}
	ssh_free(h->session);
	h->session = NULL;
	h->sock_given = -1;
}

/* The host gave up connecting: its request, socket and addresses go. */
void
transport_ssh_tcp_abort(struct transport_ssh_host *h)
{
	resolve_abandon(h);
	sock_close(h);
	if (h->addrs != NULL)
		freeaddrinfo(h->addrs);
	h->addrs = NULL;
	h->addr = NULL;
	h->conn = CONN_START;
}

/* What a connect timeout adds before "timed out": the addresses tried. */
const char *
transport_ssh_tcp_timeout_where(const struct transport_ssh_host *h, char *buf,
    size_t size)
{
	buf[0] = '\0';
	if (h->conn == CONN_TCP && !h->numeric)
		snprintf(buf, size, "%s%s%s: ", h->tried, h->tried[0] != '\0' ?
		    "; " : "", h->addr_text);
	return buf;
}
