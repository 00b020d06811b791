/*
 * The classes of error a failed probe's record carries (the schema's
 * error_class field): an enum, the strings written, and the class of an
 * error text or code. Below the records and the probes, which both speak
 * of them.
 */
#ifndef NETPROF_ERROR_CLASS_H
#define NETPROF_ERROR_CLASS_H

/* Why a probe failed, in words a user can act on. */
enum error_class {
	ERROR_CLASS_NONE = 0,
	ERROR_CLASS_UNREACHABLE,	/* SSH could not reach the host */
	ERROR_CLASS_AUTH,		/* reached, but not let in */
	ERROR_CLASS_TOOL_MISSING,	/* ping/iperf3 not installed there */
	ERROR_CLASS_TOOL_FAILED,	/* the tool ran and reported failure */
	ERROR_CLASS_TIMEOUT,
	ERROR_CLASS_PARSE,		/* output we could not read */
	ERROR_CLASS_UNSUPPORTED		/* the node does not know the kind */
};

/* "unreachable", "auth", ...; NULL for ERROR_CLASS_NONE. */
const char *error_class_name(enum error_class c);

/* The class named name (error_class_name()'s), or ERROR_CLASS_NONE. */
enum error_class error_class_of_name(const char *name);

/* The class an error text (from any writer, or upstream) belongs to. */
enum error_class error_class_of_text(const char *error);

/* The class of an error code (error.h) from the engine or the node API. */
enum error_class error_class_of_code(int error);

#endif
