/*
 * What the commands share beyond their option tables (option.c): the
 * table of commands, loading the inventory with its warnings and errors
 * reported once, and checking an output file before anything runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "error.h"
#include "file.h"
#include "inventory.h"
#include "log.h"

#define CMD_DEFAULT_CONFIG "./machines.json"

const struct cmd_entry *const cmd_entries[] = {
	&cmd_bench_entry,
	&cmd_check_entry,
	&cmd_collect_entry,
	&cmd_completion_entry,
	&cmd_exec_entry,
	&cmd_heatmap_entry,
	&cmd_plan_entry,
	NULL
};

const char *
cmd_default_config(const char *config)
{
	struct stat st;

	if (config != NULL || stat(CMD_DEFAULT_CONFIG, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return config;
	if (!log_quiet())
		fprintf(stderr, "netprof: using %s\n", CMD_DEFAULT_CONFIG);
	return CMD_DEFAULT_CONFIG;
}

int
cmd_inventory_loaded(int r, struct inventory *inv, char *cause,
    struct inventory **out)
{
	*out = NULL;
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
cmd_inventory_warnings(const struct inventory *inv, int strict)
{
	size_t i, refused = 0;

	for (i = 0; i < inv->n_warnings; i++) {
		if (!inv->warnings[i].unknown_key)
			log_warn("%s", inv->warnings[i].text);
		else if (strict && ++refused)
			log_error("%s (--strict-config)", inv->warnings[i].text);
		else
			log_warn("%s (ignored; --strict-config makes it an "
			    "error)", inv->warnings[i].text);
	}
	return refused > 0 ? NP_EXIT_USAGE : NP_EXIT_OK;
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

int
cmd_output_check(const char *path, const char *option, int stream,
    mode_t *mode)
{
	struct stat st;
	const char *what;

	if (mode != NULL)
		*mode = file_new_mode();
	if (strcmp(path, "-") == 0)
		return NP_EXIT_OK;
	if (cmd_make_parent_dirs(path, option) != NP_EXIT_OK)
		return NP_EXIT_USAGE;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return NP_EXIT_OK;
		log_error("%s %s: %s; check the path", option, path,
		    strerror(errno));
		return NP_EXIT_USAGE;
	}
	if (S_ISREG(st.st_mode) || (stream && (S_ISCHR(st.st_mode) ||
	    S_ISFIFO(st.st_mode)))) {
		if (access(path, W_OK) == 0 && (!S_ISREG(st.st_mode) ||
		    (st.st_mode & 0222) != 0)) {
			if (mode != NULL && S_ISREG(st.st_mode))
				*mode = st.st_mode & 07777;
			return NP_EXIT_OK;
		}
		log_error("%s %s is read-only; make it writable or give "
		    "another path", option, path);
		return NP_EXIT_USAGE;
	}
	if (S_ISLNK(st.st_mode)) {
		log_error("%s %s is a symbolic link (netprof writes through "
		    "none); give the path of a file, new or existing", option,
		    path);
		return NP_EXIT_USAGE;
	}
	what = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ?
	    "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "a device";
	log_error("%s %s is not a regular file (%s); give the path of a "
	    "file, new or existing", option, path, what);
	return NP_EXIT_USAGE;
}
