/*
 * netprof check: tell whether every host is reachable and ready.
 */
#include "cmd.h"
#include "error.h"
#include "log.h"

static int
cmd_check_exec(const struct cmd_entry *self, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	log_error("%s: not implemented yet", self->name);
	return NP_EXIT_FAILED;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.summary = "tell whether every host is reachable and ready",
	.usage = "--config FILE",
	.help = "",
	.exec = cmd_check_exec,
};
