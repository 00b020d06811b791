/*
 * netprof exec: run a command on every host at once.
 */
#include "cmd.h"
#include "error.h"
#include "log.h"

static int
cmd_exec_exec(const struct cmd_entry *self, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	log_error("%s: not implemented yet", self->name);
	return NP_EXIT_FAILED;
}

const struct cmd_entry cmd_exec_entry = {
	.name = "exec",
	.summary = "run a command on every host at once",
	.usage = "--config FILE",
	.help = "",
	.exec = cmd_exec_exec,
};
