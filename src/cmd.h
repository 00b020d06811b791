/*
 * The command table: one file per command (src/cmd_*.c), each exporting a
 * struct cmd_entry. main.c lists them and dispatches by exact name or
 * unique prefix. A command's usage, help and usage errors are its option
 * table's (option.h).
 */
#ifndef NETPROF_CMD_H
#define NETPROF_CMD_H

#include <stdio.h>

#include "option.h"

struct cmd_entry {
	const char *name;
	const char *summary;	/* one line for "netprof help" */
	const char *usage;	/* synopsis, after "usage: netprof NAME " */
	const char *about;	/* --help: text before the options, or NULL */
	const struct option_block *options;	/* its table (option.h) */
	int options_first;	/* options end at the first operand */
	const char *notes;	/* --help: text after the options, or NULL */
	/* argv[0] is the command name; returns an enum np_exit code. */
	int (*exec)(const struct cmd_entry *self, int argc, char **argv);
};

extern const struct cmd_entry cmd_bench_entry;
extern const struct cmd_entry cmd_check_entry;
extern const struct cmd_entry cmd_collect_entry;
extern const struct cmd_entry cmd_exec_entry;
extern const struct cmd_entry cmd_heatmap_entry;
extern const struct cmd_entry cmd_plan_entry;

struct inventory;
/*
 * Load config and keep only the machines named in hosts (comma-separated;
 * NULL: all). On error the message (file, JSON path, fix) is reported here
 * and NP_EXIT_USAGE returned; NP_EXIT_OK and *out otherwise.
 */
int cmd_load_inventory(const char *config, const char *hosts,
    struct inventory **out);
/*
 * The end of loading an inventory, whichever loader (machines.json,
 * --slurm) returned r, inv and cause: inv narrowed to hosts, or the error
 * reported once and inv freed, as above. Takes inv and cause.
 */
int cmd_inventory_loaded(int r, struct inventory *inv, char *cause,
    const char *hosts, struct inventory **out);

/*
 * Upstream's default files: collect writes its records to
 * CMD_DEFAULT_RECORDS, which heatmap reads, and heatmap writes
 * CMD_DEFAULT_PAGE; both relative to the working directory.
 */
#define CMD_DEFAULT_RECORDS "results/network-measurements.jsonl"
#define CMD_DEFAULT_PAGE "results/network-heatmap.html"

/*
 * Create the directories path's file goes into (as mkdir -p; "-" and a
 * bare file name need none). On error the message (directory, reason,
 * option) is reported here and NP_EXIT_USAGE returned; else NP_EXIT_OK.
 */
int cmd_make_parent_dirs(const char *path, const char *option);

#endif
