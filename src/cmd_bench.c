/*
 * netprof bench: the OpenTela libp2p mesh sweep. This file is its command
 * line (upstream's options plus netprof's); the run is bench_run.c's.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_run.h"
#include "bounds.h"
#include "cmd.h"
#include "error.h"
#include "inventory.h"
#include "log.h"
#include "option.h"
#include "probe_kind.h"
#include "runner.h"

/* --kinds K,...: the node kinds of the table, bits (1 << their index) */
static int
parse_kinds(const char *list, void *field)
{
	return probe_kind_parse_list(list, 1u << PROBE_VIA_NODE, field);
}

static void
kinds_describe(char *buf, size_t size)
{
	probe_kind_describe_list(buf, size, 1u << PROBE_VIA_NODE);
}

/* A run id names directories here and on the hosts: keep it plain. */
static int
run_id_parse(const char *s, void *field)
{
	if (*s == '\0' || *s == '.' || strlen(s) >= 48 ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-") != strlen(s))
		return NP_ERR_USAGE;
	*(const char **)field = s;
	return 0;
}

/* --throughput-bytes: a whole number of bytes (1e6 is one) */
static int
bytes_parse(const char *s, void *field)
{
	double d;

	if (option_parse_number(s, bounds_bytes.lo, bounds_bytes.hi, &d) != 0 ||
	    d != (double)(long)d)
		return NP_ERR_USAGE;
	*(long *)field = (long)d;
	return 0;
}

#define BENCH_OPT(f) offsetof(struct bench_options, f)

static const struct bounds stop_grace_bounds = { 0, 3600 };
/* each probe in flight holds BENCH_FDS_PER_CALL descriptors */
static const struct bounds max_probes_bounds = { 1, BENCH_MAX_PROBES_MAX };

static const char *const throughput_modes[] = { "exclusive", "duplex",
	NULL };

static const struct option_spec bench_specs[] = {
	{ .name = "output", .letter = 'o', .type = OPTION_STRING,
	  .offset = BENCH_OPT(output), .arg = "DIR",
	  .help = "measurements.jsonl and run.json (default:\n"
	  "results/RUN_ID)" },
	{ .name = "force", .type = OPTION_FLAG, .offset = BENCH_OPT(force),
	  .help = "write over DIR's measurements.jsonl and run.json\n"
	  "when an earlier run left them (refused otherwise)" },
	{ .name = "run-id", .type = OPTION_CUSTOM, .offset = BENCH_OPT(run_id),
	  .arg = "ID", .parse = run_id_parse,
	  .what = "a name of letters, digits, '.', '_' and '-' (at most 47, "
	  "not starting with '.')",
	  .help = "name of the run (default: 2026-05-03T11-37-42-a1b2c3)" },
	{ .name = "http-port", .type = OPTION_INT, .offset = BENCH_OPT(http_port),
	  .arg = "P", .bounds = &bounds_port, .what = "a TCP port from 1 to 65535",
	  .help = "node API port (default 19090; a machine's\n"
	  "http_port wins)" },
	{ .name = "libp2p-port", .type = OPTION_INT,
	  .offset = BENCH_OPT(libp2p_port), .arg = "P",
	  .bounds = &bounds_libp2p_port,
	  .what = "a TCP port from 1 to 65534 (its UDP port is the next one)",
	  .help = "libp2p TCP port, UDP the next (default 19091;\n"
	  "likewise)" },
	{ .name = "latency-count", .type = OPTION_INT,
	  .offset = BENCH_OPT(latency_count), .arg = "N", .bounds = &bounds_count,
	  .help = "samples per libp2p_ping and latency probe (20)" },
	{ .name = "throughput-count", .type = OPTION_INT,
	  .offset = BENCH_OPT(throughput_count), .arg = "N",
	  .bounds = &bounds_count, .help = "transfers per throughput probe (3)" },
	{ .name = "throughput-bytes", .type = OPTION_CUSTOM,
	  .offset = BENCH_OPT(throughput_bytes), .arg = "B", .parse = bytes_parse,
	  .what = "a number of bytes from 1 to 1073741824",
	  .help = "bytes per transfer (10485760)" },
	{ .name = "bootstrap", .type = OPTION_LIST, .offset = BENCH_OPT(bootstrap),
	  .count = BENCH_OPT(n_bootstrap), .arg = "[NAME=]MULTIADDR",
	  .help = "extra bootstrap peer (repeatable); one with\n"
	  "/tcp/PORT/p2p/ID is a relay, and every host's legs\n"
	  "to it are measured (NAME: its name in the records)" },
	{ .name = "relay-circuits", .type = OPTION_FLAG,
	  .offset = BENCH_OPT(relay_circuits),
	  .help = "give each node every other host's circuit address\n"
	  "through each --bootstrap relay, so that two nodes\n"
	  "neither of which can dial the other reach each other" },
	{ .name = "reachability", .type = OPTION_ENUM,
	  .offset = BENCH_OPT(reachability), .arg = "R",
	  .choices = bench_reachability_names,
	  .help = "cfg.yaml's reachability: auto (upstream's), private\n"
	  "(AutoRelay reserves and announces relay slots) or\n"
	  "public" },
	{ .name = "kinds", .type = OPTION_CUSTOM, .offset = BENCH_OPT(kinds),
	  .arg = "K,...", .parse = parse_kinds, .describe = kinds_describe,
	  .help = "probe kinds (default libp2p_ping,latency,throughput)" },
	{ .name = "health-wait", .type = OPTION_SECONDS,
	  .offset = BENCH_OPT(health_wait), .arg = "S", .bounds = &bounds_wait,
	  .help = "per host, for GET /v1/health (30)" },
	{ .name = "converge-wait", .type = OPTION_SECONDS,
	  .offset = BENCH_OPT(converge_wait), .arg = "S", .bounds = &bounds_wait,
	  .help = "for every node to list every other (60)" },
	{ .name = "probe-timeout", .type = OPTION_SECONDS,
	  .offset = BENCH_OPT(probe_timeout), .arg = "S", .bounds = &bounds_wait,
	  .help = "per probe, on the node (60)" },
	{ .name = "metrics-file", .type = OPTION_STRING,
	  .offset = BENCH_OPT(metrics_file), .arg = "FILE",
	  .help = "the run's records as Prometheus metrics, written\n"
	  "atomically at the end (docs/metrics.md)" },
	{ .name = "throughput-mode", .type = OPTION_ENUM,
	  .offset = BENCH_OPT(duplex), .arg = "M", .choices = throughput_modes,
	  .help = "exclusive (default): no node in two transfers at\n"
	  "once, 2(N-1) rounds; duplex: each node the source\n"
	  "of one and the target of another at once, N-1\n"
	  "rounds (full-duplex links, no shared bottleneck)" },
	{ .name = "max-probes", .type = OPTION_INT, .offset = BENCH_OPT(max_probes),
	  .arg = "N", .bounds = &max_probes_bounds,
	  .help = "light probes per node at once (2, at most 64)" },
	{ .name = "stop-grace", .type = OPTION_SECONDS,
	  .offset = BENCH_OPT(stop_grace), .arg = "S", .bounds = &stop_grace_bounds,
	  .help = "teardown: from TERM to KILL, for the node's\n"
	  "cleanup (15; the real node takes about 10)" },
	{ .name = "no-punch", .type = OPTION_FLAG, .offset = BENCH_OPT(no_punch),
	  .help = "skip the holepunch step" },
	{ .name = "serial", .type = OPTION_FLAG, .offset = BENCH_OPT(serial),
	  .help = "everything one at a time, in the upstream order" },
	{ .name = "baseline", .type = OPTION_FLAG, .offset = BENCH_OPT(baseline),
	  .help = "also run collect's ICMP ping over the same pairs" },
	{ .name = "otela-bin", .type = OPTION_STRING, .offset = BENCH_OPT(otela_bin),
	  .arg = "DIR",
	  .help = "deploy DIR/otela-amd64|otela-arm64 (or by uname -m)\n"
	  "to ~/.cache/netprof on each host" },
	{ .name = "keep", .type = OPTION_FLAG, .offset = BENCH_OPT(keep),
	  .help = "leave the mesh running; prints the teardown command" },
	{ .name = "teardown", .type = OPTION_STRING, .offset = BENCH_OPT(teardown),
	  .arg = "RUN",
	  .help = "stop and remove a run left behind (RUN_ID or\n"
	  "DIR/run.json)" },
	{ .name = "quiet", .letter = 'q', .type = OPTION_FLAG,
	  .offset = BENCH_OPT(quiet), .help = "no progress, no summary" },
	{ .name = NULL }
};

static const struct option_block bench_options_table[] = {
	{ runner_inventory_specs, BENCH_OPT(common) },
	{ runner_session_specs, BENCH_OPT(common) },
	{ trace_option_specs, BENCH_OPT(common.trace) },
	{ bench_specs, 0 },
	{ heatmap_gate_specs, BENCH_OPT(gate) },
	{ NULL, 0 }
};

static void
defaults(struct bench_options *o)
{
	const struct probe_kind *k;

	memset(o, 0, sizeof *o);
	o->latency_count = BENCH_DEFAULT_LATENCY_COUNT;
	o->throughput_count = BENCH_DEFAULT_THROUGHPUT_COUNT;
	o->throughput_bytes = BENCH_DEFAULT_THROUGHPUT_BYTES;
	o->health_wait = BENCH_DEFAULT_HEALTH_WAIT;
	o->converge_wait = BENCH_DEFAULT_CONVERGE_WAIT;
	o->probe_timeout = BENCH_DEFAULT_PROBE_TIMEOUT;
	o->stop_grace = BENCH_DEFAULT_STOP_GRACE;
	o->max_probes = BENCH_DEFAULT_MAX_PROBES;
	for (k = probe_kinds; k->name != NULL; k++)	/* every node kind */
		if (k->via == PROBE_VIA_NODE)
			o->kinds |= 1u << probe_kind_index(k);
}

static int
cmd_bench_exec(const struct cmd_entry *self, int argc, char **argv)
{
	struct bench_options o;
	struct inventory *inv = NULL;
	int operand, r;

	defaults(&o);
	if ((r = option_parse(self, argc, argv, &o, &operand)) != 0 ||
	    (r = runner_need_inventory(self, argc - operand, argv + operand,
	    &o.common)) != NP_EXIT_OK) {
		free(o.bootstrap);
		return r > 0 && r != OPTION_HELP_PRINTED ? r : option_exit(r);
	}
	if (o.teardown != NULL && o.gate.fail_on != DX_SEV_NONE) {
		free(o.bootstrap);
		return option_usage_error(self, "--fail-on judges a run's "
		    "records; --teardown makes none");
	}
	if (o.teardown != NULL && (o.keep || o.serial || o.baseline)) {
		free(o.bootstrap);
		return option_usage_error(self, "--teardown only tears a run "
		    "down: --keep, --serial and --baseline do not apply");
	}
	if (runner_load_inventory(&o.common, &inv) != 0) {
		free(o.bootstrap);
		return NP_EXIT_USAGE;
	}
	if (inv->n_machines < 2 && o.teardown == NULL) {
		log_error("%s: bench needs at least two machines",
		    inv->path);
		r = NP_EXIT_USAGE;
	} else if (o.teardown == NULL && runner_fd_room_for(inv, "bench",
	    &o.common, BENCH_FDS_PER_HOST(o.max_probes)) != 0)
		r = NP_EXIT_USAGE;	/* every node's tunnels at once */
	else
		r = bench_run(&o, inv);
	inventory_free(inv);
	free(o.bootstrap);
	return r;
}

const struct cmd_entry cmd_bench_entry = {
	.name = "bench",
	.summary = "the OpenTela libp2p mesh sweep: start otela on every host, "
	    "probe every pair",
	.usage = "--config FILE [--output DIR [--force]] [--run-id ID] [--kinds K,...] "
	    "[--serial] [--baseline] [--keep] [--teardown RUN_ID|DIR/run.json]\n"
	    "       [--metrics-file FILE.prom] [--fail-on SEVERITY]",
	.options = bench_options_table,
	.notes =
	    "exit status: 0 every host and probe ok, 1 some failed, 2 usage "
	    "or inventory\nerror, 3 a finding at or above --fail-on, 130 "
	    "interrupted (the mesh is torn\ndown first).\n",
	.exec = cmd_bench_exec,
};
