/*
 * Fuzz target: machines.json as inventory_parse() reads it (every field's
 * validation, the error messages with their JSON path and position, the
 * warnings), then the host selection of --hosts and --exclude over what
 * loaded, and the input's first line as a host list (hostlist.h).
 */
#include "fuzz.h"

#include "inventory.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inventory *inv = NULL;
	char *text, *cause = NULL;

	if ((text = fuzz_string(data, size)) == NULL)
		return 0;
	if (inventory_parse(text, "fuzz.json", &inv, &cause) == 0 &&
	    inv->n_machines > 0) {
		char *sel = NULL, *line = strndup(text, strcspn(text, "\n"));
		const char *first = inv->machines[0].name, *none =
		    "no-such-host,", *l = line;

		/* the input as a list, then the first machine, then one that is
		   not, then the first machine left out */
		if (line != NULL)
			(void)inventory_select(inv, &l, 1, &l, 1, &sel);
		free(sel);
		sel = NULL;
		(void)inventory_select(inv, &first, 1, NULL, 0, &sel);
		free(sel);
		sel = NULL;
		(void)inventory_select(inv, &none, 1, NULL, 0, &sel);
		free(sel);
		sel = NULL;
		if (inv->n_machines > 0) {
			first = inv->machines[0].name;
			(void)inventory_select(inv, NULL, 0, &first, 1, &sel);
		}
		free(sel);
		free(line);
	}
	free(cause);
	inventory_free(inv);
	free(text);
	return 0;
}
