/*
 * The one table of error texts. Keep it in the order of enum np_error.
 */
#include <stddef.h>

#include "error.h"

static const char *const error_texts[] = {
	[0] = "success",
	[-NP_ERR_NOMEM] = "out of memory",
	[-NP_ERR_USAGE] = "invalid usage",
	[-NP_ERR_INVENTORY] = "invalid inventory",
	[-NP_ERR_SYSTEM] = "system call failed",
	[-NP_ERR_IO] = "input/output error",
	[-NP_ERR_CONNECT] = "could not connect",
	[-NP_ERR_HOSTKEY_UNKNOWN] = "host key is not known",
	[-NP_ERR_HOSTKEY_CHANGED] = "host key has changed",
	[-NP_ERR_AUTH] = "authentication failed",
	[-NP_ERR_TIMEOUT] = "timed out",
	[-NP_ERR_CHANNEL] = "SSH channel failed",
	[-NP_ERR_SESSION_LOST] = "SSH session lost",
	[-NP_ERR_SPAWN] = "could not start process",
	[-NP_ERR_PARSE] = "could not parse output",
	[-NP_ERR_CANCELLED] = "cancelled",
	[-NP_ERR_INTERRUPTED] = "interrupted",
	[-NP_ERR_NOT_FOUND] = "not found",
	[-NP_ERR_PROTOCOL] = "protocol error",
	[-NP_ERR_TOOL_MISSING] = "tool not installed",
	[-NP_ERR_UNSUPPORTED] = "not supported on this transport",
	[-NP_ERR_NOFILES] =
	    "too many open files (raise the limit with ulimit -n)",
	[-NP_ERR_BUDGET] = "over the memory budget",
};

const char *
error_string(int code)
{
	if (code > 0 || code <= NP_ERR_MAX || error_texts[-code] == NULL)
		return "unknown error";
	return error_texts[-code];
}
