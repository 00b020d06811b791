/*
 * netprof bench: the OpenTela libp2p mesh sweep. This file is its command
 * line (upstream's options plus netprof's); the run is bench_run.c's.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"
#include "bench_run.h"
#include "bounds.h"
#include "cmd.h"
#include "error.h"
#include "inventory.h"
#include "log.h"
#include "multiaddr.h"
#include "option.h"
#include "probe_kind.h"
#include "runner.h"

/*
 * --kinds K,... (and --kind, upstream's name), repeatable: the node
 * kinds of the table added to the set, bits (1 << their index); none
 * given is every one (defaults()).
 */
static int
parse_kinds(const char *list, void *field)
{
	unsigned *out = field, more = 0;
	int r;

	/* repeated, each adds its kinds (upstream's --kind a --kind b) */
	if ((r = probe_kind_parse_list(list, 1u << PROBE_VIA_NODE, &more)) != 0)
		return r;
	*out |= more;
	return 0;
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

/* --throughput-bytes: a size (10M, 10485760) */
static int
bytes_parse(const char *s, void *field)
{
	long long v;

	if (option_parse_size(s, (long long)bounds_bytes.lo,
	    (long long)bounds_bytes.hi, &v) != 0)
		return NP_ERR_USAGE;
	*(long *)field = (long)v;
	return 0;
}

#define BENCH_OPT(f) offsetof(struct bench_options, f)

static const struct bounds stop_grace_bounds = { 0, 3600 };
/* each probe in flight holds BENCH_FDS_PER_CALL descriptors */
static const struct bounds max_probes_bounds = { 1, BENCH_MAX_PROBES_MAX };

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
	  .help = "name of the run (default: a new one from\n"
	  "the start time, as 2026-05-03T11-37-42-a1b2c3;\n"
	  "printed on stderr at the start)" },
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
	  .what = "a size from 1 to 1G (1073741824), like 10M or 10485760",
	  .help = "bytes per transfer (10M: 10485760)" },
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
	  .repeat = 1,
	  .help = "probe kinds, repeatable (default\n"
	  "libp2p_ping,latency,throughput; connect only\n"
	  "when named: a new connection per sample)" },
	{ .name = "kind", .type = OPTION_CUSTOM, .offset = BENCH_OPT(kinds),
	  .arg = "K", .parse = parse_kinds, .describe = kinds_describe,
	  .repeat = 1,
	  .help = "the same (upstream's name): --kind latency\n"
	  "--kind throughput runs both" },
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
	  .offset = BENCH_OPT(throughput_mode), .arg = "M",
	  .choices = bench_throughput_modes,
	  .help = "auto (default): exclusive rounds, a pair of one\n"
	  "site (or of no site, 1 ms apart at most) both ways\n"
	  "at once; exclusive: no node in two transfers at\n"
	  "once, 2(N-1) rounds; duplex: each node the source\n"
	  "of one and the target of another at once, N-1\n"
	  "rounds (full-duplex links, no shared bottleneck)" },
	{ .name = "max-probes", .type = OPTION_INT, .offset = BENCH_OPT(max_probes),
	  .arg = "N", .bounds = &max_probes_bounds,
	  .help = "light probes per node at once (2, at most 64)" },
	{ .name = "stop-grace", .type = OPTION_SECONDS,
	  .offset = BENCH_OPT(stop_grace), .arg = "S", .bounds = &stop_grace_bounds,
	  .help = "teardown: from TERM to KILL (0.5; 15 lets the\n"
	  "real node's own cleanup, about 10 s, finish)" },
	{ .name = "no-punch", .type = OPTION_FLAG, .offset = BENCH_OPT(no_punch),
	  .help = "skip the holepunch step" },
	{ .name = "serial", .type = OPTION_FLAG, .offset = BENCH_OPT(serial),
	  .help = "everything one at a time, in the upstream order" },
	{ .name = "baseline", .type = OPTION_FLAG, .offset = BENCH_OPT(baseline),
	  .help = "also run collect's ICMP ping over the same pairs\n"
	      "(beside the nodes' start; last with --serial)" },
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
	{ .name = NULL }
};

static const struct option_block bench_options_table[] = {
	{ runner_inventory_specs, BENCH_OPT(common) },
	{ bench_specs, 0 },
	{ diagnose_gate_specs, BENCH_OPT(gate) },
	{ runner_session_specs, BENCH_OPT(common) },
	{ runner_slurm_specs, BENCH_OPT(common) },
	{ trace_option_specs, BENCH_OPT(common.trace) },
	{ NULL, 0 }
};

static void
defaults(struct bench_options *o)
{
	memset(o, 0, sizeof *o);
	o->latency_count = BENCH_DEFAULT_LATENCY_COUNT;
	o->throughput_count = BENCH_DEFAULT_THROUGHPUT_COUNT;
	o->throughput_bytes = BENCH_DEFAULT_THROUGHPUT_BYTES;
	o->health_wait = BENCH_DEFAULT_HEALTH_WAIT;
	o->converge_wait = BENCH_DEFAULT_CONVERGE_WAIT;
	o->probe_timeout = BENCH_DEFAULT_PROBE_TIMEOUT;
	o->stop_grace = BENCH_DEFAULT_STOP_GRACE;
	o->max_probes = BENCH_DEFAULT_MAX_PROBES;
}

/* No --kinds: every node kind but those it must name (PROBE_ASKED). */
static void
default_kinds(struct bench_options *o)
{
	const struct probe_kind *k;

	if (o->kinds != 0)
		return;
	for (k = probe_kinds; k->name != NULL; k++)
		if (k->via == PROBE_VIA_NODE && !(k->flags & PROBE_ASKED))
			o->kinds |= 1u << probe_kind_index(k);
}

/* --output DIR a directory (or none yet), --metrics-file a file: as
   every command's outputs, a usage error before anything runs */
static int
outputs_check(const struct bench_options *o)
{
	struct stat st;

	if (o->teardown != NULL)
		return NP_EXIT_OK;
	if (o->output != NULL && stat(o->output, &st) == 0 &&
	    !S_ISDIR(st.st_mode)) {
		log_error("--output %s: not a directory; bench writes "
		    "measurements.jsonl and run.json into a directory: give "
		    "the path of one, new or existing", o->output);
		return NP_EXIT_USAGE;
	}
	if (o->metrics_file != NULL && cmd_output_check(o->metrics_file,
	    "--metrics-file", 0, NULL) != NP_EXIT_OK)
		return NP_EXIT_USAGE;
	return NP_EXIT_OK;
}

/* Every --bootstrap a peer's multiaddr, or the usage error. */
static int
bootstrap_check(const struct cmd_entry *self, const struct bench_options *o)
{
	const char *ma;
	char *why = NULL;
	size_t i;
	int r;

	for (i = 0; i < o->n_bootstrap; i++) {
		/* NAME=MULTIADDR names a relay in the records */
		ma = o->bootstrap[i][0] != '/' ? strchr(o->bootstrap[i], '=') :
		    NULL;
		if (multiaddr_check(ma != NULL ? ma + 1 : o->bootstrap[i], &why))
			continue;
		r = option_usage_error(self, "--bootstrap: %s", why != NULL ?
		    why : error_string(NP_ERR_NOMEM));
		free(why);
		return r;
	}
	return NP_EXIT_OK;
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
	default_kinds(&o);
	if ((r = bootstrap_check(self, &o)) != NP_EXIT_OK ||
	    (r = outputs_check(&o)) != NP_EXIT_OK) {
		free(o.bootstrap);
		return r;
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
	if (o.teardown == NULL && runner_need_pairs(inv, &o.common, "bench") !=
	    NP_EXIT_OK)
		r = NP_EXIT_USAGE;
	else if (o.teardown == NULL && runner_fd_room_for(inv, "bench",
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
	.usage = "--config FILE [--output DIR [--force]] [--run-id ID]\n"
	    "       [--kinds K,...] [--baseline] [--serial] [--keep] [--fail-on SEVERITY]\n"
	    "       [--teardown RUN_ID|DIR/run.json] [--otela-bin DIR] [--hosts HOSTS]\n"
	    "       [--metrics-file FILE.prom] [--slurm [JOBID]] [--otlp [URL]]",
	.options = bench_options_table,
	.notes =
	    "exit status: 0 every host and probe ok, 1 some failed, 2 usage "
	    "or inventory\nerror, 3 a finding at or above --fail-on, 130 "
	    "interrupted (the mesh is torn\ndown first).\n",
	.examples =
	    "# the mesh on every host, every pair probed: results/RUN_ID/\n"
	    "netprof bench --config machines.json --baseline\n"
	    "# into a directory of your choosing, then its page\n"
	    "netprof bench --config machines.json --output bench1\n"
	    "netprof heatmap -i bench1/measurements.jsonl -i bench1/run.json\n"
	    "# tear down a mesh left by --keep, or by a run that was killed\n"
	    "netprof bench --config machines.json --teardown RUN_ID\n",
	.exec = cmd_bench_exec,
};
