/*
 * netprof plan: the commands collect would run, pair by pair, and the
 * rounds the scheduler puts them in (plan.c). Nothing is run.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "cmd.h"
#include "error.h"
#include "inventory.h"
#include "log.h"
#include "option.h"
#include "plan.h"
#include "probe.h"
#include "runner.h"

struct plan_command_options {
	struct runner_options common;	/* --config, --hosts, --max-channels */
	struct plan_options plan;
	struct probe_options probes;
};

static const struct option_spec plan_own_specs[] = {
	{ .name = "max-channels", .type = OPTION_INT,
	  .offset = offsetof(struct plan_command_options, common.max_channels),
	  .arg = "N", .bounds = &bounds_max_channels,
	  .help = "probes per host at once with --fanout off" },
	{ .name = "json", .type = OPTION_FLAG,
	  .offset = offsetof(struct plan_command_options, plan.json),
	  .help = "JSON rows: source, target, ping, iperf_server,\n"
	  "iperf_client, ping_round, iperf_round" },
	{ .name = NULL }
};

/*
 * plan prints the plan collect --dry-run prints: this table's blocks and
 * the first steps of cmd_plan_exec are cmd_collect.c's on purpose
 * (a copy finder pairs them); what they share lives in the blocks and the
 * runner already, and the rest is each command's own.
 */
static const struct option_block plan_options_table[] = {
	{ runner_inventory_specs, offsetof(struct plan_command_options, common) },
	{ plan_option_specs, offsetof(struct plan_command_options, plan) },
	{ plan_own_specs, 0 },
	{ runner_slurm_specs, offsetof(struct plan_command_options, common) },
	{ probe_option_specs, offsetof(struct plan_command_options, probes) },
	{ NULL, 0 }
};

static int
cmd_plan_exec(const struct cmd_entry *self, int argc, char **argv)
{
	struct plan_command_options o;
	struct probe_settings ps;
	struct inventory *inv = NULL;
	int operand, r;

	memset(&o, 0, sizeof o);
	if ((r = option_parse(self, argc, argv, &o, &operand)) != 0)
		return option_exit(r);
	o.plan.max_channels = o.common.max_channels;
	if (runner_need_inventory(self, argc - operand, argv + operand,
	    &o.common) != NP_EXIT_OK)
		return NP_EXIT_USAGE;
	if (runner_load_inventory(&o.common, &inv) != 0)
		return NP_EXIT_USAGE;
	if (runner_need_pairs(inv, &o.common, "plan") != NP_EXIT_OK) {
		inventory_free(inv);
		return NP_EXIT_USAGE;
	}
	probe_settings_init(&ps, &o.probes, inv);
	r = plan_write(stdout, inv, &ps, &o.plan);
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
	.usage = "--config FILE [--hosts HOSTS] [--exclude HOSTS]\n"
	    "       [--kinds K,...] [--iperf] [--json] [--explain] [--fanout N|off]\n"
	    "       [--iperf-mode exclusive|duplex] [--ping-tool T] [--ping-count N]\n"
	    "       [--serial | --rounds] [--sample K]",
	.options = plan_options_table,
	.examples =
	    "# the rounds of collect's sweep and each probe's command\n"
	    "netprof plan --config machines.json\n"
	    "# with iperf3, and the fan-out command each source runs\n"
	    "netprof plan --config machines.json --iperf --explain\n"
	    "# the probes as JSON rows\n"
	    "netprof plan --config machines.json --json\n",
	.exec = cmd_plan_exec,
};
