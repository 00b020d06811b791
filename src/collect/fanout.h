/*
 * Fan-out ping: one remote command per source host pings all of that
 * host's targets of a sweep at once, so a sweep takes about one ping
 * duration for any number of hosts, over one channel per host instead of
 * one per pair. With fping on the host (and the tool left to "auto"), one
 * `fping -C` process pings every target and prints a line of per-packet
 * times for each; otherwise the script starts one ping per target in the
 * background and tags every line of its output with the target's position,
 * so the interleaved output can be split per target here. Each target's
 * part becomes the same ping_result, record and error class that a ping of
 * its own would give: one unreachable target fails only its own pair.
 */
#ifndef NETPROF_FANOUT_H
#define NETPROF_FANOUT_H

#include <stddef.h>

#include "ping_parse.h"
#include "probe.h"
#include "record.h"

/* Which tool the fan-out script uses on the host. */
enum fanout_tool {
	FANOUT_TOOL_AUTO = 0,	/* fping when present and willing, else ping */
	FANOUT_TOOL_PING,	/* one ping per target */
	FANOUT_TOOL_FPING	/* fping only (fails when it is missing) */
};

/*
 * The remote script for addresses[0..n-1] (new string; NULL: ENOMEM).
 * Every address is shell-quoted unless it is a plain word.
 */
char *fanout_command(const struct probe_settings *ps,
    char *const *addresses, size_t n, enum fanout_tool tool);

/*
 * What a single target's probe amounts to, for the record's `command`:
 * "LC_ALL=C ping -c 5 -i 1 ADDRESS" or the fping equivalent.
 */
char *fanout_target_command(const struct probe_settings *ps,
    const char *address, int fping);

/* One target's result. The callback may take ping and the record's
   error and metrics (set NULL). */
struct fanout_outcome {
	size_t index;		/* the target's position in addresses */
	struct record rec;	/* its outcome: ok, error and class, metrics */
	struct ping_result *ping;	/* parsed figures (also at 100% loss) */
	int fping;		/* measured by fping */
};

typedef void (*fanout_outcome_cb)(struct fanout_outcome *o, void *arg);

struct fanout_split;

/*
 * A splitter for the output of fanout_command(addresses, n) run on host
 * `source` (named in error texts). on_outcome is called once per target,
 * from fanout_split_feed() as soon as that target's part is complete, or
 * from fanout_split_end() for the targets the output never completed.
 */
int fanout_split_new(const char *source, char *const *addresses, size_t n,
    fanout_outcome_cb on_outcome, void *arg, struct fanout_split **out);

/* Output of the command as it arrives (stdout; stderr is not split). */
int fanout_split_feed(struct fanout_split *sp, const char *buf, size_t len);

/*
 * The command ended with exit_status (-1: none). Every target still
 * without an outcome gets one: error_class and error say why (e.g. the
 * command was killed); with why NULL, "no result in the output".
 */
void fanout_split_end(struct fanout_split *sp, enum error_class error_class,
    const char *why);

/* Nonzero once the output showed the script ran (any marker seen). */
int fanout_split_understood(const struct fanout_split *sp);

/* Targets given an outcome so far. */
size_t fanout_split_done(const struct fanout_split *sp);

void fanout_split_free(struct fanout_split *sp);

/*
 * The outcome of one ping run: its output (stdout and stderr merged) and
 * exit status, as a record sees it. Fills o (o->index untouched); the
 * caller frees o->ping and o->rec's outcome (record_outcome_clear()).
 */
int fanout_outcome_from_ping(const char *source, const char *text,
    int exit_status, struct fanout_outcome *o);

#endif
