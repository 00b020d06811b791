/*
 * The inventory: machines.json, as the upstream profiler reads it, plus
 * netprof's SSH fields. inventory_load() validates everything up front so
 * that commands never see a half-valid machine.
 */
#ifndef NETPROF_INVENTORY_H
#define NETPROF_INVENTORY_H

#include <stddef.h>

enum transport_kind {
	TRANSPORT_SSH = 0,	/* libssh, one session per host (default) */
	TRANSPORT_COMMAND,	/* remote_command argv template, run locally */
	TRANSPORT_LOCAL,	/* /bin/sh -c on this machine */
	TRANSPORT_SLURM		/* a job step of inventory.slurm_job (srun) */
};

struct machine {
	char *name;		/* label in records; safe for a shell word */
	char *address;		/* what peers dial: IPv4, IPv6 or host name */
	char *rcc_host;		/* upstream: the rcc profile; may be NULL */
	char *site;		/* where it stands ("zurich"); NULL if not given */
	char *ssh_host;		/* ssh_host, else rcc_host, else name */
	char *user;		/* NULL: from ssh config or the local user */
	int port;		/* 0: from ssh config, else 22 */
	char *identity_file;	/* NULL: ssh config, agent, default keys */
	char *remote_setup;	/* shell text run before every command */
	enum transport_kind transport;
	int http_port;		/* default 19090 */
	int libp2p_port;	/* default 19091 */
	char **bootstrap_extra;	/* multiaddrs */
	size_t n_bootstrap_extra;
	size_t index;		/* position in machines[] */
};

/* What loading found worth saying, the command says (cmd.h). */
struct inventory_warning {
	char *text;		/* the file, the JSON path, what and the fix */
	int unknown_key;	/* a key netprof does not know (a typo, most
				   likely): an error with --strict-config */
};

struct inventory {
	char *path;		/* as given, for messages */
	struct inventory_warning *warnings;
	size_t n_warnings;
	struct machine *machines;
	size_t n_machines;
	char **remote_command;	/* argv template; NULL when absent */
	size_t n_remote_command;
	int remote_command_env;	/* the template is NETWORK_PROFILER_REMOTE_CMD's */
	int ping_count;		/* default 5 */
	double ping_interval;	/* seconds, default 1.0 */
	int iperf_seconds;	/* default 5 */
	int iperf_port;		/* default 5201 */
	int connect_timeout_seconds; /* default 10 */
	char *known_hosts_file;	/* default ~/.ssh/known_hosts */
	char *ssh_config_file;	/* default ~/.ssh/config */
	char *slurm_job;	/* --slurm: the job whose nodes these are */
};

#define INVENTORY_DEFAULT_HTTP_PORT 19090
#define INVENTORY_DEFAULT_LIBP2P_PORT 19091

/*
 * Read and validate path. On error returns NP_ERR_INVENTORY (or NP_ERR_IO,
 * NP_ERR_NOMEM) and sets *cause to a message that names the file, the JSON
 * path and the fix, e.g.
 *   machines.json: machines[2].address: "10.0.0.300" is not an IP address
 *   or host name
 * The caller frees *cause. *out is set only on success, with its
 * warnings: each key netprof does not know, with the known one it most
 * likely means (machines.json: "ping-count": unknown key; did you mean
 * "ping_count"?), and NETWORK_PROFILER_REMOTE_CMD taking the place of the
 * file's remote_command or of its SSH fields.
 */
int inventory_load(const char *path, struct inventory **out, char **cause);

/* The same on a string; path is used only in messages. */
int inventory_parse(const char *text, const char *path,
    struct inventory **out, char **cause);

void inventory_free(struct inventory *inv);
/* Free what m holds and zero it (inventory_select's machines left out). */
void inventory_machine_clear(struct machine *m);

/*
 * The name rule of a machine's name and site: [A-Za-z0-9][A-Za-z0-9._-]*,
 * at most INVENTORY_NAME_MAX bytes, a word no shell or program reads as
 * anything else. Nonzero if s keeps it.
 */
#define INVENTORY_NAME_MAX 64
int inventory_name_valid(const char *s);

/* The machine called name, or NULL. */
struct machine *inventory_find(const struct inventory *inv, const char *name);

/*
 * Keep only the machines the host lists name (--hosts, each a list as
 * hostlist.h reads it: n1,n2, n[1-8,10], or @SITE for the machines of a
 * site), or all when there are none, less those the exclude lists name
 * (--exclude), in the inventory's order. A name that matches nothing is
 * NP_ERR_NOT_FOUND, with *cause naming the option, the name, the nearest
 * one and the machines (or sites) there are; a malformed list and a
 * selection left empty are NP_ERR_USAGE.
 */
int inventory_select(struct inventory *inv, const char *const *hosts,
    size_t n_hosts, const char *const *exclude, size_t n_exclude,
    char **cause);

/*
 * The libp2p multiaddr peers dial to reach m on port:
 * "/ip4/ADDR/tcp/PORT/p2p/PEER_ID" ("/ip6/..." for an IPv6 literal,
 * "/dns4/..." for a host name); without "/p2p/..." when peer_id is NULL.
 * *out is a new string.
 */
int inventory_multiaddr(const struct machine *m, int port,
    const char *peer_id, char **out);

#endif
