/*
 * netprof plan: the commands collect would run, pair by pair, and the
 * rounds the scheduler puts them in (plan.c). Nothing is run.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "error.h"
#include "inventory.h"
#include "log.h"
#include "plan.h"

static int
cmd_plan_exec(const struct cmd_entry *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "iperf", no_argument, NULL, 'I' },
		{ "rounds", no_argument, NULL, 'R' },
		{ "serial", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "fanout", required_argument, NULL, PLAN_OPT_FANOUT },
		{ "iperf-mode", required_argument, NULL, PLAN_OPT_IPERF_MODE },
		{ "max-channels", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct plan_options o = { 0 };
	struct probe_settings ps = { 0 };
	struct inventory *inv = NULL;
	const char *config = NULL;
	int ch, r;

	optind = 1;
	while ((ch = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': config = optarg; break;
		case 'I': o.iperf = 1; break;
		case 'R': o.rounds = 1; break;
		case 'S': o.serial = 1; break;
		case 'j': o.json = 1; break;
		case PLAN_OPT_FANOUT:
		case PLAN_OPT_IPERF_MODE:
		case 'm':
			if (plan_parse_option(self, ch, optarg, &o) != 0)
				return NP_EXIT_USAGE;
			break;
		case 'h':
			cmd_print_usage(self, stdout, 1);
			return NP_EXIT_OK;
		default:
			return cmd_option_error(self, ch, argv);
		}
	}
	if (cmd_need_config(self, argc, argv, config) != NP_EXIT_OK)
		return NP_EXIT_USAGE;
	if (cmd_load_inventory(config, NULL, &inv) != 0)
		return NP_EXIT_USAGE;
	ps.ping_count = inv->ping_count;
	ps.ping_interval = inv->ping_interval;
	ps.iperf_seconds = inv->iperf_seconds;
	ps.iperf_port = inv->iperf_port;
	r = plan_write(stdout, inv, &ps, &o);
	inventory_free(inv);
	if (r != 0) {
		log_error("plan: %s", error_string(r));
		return NP_EXIT_FAILED;
	}
	return NP_EXIT_OK;
}

const struct cmd_entry cmd_plan_entry = {
	.name = "plan",
	.summary = "print the commands collect would run, and its rounds",
	.usage = "--config FILE [--iperf] [--iperf-mode exclusive|duplex] "
	    "[--fanout N|off] [--rounds] [--serial] [--json]",
	.help =
	    "options:\n"
	    "  -c, --config FILE  the inventory (machines.json)\n"
	    "      --iperf        include the iperf3 phase\n"
	    "      --iperf-mode exclusive|duplex  exclusive (default): no "
	    "host in two\n"
	    "                     tests at once, 2(N-1) rounds; duplex: each "
	    "host client\n"
	    "                     and server at once, N-1 rounds\n"
	    "      --fanout N|off targets per source's fan-out ping command "
	    "(default 256);\n"
	    "                     off: one channel per probe\n"
	    "      --max-channels N  probes per host at once with --fanout "
	    "off\n"
	    "      --rounds       ping in shift rounds (one probe per host "
	    "at a time)\n"
	    "      --serial       one pair at a time, as the upstream tool\n"
	    "      --json         JSON rows: source, target, ping, "
	    "iperf_server,\n"
	    "                     iperf_client, ping_round, iperf_round\n"
	    "  -h, --help         this help\n",
	.exec = cmd_plan_exec,
};
