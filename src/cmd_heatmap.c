/*
 * netprof heatmap: render measurements as a self-contained HTML page.
 */
#include "cmd.h"
#include "error.h"
#include "log.h"

static int
cmd_heatmap_exec(const struct cmd_entry *self, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	log_error("%s: not implemented yet", self->name);
	return NP_EXIT_FAILED;
}

const struct cmd_entry cmd_heatmap_entry = {
	.name = "heatmap",
	.summary = "render measurements as a self-contained HTML page",
	.usage = "--config FILE",
	.help = "",
	.exec = cmd_heatmap_exec,
};
