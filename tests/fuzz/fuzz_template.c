/*
 * Fuzz target: remote_command templates (template_expand) with hostile
 * elements and machine fields. The input is split at 0x01 bytes into the
 * template (elements separated by newlines), the machine's name, address
 * and host, and the command; missing parts are empty.
 */
#include "fuzz.h"

#include "inventory.h"
#include "template.h"

#define MAX_ELEMENTS 64

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *part[5] = { "", "", "", "", "" }, *tmpl[MAX_ELEMENTS];
	char *p, **argv = NULL;
	struct machine m;
	size_t i, n = 0;

	if ((text = fuzz_string(data, size)) == NULL)
		return 0;
	p = text;
	for (i = 0; i < 5 && p != NULL; i++) {
		part[i] = p;
		if ((p = strchr(p, '\x01')) != NULL)
			*p++ = '\0';
	}
	for (p = part[0]; p != NULL && n < MAX_ELEMENTS; n++) {
		tmpl[n] = p;
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
	}
	memset(&m, 0, sizeof m);
	m.name = part[1];
	m.address = part[2];
	m.ssh_host = part[3];
	m.rcc_host = *part[3] != '\0' ? part[3] : NULL;
	if (template_expand(tmpl, n, &m, part[4], &argv) == 0) {
		/* One argument per element, NULL after the last. */
		for (i = 0; i < n; i++)
			if (argv[i] == NULL)
				abort();
		if (argv[n] != NULL)
			abort();
	}
	template_argv_free(argv);
	free(text);
	return 0;
}
