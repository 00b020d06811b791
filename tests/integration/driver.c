/*
 * The set-up and end-of-run check the integration test drivers share
 * (driver.h), so that each driver's file is about the API it exercises.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "driver.h"
#include "log.h"

void
driver_init(struct driver_opts *o, const char *prog)
{
	*o = (struct driver_opts){ .prog = prog };
	signal(SIGPIPE, SIG_IGN);
}

/* 1 if c is an option of struct driver_opts (now taken in), 0 if not. */
static int
driver_option(struct driver_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'c': o->config = arg; break;
	case 'H': o->host = arg; break;
	case 'C': o->stop_after = atof(arg); break;
	case 'X': o->stop_after = atof(arg); o->stop_close = 1; break;
	case 'v':
		log_set_level(log_get_level() >= LOG_VERBOSE ? LOG_TRACE :
		    LOG_VERBOSE);
		break;
	default: return 0;
	}
	return 1;
}

int
driver_getopt(struct driver_opts *o, int argc, char **argv,
    const struct option *longopts)
{
	int c;

	while ((c = getopt_long(argc, argv, "v", longopts, NULL)) != -1 &&
	    driver_option(o, c, optarg))
		continue;
	return c;
}

struct machine *
driver_machine(struct driver_opts *o)
{
	struct machine *m;
	char *cause = NULL;

	if (inventory_load(o->config, &o->inv, &cause) != 0) {
		fprintf(stderr, "%s: %s\n", o->prog, cause);
		exit(2);
	}
	m = o->host != NULL ? inventory_find(o->inv, o->host) :
	    &o->inv->machines[0];
	if (m == NULL) {
		fprintf(stderr, "%s: no machine %s\n", o->prog, o->host);
		exit(2);
	}
	return m;
}

void
driver_timer(uv_loop_t *loop, uv_timer_t *t, const struct driver_opts *o,
    uv_timer_cb cancel_cb, uv_timer_cb close_cb, void *data)
{
	uv_timer_init(loop, t);
	t->data = data;
	if (o->stop_after > 0)
		uv_timer_start(t, o->stop_close ? close_cb : cancel_cb,
		    (uint64_t)(o->stop_after * 1000), 0);
}

int
driver_loop_close(uv_loop_t *loop)
{
	if (uv_loop_close(loop) == 0)
		return 0;
	printf("VIOLATION: handles left open on the loop\n");
	return 1;
}
