/*
 * Calls to the otela node's HTTP API (in progress: calls are refused until
 * the tunnel and curl-on-host paths land).
 */
#include <stdlib.h>

#include "error.h"
#include "node_api.h"

struct node_api {
	uv_loop_t *loop;
	struct engine *engine;
};

int
node_api_new(uv_loop_t *loop, struct engine *e, struct node_api **out)
{
	struct node_api *api;

	*out = NULL;
	if ((api = calloc(1, sizeof *api)) == NULL)
		return NP_ERR_NOMEM;
	api->loop = loop;
	api->engine = e;
	*out = api;
	return 0;
}

int
node_api_call(struct node_api *api, const struct machine *m, int port,
    const char *method, const char *path, const char *body,
    double timeout_s, node_reply_cb cb, void *arg, struct node_call **callp)
{
	return NP_ERR_UNSUPPORTED;
}

void
node_call_cancel(struct node_call *c)
{
}

void
node_api_close(struct node_api *api, void (*closed_cb)(void *arg), void *arg)
{
	if (closed_cb != NULL)
		closed_cb(arg);
}

void
node_api_free(struct node_api *api)
{
	free(api);
}
