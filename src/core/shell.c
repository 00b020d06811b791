/*
 * POSIX shell quoting. Remote commands travel as one string to a remote
 * shell (an SSH exec request, or the {command} of a remote_command
 * template), so every value netprof interpolates into such a string is
 * either a plain word that no shell treats specially or a single-quoted
 * word. Single quotes are the one POSIX form with no escapes inside: the
 * only character needing care is the single quote itself.
 */
#include <stdlib.h>
#include <string.h>

#include "shell.h"

/* Bytes that never mean anything special to sh, in any position. */
static int
plain_byte(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("_@%+=:,./-", c) != NULL;
}

int
shell_is_plain_word(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	for (; *s != '\0'; s++) {
		if (!plain_byte((unsigned char)*s))
			return 0;
	}
	return 1;
}

char *
shell_quote(const char *s)
{
	size_t len = 2, i;
	const char *p;
	char *out;

	for (p = s; *p != '\0'; p++)
		len += *p == '\'' ? 4 : 1;
	if ((out = malloc(len + 1)) == NULL)
		return NULL;
	i = 0;
	out[i++] = '\'';
	for (p = s; *p != '\0'; p++) {
		if (*p == '\'') {
			/* close the quote, an escaped quote, reopen */
			memcpy(out + i, "'\\''", 4);
			i += 4;
		} else
			out[i++] = *p;
	}
	out[i++] = '\'';
	out[i] = '\0';
	return out;
}

char *
shell_join(char *const *argv, size_t argc)
{
	char **words = NULL, *out = NULL;
	size_t i, len = 1, off = 0;

	if ((words = calloc(argc + 1, sizeof *words)) == NULL)
		return NULL;
	for (i = 0; i < argc; i++) {
		if (shell_is_plain_word(argv[i]))
			words[i] = strdup(argv[i]);
		else
			words[i] = shell_quote(argv[i]);
		if (words[i] == NULL)
			goto out;
		len += strlen(words[i]) + 1;
	}
	if ((out = malloc(len)) == NULL)
		goto out;
	for (i = 0; i < argc; i++) {
		size_t n = strlen(words[i]);

		if (i > 0)
			out[off++] = ' ';
		memcpy(out + off, words[i], n);
		off += n;
	}
	out[off] = '\0';
out:
	for (i = 0; i < argc; i++)
		free(words[i]);
	free(words);
	return out;
}
