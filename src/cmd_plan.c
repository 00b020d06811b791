/*
 * netprof plan: print the commands collect would run.
 */
#include "cmd.h"
#include "error.h"
#include "log.h"

static int
cmd_plan_exec(const struct cmd_entry *self, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	log_error("%s: not implemented yet", self->name);
	return NP_EXIT_FAILED;
}

const struct cmd_entry cmd_plan_entry = {
	.name = "plan",
	.summary = "print the commands collect would run",
	.usage = "--config FILE",
	.help = "",
	.exec = cmd_plan_exec,
};
