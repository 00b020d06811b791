/*
 * What the commands share beyond their option tables (option.c): loading
 * the inventory (with --hosts) with its error reported once, and the
 * directories of an output file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "error.h"
#include "file.h"
#include "inventory.h"
#include "log.h"

int
cmd_inventory_loaded(int r, struct inventory *inv, char *cause,
    const char *hosts, struct inventory **out)
{
	*out = NULL;
	if (r == 0 && hosts != NULL)
		r = inventory_select(inv, hosts, &cause);
	if (r != 0) {
		log_error("%s", cause != NULL ? cause : error_string(r));
		free(cause);
		inventory_free(inv);
		return NP_EXIT_USAGE;
	}
	*out = inv;
	return NP_EXIT_OK;
}

int
cmd_load_inventory(const char *config, const char *hosts,
    struct inventory **out)
{
	struct inventory *inv = NULL;
	char *cause = NULL;
	int r = inventory_load(config, &inv, &cause);

	return cmd_inventory_loaded(r, inv, cause, hosts, out);
}

int
cmd_make_parent_dirs(const char *path, const char *option)
{
	char *cause = NULL;
	int r;

	if ((r = file_make_parent_dirs(path, &cause)) == 0)
		return NP_EXIT_OK;
	log_error("%s %s: %s", option, path, cause != NULL ? cause :
	    error_string(r));
	free(cause);
	return r == NP_ERR_NOMEM ? NP_EXIT_FAILED : NP_EXIT_USAGE;
}
