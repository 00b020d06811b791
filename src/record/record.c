/*
 * Writing records, each in its kind's form. Each record is printed to a
 * buffer first and handed whole to output.c, which writes a file at once
 * (cutting back a line a full disk took only half of) and queues for a
 * pipe that is not reading, so the loop never waits on the reader; a
 * signal or a crash can cut the run short but never a line in half.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "error_class.h"
#include "json_write.h"
#include "output.h"
#include "record.h"
#include "records_read.h"
#include "timeutil.h"
#include "util.h"

static void
add_time(cJSON *o, const char *name, double unix_s,
    char *(*format)(double, char *, size_t))
{
	char buf[TIME_RECORD_SIZE];

	cJSON_AddStringToObject(o, name, format(unix_s, buf, sizeof buf));
}

/* text, JSON printed once, as name's value: json_write.h writes a raw
   item as it is; a reference, so deleting the object leaves the text.
   0: out of memory. */
static int
add_raw(cJSON *o, const char *name, const char *text)
{
	cJSON *v;

	if ((v = cJSON_CreateStringReference(text)) == NULL)
		return 0;
	v->type = cJSON_Raw | cJSON_IsReference;
	if (cJSON_AddItemToObject(o, name, v))
		return 1;
	cJSON_Delete(v);
	return 0;
}

/* What every form has: the pair, whether ok, the times, the round. */
static void
add_common(cJSON *o, const struct record *r)
{
	/* upstream's timestamp is when the probe ended */
	add_time(o, RECORD_F_TIMESTAMP, r->ended_at, time_record_timestamp);
	cJSON_AddStringToObject(o, RECORD_F_KIND, r->kind);
	cJSON_AddStringToObject(o, RECORD_F_SOURCE, r->source);
	cJSON_AddStringToObject(o, RECORD_F_TARGET, r->target);
	cJSON_AddBoolToObject(o, RECORD_F_OK, r->ok);
	cJSON_AddStringToObject(o, RECORD_F_COMMAND,
	    r->command != NULL ? r->command : "");
	add_time(o, RECORD_F_STARTED_AT, r->started_at, time_record_precise);
	add_time(o, RECORD_F_ENDED_AT, r->ended_at, time_record_precise);
	cJSON_AddNumberToObject(o, RECORD_F_ROUND, r->round);
}

/* collect's: the address, how it was measured, the sweep, a sample's K. */
static void
add_collect(cJSON *o, const struct record *r)
{
	cJSON_AddStringToObject(o, RECORD_F_TARGET_ADDRESS, r->target_address);
	if (r->server_command != NULL)
		cJSON_AddStringToObject(o, RECORD_F_SERVER_COMMAND,
		    r->server_command);
	if (r->sweep > 0)
		cJSON_AddNumberToObject(o, RECORD_F_SWEEP, (double)r->sweep);
	if (r->sample > 0)
		cJSON_AddNumberToObject(o, RECORD_F_SAMPLE, r->sample);
	if (r->mode != NULL)
		cJSON_AddStringToObject(o, RECORD_F_MODE, r->mode);
	if (r->config_text != NULL)
		(void)add_raw(o, RECORD_F_CONFIG, r->config_text);
}

/* bench's (upstream's bench records): the run, the peers, the config;
   netprof's path beside them. */
static void
add_bench(cJSON *o, const struct record *r)
{
	cJSON *cfg;

	cJSON_AddStringToObject(o, RECORD_F_RUN_ID, r->run_id);
	json_add_string_or_null(o, RECORD_F_SOURCE_PEER_ID, r->source_peer_id);
	json_add_string_or_null(o, RECORD_F_TARGET_PEER_ID, r->target_peer_id);
	if ((cfg = cJSON_AddObjectToObject(o, RECORD_F_CONFIG)) != NULL) {
		cJSON_AddNumberToObject(cfg, RECORD_F_CONFIG_COUNT, r->count);
		if (r->bytes >= 0)
			cJSON_AddNumberToObject(cfg, RECORD_F_CONFIG_BYTES,
			    (double)r->bytes);
		else
			cJSON_AddNullToObject(cfg, RECORD_F_CONFIG_BYTES);
	}
	json_add_string_or_null(o, RECORD_F_PATH, r->path);
	json_add_string_or_null(o, RECORD_F_PATH_KNOWN, r->path_known);
	json_add_string_or_null(o, RECORD_F_PATH_EVIDENCE, r->path_evidence);
	json_add_string_or_null(o, RECORD_F_RELAY, r->relay);
	json_add_string_or_null(o, RECORD_F_RELAY_PEER_ID, r->relay_peer_id);
}

cJSON *
record_to_json(struct record *r)
{
	cJSON *o;
	/* a failure without its text (its strdup failed) is written with
	   the reader's words; the record's own pointer is its owner's */
	const char *error = r->error != NULL ? r->error :
	    RECORD_NO_ERROR_TEXT;

	if ((o = cJSON_CreateObject()) == NULL)
		return NULL;
	add_common(o, r);
	if (r->run_id == NULL)
		add_collect(o, r);
	else
		add_bench(o, r);
	if (r->ok)
		r->error_class = NULL;
	else if (r->error_class == NULL)
		r->error_class = error_class_name(error_class_of_text(error));
	/* json_write.h's part last (the sort gives every key its place):
	   the error and its class, the metrics, the order */
	json_add_string_or_null(o, RECORD_F_ERROR, r->ok ? NULL : error);
	json_add_string_or_null(o, RECORD_F_ERROR_CLASS, r->error_class);
	if (r->metrics_text != NULL ? !add_raw(o, RECORD_F_METRICS,
	    r->metrics_text) : cJSON_AddObjectToObject(o, RECORD_F_METRICS) ==
	    NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	json_sort_keys(o);
	return o;
}

struct record_writer {
	struct output *out;
	int failed;
};

/* Cut a last line that has no newline (a run killed mid-write). */
static int
drop_torn_line(int fd)
{
	struct stat st;
	off_t end;
	char c;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	for (end = st.st_size; end > 0; end--) {
		if (pread(fd, &c, 1, end - 1) != 1)
			return NP_ERR_IO;
		if (c == '\n')
			break;
	}
	if (end != st.st_size && ftruncate(fd, end) != 0)
		return NP_ERR_IO;
	return 0;
}

int
record_writer_open(const char *path, int append, struct record_writer **out,
    char **cause)
{
	struct record_writer *w;
	/* O_NOFOLLOW: a link planted at the name is not written through */
	int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW;
	int fd, r;

	*out = NULL;
	*cause = NULL;
	if ((w = calloc(1, sizeof *w)) == NULL)
		return NP_ERR_NOMEM;
	if (strcmp(path, "-") == 0) {
		if ((r = output_open_fd(STDOUT_FILENO, 0, &w->out)) != 0) {
			free(w);
			return r;
		}
		*out = w;
		return 0;
	}
	if (append)
		flags = (flags & ~O_WRONLY) | O_RDWR;	/* to find a torn line */
	else
		flags |= O_TRUNC;
	if ((fd = open(path, flags, 0644)) == -1) {
		*cause = errno == ELOOP ? str_printf("%s is a symbolic link: "
		    "netprof does not write through one (remove it, or choose "
		    "another output)", path) : str_printf("%s: %s (check that "
		    "the directory exists and is writable)", path,
		    strerror(errno));
		free(w);
		return NP_ERR_IO;
	}
	if (append && drop_torn_line(fd) != 0) {
		*cause = str_printf("%s: cannot repair its last line: %s",
		    path, strerror(errno));
		close(fd);
		free(w);
		return NP_ERR_IO;
	}
	if ((r = output_open_fd(fd, 1, &w->out)) != 0) {
		close(fd);
		free(w);
		return r;
	}
	*out = w;
	return 0;
}

int
record_writer_attach(struct record_writer *w, struct uv_loop_s *loop)
{
	return output_attach(w->out, loop);
}

void
record_writer_detach(struct record_writer *w)
{
	if (w != NULL)
		output_detach(w->out);
}

int
record_writer_error(const struct record_writer *w)
{
	return output_error(w->out);
}

size_t
record_writer_queued(const struct record_writer *w)
{
	return w != NULL ? output_queued(w->out) : 0;
}

int
record_writer_write(struct record_writer *w, struct record *r)
{
	struct buf line = { 0 };
	cJSON *o;
	int rc = NP_ERR_NOMEM;

	if ((o = record_to_json(r)) == NULL)
		return NP_ERR_NOMEM;
	/* upstream's json.dumps() form, then the line's end */
	if (json_write(o, 0, &line) == 0 && buf_append(&line, "\n", 1) == 0 &&
	    (rc = output_write(w->out, line.data, line.len)) != 0)
		w->failed = 1;
	cJSON_Delete(o);
	buf_free(&line);
	/* written: what a reader of the line reads of it, set in r */
	if (rc == 0)
		record_as_read(r);
	return rc;
}

int
record_writer_close(struct record_writer *w, int wait_ms)
{
	int r;

	if (w == NULL)
		return 0;
	r = output_close(w->out, wait_ms);
	if (w->failed)
		r = NP_ERR_IO;
	free(w);
	return r;
}
