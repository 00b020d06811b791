/*
 * collect's continuous mode and metrics. With --every, a sweep that ends
 * schedules the next one interval after its own start (at once, said
 * aloud, when it took longer), over the same engine and so the same SSH
 * sessions; a host SSH could not reach is tried again after 1, 2, 4, 8
 * then every 16 sweeps (its pairs are recorded failed meanwhile, saying
 * when it is tried next). After each sweep the records written are the
 * sweep's metrics: written to --metrics-file atomically and answered by
 * the --metrics-listen listener, and --output is rotated past --rotate.
 * A sweep does not start while the reader of a piped --output has not
 * taken the records of the sweeps before (it waits, said once): what is
 * queued for a slow reader is one sweep's records at most.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bounds.h"
#include "collect.h"
#include "collect_watch.h"
#include "file.h"
#include "log.h"
#include "option.h"
#include "metrics.h"
#include "metrics_http.h"
#include "record.h"
#include "runner.h"
#include "timeutil.h"
#include "util.h"

#define BACKOFF_MAX_SWEEPS 16
/* How often a sweep waiting for the output's reader looks again (ms). */
#define READER_POLL_MS 100

struct collect_watch {
	struct collector *c;
	struct collect_watch_options opt;
	struct sockaddr_storage listen_addr;
	struct metrics_http *http;
	struct metrics_set *set;	/* the running sweep's records */
	uv_timer_t timer;
	int timer_open, closing, pending_closes;
	long sweep, late;
	int reader_waited;	/* the next sweep waited for the reader */
	double sweep_started;
	int *down_sweeps;	/* per host: sweeps in a row it was unreachable */
	long *next_try;		/* per host: the sweep it is tried again */
};

/* "30", "30s", "1.5m", "2h", "1d" as seconds; -1 if not a duration. */
static double
parse_duration(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !(v >= 0) || isinf(v))
		return -1;
	if (strcmp(end, "") == 0 || strcmp(end, "s") == 0)
		return v;
	if (strcmp(end, "ms") == 0)
		return v / 1000;
	if (strcmp(end, "m") == 0)
		return v * 60;
	if (strcmp(end, "h") == 0)
		return v * 3600;
	if (strcmp(end, "d") == 0)
		return v * 86400;
	return -1;
}

/* --every: a duration up to a week (0: back to back) */
static int
every_parse(const char *arg, void *field)
{
	double v = parse_duration(arg);

	if (v < 0 || v > 7 * 86400)
		return NP_ERR_USAGE;
	*(double *)field = v;
	return 0;
}

/* --rotate: a size, as every size option takes one (option.h) */
static int
rotate_parse(const char *arg, void *field)
{
	return option_parse_size(arg, 1, (long long)9e18, field);
}

static const struct bounds count_bounds = { 1, 1000000000 };

const struct option_spec collect_watch_specs[] = {
	{ .name = "every", .type = OPTION_CUSTOM,
	  .offset = offsetof(struct collect_watch_options, every),
	  .arg = "DURATION", .parse = every_parse,
	  .what = "a duration up to a week, as 30s, 5m, 1h or seconds",
	  .help = "sweep again DURATION after each sweep started\n"
	  "(30s, 5m, 1h; plain seconds), over the same\n"
	  "sessions, until Ctrl-C or --count" },
	{ .name = "count", .type = OPTION_INT,
	  .offset = offsetof(struct collect_watch_options, count),
	  .arg = "N", .bounds = &count_bounds,
	  .what = "a number of sweeps from 1",
	  .help = "stop after N sweeps (with --every)" },
	{ .name = "rotate", .type = OPTION_CUSTOM,
	  .offset = offsetof(struct collect_watch_options, rotate),
	  .arg = "SIZE", .parse = rotate_parse,
	  .what = "a size, as 100M or 1G",
	  .help = "after a sweep, an --output over SIZE (100M, 1G)\n"
	  "becomes FILE.1 (the older FILE.1 is dropped)" },
	{ .name = "metrics-file", .type = OPTION_STRING,
	  .offset = offsetof(struct collect_watch_options, metrics_file),
	  .arg = "FILE",
	  .help = "Prometheus metrics of each sweep, written\n"
	  "atomically (node_exporter's textfile collector)" },
	{ .name = "metrics-listen", .type = OPTION_STRING,
	  .offset = offsetof(struct collect_watch_options, metrics_listen),
	  .arg = "[ADDR:]PORT",
	  .help = "serve GET /metrics (default address 127.0.0.1)" },
	{ .name = "metrics-public", .type = OPTION_FLAG,
	  .offset = offsetof(struct collect_watch_options, metrics_public),
	  .help = "allow a non-loopback --metrics-listen address" },
	{ .name = NULL }
};

/* The site label of a host: machines.json's site, if it has one. */
static const char *
host_site(const char *host, void *arg)
{
	const struct inventory *inv = arg;
	size_t i;

	for (i = 0; i < inv->n_machines; i++)
		if (strcmp(inv->machines[i].name, host) == 0)
			return inv->machines[i].site;
	return NULL;
}

static void
publish(struct collect_watch *w, const struct metrics_info *info)
{
	struct buf text = { 0 };
	char *cause = NULL;
	int r;

	if ((r = metrics_set_render(w->set, info, &text)) != 0) {
		log_error("metrics of sweep %ld: %s", w->sweep, error_string(r));
		goto out;
	}
	if (w->opt.metrics_file != NULL && file_write_atomic(
	    w->opt.metrics_file, text.data, text.len, METRICS_FILE_MODE,
	    &cause) != 0) {
		log_error("--metrics-file %s", cause);
		free(cause);
	}
	if (w->http != NULL && metrics_http_take(w->http, text.data,
	    text.len) != 0)
		log_error("metrics listener: %s", error_string(NP_ERR_NOMEM));
	if (w->http != NULL)
		text.data = NULL;	/* the listener's */
out:
	buf_free(&text);
}

static void record_metrics_cb(struct collector *c, struct record *rec);

int
collect_watch_start(struct collector *c, const struct collect_watch_options *o)
{
	struct collect_watch *w;
	struct metrics_info info = { .site = host_site, .site_arg = c->inv };
	char *cause = NULL;
	size_t n = c->inv->n_machines;

	if (o->every < 0 && o->metrics_file == NULL && o->metrics_listen ==
	    NULL)
		return 0;
	if ((w = calloc(1, sizeof *w)) == NULL ||
	    (w->down_sweeps = calloc(n + 1, sizeof *w->down_sweeps)) == NULL ||
	    (w->next_try = calloc(n + 1, sizeof *w->next_try)) == NULL ||
	    (w->set = metrics_set_new()) == NULL) {
		if (w != NULL) {
			free(w->down_sweeps);
			free(w->next_try);
			free(w);
		}
		return NP_ERR_NOMEM;
	}
	w->c = c;
	w->opt = *o;
	w->sweep = 1;
	w->sweep_started = time_wall();
	c->watch = w;
	c->sweep = o->every >= 0 ? 1 : 0;
	c->hooks.record_written = record_metrics_cb;
	if (o->metrics_listen != NULL) {
		metrics_http_parse_addr(o->metrics_listen, o->metrics_public,
		    &w->listen_addr, &cause);
		free(cause);
		if (metrics_http_start(c->loop, &w->listen_addr, &w->http,
		    &cause) != 0) {
			log_error("--metrics-listen %s", cause);
			free(cause);
			return NP_ERR_IO;
		}
		{
			char host[INET6_ADDRSTRLEN] = "?";
			int v6 = w->listen_addr.ss_family == AF_INET6;

			inet_ntop(w->listen_addr.ss_family, v6 ? (void *)
			    &((struct sockaddr_in6 *)&w->listen_addr)->sin6_addr :
			    (void *)&((struct sockaddr_in *)&w->listen_addr)->
			    sin_addr, host, sizeof host);
			log_info("metrics on http://%s%s%s:%d/metrics",
			    v6 ? "[" : "", host, v6 ? "]" : "",
			    metrics_http_port(w->http));
		}
		publish(w, &info);	/* build info until the first sweep */
		metrics_set_free(w->set);
		if ((w->set = metrics_set_new()) == NULL)
			return NP_ERR_NOMEM;
	}
	return 0;
}

/* The record_written hook: a record into the sweep's metrics, as it was
   written (and as a reader of its line takes it). */
static void
record_metrics_cb(struct collector *c, struct record *rec)
{
	if (c->watch != NULL && metrics_set_add(c->watch->set, rec) != 0)
		log_warn("sweep %ld: a record is missing from the metrics "
		    "(out of memory)", c->watch->sweep);
}

/*
 * --output past --rotate: it becomes FILE.1 and a new FILE is started. The
 * rename comes first, with the file still open: when it fails (FILE.1 a
 * directory, another user's in a sticky directory) the records go on
 * being appended to FILE, never lost. The new FILE is opened to append:
 * what appeared at its name meanwhile is not truncated.
 */
static void
rotate(struct collect_watch *w)
{
	struct collector *c = w->c;
	struct stat st;
	char *old = NULL, *cause = NULL;

	if (w->opt.rotate <= 0 || stat(w->opt.output, &st) != 0 ||
	    st.st_size < w->opt.rotate)
		return;
	if ((old = str_printf("%s.1", w->opt.output)) == NULL) {
		log_error("--rotate: %s", error_string(NP_ERR_NOMEM));
		return;
	}
	if (rename(w->opt.output, old) != 0) {
		log_error("--rotate: %s: cannot rename it to %s: %s; the "
		    "records go on being appended to it", w->opt.output, old,
		    strerror(errno));
		free(old);
		return;
	}
	log_info("%s rotated to %s (%lld bytes)", w->opt.output, old,
	    (long long)st.st_size);
	free(old);
	/* what is still queued belongs to the file renamed */
	record_writer_detach(c->writer);
	if (record_writer_close(c->writer, -1) != 0)
		log_error("%s: records could not all be written", c->output);
	c->writer = NULL;
	if (record_writer_open(w->opt.output, 1, &c->writer, &cause) != 0 ||
	    record_writer_attach(c->writer, c->loop) != 0) {
		log_error("--output %s", cause != NULL ? cause :
		    error_string(NP_ERR_NOMEM));
		free(cause);
		c->write_failed = 1;	/* the run stops, with what it has */
	}
}

/* Which hosts SSH did not reach, and which of them sit out sweeps. */
static void
backoff_update(struct collect_watch *w)
{
	struct collector *c = w->c;
	size_t i;

	for (i = 0; i < c->inv->n_machines; i++) {
		const struct host_state *h = &c->hosts[i];
		int unreachable = h->down != NULL &&
		    (h->down_class == ERROR_CLASS_UNREACHABLE ||
		    h->down_class == ERROR_CLASS_AUTH ||
		    h->down_class == ERROR_CLASS_TIMEOUT);

		if (w->next_try[i] > w->sweep)
			continue;	/* sat this one out */
		if (!unreachable) {
			if (w->down_sweeps[i] > 0)
				log_info("%s is reachable again (sweep %ld)",
				    h->m->name, w->sweep);
			w->down_sweeps[i] = 0;
			w->next_try[i] = 0;
			continue;
		}
		w->down_sweeps[i]++;
		w->next_try[i] = w->sweep + (w->down_sweeps[i] >= 5 ?
		    BACKOFF_MAX_SWEEPS : 1L << (w->down_sweeps[i] - 1));
	}
}

/* The new sweep's hosts that sit it out, down from the start. */
static void
backoff_apply(struct collect_watch *w)
{
	struct collector *c = w->c;
	size_t i;

	for (i = 0; i < c->inv->n_machines; i++) {
		if (w->next_try[i] <= w->sweep)
			continue;
		free(c->hosts[i].down);
		c->hosts[i].down = str_printf("not reached in %d sweep%s in a "
		    "row; tried again in sweep %ld", w->down_sweeps[i],
		    PLURAL(w->down_sweeps[i]), w->next_try[i]);
		c->hosts[i].down_class = ERROR_CLASS_UNREACHABLE;
	}
}

static void
next_sweep_cb(uv_timer_t *t)
{
	struct collect_watch *w = t->data;
	struct collector *c = w->c;
	int r;

	if (c->interrupted || c->closing)
		return;
	if (c->writer != NULL && record_writer_queued(c->writer) > 0) {
		if (!w->reader_waited)
			log_warn("sweep %ld waits for the reader of the output, "
			    "which has not taken %zu bytes of the records "
			    "before", w->sweep + 1,
			    record_writer_queued(c->writer));
		w->reader_waited = 1;
		uv_timer_start(&w->timer, next_sweep_cb, READER_POLL_MS, 0);
		return;
	}
	if (w->reader_waited)
		log_info("the reader of the output took the records: sweep "
		    "%ld starts", w->sweep + 1);
	w->reader_waited = 0;
	w->sweep++;
	w->sweep_started = time_wall();
	c->sweep = w->opt.every >= 0 ? w->sweep : 0;
	log_debug(NULL, "sweep %ld starts", w->sweep);
	if ((r = c->hooks.sweep_build(c)) != 0) {
		log_error("sweep %ld: %s", w->sweep, error_string(r));
		c->write_failed = 1;
		c->sweep_over = 1;	/* nothing of it runs */
		c->hooks.jobs_changed(c);
		return;
	}
	backoff_apply(w);
	c->hooks.sweep_start(c);
}

int
collect_watch_sweep_end(struct collector *c)
{
	struct collect_watch *w = c->watch;
	double now = time_wall(), took, wait;
	struct metrics_info info = { .site = host_site, .site_arg = c->inv };

	if (w == NULL)
		return 0;
	took = now - w->sweep_started;
	info.sweep = w->opt.every >= 0 ? w->sweep : 0;
	info.started_at = w->sweep_started;
	info.ended_at = now;
	info.interval = w->opt.every >= 0 ? w->opt.every : 0;
	info.sweeps_total = w->sweep;
	if (w->opt.every > 0 && took > w->opt.every)
		w->late++;
	info.sweeps_late_total = w->late;
	if (c->n_stages > 0 && c->stages[0].sample > 0) {
		info.sample = (long)c->stages[0].sample;
		info.sample_cycle = (long)c->stages[0].cycle;
	}
	publish(w, &info);
	metrics_set_free(w->set);
	w->set = metrics_set_new();
	if (w->opt.every < 0 || (w->opt.count > 0 && w->sweep >=
	    w->opt.count) || c->interrupted || c->write_failed ||
	    w->set == NULL)
		return 0;
	backoff_update(w);
	rotate(w);
	if (c->write_failed)
		return 0;
	wait = w->opt.every - took;
	if (wait < 0 && w->opt.every == 0)
		wait = 0;	/* back to back, as asked */
	else if (wait < 0) {
		log_warn("sweep %ld took %.1f s, longer than --every %.1f s: "
		    "sweep %ld starts now, %.1f s late", w->sweep, took,
		    w->opt.every, w->sweep + 1, -wait);
		wait = 0;
	}
	if (!w->timer_open) {
		uv_timer_init(c->loop, &w->timer);
		w->timer.data = w;
		w->timer_open = 1;
	}
	uv_timer_start(&w->timer, next_sweep_cb, (uint64_t)(wait * 1000), 0);
	return 1;
}

static void
watch_handle_closed(struct collect_watch *w)
{
	if (--w->pending_closes == 0)
		runner_extra_closed(w->c->runner);
}

static void
timer_closed_cb(uv_handle_t *h)
{
	watch_handle_closed(h->data);
}

static void
http_closed_cb(void *arg)
{
	watch_handle_closed(arg);
}

void
collect_watch_close(struct collector *c)
{
	struct collect_watch *w = c->watch;

	if (w == NULL || w->closing) {
		if (w == NULL)
			runner_extra_closed(c->runner);
		return;
	}
	w->closing = 1;
	w->pending_closes = 1;	/* this call's own, released below */
	if (w->timer_open) {
		w->pending_closes++;
		uv_close((uv_handle_t *)&w->timer, timer_closed_cb);
	}
	if (w->http != NULL) {
		w->pending_closes++;
		metrics_http_close(w->http, http_closed_cb, w);
		w->http = NULL;
	}
	watch_handle_closed(w);
}

void
collect_watch_free(struct collector *c)
{
	struct collect_watch *w = c->watch;

	if (w == NULL)
		return;
	metrics_set_free(w->set);
	free(w->down_sweeps);
	free(w->next_try);
	free(w);
	c->watch = NULL;
}
