/*
 * The one child reaper of the spawn transports (transport_spawn.c's job per
 * process, transport_spawn_batch.c's step per batch): a process and its
 * three pipes started together, and closed once, when it has been reaped;
 * the kill of its process group; and, for slurm, the step's name and its
 * cancel by that name (scancel) when srun could not pass a kill on.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command_line.h"
#include "log.h"
#include "transport.h"
#include "util.h"

static void
child_closed_cb(uv_handle_t *h)
{
	struct spawn_child *c = h->data;

	if (--c->handles_open == 0)
		c->closed(c->owner);
}

void
transport_spawn_child_close(struct spawn_child *c, uv_handle_t *h)
{
	if (!uv_is_closing(h)) {
		h->data = c;	/* nothing of the owner's runs from here */
		uv_close(h, child_closed_cb);
	}
}

void
transport_spawn_child_close_all(struct spawn_child *c)
{
	int i;

	if (c->exited)
		transport_spawn_child_close(c, (uv_handle_t *)&c->process);
	for (i = 0; i < 3; i++)
		transport_spawn_child_close(c, (uv_handle_t *)&c->pipes[i]);
}

/*
 * The pipes' read buffer: each read is consumed before the next one (the
 * read callbacks copy what they keep), so one buffer serves every pipe.
 */
void
transport_spawn_child_alloc_cb(uv_handle_t *h, size_t suggested,
    uv_buf_t *buf)
{
	static char slab[65536];

	(void)h;
	(void)suggested;
	buf->base = slab;
	buf->len = sizeof slab;
}

int
transport_spawn_child_start(struct spawn_child *c, uv_loop_t *loop,
    char **argv, uv_exit_cb exit_cb, void *owner, int extra)
{
	uv_process_options_t opts;
	uv_stdio_container_t stdio[3];
	int i, r;

	for (i = 0; i < 3; i++) {
		uv_pipe_init(loop, &c->pipes[i], 0);
		c->pipes[i].data = owner;
		stdio[i].flags = UV_CREATE_PIPE | (i == 0 ? UV_READABLE_PIPE :
		    UV_WRITABLE_PIPE);
		stdio[i].data.stream = (uv_stream_t *)&c->pipes[i];
	}
	memset(&opts, 0, sizeof opts);
	opts.file = argv[0];
	opts.args = argv;
	opts.exit_cb = exit_cb;
	opts.flags = UV_PROCESS_DETACHED;
	opts.stdio = stdio;
	opts.stdio_count = 3;
	c->process.data = owner;
	c->owner = owner;
	c->handles_open = 4 + extra;
	c->exited = 0;
	/* no child to reap on failure: the handle (libuv initialised it
	   even so) closes at once */
	if ((r = uv_spawn(loop, &c->process, &opts)) != 0)
		c->exited = 1;
	return r;
}

void
transport_spawn_step_name(char *buf, size_t size)
{
	static unsigned long steps;

	/* unique to this netprof: another of the same PID on another
	 * machine, in the same job, has another tag */
	snprintf(buf, size, "netprof-%ld-%s-%lu", (long)getpid(),
	    command_line_process_tag(), ++steps);
}

void
transport_spawn_kill_group(const char *host, int pid, int sig)
{
	log_debug(host, "killing process group %d with signal %d", pid, sig);
	if (kill(-pid, sig) != 0 && errno != ESRCH)
		kill(pid, sig);
}

static void
scancel_exit_cb(uv_process_t *p, int64_t status, int term_signal)
{
	(void)status;
	(void)term_signal;
	uv_close((uv_handle_t *)p, (uv_close_cb)free);
}

/*
 * The fallback of the slurm kill path: cancel the job's step of this name,
 * whatever became of srun. A process of its own, not the job's: the loop
 * runs until it has ended, so the run ends with the step gone.
 */
void
transport_spawn_scancel(struct engine *e, const char *host,
    const char *step_name)
{
	const char *job = engine_inventory(e)->slurm_job;
	uv_process_options_t opts;
	uv_process_t *p;
	char *script, *argv[7];
	int r;

	script = str_printf("squeue --noheader --steps --jobs=\"$1\" "
	    "--format='%%i %%j' | while read -r id name; do "
	    "[ \"$name\" = \"$2\" ] && scancel --quiet \"$id\"; done; exit 0");
	if (script == NULL || (p = calloc(1, sizeof *p)) == NULL) {
		free(script);
		return;
	}
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = "sh";
	argv[4] = (char *)job;
	argv[5] = (char *)step_name;
	argv[6] = NULL;
	memset(&opts, 0, sizeof opts);
	opts.file = argv[0];
	opts.args = argv;
	opts.exit_cb = scancel_exit_cb;
	log_debug(host, "cancelling step %s of job %s (scancel)", step_name,
	    job);
	if ((r = uv_spawn(engine_loop(e), p, &opts)) != 0) {
		log_warn("%s: could not run scancel for step %s of job %s: %s",
		    host != NULL ? host : "slurm", step_name, job,
		    uv_strerror(r));
		uv_close((uv_handle_t *)p, (uv_close_cb)free);
	}
	free(script);
}
