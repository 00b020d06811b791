/*
 * netprof collect: its options and their checks. The run is
 * collect_run.c's (the sweep's stages on the pair dispatcher, tasks,
 * records), with collect_server.c and collect_fanout.c; the summary is
 * collect_report.c's.
 */
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "collect_run.h"
#include "error.h"
#include "file.h"
#include "inventory.h"
#include "log.h"
#include "metrics_http.h"
#include "option.h"
#include "plan.h"
#include "probe.h"
#include "runner.h"
#include "util.h"

static const struct option_spec collect_output_specs[] = {
	{ .name = "output", .letter = 'o', .type = OPTION_STRING,
	  .offset = offsetof(struct collect_options, output), .arg = "FILE",
	  .help = "JSONL records, - for standard output (default:\n"
	  CMD_DEFAULT_RECORDS ",\n"
	  "directories created)" },
	{ .name = NULL }
};

static const struct option_spec collect_run_specs[] = {
	{ .name = "dry-run", .letter = 'n', .type = OPTION_FLAG,
	  .offset = offsetof(struct collect_options, dry_run),
	  .help = "print the plan, run nothing" },
	{ .name = "resume", .type = OPTION_FLAG,
	  .offset = offsetof(struct collect_options, resume),
	  .help = "skip pairs already recorded ok in --output, append" },
	{ .name = NULL }
};

static const struct option_block collect_options_table[] = {
	{ runner_inventory_specs, offsetof(struct collect_options, common) },
	{ collect_output_specs, 0 },
	{ plan_option_specs, offsetof(struct collect_options, plan) },
	{ collect_run_specs, 0 },
	{ probe_option_specs, offsetof(struct collect_options, probes) },
	{ collect_watch_specs, offsetof(struct collect_options, watch) },
	{ diagnose_gate_specs, offsetof(struct collect_options, gate) },
	{ runner_session_specs, offsetof(struct collect_options, common) },
	{ runner_slurm_specs, offsetof(struct collect_options, common) },
	{ trace_option_specs, offsetof(struct collect_options, common.trace) },
	{ NULL, 0 }
};

/* --every, --count, --rotate and --metrics-*, which go together. */
static int
watch_check(const struct cmd_entry *self, struct collect_watch_options *o,
    const char *output, int resume)
{
	struct sockaddr_storage ss;
	char *cause = NULL;

	o->output = output;
	if (o->every < 0 && (o->count > 0 || o->rotate > 0))
		return option_usage_error(self, "--count and --rotate go with "
		    "--every DURATION (continuous sweeps)");
	if (o->every >= 0 && resume)
		return option_usage_error(self, "--resume completes one sweep; "
		    "it does not go with --every");
	if (o->rotate > 0 && strcmp(output, "-") == 0)
		return option_usage_error(self, "--rotate needs --output FILE, "
		    "not standard output");
	if (o->metrics_public && o->metrics_listen == NULL)
		return option_usage_error(self, "--metrics-public goes with "
		    "--metrics-listen ADDR:PORT");
	if (o->metrics_file != NULL && (file_same(o->metrics_file, output) ||
	    strcmp(o->metrics_file, output) == 0))
		return option_usage_error(self, "--metrics-file %s is --output; "
		    "give another file", o->metrics_file);
	if (o->metrics_listen != NULL && metrics_http_parse_addr(
	    o->metrics_listen, o->metrics_public, &ss, &cause) != 0) {
		option_usage_error(self, "--metrics-listen %s", cause);
		free(cause);
		return NP_EXIT_USAGE;
	}
	if (o->metrics_file != NULL && cmd_output_check(o->metrics_file,
	    "--metrics-file", 0, NULL) != NP_EXIT_OK)
		return NP_EXIT_USAGE;
	return NP_EXIT_OK;
}

static int
cmd_collect_exec(const struct cmd_entry *self, int argc, char **argv)
{
	struct collect_options o;
	struct inventory *inv = NULL;
	int operand, r;

	memset(&o, 0, sizeof o);
	o.output = CMD_DEFAULT_RECORDS;
	o.watch.every = -1;	/* one sweep unless --every */
	if ((r = option_parse(self, argc, argv, &o, &operand)) != 0)
		return option_exit(r);
	o.plan.max_channels = o.common.max_channels;
	if (runner_need_inventory(self, argc - operand, argv + operand,
	    &o.common) != NP_EXIT_OK)
		return NP_EXIT_USAGE;
	if (strcmp(o.output, "-") != 0 && o.common.config != NULL &&
	    file_same(o.output, o.common.config))
		return option_usage_error(self, "--output %s is the inventory "
		    "(--config): the records would replace it; give another "
		    "--output", o.output);
	if (o.resume && strcmp(o.output, "-") == 0)
		return option_usage_error(self, "--resume needs --output FILE "
		    "(the file of the run to complete), not standard output");
	if ((r = watch_check(self, &o.watch, o.output, o.resume)) !=
	    NP_EXIT_OK)
		return r;
	if (o.gate.fail_on != DX_SEV_NONE && o.watch.every >= 0)
		return option_usage_error(self, "--fail-on judges one run; "
		    "with --every, alert on the metrics (examples/prometheus/) "
		    "or run netprof heatmap --fail-on on a sweep's records");
	if (o.gate.fail_on != DX_SEV_NONE && strcmp(o.output, "-") == 0)
		return option_usage_error(self, "--fail-on reads the run's "
		    "records back: give --output FILE, not standard output");
	if (o.plan.serial && o.plan.rounds)
		return option_usage_error(self, "--serial and --rounds exclude "
		    "each other");
	if (runner_load_inventory(&o.common, &inv) != 0)
		return NP_EXIT_USAGE;
	/* records are appended as they come: a device or a reader's FIFO
	 * takes them, unless --rotate would rename it */
	if (!o.dry_run && cmd_output_check(o.output, "--output",
	    o.watch.rotate == 0, NULL) != NP_EXIT_OK) {
		inventory_free(inv);
		return NP_EXIT_USAGE;
	}
	if (runner_need_pairs(inv, &o.common, "collect") != NP_EXIT_OK) {
		inventory_free(inv);
		return NP_EXIT_USAGE;
	}
	/* a pair needs both hosts' sessions: hosts cannot wait their turn */
	if (!o.dry_run && runner_fd_room(inv, "collect", &o.common) != 0) {
		inventory_free(inv);
		return NP_EXIT_USAGE;
	}
	r = collect_run(&o, inv);
	if (o.gate.fail_on != DX_SEV_NONE && !o.dry_run &&
	    (r == NP_EXIT_OK || r == NP_EXIT_FAILED)) {
		const char *files[] = { o.output };
		int failed;

		if (diagnose_gate_files(files, 1, inv, (enum dx_severity)
		    o.gate.fail_on, &failed) != 0)
			r = NP_EXIT_FAILED;
		else if (failed)
			r = NP_EXIT_FINDINGS;
	}
	inventory_free(inv);
	return r;
}

const struct cmd_entry cmd_collect_entry = {
	.name = "collect",
	.summary = "measure ping (and iperf3) for every ordered pair of hosts",
	.usage = "--config FILE [--output FILE.jsonl] [--kinds K,...]\n"
	    "       [--iperf] [--hosts HOSTS] [--exclude HOSTS] [--dry-run] [--resume]\n"
	    "       [--every DURATION [--count N] [--rotate SIZE]] [--fail-on SEVERITY]\n"
	    "       [--metrics-file FILE.prom] [--metrics-listen [ADDR:]PORT] [-q]\n"
	    "       [--iperf-mode exclusive|duplex] [--fanout N|off] [--sample K]\n"
	    "       [--serial | --rounds] [--slurm [JOBID]] [--otlp [URL]]",
	.options = collect_options_table,
	.notes = "exit status: 0 all probes ok, 1 some probes failed, 2 usage "
	    "or inventory\nerror, 3 a finding at or above --fail-on, 130 "
	    "interrupted (SIGINT/SIGTERM).\n",
	.examples =
	    "# ping every ordered pair: results/network-measurements.jsonl\n"
	    "netprof collect --config machines.json\n"
	    "# ping and iperf3, then the page: results/network-heatmap.html\n"
	    "netprof collect --config machines.json --iperf && netprof heatmap\n"
	    "# what would run, run nothing\n"
	    "netprof collect --config machines.json --dry-run\n"
	    "# a sweep every 10 minutes, its metrics for Prometheus\n"
	    "netprof collect --config machines.json --every 10m --metrics-file sweep.prom\n",
	.exec = cmd_collect_exec,
};
