/*
 * The ssh transport's own types, private to its files: a host (its libssh
 * session, the queue of jobs waiting for a channel, the jobs with one, its
 * tunnels), a channel with the callbacks libssh calls for it, and a
 * tunnel. transport_ssh_ops.c steps a host and is the ops table;
 * transport_ssh_session.c connects, checks the host key and
 * authenticates; transport_ssh_connect.c reaches the SSH port for it
 * (name lookup off the loop, TCP on it); transport_ssh_tunnel.c relays a
 * direct-tcpip channel to a socket pair; transport_ssh_channel.c runs a
 * job on a channel. The calls go one way, in that order: ops, session,
 * connect and tunnel, channel. A lower file reports a failure by its
 * return value, and steps a host again (from its uv_poll callbacks) only
 * through the hook the ops file hands down (struct transport_ssh's step).
 */
#ifndef NETPROF_TRANSPORT_SSH_H
#define NETPROF_TRANSPORT_SSH_H

#include <netdb.h>
#include <stdint.h>
#include <sys/queue.h>

#include <libssh/libssh.h>
#include <libssh/callbacks.h>

#include "transport.h"

#define KILL_GRACE_MS 3000	/* wait this long for a killed command */
#define MAX_PASSES 64		/* bound of one host_step's loop */
#define WRITE_CHUNK 32768
#define TUNNEL_BUF (256 * 1024)	/* read no more from the caller's end */

/*
 * What one step of a host's connection, session, channel or tunnel did:
 * the step functions return it (a count of moves where they say so), so
 * that a failed step is never taken for an NP_ERR_* code (NP_ERR_NOMEM is
 * also -1).
 */
enum transport_ssh_step {
	TRANSPORT_SSH_STEP_FAILED = -1,	/* the host or session broke */
	TRANSPORT_SSH_STEP_WAITS = 0,	/* nothing to do until an event */
	TRANSPORT_SSH_STEP_MOVED = 1	/* progress: step again */
};

enum host_state {
	HOST_IDLE = 0,		/* no session */
	HOST_CONNECTING,	/* TCP, key exchange */
	HOST_AUTH,		/* user authentication */
	HOST_READY
};

/* How a connecting session reaches the SSH port (transport_ssh_connect.c). */
enum conn_step {
	CONN_START = 0,		/* nothing yet */
	CONN_RESOLVING,		/* getaddrinfo() runs in its thread */
	CONN_TCP,		/* our socket connects to addr */
	CONN_SSH		/* libssh has the socket, or runs the proxy */
};

struct resolve_job;

enum auth_step {
	AUTH_AGENT = 0,
	AUTH_KEY,
	AUTH_AUTO,
	AUTH_FAILED
};

/* A channel of a session, with the callbacks libssh calls for it. */
struct transport_ssh_chan {
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
struct transport_ssh_tunnel {
	TAILQ_ENTRY(transport_ssh_tunnel) entry;	/* the host's tunnels */
	struct engine_tunnel *et;	/* NULL once ended */
	struct transport_ssh_host *host;
	enum tunnel_state state;
	char *target_host;
	int target_port;
	struct transport_ssh_chan *chan;
	int fd;				/* our end of the pair */
	uv_poll_t poll;
	int poll_events;
	struct buf up;		/* from fd, for the channel */
	size_t up_off;
	struct buf down;		/* from the channel, for fd */
	size_t down_off;
	int local_eof, caller_closed, remote_eof;
};

TAILQ_HEAD(tunnel_queue, transport_ssh_tunnel);

struct transport_ssh_host {
	struct engine *engine;
	struct transport_ssh *st;	/* the transport it belongs to */
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
	int handshake_started;	/* connecting for real, not waiting */
	int reported;		/* the session step the observer was last
				   told of, + 1; 0: none open */
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
	enum conn_step conn;
	struct resolve_job *resolving;	/* in its thread, or NULL */
	struct addrinfo *addrs;	/* what the host name resolved to */
	struct addrinfo *addr;	/* the one being tried */
	int numeric;		/* the host name is an address */
	int sock;		/* ours while it connects; -1 */
	int sock_given;		/* given to libssh (SSH_OPTIONS_FD); -1 */
	char addr_text[80];	/* addr as "a.b.c.d:port" or "[v6]:port" */
	char tried[600];	/* why the addresses tried failed */
};

/* The transport's state: hosts by machine index, NULL until used. */
struct transport_ssh {
	struct engine *engine;
	/* set by transport_ssh_ops.c: step h's session, channels and
	   tunnels (the uv_poll callbacks of the files below it call it) */
	void (*step)(struct transport_ssh_host *h);
	struct transport_ssh_host **hosts;
	size_t n_hosts;
	uv_async_t resolved;	/* a resolver thread has answered */
	int resolved_open;
};

/* The host's name in messages: its machine's. */
static inline const char *
transport_ssh_host_name(const struct transport_ssh_host *h)
{
	return h->machine->name;
}


/* transport_ssh_connect.c */
int transport_ssh_tcp_step(struct transport_ssh_host *h, char **why);
void transport_ssh_tcp_poll_close(struct transport_ssh_host *h);
void transport_ssh_tcp_handed_over(struct transport_ssh_host *h);
void transport_ssh_tcp_abort(struct transport_ssh_host *h);
void transport_ssh_tcp_release_session(struct transport_ssh_host *h);
const char *transport_ssh_tcp_timeout_where(const struct transport_ssh_host *h,
    char *buf,
    size_t size);
void transport_ssh_resolve_close(struct transport_ssh *st);

/* transport_ssh_session.c */
void transport_ssh_host_fail(struct transport_ssh_host *h, int error,
    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void transport_ssh_host_timer_closed_cb(uv_handle_t *hd);
void transport_ssh_fail_queue(struct transport_ssh_host *h, int error,
    const char *text);
struct transport_ssh_host *transport_ssh_host_get(struct transport_ssh *st,
    const struct machine *m);
/* transport_ssh_route.c: s for m (its ssh_host, the inventory's ssh
   config, then its own user and port, which win); 0, or NP_ERR_INVENTORY
   when the config cannot be read (ssh_get_error(s) says why) */
int transport_ssh_configure(ssh_session s, const struct inventory *inv,
    const struct machine *m);
/* engine_route.h's for an ssh machine */
char *transport_ssh_route(const struct inventory *inv,
    const struct machine *m);
int transport_ssh_host_open(struct transport_ssh_host *h);
void transport_ssh_host_teardown(struct transport_ssh_host *h);
int transport_ssh_host_update_poll(struct transport_ssh_host *h);
void transport_ssh_host_unwatchable(struct transport_ssh_host *h, int uv_error);
int transport_ssh_session_step(struct transport_ssh_host *h);

/* transport_ssh_channel.c */
void transport_ssh_chan_free(struct transport_ssh_host *h,
    struct transport_ssh_chan *c);
struct transport_ssh_chan *transport_ssh_chan_new(struct transport_ssh_host *h,
    ssh_channel_data_callback data_cb,
    ssh_channel_eof_callback event_cb,
    ssh_channel_exit_status_callback status_cb, void *arg);
int transport_ssh_chan_read(struct transport_ssh_chan *c);
int transport_ssh_chan_write(struct transport_ssh_chan *c, const char *buf,
    size_t *off, size_t len,
    int eof);
int transport_ssh_channel_step(struct transport_ssh_host *h,
    struct engine_job *j);
void transport_ssh_finish_stopped(struct transport_ssh_host *h,
    struct engine_job *j, int status);
void transport_ssh_release_channel(struct transport_ssh_host *h,
    struct engine_job *j);
void transport_ssh_send_kill(struct transport_ssh_host *h,
    struct engine_job *j);

/* transport_ssh_tunnel.c */
void transport_ssh_tunnel_end(struct transport_ssh_tunnel *t, int error,
    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void transport_ssh_tunnels_fail(struct transport_ssh_host *h, int error,
    const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));
int transport_ssh_tunnels_step(struct transport_ssh_host *h, int *moved);
int transport_ssh_tunnel_open(struct transport_ssh_host *h,
    struct engine_tunnel *et, const char *host, int port, int *fdp);

#endif
