/*
 * netprof collect: measure ping (and iperf3) for every ordered pair of hosts.
 */
#include "cmd.h"
#include "error.h"
#include "log.h"

static int
cmd_collect_exec(const struct cmd_entry *self, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	log_error("%s: not implemented yet", self->name);
	return NP_EXIT_FAILED;
}

const struct cmd_entry cmd_collect_entry = {
	.name = "collect",
	.summary = "measure ping (and iperf3) for every ordered pair of hosts",
	.usage = "--config FILE",
	.help = "",
	.exec = cmd_collect_exec,
};
