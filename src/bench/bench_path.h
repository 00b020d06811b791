/*
 * Private to src/bench/: what the path phase learns of the paths between
 * the nodes, and how a record's path is concluded from it (bench_path.c,
 * bench_path_infer.c; docs/otela-node.md, "The path of a connection", says what each signal
 * means and how sure each class is).
 */
#ifndef NETPROF_BENCH_PATH_H
#define NETPROF_BENCH_PATH_H

#include <stddef.h>

#include "bench.h"

struct engine_job;

/* libp2p's connectedness of a peer, as the node's peers_status says it. */
enum bench_conn {
	BENCH_CONN_UNKNOWN = 0,	/* no view, or the peer is not in it */
	BENCH_CONN_NONE,	/* NotConnected (or another word: CanConnect…) */
	BENCH_CONN_LIMITED,	/* only limited connections: a limited relay */
	BENCH_CONN_CONNECTED	/* a connection that is not limited: direct,
				   or through a relay without limits */
};

/* A TCP connect from a host to a target's libp2p port. */
struct bench_reach {
	signed char tcp;	/* 1 connected, 0 failed, -1 not checked */
	char *why;		/* failed: what the check said */
	long connect_us;	/* connected: the connect's time (one round
				   trip, SYN to SYN-ACK), µs; 0 unknown */
	unsigned char asked;	/* in the reach command's list */
};

/* Seconds a reach check's connect may take before it counts as dropped. */
#define BENCH_REACH_WAIT_S 5

/* A reach check's target: a host's or a relay's libp2p port. */
struct bench_reach_target {
	const char *address;
	int port;
};

/*
 * The reach checks of t[n] from one host as one command line (one bash:
 * bench_path_reach.c), a connect dropped after wait_s seconds; a new
 * string or NULL. Its output read into r[n] (r[i] for t[i], each not
 * checked yet: tcp -1).
 */
char *bench_path_reach_command(const struct bench_reach_target *t, size_t n,
    int wait_s);
void bench_path_reach_read(const struct bench_reach_target *t,
    struct bench_reach *const *r, size_t n, int wait_s, const char *out);

/* One peer of a node's view. */
struct bench_peer_view {
	char *id;
	unsigned char conn;	/* enum bench_conn */
	char *relay_peer;	/* the relay of the peer's circuit address in
				   the node's peer store, else its relay_peer
				   in the node's table */
	unsigned char circuit;	/* relay_peer is the circuit address's */
};

/* A node's view of its connections at one moment. */
struct bench_view {
	int taken;		/* some of it was read */
	int status_read;	/* peers_status was: a peer it lacks is not
				   connected */
	long circuits;		/* connections through a relay open now
				   (GET /metrics: opened - closed); -1 */
	struct bench_peer_view *peers;	/* sorted by id */
	size_t n;
};

/* The views: before the sweep, and before its exclusive stage. */
#define BENCH_N_VIEWS 2

/* What the path phase learned on a host (struct bench_host's path). */
struct bench_path_host {
	struct bench_reach *reach;	/* per target: hosts, then relays */
	struct bench_view views[BENCH_N_VIEWS];
	int reading;		/* the view being read */
	int step;		/* its next call */
	int in_phase;		/* read as the path phase's step */
	struct engine_job *reach_job;	/* the reach checks' */
	int reach_state;	/* 0 not begun, 1 under way, 2 done */
};

/* What a record's path is concluded from. */
struct bench_path_in {
	const char *source, *target;		/* names */
	const char *source_at, *target_at;	/* "ADDR:PORT" dialled */
	int ok;					/* the probe's outcome */
	const struct bench_reach *st, *ts;	/* source to target and
						   back; NULL: no check */
	enum bench_conn conn;	/* the source's view of the target */
	long circuits_s, circuits_t;	/* open circuits; -1 unknown */
	int punched;		/* the punch step's DCUtR joined the pair
				   (ok after attempts) */
	double handshake_ms;	/* a direct TCP connect's time between the
				   two (either way); <= 0 unknown */
	double rtt_ms;		/* the pair's fastest round trip through
				   the nodes (libp2p_ping's or latency's
				   fastest sample); <= 0 unknown */
	double excess_ms;	/* the run's inflation: the median of round
				   trip minus handshake over the pairs
				   written before that only a direct
				   connection can have carried; 0 unknown */
	double legs_ms[2];	/* the pair's legs through its relay (the
				   source's, the target's); <= 0 unknown */
	int legs_measured;	/* legs_ms are round trips through the
				   nodes; else TCP handshakes */
};

struct bench_path_out {
	enum bench_path_class path;
	int reported;		/* the node said so; else inferred */
	char *evidence;		/* how it was known (new string), or NULL */
};

/*
 * A round trip through the nodes nearer the relayed prediction than the
 * direct one (the handshake plus the run's inflation) and over the direct
 * one by more than this many ms, or with no relayed prediction over twice
 * the handshake plus the inflation plus this many ms, did not run direct
 * (bench_path_infer()).
 */
#define BENCH_PATH_SLOW_MS 10.0

/*
 * The path the probe ran over, from what the node reported, the reach
 * checks and, where a circuit may carry a pair that could dial direct,
 * its round trip against the direct handshake: 0, or NP_ERR_NOMEM.
 * out->evidence says what it rests on, also when the path stays unknown
 * (a failed probe: no TCP either way).
 */
int bench_path_infer(const struct bench_path_in *in,
    struct bench_path_out *out);

/*
 * No circuit can join the pair: none open at either end (a node's
 * circuits, -1 unknown). go-libp2p counts a circuit only at the end that
 * dialled it (the circuit transport names its own dials; one it accepts
 * is counted under transport "tcp", as every connection its upgrader
 * makes), so no circuit at one end does not rule one out.
 */
int bench_path_no_circuit(long circuits_s, long circuits_t);

/* peers_status's word as enum bench_conn. */
enum bench_conn bench_conn_of(const char *connectedness);

/* The view's peer id, or NULL. */
const struct bench_peer_view *bench_view_peer(const struct bench_view *v,
    const char *id);

struct node_peer;

/*
 * A node's answer's peers[n] (node_json.h; their strings taken) into v:
 * v's peers sorted by id, an id once, the first of an id's entries (v's
 * own before the new) filled in by the others. Sorted once, by cmp
 * (bench_view_cmp, over pointers to the entries; a test counts it), so a
 * table of any size and order costs n log n comparisons on the loop. 0, or
 * NP_ERR_NOMEM (v unchanged).
 */
int bench_view_take(struct bench_view *v, struct node_peer *peers, size_t n,
    int (*cmp)(const void *, const void *));
int bench_view_cmp(const void *a, const void *b);
void bench_view_clear(struct bench_view *v);

/*
 * The relay of a pair from source sid (its view s) to target id (its view
 * d; NULL: a relay), from the pair's own ends' views only: target id's
 * relay in the source's view (view, then the first), else in the
 * destination's; else the source's own relay in the destination's view
 * (the source knowing no relay of the target's, the one connection
 * between them is the target's dial of the source's circuit). Another
 * node's view never names a pair's relay. NULL if none; *how (if not
 * NULL) says where it was read (BENCH_RELAY_*).
 */
enum bench_relay_how {
	BENCH_RELAY_TABLE,	/* the target's relay_peer in a node table */
	BENCH_RELAY_CIRCUIT,	/* the target's circuit address's relay */
	BENCH_RELAY_SOURCE	/* the source's, in the target's view */
};
const char *bench_path_relay_peer(const struct bench_path_host *s,
    const struct bench_path_host *d, const char *sid, const char *id,
    int view, enum bench_relay_how *how);

struct bench;

/*
 * The reach checks begun on every live host as soon as every node is up
 * (listening: a node's API answers only after), beside the convergence
 * and the punch; the path phase's step takes them, or waits for them (an
 * interrupt cancels path->reach_job).
 */
void bench_path_reach_begin(struct bench *b);

/* Did the punch step's DCUtR join src and dst (ok after attempts, no
   error)? */
int bench_path_punched(const struct bench *b, size_t src, size_t dst);

#endif
