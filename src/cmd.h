/*
 * The command table: one file per command (src/cmd_*.c), each exporting a
 * struct cmd_entry (its type is option.h's, which the parser reads).
 * main.c lists them and dispatches by exact name or unique prefix. A
 * command's usage, help and usage errors are its option table's
 * (option.h).
 */
#ifndef NETPROF_CMD_H
#define NETPROF_CMD_H

#include <stdio.h>
#include <sys/types.h>

#include "option.h"

extern const struct cmd_entry cmd_bench_entry;
extern const struct cmd_entry cmd_completion_entry;
extern const struct cmd_entry cmd_check_entry;
extern const struct cmd_entry cmd_collect_entry;
extern const struct cmd_entry cmd_exec_entry;
extern const struct cmd_entry cmd_heatmap_entry;
extern const struct cmd_entry cmd_plan_entry;

/* Every command, in the order "netprof help" lists them; NULL ends. */
extern const struct cmd_entry *const cmd_entries[];

struct inventory;
/*
 * The end of loading an inventory, whichever loader (machines.json,
 * --slurm, and the selection) returned r, inv and cause: *out = inv, or
 * the error (file, JSON path, fix) reported once and inv freed. Takes inv
 * and cause. NP_EXIT_OK, or NP_EXIT_USAGE.
 */
int cmd_inventory_loaded(int r, struct inventory *inv, char *cause,
    struct inventory **out);
/*
 * What loading inv found worth saying (inventory.h's warnings: unknown
 * keys, the environment's template) said once; with strict, an unknown
 * key is an error: reported, NP_EXIT_USAGE. NP_EXIT_OK otherwise.
 */
int cmd_inventory_warnings(const struct inventory *inv, int strict);

/*
 * --config's default: config if given, else ./machines.json when the
 * working directory has one (said on stderr, once: "netprof: using
 * ./machines.json"), else NULL.
 */
const char *cmd_default_config(const char *config);

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

/*
 * Before anything runs: a file may be written at path (of option): its
 * directories made (as mkdir -p), and it is a regular file that can be
 * written, or none yet; with stream (records appended as they come, the
 * file never replaced) a writable device or FIFO as well (/dev/null,
 * /dev/stdout, a reader's pipe). Not a directory, a symbolic link
 * (netprof writes through none), a socket, nor read-only. Otherwise the
 * one message every command gives ("--output adir is not a regular file
 * (a directory); give the path of a file, new or existing") and
 * NP_EXIT_USAGE: a bad output is a usage error in every command. "-"
 * (standard output) passes. *mode, if not NULL: the mode a regular file
 * keeps when replaced (a new one: 0666 less the umask).
 */
int cmd_output_check(const char *path, const char *option, int stream,
    mode_t *mode);

#endif
