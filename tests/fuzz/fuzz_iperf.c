/*
 * Fuzz target: iperf3's --json output as iperf_parse() reads it, which
 * comes from a remote host (and is cut short when iperf3 is killed).
 */
#include "fuzz.h"

#include "iperf_parse.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iperf_result r;
	char *text, *cause = NULL;

	if ((text = fuzz_string(data, size)) == NULL)
		return 0;
	(void)iperf_parse(text, &r, &cause);
	free(cause);
	free(text);
	return 0;
}
