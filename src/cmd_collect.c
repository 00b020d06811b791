/*
 * netprof collect: its options and their checks. The run is
 * collect_run.c's (tasks, phases, dispatch, records), with collect_iperf.c
 * and collect_fanout.c; the summary is collect_report.c's.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "collect_run.h"
#include "error.h"
#include "inventory.h"
#include "log.h"
#include "plan.h"
#include "runner.h"
#include "util.h"

static int
cmd_collect_exec(const struct cmd_entry *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		RUNNER_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "iperf", no_argument, NULL, 'I' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "serial", no_argument, NULL, 'S' },
		{ "rounds", no_argument, NULL, 'R' },
		{ "resume", no_argument, NULL, 'r' },
		{ "ping-count", required_argument, NULL, 'P' },
		{ "ping-interval", required_argument, NULL, 'i' },
		{ "iperf-seconds", required_argument, NULL, 'T' },
		{ "iperf-port", required_argument, NULL, 'p' },
		{ "fanout", required_argument, NULL, PLAN_OPT_FANOUT },
		{ "iperf-mode", required_argument, NULL, PLAN_OPT_IPERF_MODE },
		{ "ping-tool", required_argument, NULL, PLAN_OPT_PING_TOOL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct collect_options o;
	struct inventory *inv = NULL;
	int ch, r;

	memset(&o, 0, sizeof o);
	o.output = CMD_DEFAULT_RECORDS;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":c:H:Ao:nqh", longopts, NULL)) !=
	    -1) {
		if ((r = runner_option(self, &o.common, ch, optarg)) >= 0) {
			if (r != 0)
				return r;
			continue;
		}
		switch (ch) {
		case 'o': o.output = optarg; break;
		case 'I': o.plan.iperf = 1; break;
		case 'n': o.dry_run = 1; break;
		case 'S': o.plan.serial = 1; break;
		case 'R': o.plan.rounds = 1; break;
		case 'r': o.resume = 1; break;
		case 'q': o.quiet = 1; break;
		case PLAN_OPT_FANOUT:
		case PLAN_OPT_IPERF_MODE:
		case PLAN_OPT_PING_TOOL:
			if (plan_parse_option(self, ch, optarg, &o.plan) != 0)
				return NP_EXIT_USAGE;
			break;
		case 'P':
			if (cmd_parse_int(optarg, 1, 100000, &o.ping_count) != 0)
				return cmd_usage_error(self, "--ping-count: "
				    "'%s' is not a positive number", optarg);
			break;
		case 'T':
			if (cmd_parse_int(optarg, 1, 3600, &o.iperf_seconds) != 0)
				return cmd_usage_error(self, "--iperf-seconds: "
				    "'%s' is not a number from 1 to 3600",
				    optarg);
			break;
		case 'p':
			if (cmd_parse_int(optarg, 1, 65535, &o.iperf_port) != 0)
				return cmd_usage_error(self, "--iperf-port: "
				    "'%s' is not a TCP port", optarg);
			break;
		case 'i':
			if (cmd_parse_number(optarg, 0.002, 60,
			    &o.ping_interval) != 0)
				return cmd_usage_error(self, "--ping-interval: "
				    "'%s' is not a number of seconds from 0.002 "
				    "to 60", optarg);
			break;
		case 'h':
			cmd_print_usage(self, stdout, 1);
			return NP_EXIT_OK;
		default:
			return cmd_option_error(self, ch, argv);
		}
	}
	o.plan.max_channels = o.common.max_channels;
	if (cmd_need_config(self, argc, argv, o.common.config) != NP_EXIT_OK)
		return NP_EXIT_USAGE;
	if (strcmp(o.output, "-") != 0 && file_same(o.output, o.common.config))
		return cmd_usage_error(self, "--output %s is the inventory "
		    "(--config): the records would replace it; give another "
		    "--output", o.output);
	if (o.resume && strcmp(o.output, "-") == 0)
		return cmd_usage_error(self, "--resume needs --output FILE "
		    "(the file of the run to complete), not standard output");
	if (o.plan.serial && o.plan.rounds)
		return cmd_usage_error(self, "--serial and --rounds exclude "
		    "each other");
	if (cmd_load_inventory(o.common.config, o.common.hosts, &inv) != 0)
		return NP_EXIT_USAGE;
	if (!o.dry_run && cmd_make_parent_dirs(o.output, "--output") !=
	    NP_EXIT_OK) {
		inventory_free(inv);
		return NP_EXIT_USAGE;
	}
	if (inv->n_machines < 2) {
		log_error("%s: collect needs at least two machines",
		    o.common.config);
		inventory_free(inv);
		return NP_EXIT_USAGE;
	}
	/* a pair needs both hosts' sessions: hosts cannot wait their turn */
	if (!o.dry_run && runner_fd_room(inv, "collect", &o.common) != 0) {
		inventory_free(inv);
		return NP_EXIT_USAGE;
	}
	r = collect_run(&o, inv);
	inventory_free(inv);
	return r;
}

const struct cmd_entry cmd_collect_entry = {
	.name = "collect",
	.summary = "measure ping (and iperf3) for every ordered pair of hosts",
	.usage = "--config FILE [--output FILE.jsonl] [--iperf] "
	    "[--iperf-mode exclusive|duplex] [--fanout N|off] [--dry-run] "
	    "[--serial | --rounds] [--resume] [-q]",
	.help =
	    "options:\n"
	    RUNNER_HELP
	    "  -o, --output FILE        JSONL records, - for standard output "
	    "(default:\n"
	    "                           " CMD_DEFAULT_RECORDS ", directories "
	    "created)\n"
	    "      --iperf              also measure throughput with iperf3\n"
	    "      --iperf-mode M       exclusive (default): no host in two "
	    "tests at once;\n"
	    "                           duplex: each host client and server "
	    "at once\n"
	    "                           (full-duplex links, no shared "
	    "bottleneck)\n"
	    "      --fanout N|off       ping: one command per source runs up "
	    "to N pings\n"
	    "                           at once (default 256); off: one "
	    "channel per probe\n"
	    "                           (at most --max-channels per host)\n"
	    "      --ping-tool T        the fan-out's tool: auto (fping where "
	    "present),\n"
	    "                           ping, fping\n"
	    "  -n, --dry-run            print the plan, run nothing\n"
	    "      --serial             one pair at a time (the upstream "
	    "behaviour)\n"
	    "      --rounds             ping in shift rounds: one probe per "
	    "host at a time\n"
	    "      --resume             skip pairs already recorded ok in "
	    "--output, append\n"
	    "      --ping-count N       override the inventory's ping_count\n"
	    "      --ping-interval S    override ping_interval (seconds)\n"
	    "      --iperf-seconds N    override iperf_seconds\n"
	    "      --iperf-port P       override iperf_port\n"
	    "  -q, --quiet              no progress, no summary\n"
	    "  -h, --help               this help\n"
	    "\nexit status: 0 all probes ok, 1 some probes failed, 2 usage or "
	    "inventory\nerror, 130 interrupted (SIGINT/SIGTERM).\n",
	.exec = cmd_collect_exec,
};
