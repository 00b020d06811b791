/*
 * The error classes (error_class.h): their names, and the rules that class
 * an error text written without a class (by upstream's tool or an older
 * netprof) or an error code.
 */
#include <ctype.h>
#include <string.h>

#include "error.h"
#include "error_class.h"

static const char *const error_class_names[] = {
	[ERROR_CLASS_NONE] = NULL,
	[ERROR_CLASS_UNREACHABLE] = "unreachable",
	[ERROR_CLASS_AUTH] = "auth",
	[ERROR_CLASS_TOOL_MISSING] = "tool_missing",
	[ERROR_CLASS_TOOL_FAILED] = "tool_failed",
	[ERROR_CLASS_TIMEOUT] = "timeout",
	[ERROR_CLASS_PARSE] = "parse",
	[ERROR_CLASS_UNSUPPORTED] = "unsupported",
};

const char *
error_class_name(enum error_class c)
{
	if ((size_t)c >= sizeof error_class_names / sizeof *error_class_names)
		return NULL;
	return error_class_names[c];
}

enum error_class
error_class_of_name(const char *name)
{
	size_t c;

	for (c = 1; name != NULL && c < sizeof error_class_names /
	    sizeof *error_class_names; c++)
		if (strcmp(name, error_class_names[c]) == 0)
			return (enum error_class)c;
	return ERROR_CLASS_NONE;
}

enum error_class
error_class_of_text(const char *error)
{
	static const struct {
		const char *needle;
		enum error_class class;
	} rules[] = {
		{ "timed out", ERROR_CLASS_TIMEOUT },
		{ "timeout", ERROR_CLASS_TIMEOUT },
		{ "deadline", ERROR_CLASS_TIMEOUT },
		{ "permission denied", ERROR_CLASS_AUTH },
		{ "authentication", ERROR_CLASS_AUTH },
		{ "host key", ERROR_CLASS_AUTH },
		{ "command not found", ERROR_CLASS_TOOL_MISSING },
		{ "not installed", ERROR_CLASS_TOOL_MISSING },
		{ "no such file", ERROR_CLASS_TOOL_MISSING },
		{ "unreachable", ERROR_CLASS_UNREACHABLE },
		{ "no route", ERROR_CLASS_UNREACHABLE },
		{ "failed to dial", ERROR_CLASS_UNREACHABLE },
		{ "dial backoff", ERROR_CLASS_UNREACHABLE },
		{ "100% packet loss", ERROR_CLASS_UNREACHABLE },
		{ "connection refused", ERROR_CLASS_UNREACHABLE },
		{ "could not resolve", ERROR_CLASS_UNREACHABLE },
		{ "name or service not known", ERROR_CLASS_UNREACHABLE },
		{ "unknown kind", ERROR_CLASS_UNSUPPORTED },
		{ "could not parse", ERROR_CLASS_PARSE },
		{ "parse error", ERROR_CLASS_PARSE },
	};
	char lower[512];
	size_t i;

	if (error == NULL)
		return ERROR_CLASS_TOOL_FAILED;
	for (i = 0; i + 1 < sizeof lower && error[i] != '\0'; i++)
		lower[i] = (char)tolower((unsigned char)error[i]);
	lower[i] = '\0';
	for (i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (strstr(lower, rules[i].needle) != NULL)
			return rules[i].class;
	return ERROR_CLASS_TOOL_FAILED;
}

enum error_class
error_class_of_code(int error)
{
	switch (error) {
	case NP_ERR_CONNECT:
	case NP_ERR_SESSION_LOST:
	case NP_ERR_CHANNEL:
		return ERROR_CLASS_UNREACHABLE;
	case NP_ERR_HOSTKEY_UNKNOWN:
	case NP_ERR_HOSTKEY_CHANGED:
	case NP_ERR_AUTH:
		return ERROR_CLASS_AUTH;
	case NP_ERR_TIMEOUT:
		return ERROR_CLASS_TIMEOUT;
	case NP_ERR_TOOL_MISSING:
		return ERROR_CLASS_TOOL_MISSING;
	case NP_ERR_PARSE:
		return ERROR_CLASS_PARSE;
	default:
		return ERROR_CLASS_TOOL_FAILED;
	}
}
