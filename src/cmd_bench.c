/*
 * netprof bench: the OpenTela libp2p mesh sweep. This file is its command
 * line (upstream's options plus netprof's); the run is bench_run.c's.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_run.h"
#include "cmd.h"
#include "error.h"
#include "inventory.h"
#include "log.h"
#include "runner.h"

enum {
	OPT_HTTP_PORT = 256, OPT_LIBP2P_PORT, OPT_LATENCY_COUNT,
	OPT_THROUGHPUT_COUNT, OPT_THROUGHPUT_BYTES, OPT_KEEP, OPT_BOOTSTRAP,
	OPT_KINDS, OPT_HEALTH_WAIT, OPT_CONVERGE_WAIT,
	OPT_NO_PUNCH, OPT_SERIAL, OPT_BASELINE, OPT_TEARDOWN, OPT_OTELA_BIN,
	OPT_PROBE_TIMEOUT, OPT_MAX_PROBES, OPT_RUN_ID
};

static const struct option longopts[] = {
	RUNNER_LONGOPTS,
	{ "output", required_argument, NULL, 'o' },
	{ "run-id", required_argument, NULL, OPT_RUN_ID },
	{ "http-port", required_argument, NULL, OPT_HTTP_PORT },
	{ "libp2p-port", required_argument, NULL, OPT_LIBP2P_PORT },
	{ "latency-count", required_argument, NULL, OPT_LATENCY_COUNT },
	{ "throughput-count", required_argument, NULL, OPT_THROUGHPUT_COUNT },
	{ "throughput-bytes", required_argument, NULL, OPT_THROUGHPUT_BYTES },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "bootstrap", required_argument, NULL, OPT_BOOTSTRAP },
	{ "kinds", required_argument, NULL, OPT_KINDS },
	{ "health-wait", required_argument, NULL, OPT_HEALTH_WAIT },
	{ "converge-wait", required_argument, NULL, OPT_CONVERGE_WAIT },
	{ "probe-timeout", required_argument, NULL, OPT_PROBE_TIMEOUT },
	{ "max-probes", required_argument, NULL, OPT_MAX_PROBES },
	{ "no-punch", no_argument, NULL, OPT_NO_PUNCH },
	{ "serial", no_argument, NULL, OPT_SERIAL },
	{ "baseline", no_argument, NULL, OPT_BASELINE },
	{ "teardown", required_argument, NULL, OPT_TEARDOWN },
	{ "otela-bin", required_argument, NULL, OPT_OTELA_BIN },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static int
parse_kinds(const char *list, unsigned *out)
{
	char *copy = strdup(list), *save = NULL, *w;
	int k, r = 0;

	*out = 0;
	if (copy == NULL)
		return NP_ERR_NOMEM;
	for (w = strtok_r(copy, ",", &save); w != NULL;
	    w = strtok_r(NULL, ",", &save)) {
		if ((k = bench_kind_parse(w)) < 0) {
			r = NP_ERR_USAGE;
			break;
		}
		*out |= 1u << k;
	}
	free(copy);
	return r == 0 && *out == 0 ? NP_ERR_USAGE : r;
}

/* A run id names directories here and on the hosts: keep it plain. */
static int
run_id_ok(const char *s)
{
	return *s != '\0' && *s != '.' && strlen(s) < 48 &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-") == strlen(s);
}

/* Options that take a number; NP_EXIT_OK or the usage error's status. */
static int
number_option(const struct cmd_entry *self, int ch, const char *arg,
    struct bench_options *o)
{
	double d;
	int v;

	switch (ch) {
	case OPT_HTTP_PORT:
	case OPT_LIBP2P_PORT:
		if (cmd_parse_int(arg, 1, 65534, &v) != 0)
			return cmd_usage_error(self, "--%s: '%s' is not a TCP "
			    "port", ch == OPT_HTTP_PORT ? "http-port" :
			    "libp2p-port", arg);
		*(ch == OPT_HTTP_PORT ? &o->http_port : &o->libp2p_port) = v;
		return NP_EXIT_OK;
	case OPT_MAX_PROBES:
		if (cmd_parse_int(arg, 1, BENCH_MAX_PROBES_MAX, &v) != 0)
			return cmd_usage_error(self, "--max-probes: '%s' is not "
			    "a number from 1 to %d", arg, BENCH_MAX_PROBES_MAX);
		o->max_probes = v;
		return NP_EXIT_OK;
	case OPT_LATENCY_COUNT:
	case OPT_THROUGHPUT_COUNT:
		if (cmd_parse_int(arg, 1, 100000, &v) != 0)
			return cmd_usage_error(self, "'%s' is not a positive "
			    "number", arg);
		*(ch == OPT_LATENCY_COUNT ? &o->latency_count :
		    &o->throughput_count) = v;
		return NP_EXIT_OK;
	case OPT_THROUGHPUT_BYTES:
		if (cmd_parse_number(arg, 1, 1073741824, &d) != 0 ||
		    d != (double)(long)d)
			return cmd_usage_error(self, "--throughput-bytes: '%s' "
			    "is not a number of bytes from 1 to 1073741824",
			    arg);
		o->throughput_bytes = (long)d;
		return NP_EXIT_OK;
	default:
		if (cmd_parse_number(arg, 0.1, 86400, &d) != 0)
			return cmd_usage_error(self, "'%s' is not a number of "
			    "seconds from 0.1 to 86400", arg);
		*(ch == OPT_HEALTH_WAIT ? &o->health_wait :
		    ch == OPT_CONVERGE_WAIT ? &o->converge_wait :
		    &o->probe_timeout) = d;
		return NP_EXIT_OK;
	}
}

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
	o->max_probes = BENCH_DEFAULT_MAX_PROBES;
	o->kinds = (1u << BENCH_N_KINDS) - 1;
}

static int
parse(const struct cmd_entry *self, int argc, char **argv,
    struct bench_options *o)
{
	const char **more;
	int ch, r;

	optind = 1;
	while ((ch = getopt_long(argc, argv, ":c:H:Ao:qh", longopts, NULL)) !=
	    -1) {
		if ((r = runner_option(self, &o->common, ch, optarg)) >= 0) {
			if (r != 0)
				return r;
			continue;
		}
		switch (ch) {
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = 1; break;
		case OPT_RUN_ID:
			if (!run_id_ok(optarg))
				return cmd_usage_error(self, "--run-id: '%s' may "
				    "only have letters, digits, '.', '_' and "
				    "'-'", optarg);
			o->run_id = optarg;
			break;
		case OPT_KEEP: o->keep = 1; break;
		case OPT_NO_PUNCH: o->no_punch = 1; break;
		case OPT_SERIAL: o->serial = 1; break;
		case OPT_BASELINE: o->baseline = 1; break;
		case OPT_TEARDOWN: o->teardown = optarg; break;
		case OPT_OTELA_BIN: o->otela_bin = optarg; break;
		case OPT_KINDS:
			if (parse_kinds(optarg, &o->kinds) != 0)
				return cmd_usage_error(self, "--kinds: '%s' is not "
				    "a list of libp2p_ping, latency, throughput",
				    optarg);
			break;
		case OPT_BOOTSTRAP:
			if ((more = realloc(o->bootstrap, (o->n_bootstrap + 1) *
			    sizeof *more)) == NULL)
				return NP_EXIT_USAGE;
			o->bootstrap = more;
			o->bootstrap[o->n_bootstrap++] = optarg;
			break;
		case OPT_HTTP_PORT: case OPT_LIBP2P_PORT:
		case OPT_LATENCY_COUNT: case OPT_THROUGHPUT_COUNT:
		case OPT_THROUGHPUT_BYTES: case OPT_MAX_PROBES:
		case OPT_HEALTH_WAIT: case OPT_CONVERGE_WAIT:
		case OPT_PROBE_TIMEOUT:
			if ((r = number_option(self, ch, optarg, o)) != NP_EXIT_OK)
				return r;
			break;
		case 'h':
			cmd_print_usage(self, stdout, 1);
			return -1;
		default:
			return cmd_option_error(self, ch, argv);
		}
	}
	return cmd_need_config(self, argc, argv, o->common.config);
}

static int
cmd_bench_exec(const struct cmd_entry *self, int argc, char **argv)
{
	struct bench_options o;
	struct inventory *inv = NULL;
	int r;

	defaults(&o);
	if ((r = parse(self, argc, argv, &o)) != NP_EXIT_OK) {
		free(o.bootstrap);
		return r < 0 ? NP_EXIT_OK : r;
	}
	if (o.teardown != NULL && (o.keep || o.serial || o.baseline)) {
		free(o.bootstrap);
		return cmd_usage_error(self, "--teardown only tears a run "
		    "down: --keep, --serial and --baseline do not apply");
	}
	if (cmd_load_inventory(o.common.config, o.common.hosts, &inv) != 0) {
		free(o.bootstrap);
		return NP_EXIT_USAGE;
	}
	if (inv->n_machines < 2 && o.teardown == NULL) {
		log_error("%s: bench needs at least two machines",
		    o.common.config);
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
	.usage = "--config FILE [--output DIR] [--run-id ID] [--kinds K,...] "
	    "[--serial] [--baseline] [--keep] [--teardown RUN_ID|DIR/run.json]",
	.help =
	    "options:\n"
	    RUNNER_HELP
	    "  -o, --output DIR         measurements.jsonl and run.json "
	    "(default:\n"
	    "                           results/RUN_ID)\n"
	    "      --run-id ID          name of the run (default: "
	    "2026-05-03T11-37-42-a1b2c3)\n"
	    "      --http-port P        node API port (default 19090; a "
	    "machine's\n"
	    "                           http_port wins)\n"
	    "      --libp2p-port P      libp2p TCP port (default 19091; "
	    "likewise)\n"
	    "      --latency-count N    samples per libp2p_ping and latency "
	    "probe (20)\n"
	    "      --throughput-count N transfers per throughput probe (3)\n"
	    "      --throughput-bytes B bytes per transfer (10485760)\n"
	    "      --bootstrap MULTIADDR extra bootstrap peer (repeatable)\n"
	    "      --kinds K,...        probe kinds (default libp2p_ping,"
	    "latency,throughput)\n"
	    "      --health-wait S      per host, for GET /v1/health (30)\n"
	    "      --converge-wait S    for every node to list every other "
	    "(60)\n"
	    "      --probe-timeout S    per probe, on the node (60)\n"
	    "      --max-probes N       light probes per node at once (2, at "
	    "most 64)\n"
	    "      --no-punch           skip the holepunch step\n"
	    "      --serial             everything one at a time, in the "
	    "upstream order\n"
	    "      --baseline           also run collect's ICMP ping over the "
	    "same pairs\n"
	    "      --otela-bin DIR      deploy DIR/otela-amd64|otela-arm64 "
	    "(or by uname -m)\n"
	    "                           to ~/.cache/netprof on each host\n"
	    "      --keep               leave the mesh running; prints the "
	    "teardown command\n"
	    "      --teardown RUN       stop and remove a run left behind "
	    "(RUN_ID or\n"
	    "                           DIR/run.json)\n"
	    "  -q, --quiet              no progress, no summary\n"
	    "  -h, --help               this help\n"
	    "\nexit status: 0 every host and probe ok, 1 some failed, 2 usage "
	    "or inventory\nerror, 130 interrupted (the mesh is torn down "
	    "first).\n",
	.exec = cmd_bench_exec,
};
