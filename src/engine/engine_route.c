/*
 * engine_route.h: a machine's route in words, by its transport; the ssh
 * transport's from the session options as its ssh config sets them
 * (transport_ssh_route.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_route.h"
#include "inventory.h"
#include "template.h"
#include "transport_ssh.h"
#include "util.h"

/* remote_command's words for m, the command as "..." */
static char *
command_route(const struct inventory *inv, const struct machine *m)
{
	struct buf b = { 0 };
	char **argv = NULL;
	size_t i;

	if (inv->remote_command == NULL ||
	    template_expand(inv->remote_command, inv->n_remote_command, m,
	    "...", &argv) != 0)
		return strdup("remote_command (none given)");
	for (i = 0; argv[i] != NULL && b.len < 120; i++)
		buf_printf(&b, "%s%s", i > 0 ? " " : "", argv[i]);
	if (argv[i] != NULL)
		buf_printf(&b, " ...");
	template_argv_free(argv);
	return b.data != NULL ? b.data : strdup("");
}

char *
engine_route(const struct inventory *inv, const struct machine *m)
{
	switch (m->transport) {
	case TRANSPORT_SSH:
		return transport_ssh_route(inv, m);
	case TRANSPORT_COMMAND:
		return command_route(inv, m);
	case TRANSPORT_LOCAL:
		return strdup("this machine (sh -c)");
	case TRANSPORT_SLURM:
		return str_printf("job step on %s (job %s)", m->ssh_host,
		    inv->slurm_job != NULL ? inv->slurm_job : "?");
	}
	return strdup("?");
}

const char *
engine_route_no_login(const struct machine *m)
{
	switch (m->transport) {
	case TRANSPORT_COMMAND:
		return "remote_command's program logs in (its own host keys "
		    "and authentication, not netprof's)";
	case TRANSPORT_LOCAL:
		return "a local command logs in nowhere";
	case TRANSPORT_SLURM:
		return "a job step is Slurm's (no SSH)";
	case TRANSPORT_SSH:
		break;
	}
	return NULL;
}
