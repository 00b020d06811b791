/*
 * A small program over the engine API for the integration tests: submit
 * the same command N times to one machine of an inventory (or, --batch,
 * once to every machine as one batch; --slurm JOB: the machines are the
 * job's nodes), optionally with stdin, a timeout, a cancel (of --host's
 * job alone, with --batch) or a close after some time, and print one line
 * per result. It also checks the engine's contract itself: on_done exactly
 * once per job and never inside engine_submit(), every handle closed at
 * the end (uv_loop_close() succeeds) and no socket left open (the TCP
 * sockets the ssh transport connects and gives to libssh, which closes
 * them only in some cases). Exit 0 when the contract held,
 * 3 when it did not, 2 on usage errors.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "engine.h"
#include "error.h"
#include "file.h"
#include "inventory_slurm.h"
#include "util.h"

struct run {
	struct engine *engine;
	struct engine_job **jobs;
	int *done;
	int n_jobs, n_done, in_submit, violations;
	const char *out_file;
	uv_timer_t timer;
	struct driver_opts opts;
	int batch;
	const char *cancel_host;	/* --batch: cancel only its job */
};

struct job_arg {
	struct run *run;
	int index;
};

static void
on_done(const struct machine *m, const struct engine_result *res, void *arg)
{
	struct job_arg *ja = arg;
	struct run *run = ja->run;
	FILE *f;

	if (run->in_submit) {
		printf("VIOLATION: on_done inside engine_submit\n");
		run->violations++;
	}
	if (run->done[ja->index]++ > 0) {
		printf("VIOLATION: on_done twice for job %d\n", ja->index);
		run->violations++;
	}
	if (res->out == NULL || res->err == NULL) {
		printf("VIOLATION: NULL output\n");
		run->violations++;
	}
	run->n_done++;
	run->jobs[ja->index] = NULL;
	printf("job %d: host=%s error=%d exit=%d out=%zu err=%zu\n", ja->index,
	    m->name, res->error, res->exit_status, res->out_len, res->err_len);
	if (res->error_text != NULL)
		printf("job %d: text: %s\n", ja->index, res->error_text);
	if (ja->index == 0 && res->out_len < 200)
		printf("job 0: stdout: %s\n", res->out);
	if (ja->index == 0 && res->err_len > 0 && res->err_len < 200)
		printf("job 0: stderr: %s\n", res->err);
	if (ja->index == 0 && run->out_file != NULL &&
	    (f = fopen(run->out_file, "wb")) != NULL) {
		fwrite(res->out, 1, res->out_len, f);
		fclose(f);
	}
	fflush(stdout);
}

static void
closed_cb(struct engine *e, void *arg)
{
	struct run *run = arg;

	(void)e;
	printf("engine closed\n");
	uv_close((uv_handle_t *)&run->timer, NULL);
}

static void
timer_close_cb(uv_timer_t *t)
{
	struct run *run = t->data;

	printf("closing the engine\n");
	engine_close(run->engine, closed_cb, run);
}

static void
timer_cancel_cb(uv_timer_t *t)
{
	struct run *run = t->data;
	int i;

	printf("cancelling\n");
	for (i = 0; i < run->n_jobs; i++)
		if (run->jobs[i] != NULL && (run->cancel_host == NULL ||
		    strcmp(run->opts.inv->machines[i].name,
		    run->cancel_host) == 0))
			engine_cancel(run->jobs[i]);
}

/* How many sockets the process has open. */
static int
sockets_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], target[64];
	ssize_t n;
	int count = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof target - 1);
		if (n > 0 && strncmp(target, "socket:", 7) == 0)
			count++;
	}
	closedir(d);
	return count;
}

static void
usage(void)
{
	fprintf(stderr, "usage: engine_driver --config FILE [--host NAME] "
	    "[--jobs N] [--input FILE]\n  [--timeout S] [--cancel-after S] "
	    "[--close-after S] [--max-channels N]\n  [--accept-new] "
	    "[--out FILE] [--batch] [--slurm JOB] [-v] -- COMMAND\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		DRIVER_LONGOPTS("cancel-after", "close-after"),
		{ "jobs", required_argument, NULL, 'n' },
		{ "input", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ "max-channels", required_argument, NULL, 'm' },
		{ "accept-new", no_argument, NULL, 'a' },
		{ "out", required_argument, NULL, 'o' },
		{ "batch", no_argument, NULL, 'b' },
		{ "slurm", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	struct engine_options opts = { 0 };
	struct engine_request req = { 0 };
	struct machine *m;
	struct job_arg *args;
	struct run run = { 0 };
	const char *input = NULL, *slurm = NULL;
	char *cause = NULL, *input_text = NULL;
	uv_loop_t loop;
	int c, i, r, sockets;

	driver_init(&run.opts, "engine_driver");
	while ((c = driver_getopt(&run.opts, argc, argv, longopts)) != -1) {
		switch (c) {
		case 'n': run.n_jobs = atoi(optarg); break;
		case 'i': input = optarg; break;
		case 't': req.timeout_s = atof(optarg); break;
		case 'm': opts.max_channels = atoi(optarg); break;
		case 'a': opts.accept_new_host_keys = 1; break;
		case 'o': run.out_file = optarg; break;
		case 'b': run.batch = 1; break;
		case 'S': slurm = optarg; break;
		default: usage();
		}
	}
	if ((run.opts.config == NULL && slurm == NULL) || optind != argc - 1)
		usage();
	if (run.n_jobs <= 0)
		run.n_jobs = 1;
	if (slurm != NULL) {
		if (inventory_slurm_load(slurm, run.opts.config, TRANSPORT_SLURM,
		    &run.opts.inv, &cause) != 0) {
			fprintf(stderr, "engine_driver: %s\n", cause);
			return 2;
		}
		m = &run.opts.inv->machines[0];
	} else
		m = driver_machine(&run.opts);
	if (run.batch) {
		/* every machine once; --host names the one to cancel */
		run.n_jobs = (int)run.opts.inv->n_machines;
		run.cancel_host = run.opts.host;
		req.batch = &run;
	}
	if (input != NULL && file_read(input, &input_text, &req.input_len,
	    &cause) != 0) {
		fprintf(stderr, "engine_driver: %s\n", cause);
		return 2;
	}
	req.input = input_text;
	req.command = argv[optind];
	req.on_done = on_done;
	sockets = sockets_open();
	uv_loop_init(&loop);
	if ((r = engine_new(&loop, run.opts.inv, &opts, &run.engine)) != 0)
		return 2;
	run.jobs = calloc((size_t)run.n_jobs, sizeof *run.jobs);
	run.done = calloc((size_t)run.n_jobs, sizeof *run.done);
	args = calloc((size_t)run.n_jobs, sizeof *args);
	for (i = 0; i < run.n_jobs; i++) {
		args[i].run = &run;
		args[i].index = i;
		req.arg = &args[i];
		run.in_submit = 1;
		r = engine_submit(run.engine, run.batch ?
		    &run.opts.inv->machines[i] : m, &req, &run.jobs[i]);
		run.in_submit = 0;
		if (r != 0) {
			printf("submit failed: %s\n", error_string(r));
			return 3;
		}
	}
	driver_timer(&loop, &run.timer, &run.opts, timer_cancel_cb,
	    timer_close_cb, &run);
	uv_run(&loop, UV_RUN_DEFAULT);
	if (!run.opts.stop_close) {
		/* the normal end: everything finished, now close */
		uv_timer_stop(&run.timer);
		engine_close(run.engine, closed_cb, &run);
		uv_run(&loop, UV_RUN_DEFAULT);
	}
	if (engine_pending(run.engine) != 0) {
		printf("VIOLATION: %zu jobs pending\n",
		    engine_pending(run.engine));
		run.violations++;
	}
	engine_free(run.engine);
	run.violations += driver_loop_close(&loop);
	if (sockets_open() > sockets) {
		printf("VIOLATION: %d sockets left open\n",
		    sockets_open() - sockets);
		run.violations++;
	}
	for (i = 0; i < run.n_jobs; i++) {
		if (run.done[i] != 1) {
			printf("VIOLATION: job %d got %d results\n", i,
			    run.done[i]);
			run.violations++;
		}
	}
	printf("done %d of %d\n", run.n_done, run.n_jobs);
	free(run.jobs);
	free(run.done);
	free(args);
	free(input_text);
	inventory_free(run.opts.inv);
	return run.violations > 0 ? 3 : 0;
}
