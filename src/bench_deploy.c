/*
 * --otela-bin DIR: deploy otela to every host over its existing session.
 */
#include <stdlib.h>

#include "bench.h"
#include "error.h"

int
bench_deploy_load(struct bench *b, char **cause)
{
	if (b->o->otela_bin == NULL)
		return 0;
	*cause = bench_printf("--otela-bin: not available yet");
	return NP_ERR_UNSUPPORTED;
}

int
bench_deploy_host(struct bench_host *h)
{
	(void)h;
	return NP_ERR_UNSUPPORTED;
}

void
bench_deploy_free(struct bench *b)
{
	(void)b;
}
