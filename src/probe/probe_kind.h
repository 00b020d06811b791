/*
 * The kinds of probe, as one table: probe_kinds[] in probe_kind.c, one
 * row per kind (as bench_phases[] lists bench's phases and OpenSSH's
 * channel_pre[] its channel types). A row says what a kind is to every
 * part of netprof: its name in the records; how it runs (a command on the
 * source host, or a call to the source's otela node) and how its pairs
 * share the hosts (overlapping, or in exclusive rounds where no host is in
 * two probes at once); the command it runs and the parser that turns what
 * came back into the record's metrics or its error; and per metric its
 * unit, whether lower is better, its Prometheus gauge and the heatmap's
 * scale; and what the heatmap's overlay and diagnosis read of it.
 *
 * plan and collect (shell kinds), bench (node kinds, and --baseline's
 * shell kind), the records, the metrics and the heatmap read the rows and
 * name no kind themselves: a kind is its row here and its command and
 * parser in a file of its own (probe_ping.c, probe_iperf3.c,
 * probe_node.c). docs/architecture.md says how to add one.
 */
#ifndef NETPROF_PROBE_KIND_H
#define NETPROF_PROBE_KIND_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "error_class.h"

struct option_spec;

struct probe_settings;

/* What a metric is measured in. */
struct probe_unit {
	const char *text;	/* as the heatmap says it: "ms", "Mbit/s", ... */
	int higher_better;	/* else lower is better */
	double span_min;	/* the smallest difference worth a colour */
	double base;		/* one of it in Prometheus' base unit (s,
				   bytes/s, ratio) */
};

extern const struct probe_unit probe_unit_ms;	/* milliseconds */
extern const struct probe_unit probe_unit_mbps;	/* Mbit/s */
extern const struct probe_unit probe_unit_pct;	/* percent */
extern const struct probe_unit probe_unit_samples;	/* a count of samples */
extern const struct probe_unit probe_unit_bytes;
extern const struct probe_unit probe_unit_s;	/* seconds */
extern const struct probe_unit probe_unit_count;	/* a count, no unit */

/* A metric of a kind's records. */
struct probe_metric {
	const char *name;	/* in the record's metrics; NULL ends a list */
	const struct probe_unit *unit;
	const char *prom;	/* the gauge of the pair's latest value
				   (netprof_...), or NULL: not exported */
	const char *help;	/* the gauge's HELP text */
};

/* What a probe's command (or node call) gave back, for its parser. */
struct probe_output {
	const char *out;	/* standard output, or the node's answer;
				   NUL-terminated */
	size_t len;
	const char *err;	/* standard error; "" for a node's answer */
	int exit_status;
	const struct probe_kind *kind;	/* the kind it is an output of */
	const char *host;	/* the source's name, for the error texts */
	const char *who;	/* before them: "" or "iperf3 client: " */
};

/* What the parser fills: the record that is written (record.h). */
struct record;

/* How a kind runs. */
enum probe_via {
	PROBE_VIA_SHELL = 0,	/* .command on the source host (collect's
				   records) */
	PROBE_VIA_NODE		/* POST /v1/probe/run to the source's otela
				   node (bench's records, upstream's form) */
};

/* How its pairs share the hosts. */
enum probe_shape {
	PROBE_OVERLAP = 0,	/* light: several per host at once, up to the
				   run's per-host budget */
	PROBE_EXCLUSIVE		/* heavy: in rounds where no host is in two
				   probes at once (two transfers through one
				   host would measure each other) */
};

/*
 * What the diagnosis reads of a kind (diagnose_evidence.c): its samples
 * lost, and how far from
 * its site pair's typical value a cell is a finding, judged by its
 * latency (slow: above it, times it and by a floor in ms) or by its rate
 * (narrow: below it, times it and by a floor in its unit), how much worse
 * than the old run; what the kind is beside the others (.as); a kind
 * with neither ratio nor samples counted is not judged. ICMP on one switch is microseconds
 * and its jitter under load a millisecond or two; the libp2p kinds of a
 * node vary by tens of ms under load: their floors are higher.
 */
struct probe_judge {
	double slow_ratio, slow_floor;
	double narrow_ratio, narrow_floor;
	double worse_ratio;
	const char *latency;	/* the latency judged, or NULL: the
				   summary's (a median), else the default */
	const char *rate;	/* the rate judged (higher better; the
				   narrow floor in its unit), or NULL: its
				   metric in Mbit/s */
	const char *lost, *sent;	/* the metrics that count a probe's
				   samples lost and sent, or NULL: its loss
				   is judged on them (else on its samples) */
	unsigned as;		/* PROBE_AS_* */
	const char *base;	/* what its latency is held against, as a
				   finding says it (PROBE_AS_STREAM, _APP) */
	const char *jump_at, *jump_by;	/* the metrics that say where on
				   its path (a hop's number) its round trip
				   rises most, and by how much (ms), or
				   NULL: a slow cell's finding names them */
};

/* the raw round trip the other kinds' latencies are held against */
#define PROBE_AS_BASE	0x01
/* a stream's round trip: far above BASE's on a pair is a detour (relay) */
#define PROBE_AS_STREAM	0x02
/* an application's latency: far above STREAM's (else BASE's) is its
   overhead */
#define PROBE_AS_APP	0x04

/* What a one-way failure of the kind says must be open on the target. */
enum probe_inbound {
	PROBE_INBOUND_ICMP = 0,	/* ICMP echo */
	PROBE_INBOUND_PORT,	/* the TCP port its records' commands name */
	PROBE_INBOUND_LIBP2P	/* the target's libp2p port */
};

/* a source's pairs of a round run as one command (collect's fan-out) */
#define PROBE_FANOUT	0x01
/* may run in duplex rounds: each host client and server at once */
#define PROBE_DUPLEX	0x02
/* needs a server on the target (started, kept, ended by collect) */
#define PROBE_SERVER	0x04
/* a node kind that moves bytes: --throughput-count and -bytes */
#define PROBE_TRANSFER	0x08
/* bench --baseline runs it over the mesh's pairs */
#define PROBE_BASELINE	0x10
/* its default metric is the network's round trip between the pair: the
   heatmap clusters sites by the first such kind (in the table's order) */
#define PROBE_NET_RTT	0x20
/* upstream's plan has it: plan --json names it in every row (null when
   the plan does not run it); another kind's names are there when it runs */
#define PROBE_UPSTREAM	0x40
/* a probe of it that timed out runs once more: its start can stall on one
   lost datagram (iperf3 before 3.17 sends its UDP handshake once, then
   waits), which says nothing of the path but that a packet was lost */
#define PROBE_RETRY	0x80
/* plan and collect run it when --kinds is not given */
#define PROBE_DEFAULT	0x100
/* --iperf adds it (check --for iperf asks for its tool) */
#define PROBE_IPERF	0x200
/* bench runs it only when --kinds names it (it disturbs the pair: a
   fresh connection where the others ride the mesh's) */
#define PROBE_ASKED	0x400

/* The figure a run's summary gives per kind (the worst pair, ...). */
struct probe_summary {
	const char *metric;	/* of the record's metrics */
	const char *unit;	/* "ms", "Mbps" */
	int decimals;
	const char *what;	/* "median RTT", or NULL */
};

/*
 * One kind. A shell kind's .command is run on the source host with
 * .timeout as its limit (.duration what it takes when all goes well) (and a PROBE_SERVER kind's .server_command on the
 * target first, until it prints .server_ready); a node kind's call is
 * bench's (probe_node.h), the same for every node kind but for
 * PROBE_TRANSFER. Either way .parse turns what came back into the
 * record's outcome: its ok, its metrics (record_set_metrics(), even a
 * failed probe's, when it has some; none: {}), and when it failed its
 * error (allocated) and error_class (error_class_name()'s); the rest of
 * the record is the caller's. 0, or NP_ERR_NOMEM.
 */
struct probe_kind {
	const char *name;	/* as the records name it; NULL ends */
	const char *tool;	/* the program it needs on the source */
	const char *package;	/* the Debian package of it, or NULL: a
				   binary of the user's (check asks whether
				   it can be executed there) */
	enum probe_via via;
	enum probe_shape shape;
	unsigned flags;		/* PROBE_* */
	char *(*command)(const struct probe_settings *ps,
	    const char *address);
	double (*timeout)(const struct probe_settings *ps,
	    double connect_timeout);
	/* how long one probe takes (a round of them, for progress) */
	double (*duration)(const struct probe_settings *ps);
	int (*parse)(const struct probe_output *out, struct record *rec);
	/* PROBE_SERVER: the server, its bound for a phase of n_rounds, and
	   what it prints each time it listens for a client */
	char *(*server_command)(const struct probe_settings *ps);
	double (*server_bound)(const struct probe_settings *ps,
	    double connect_timeout, size_t n_rounds);
	const char *server_ready;
	/* plan --json's names: NAME (NAME_client and NAME_server for a
	   PROBE_SERVER kind), NAME_round, NAME_mode (upstream's plan) */
	const char *plan_name;
	const char *default_metric;	/* the heatmap's first (upstream's) */
	struct probe_summary summary;
	const struct probe_metric *metrics;
	struct probe_judge judge;
	const char *over;	/* the overlay: default metric over the
				   pair's kind of this name's, or NULL */
	const char *over_metric;	/* the overlay's name for that ratio */
	enum probe_inbound inbound;
	/*
	 * Its own settings, or NULL: a block of collect's and plan's option
	 * table (option.h) over a struct of its file's (probe.h's
	 * probe_values(): zero where not given), and what its records'
	 * config says of them (config: adds them to a JSON object, leaving
	 * it empty when they are all the defaults; 0 or NP_ERR_NOMEM).
	 */
	const struct option_spec *options;
	int (*config)(const struct probe_settings *ps, cJSON *config);
};

/* Every kind, in the order reports list them; NULL name ends. */
extern const struct probe_kind probe_kinds[];

/* The kind named name, or NULL. */
const struct probe_kind *probe_kind_find(const char *name);
/* The TCP port a record of kind k names in its command when its target
   answers on a port (PROBE_INBOUND_PORT: "iperf3 ... -p 5298 ..."),
   read after the word of its tool so that an ssh -p in front of it is
   not taken; else 0 (k or command NULL too). */
int probe_kind_command_port(const struct probe_kind *k, const char *command);
/* Its place in probe_kinds[] (for sets of kinds, 1 << index). */
size_t probe_kind_index(const struct probe_kind *k);
/* k's metric named name, or NULL (k NULL too). */
const struct probe_metric *probe_kind_metric(const struct probe_kind *k,
    const char *name);
/* The names of the kinds that run via a bit of via_mask (1 << enum
   probe_via), "a, b or c", in buf of size (for an error). */
void probe_kind_names(char *buf, size_t size, unsigned via_mask);
/* A comma-separated list of kinds that run via a bit of via_mask into
   bits (1 << their index): 0, or NP_ERR_USAGE for another name or none
   (an option's parser: --kinds). */
int probe_kind_parse_list(const char *list, unsigned via_mask,
    unsigned *bits);
/* "a comma-separated list of a, b or c" in buf of size (its describe). */
void probe_kind_describe_list(char *buf, size_t size, unsigned via_mask);

/*
 * A shell kind's output says its tool is not there (exit 127, "not
 * found"): 1 with rec failed (tool_missing, the host, the tool, or GNU
 * timeout when that is what is missing), else 0.
 */
int probe_tool_missing(const char *tool, const struct probe_output *o,
    struct record *rec);

/* rec's outcome empty (not ok, no error, class or metrics), what it held
   not freed: a parser's first step. */
void probe_outcome_start(struct record *rec);

/* rec failed, of class cls, with error (taken): 0, or NP_ERR_NOMEM when
   error is NULL (its allocation failed). */
int probe_outcome_fail(struct record *rec, enum error_class cls,
    char *error);

/* The figure a run's summary gives of an ok record of kind k: its
   summary.metric (of its metrics as numbers), or 0 when it has none. */
double probe_kind_value(const struct probe_kind *k, const struct record *rec);

#endif
