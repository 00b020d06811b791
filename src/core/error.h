/*
 * Error codes shared by every module: functions return 0 or one of these
 * negative codes, and error_string() maps a code to its one line of text.
 * Lower layers may also fill a "char **cause" with details; the command
 * layer reports once.
 */
#ifndef NETPROF_ERROR_H
#define NETPROF_ERROR_H

enum np_error {
	NP_OK = 0,
	NP_ERR_NOMEM = -1,
	NP_ERR_USAGE = -2,
	NP_ERR_INVENTORY = -3,
	NP_ERR_SYSTEM = -4,
	NP_ERR_IO = -5,
	NP_ERR_CONNECT = -6,	/* TCP connect or name resolution failed */
	NP_ERR_HOSTKEY_UNKNOWN = -7,
	NP_ERR_HOSTKEY_CHANGED = -8,
	NP_ERR_AUTH = -9,
	NP_ERR_TIMEOUT = -10,
	NP_ERR_CHANNEL = -11,	/* the channel could not be opened or broke */
	NP_ERR_SESSION_LOST = -12,
	NP_ERR_SPAWN = -13,	/* a local process could not be started */
	NP_ERR_PARSE = -14,
	NP_ERR_CANCELLED = -15,
	NP_ERR_INTERRUPTED = -16,
	NP_ERR_NOT_FOUND = -17,
	NP_ERR_PROTOCOL = -18,
	NP_ERR_TOOL_MISSING = -19,
	NP_ERR_UNSUPPORTED = -20,	/* not possible on this transport */
	NP_ERR_NOFILES = -21,	/* EMFILE, ENFILE: the open-file limit */
	NP_ERR_BUDGET = -22,	/* over a memory budget (the heatmap's) */
	NP_ERR_MAX = -23
};

/* One line of text for a code from enum np_error; never NULL. */
const char *error_string(int code);

/* Process exit codes, documented in netprof(1). */
enum np_exit {
	NP_EXIT_OK = 0,
	NP_EXIT_FAILED = 1,	/* ran, but some probes or hosts failed */
	NP_EXIT_USAGE = 2,	/* bad command line or inventory */
	NP_EXIT_FINDINGS = 3,	/* --fail-on: the diagnosis found what it
				   names */
	NP_EXIT_INTERRUPTED = 130
};

#endif
