/*
 * remote_command templates: the upstream way to run a command on a host is
 * an argv such as ["rcc", "run", "--profile", "{host}", "--", "bash", "-lc",
 * "export PATH=...; {command}"], filled in per call. The result is an argv
 * for execvp(), never a shell line, so the values substituted need no
 * quoting here; names and hosts were validated by the inventory, and the
 * command is a shell line its builder quoted.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "inventory.h"
#include "template.h"

struct placeholder {
	const char *token;
	const char *value;
};

/* The value of the placeholder that starts at s, and its token length. */
static const char *
match(const struct placeholder *ph, size_t n_ph, const char *s,
    size_t *token_len)
{
	size_t i;

	for (i = 0; i < n_ph; i++) {
		size_t len = strlen(ph[i].token);

		if (strncmp(s, ph[i].token, len) == 0) {
			*token_len = len;
			return ph[i].value != NULL ? ph[i].value : "";
		}
	}
	return NULL;
}

/* One element with every placeholder replaced, as a new string. */
static char *
expand_element(const char *element, const struct placeholder *ph,
    size_t n_ph)
{
	const char *s, *value;
	size_t len = 1, token_len, o = 0;
	char *out;

	for (s = element; *s != '\0';) {
		if (*s == '{' && (value = match(ph, n_ph, s,
		    &token_len)) != NULL) {
			len += strlen(value);
			s += token_len;
		} else {
			len++;
			s++;
		}
	}
	if ((out = malloc(len)) == NULL)
		return NULL;
	for (s = element; *s != '\0';) {
		if (*s == '{' && (value = match(ph, n_ph, s,
		    &token_len)) != NULL) {
			memcpy(out + o, value, strlen(value));
			o += strlen(value);
			s += token_len;
		} else
			out[o++] = *s++;
	}
	out[o] = '\0';
	return out;
}

int
template_expand(char *const *tmpl, size_t n, const struct machine *m,
    const char *command, char ***out)
{
	const struct placeholder ph[] = {
		{ "{host}", m->rcc_host != NULL ? m->rcc_host : m->ssh_host },
		{ "{name}", m->name },
		{ "{address}", m->address },
		{ "{command}", command },
	};
	char **argv;
	size_t i;

	*out = NULL;
	if ((argv = calloc(n + 1, sizeof *argv)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		argv[i] = expand_element(tmpl[i], ph, sizeof ph / sizeof ph[0]);
		if (argv[i] == NULL) {
			template_argv_free(argv);
			return NP_ERR_NOMEM;
		}
	}
	*out = argv;
	return 0;
}

void
template_argv_free(char **argv)
{
	char **p;

	if (argv == NULL)
		return;
	for (p = argv; *p != NULL; p++)
		free(*p);
	free(argv);
}
