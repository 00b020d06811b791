/*
 * Fuzz target: machines.json as inventory_parse() reads it (every field's
 * validation, the error messages with their JSON path and position), then
 * the host selection of --hosts over what loaded.
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
		char *sel = NULL;

		/* A selection naming the first machine, then one that is not. */
		(void)inventory_select(inv, inv->machines[0].name, &sel);
		free(sel);
		sel = NULL;
		(void)inventory_select(inv, "no-such-host,", &sel);
		free(sel);
	}
	free(cause);
	inventory_free(inv);
	free(text);
	return 0;
}
