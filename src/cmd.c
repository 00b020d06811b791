/*
 * What every command shares: usage and help output, the one report of a
 * usage error, number options, loading the inventory (with --hosts) with
 * its error reported once, and the directories of an output file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "error.h"
#include "file.h"
#include "inventory.h"
#include "log.h"

void
cmd_print_usage(const struct cmd_entry *entry, FILE *f, int full)
{
	fprintf(f, "usage: netprof %s %s\n", entry->name, entry->usage);
	if (full) {
		fprintf(f, "\n%s.\n", entry->summary);
		if (entry->about != NULL)
			fprintf(f, "\n%s", entry->about);
		fputs("\noptions:\n", f);
		option_print_help(entry, f);
		if (entry->notes != NULL)
			fprintf(f, "\n%s", entry->notes);
	}
}

int
cmd_usage_error(const struct cmd_entry *entry, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "netprof %s: ", entry->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cmd_print_usage(entry, stderr, 0);
	fprintf(stderr, "Run 'netprof %s --help' for the options.\n",
	    entry->name);
	return NP_EXIT_USAGE;
}

int
cmd_option_error(const struct cmd_entry *entry, int c, char **argv)
{
	const char *word = argv[optind - 1];

	if (c == ':')
		return cmd_usage_error(entry, "option '%s' needs an argument",
		    word);
	if (optopt != 0 && word[0] == '-' && word[1] != '-')
		return cmd_usage_error(entry, "unknown option '-%c'", optopt);
	return cmd_usage_error(entry, "unknown option '%s'", word);
}

/*
 * Two parsers on purpose: an integer option takes digits only (strtol:
 * "1e3" and "5.0" are refused), a number of seconds any decimal form
 * (strtod). option.c calls them for OPTION_INT and OPTION_SECONDS.
 */
int
cmd_parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	if (*s == '\0')
		return NP_ERR_USAGE;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < lo || v > hi)
		return NP_ERR_USAGE;
	*out = (int)v;
	return 0;
}

int
cmd_parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (*s == '\0')
		return NP_ERR_USAGE;
	v = strtod(s, &end);
	if (*end != '\0' || !(v >= lo && v <= hi))
		return NP_ERR_USAGE;
	*out = v;
	return 0;
}

int
cmd_need_config(const struct cmd_entry *entry, int n_operands,
    char **operands, const char *config)
{
	if (n_operands > 0)
		return cmd_usage_error(entry, "unexpected argument '%s'",
		    operands[0]);
	if (config == NULL)
		return cmd_usage_error(entry, "--config FILE is required");
	return NP_EXIT_OK;
}

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
