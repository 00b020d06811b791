/*
 * HTTP client on libcurl's multi interface (in progress: requests are
 * refused until the libuv driving lands).
 */
#include <stdlib.h>
#include <unistd.h>

#include "error.h"
#include "http.h"

struct http_client {
	uv_loop_t *loop;
};

int
http_new(uv_loop_t *loop, struct http_client **out)
{
	struct http_client *c;

	*out = NULL;
	if ((c = calloc(1, sizeof *c)) == NULL)
		return NP_ERR_NOMEM;
	c->loop = loop;
	*out = c;
	return 0;
}

int
http_request(struct http_client *c, const struct http_request *req,
    struct http_call **callp)
{
	if (req->fd >= 0)
		close(req->fd);
	return NP_ERR_UNSUPPORTED;
}

void
http_cancel(struct http_call *call)
{
}

size_t
http_pending(const struct http_client *c)
{
	return 0;
}

void
http_close(struct http_client *c, void (*closed_cb)(void *arg), void *arg)
{
	if (closed_cb != NULL)
		closed_cb(arg);
}

void
http_free(struct http_client *c)
{
	free(c);
}
