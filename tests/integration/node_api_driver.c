/*
 * A small program over the node API (node_api.h) for the integration
 * tests: make N calls to the otela node's HTTP API on one machine of an
 * inventory, optionally cancel them or close the API after some time, and
 * print one line per reply. It checks the API's contract too: the reply
 * callback exactly once per call and never inside node_api_call() or
 * node_call_cancel(), closed_cb once and on a later turn, and every handle
 * closed at the end (uv_loop_close() succeeds). Exit 0 when the contract
 * held, 3 when it did not, 2 on usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "engine.h"
#include "error.h"
#include "node_api.h"

struct run {
	uv_loop_t loop;
	struct engine *engine;
	struct node_api *api;
	struct node_call **calls;
	int *replies;
	int n_calls, n_done, inside, violations, serial;
	struct driver_opts opts;
	const struct machine *m;
	int port;
	const char *method, *path, *body;
	double timeout_s;
	struct call_arg *args;
	int api_closed, engine_closed;
	uv_timer_t timer;
	uint64_t started_ns;
};

struct call_arg {
	struct run *run;
	int index;
};

static void reply_cb(const struct machine *m, const struct node_reply *r,
    void *arg);

static int
call_start(struct run *run, int i)
{
	int r;

	run->args[i].run = run;
	run->args[i].index = i;
	run->inside = 1;
	r = node_api_call(run->api, run->m, run->port, run->method, run->path,
	    run->body, run->timeout_s, NULL, reply_cb, &run->args[i],
	    &run->calls[i]);
	run->inside = 0;
	if (r != 0)
		printf("node_api_call: %s\n", error_string(r));
	return r;
}

static void
violation(struct run *run, const char *what, int index)
{
	printf("VIOLATION: %s (call %d)\n", what, index);
	run->violations++;
}

static void engine_closed_cb(struct engine *e, void *arg);

static void
api_closed_cb(void *arg)
{
	struct run *run = arg;

	if (run->inside)
		violation(run, "closed_cb inside node_api_close", -1);
	if (run->api_closed++ > 0)
		violation(run, "closed_cb twice", -1);
	if (run->n_done != run->n_calls)
		violation(run, "closed before every reply", -1);
	printf("node api closed\n");
	engine_close(run->engine, engine_closed_cb, run);
}

static void
engine_closed_cb(struct engine *e, void *arg)
{
	struct run *run = arg;

	run->engine_closed = 1;
	uv_close((uv_handle_t *)&run->timer, NULL);
}

static void
api_close(struct run *run)
{
	run->inside = 1;
	node_api_close(run->api, api_closed_cb, run);
	run->inside = 0;
}

static void
reply_cb(const struct machine *m, const struct node_reply *r, void *arg)
{
	struct call_arg *ca = arg;
	struct run *run = ca->run;
	int i = ca->index;
	size_t k;

	if (run->inside)
		violation(run, "reply inside node_api_call or cancel", i);
	if (run->replies[i]++ > 0)
		violation(run, "reply twice", i);
	if (r->body == NULL || r->body[r->body_len] != '\0')
		violation(run, "body NULL or not terminated", i);
	if ((r->error == NP_OK) != (r->error_text == NULL))
		violation(run, "error_text does not match error", i);
	run->calls[i] = NULL;
	run->n_done++;
	printf("call %d: host=%s error=%d status=%ld via_tunnel=%d "
	    "elapsed=%.3f\n", i, m->name, r->error, r->status, r->via_tunnel,
	    r->elapsed_s);
	if (r->error_text != NULL)
		printf("call %d: text: %s\n", i, r->error_text);
	if (i == 0 || r->error == NP_OK) {
		printf("call %d: body: ", i);
		for (k = 0; k < r->body_len && k < 400; k++)
			putchar(r->body[k] == '\n' ? ' ' : r->body[k]);
		putchar('\n');
	}
	/* --serial: one call at a time, the next from this callback */
	if (run->serial && i + 1 < run->n_calls && call_start(run, i + 1) != 0)
		exit(2);
	if (run->n_done == run->n_calls) {
		double s = (double)(uv_hrtime() - run->started_ns) / 1e9;

		printf("%d calls in %.3f s (%.1f calls/s)\n", run->n_calls, s,
		    run->n_calls / s);
		if (!run->api_closed && !run->opts.stop_close)
			api_close(run);
	}
	fflush(stdout);
}

static void
timer_close_cb(uv_timer_t *t)
{
	struct run *run = t->data;

	printf("closing the node api\n");
	api_close(run);
}

static void
timer_cancel_cb(uv_timer_t *t)
{
	struct run *run = t->data;
	int i;

	printf("cancelling\n");
	run->inside = 1;
	for (i = 0; i < run->n_calls; i++)
		if (run->calls[i] != NULL)
			node_call_cancel(run->calls[i]);
	run->inside = 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: node_api_driver --config FILE --host NAME "
	    "--port N [--method M]\n  [--path P] [--body JSON] [--calls N] "
	    "[--timeout S] [--cancel-after S]\n  [--close-after S] [--serial] "
	    "[-v]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		DRIVER_LONGOPTS("cancel-after", "close-after"),
		{ "port", required_argument, NULL, 'p' },
		{ "method", required_argument, NULL, 'M' },
		{ "path", required_argument, NULL, 'P' },
		{ "body", required_argument, NULL, 'b' },
		{ "calls", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "serial", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct machine *m;
	struct run run = { .method = "GET", .path = "/v1/health",
	    .timeout_s = 10 };
	int c, i;

	driver_init(&run.opts, "node_api_driver");
	while ((c = driver_getopt(&run.opts, argc, argv, longopts)) != -1) {
		switch (c) {
		case 'p': run.port = atoi(optarg); break;
		case 'M': run.method = optarg; break;
		case 'P': run.path = optarg; break;
		case 'b': run.body = optarg; break;
		case 'n': run.n_calls = atoi(optarg); break;
		case 't': run.timeout_s = atof(optarg); break;
		case 's': run.serial = 1; break;
		default: usage();
		}
	}
	if (run.opts.config == NULL || run.opts.host == NULL ||
	    run.port <= 0 || optind != argc)
		usage();
	if (run.n_calls <= 0)
		run.n_calls = 1;
	m = driver_machine(&run.opts);
	uv_loop_init(&run.loop);
	if (engine_new(&run.loop, run.opts.inv, NULL, &run.engine) != 0 ||
	    node_api_new(&run.loop, run.engine, &run.api) != 0)
		return 2;
	run.m = m;
	run.calls = calloc((size_t)run.n_calls, sizeof *run.calls);
	run.replies = calloc((size_t)run.n_calls, sizeof *run.replies);
	run.args = calloc((size_t)run.n_calls, sizeof *run.args);
	run.started_ns = uv_hrtime();
	for (i = 0; i < (run.serial ? 1 : run.n_calls); i++)
		if (call_start(&run, i) != 0)
			return 2;
	driver_timer(&run.loop, &run.timer, &run.opts, timer_cancel_cb,
	    timer_close_cb, &run);
	uv_run(&run.loop, UV_RUN_DEFAULT);
	for (i = 0; i < run.n_calls; i++)
		if (run.replies[i] != 1)
			violation(&run, "no reply", i);
	if (!run.api_closed || !run.engine_closed)
		violation(&run, "the loop ended before everything closed", -1);
	run.violations += driver_loop_close(&run.loop);
	node_api_free(run.api);
	engine_free(run.engine);
	inventory_free(run.opts.inv);
	free(run.calls);
	free(run.replies);
	free(run.args);
	return run.violations ? 3 : 0;
}
