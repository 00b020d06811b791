/*
 * The cfg.yaml of one bench host, as the otela contract gives it: ports as
 * strings, every other host as a static bootstrap peer (in inventory
 * order), then the --bootstrap extras, then the host's own
 * bootstrap_extra, then (--relay-circuits) every other host's circuit
 * address through each relay. It is rendered as JSON, which is valid YAML
 * 1.2, so no YAML quoting rule can go wrong.
 */
#ifndef NETPROF_BENCH_CFG_H
#define NETPROF_BENCH_CFG_H

#include <stddef.h>

#include "inventory.h"

struct bench_relay;

struct bench_cfg_peer {
	const struct machine *m;
	int libp2p_port;
	const char *peer_id;
};

struct bench_cfg {
	const char *run_id;
	int http_port, libp2p_port;
	const struct bench_cfg_peer *peers;	/* the other hosts */
	size_t n_peers;
	const char *const *extra;		/* --bootstrap */
	size_t n_extra;
	char *const *host_extra;		/* machine's bootstrap_extra */
	size_t n_host_extra;
	const char *reachability;		/* auto, private, public */
	const struct bench_relay *relays;	/* circuits through these */
	size_t n_relays;
};

/* The document (new string, ends with a newline); NULL: out of memory. */
char *bench_cfg_render(const struct bench_cfg *c);

#endif
