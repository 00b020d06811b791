/*
 * The node kinds (PROBE_VIA_NODE: libp2p_ping, latency, throughput), which
 * bench runs as a call to the source's otela node: POST /v1/probe/run with
 * {target, kind, count, bytes, timeout_ms} (docs/bench.md), the same body
 * for each but for count and bytes; and the `otela probe` line that runs
 * the same probe by hand, which their records carry as their command.
 * Their parser (the rows' .parse) reads the node's answer.
 */
#ifndef NETPROF_PROBE_NODE_H
#define NETPROF_PROBE_NODE_H

#include "probe_kind.h"

/* The request's body (a new string; NULL: out of memory). */
char *probe_node_request(const struct probe_kind *k, const char *target,
    int count, long bytes, long long timeout_ms);

/*
 * "otela probe --target PEER --kind KIND --count N --bytes B --config
 * DIR/cfg.yaml --timeout 60s" (new string), otela being how the host runs
 * it (shell text already); every value shell-quoted where needed.
 */
char *probe_node_command(const char *otela, const char *target_peer_id,
    const struct probe_kind *k, int count, long bytes, const char *dir,
    double timeout_s);

#endif
