/*
 * Reading a sink's records on threads of their own (records_pipe.h).
 *
 * A job is about PIPE_CHUNK bytes of whole lines. The reader thread fills
 * free jobs from the file, in order, and numbers them; scanner threads
 * (one per processor, up to PIPE_SCANNERS) each take a filled job and
 * parse its lines into the job's batch: a fast-path record in the batch's
 * arenas, a record_parse() one owned by its entry, a malformed line its
 * cause. The calling thread takes the scanned jobs in their order, so the
 * sink sees the records as they are in the file, and reports each
 * malformed line in its turn; lines are numbered there, from the jobs'
 * line counts.
 *
 * When the sink stops the reading (an error, or --strict's first
 * malformed line) it sets cancel, wakes the reader (which waits for its
 * file in poll() beside a pipe of its own, so a FIFO whose writer holds
 * it open does not keep it), and waits for every thread to end; the
 * input's own end (a read error, an over-long line) is reported after
 * every line before it was taken. Without threads (pthread_create failed)
 * the same jobs are read, scanned and taken in turn on the calling thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "record_scan.h"
#include "records_line.h"
#include "records_pipe.h"

#define PIPE_CHUNK (1 << 20)
#define PIPE_SCANNERS 4
#define PIPE_JOBS (2 * PIPE_SCANNERS + 2)	/* at most; 2 per scanner + 2 */

struct pipe_entry {
	struct record *r;	/* the batch's, or owned; NULL: malformed */
	char *cause;
	int line;		/* in the job, from 1 */
	int owned;
	int torn;		/* malformed, the file's last without its
				   newline, begun as an object */
};

enum job_state { JOB_FREE, JOB_READ, JOB_SCANNING, JOB_SCANNED };

struct pipe_job {
	enum job_state state;
	long seq;		/* its place in the file */
	char *raw;		/* whole lines (the last may lack its newline) */
	size_t len, alloc;
	int nlines;
	/*
	 * What ends the input after this job's lines: 0 (more follows), 1
	 * (the file's end), NP_ERR_PARSE (line nlines + 1 is over-long),
	 * NP_ERR_IO (err) or NP_ERR_NOMEM.
	 */
	int end, err;
	struct record_scan scan;
	struct record *rec;
	struct pipe_entry *e;
	size_t n, cap;
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* any job's state changed, or a thread ended */
	struct pipe_job job[PIPE_JOBS];
	int njobs;		/* in use: each holds a chunk and its records */
	struct line_reader *rd;
	char *carry;		/* a partial line read past a job's last */
	size_t carry_len, carry_alloc;
	long read_seq;		/* jobs read */
	int reader_done;
	atomic_int cancel;	/* the sink stopped: read and scan no more */
	int wake[2];		/* written when cancel is set; -1 without */
	size_t sink_waits;	/* for a job: the reading is slower */
	double thread_cpu;	/* s, of the reader and the scanners */
};

static void
job_drop(struct pipe_job *j)
{
	size_t i;

	for (i = 0; i < j->n; i++) {
		if (j->e[i].owned)
			record_free(j->e[i].r);
		free(j->e[i].cause);
	}
	j->n = 0;
	j->nlines = 0;
	j->len = 0;
	j->end = 0;
	record_scan_clear(&j->scan);
}

static int
raw_room(struct pipe_job *j, size_t n)
{
	char *p;
	size_t want = j->len + n + 1;

	if (want <= j->alloc)
		return 0;
	want = want < 2 * PIPE_CHUNK ? 2 * PIPE_CHUNK : want * 2;
	if ((p = realloc(j->raw, want)) == NULL)
		return NP_ERR_NOMEM;
	j->raw = p;
	j->alloc = want;
	return 0;
}

/*
 * Up to n bytes of the file: fread() for a stream without a descriptor
 * (fmemopen), else one read(2) once the descriptor is readable or the
 * reading is cancelled (-2). The stream is unbuffered (records_read.c), so
 * no byte waits in it. As fread(): 0 at the end or on an error (errno).
 */
static ssize_t
file_read(struct pipe *p, char *buf, size_t n)
{
	struct pollfd pfd[2];
	int fd = fileno(p->rd->f);
	ssize_t got;

	if (fd < 0 || p->wake[0] < 0)
		return (ssize_t)fread(buf, 1, n, p->rd->f);
	pfd[0].fd = fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = p->wake[0];
	pfd[1].events = POLLIN;
	for (;;) {
		if (atomic_load(&p->cancel))
			return -2;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (pfd[1].revents != 0 || atomic_load(&p->cancel))
			return -2;
		if ((got = read(fd, buf, n)) >= 0 || errno != EINTR)
			return got;
	}
}

/*
 * The job's raw lines: what was carried over, then the file's next bytes
 * up to PIPE_CHUNK and a newline; the bytes after the last newline are
 * carried to the next job. The line reader's buffered bytes come first.
 */
static void
job_read(struct pipe *p, struct pipe_job *j)
{
	struct line_reader *rd = p->rd;
	size_t n, from = 0;
	ssize_t got;
	char *nl;

	j->len = 0;
	if (raw_room(j, p->carry_len + PIPE_CHUNK) != 0)
		goto nomem;
	if (p->carry_len > 0)
		memcpy(j->raw, p->carry, p->carry_len);
	j->len = p->carry_len;
	p->carry_len = 0;
	for (;;) {
		if (rd->start < rd->end) {	/* the line reader's bytes */
			n = rd->end - rd->start;
			if (raw_room(j, n) != 0)
				goto nomem;
			memcpy(j->raw + j->len, rd->buf + rd->start, n);
			rd->start = rd->end;
		} else if (!rd->eof) {
			if (raw_room(j, PIPE_CHUNK) != 0)
				goto nomem;
			got = file_read(p, j->raw + j->len, PIPE_CHUNK);
			if (got == -2) {	/* cancelled: dropped anyway */
				j->len = 0;
				j->end = 1;
				return;
			}
			n = got > 0 ? (size_t)got : 0;
			if (n == 0) {
				if (got < 0 || ferror(rd->f)) {
					j->err = errno;
					j->end = NP_ERR_IO;
					/* Its whole lines are read, the
					 * partial one lost. */
					nl = memrchr(j->raw, '\n', j->len);
					j->len = nl != NULL ?
					    (size_t)(nl + 1 - j->raw) : 0;
					return;
				}
				rd->eof = 1;
			}
		} else {
			j->end = 1;
			break;
		}
		j->len += n;
		if (j->len < PIPE_CHUNK)
			continue;
		nl = memrchr(j->raw + from, '\n', j->len - from);
		if (nl != NULL) {
			/* The partial line after it is the next job's. */
			p->carry_len = j->len - (size_t)(nl + 1 - j->raw);
			if (p->carry_len > p->carry_alloc) {
				char *c = realloc(p->carry, p->carry_len);

				if (c == NULL)
					goto nomem;
				p->carry = c;
				p->carry_alloc = p->carry_len;
			}
			if (p->carry_len > 0)
				memcpy(p->carry, nl + 1, p->carry_len);
			j->len -= p->carry_len;
			return;
		}
		if (j->len > RECORDS_LINE_MAX + 1) {
			/* No newline in a line's length: not records. */
			j->len = 0;
			j->end = NP_ERR_PARSE;
			return;
		}
		from = j->len;
	}
	return;
nomem:
	j->len = 0;
	j->end = NP_ERR_NOMEM;
}

static int
entry_new(struct pipe_job *j, struct pipe_entry **out)
{
	if (j->n == j->cap) {
		size_t n = j->cap ? j->cap * 2 : 1024;
		struct pipe_entry *e = realloc(j->e, n * sizeof *e);
		struct record *r;

		if (e == NULL)
			return NP_ERR_NOMEM;
		j->e = e;
		/* Records are taken by pointer only once the job is
		 * scanned: the array may move until then. */
		if ((r = realloc(j->rec, n * sizeof *r)) == NULL)
			return NP_ERR_NOMEM;
		j->rec = r;
		j->cap = n;
	}
	*out = &j->e[j->n];
	(*out)->cause = NULL;
	(*out)->owned = 0;
	(*out)->torn = 0;
	(*out)->r = NULL;
	return 0;
}

/* The job's lines parsed into its entries; an error ends the job early. */
static void
job_scan(struct pipe *p, struct pipe_job *j)
{
	const char *line = j->raw, *end = j->raw + j->len, *nl;
	struct pipe_entry *e;
	struct record *r;
	size_t len, i;
	char *cause;
	int rc = 0;

	for (; line < end; line = nl + 1) {
		if (atomic_load_explicit(&p->cancel, memory_order_relaxed))
			break;
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		len = (size_t)(nl - line);
		if (len > RECORDS_LINE_MAX) {
			j->end = NP_ERR_PARSE;
			break;
		}
		j->nlines++;
		/* Out of memory: the reading stops at this job. */
		if ((rc = record_scan_room(&j->scan, len)) < 0 ||
		    (rc = entry_new(j, &e)) != 0)
			break;
		e->line = j->nlines;
		if ((rc = record_scan(&j->scan, line, len, &j->rec[j->n])) <
		    0)
			break;
		if (rc == 1) {
			e->owned = -1;	/* the batch's: pointed at below */
			j->n++;
			continue;
		}
		rc = records_line_parse(line, len, &r, &cause);
		if (rc == NP_ERR_PARSE) {
			e->cause = cause;
			e->torn = nl == end && line[0] == '{';
			rc = 0;
		}
		else if (rc != 0)
			break;
		else if (r == NULL)
			continue;	/* blank */
		else
			e->r = r, e->owned = 1;
		j->n++;
	}
	if (rc < 0)
		j->end = NP_ERR_NOMEM;
	for (i = 0; i < j->n; i++)
		if (j->e[i].owned == -1) {
			j->e[i].r = &j->rec[i];
			j->e[i].owned = 0;
		}
}

static double
thread_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static struct pipe_job *
job_in(struct pipe *p, enum job_state state)
{
	size_t i;

	for (i = 0; i < (size_t)p->njobs; i++)
		if (p->job[i].state == state)
			return &p->job[i];
	return NULL;
}

static void *
pipe_reader(void *arg)
{
	struct pipe *p = arg;
	struct pipe_job *j;
	int end;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while ((j = job_in(p, JOB_FREE)) == NULL &&
		    !atomic_load(&p->cancel))
			pthread_cond_wait(&p->cv, &p->mu);
		if (j == NULL || atomic_load(&p->cancel))
			break;	/* stopped: not a byte more */
		pthread_mutex_unlock(&p->mu);
		job_read(p, j);
		pthread_mutex_lock(&p->mu);
		end = j->end;
		j->seq = p->read_seq++;
		j->state = JOB_READ;
		pthread_cond_broadcast(&p->cv);
		if (end != 0)
			break;
	}
	p->reader_done = 1;
	p->thread_cpu += thread_cpu();
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void *
pipe_scanner(void *arg)
{
	struct pipe *p = arg;
	struct pipe_job *j;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while ((j = job_in(p, JOB_READ)) == NULL && !p->reader_done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (j == NULL)
			break;
		j->state = JOB_SCANNING;
		pthread_mutex_unlock(&p->mu);
		job_scan(p, j);
		pthread_mutex_lock(&p->mu);
		j->state = JOB_SCANNED;
		pthread_cond_broadcast(&p->cv);
	}
	p->thread_cpu += thread_cpu();
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/*
 * A scanned job's entries to the sink, lines numbered from *base; 0, or
 * what stopped the reading (the sink's error, --strict, or the job's end,
 * reported).
 */
static int
job_take(struct record_input *in, struct pipe_job *j, const char *path,
    int strict, int *base)
{
	struct pipe_entry *e;
	size_t i;
	int rc = 0;

	for (i = 0; i < j->n && rc == 0; i++) {
		e = &j->e[i];
		if (e->r == NULL) {
			rc = records_malformed(in, path, *base + e->line,
			    e->cause, strict, e->torn);
			e->cause = NULL;
		} else {
			rc = records_take(in, e->r, e->owned, path,
			    *base + e->line);
			e->owned = 0;
		}
	}
	*base += j->nlines;
	if (rc == 0 && j->end < 0) {
		records_read_failed(in, j->end, j->err, path, *base);
		rc = j->end;
	}
	if (rc == 0 && j->end == 1)
		rc = 1;
	job_drop(j);
	return rc;
}

/* Without threads: each job read, scanned and taken in turn. */
static int
pipe_inline(struct pipe *p, struct record_input *in, const char *path,
    int strict)
{
	struct pipe_job *j = &p->job[0];
	int rc, base = 0;

	do {
		job_read(p, j);
		job_scan(p, j);
	} while ((rc = job_take(in, j, path, strict, &base)) == 0);
	return rc == 1 ? 0 : rc;
}

static int
scanners_wanted(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > PIPE_SCANNERS ? PIPE_SCANNERS : (int)n;
}

/* The scanned jobs taken in their order, until the last one read. */
static int
pipe_take(struct pipe *p, struct record_input *in, const char *path,
    int strict, int *base)
{
	struct pipe_job *j;
	long next = 0;
	int rc = 0, i;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		for (j = NULL, i = 0; i < p->njobs && j == NULL; i++)
			if (p->job[i].state == JOB_SCANNED &&
			    p->job[i].seq == next)
				j = &p->job[i];
		if (j == NULL) {
			if (p->reader_done && next == p->read_seq)
				break;
			p->sink_waits++;
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		pthread_mutex_unlock(&p->mu);
		if (rc == 0)
			rc = job_take(in, j, path, strict, base);
		else
			job_drop(j);	/* read before the stop */
		pthread_mutex_lock(&p->mu);
		j->state = JOB_FREE;
		next++;
		if (rc != 0 && !atomic_load(&p->cancel)) {
			atomic_store(&p->cancel, 1);
			if (p->wake[1] >= 0)	/* out of its poll() */
				(void)!write(p->wake[1], "x", 1);
		}
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return rc == 1 ? 0 : rc;
}

int
records_pipe(struct record_input *in, struct line_reader *rd,
    const char *path, int strict)
{
	pthread_t reader, scanner[PIPE_SCANNERS];
	struct pipe *p;
	int rc, i, nscan = 0, want = scanners_wanted(), base = 0;

	if ((p = calloc(1, sizeof *p)) == NULL)
		return NP_ERR_NOMEM;
	p->rd = rd;
	atomic_init(&p->cancel, 0);
	if (pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		p->wake[0] = p->wake[1] = -1;	/* fread, as without */
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->njobs = 2 * want + 2;
	for (i = 0; i < want; i++)
		if (pthread_create(&scanner[nscan], NULL, pipe_scanner, p) == 0)
			nscan++;
	if (nscan == 0 || pthread_create(&reader, NULL, pipe_reader, p) != 0) {
		pthread_mutex_lock(&p->mu);
		p->reader_done = 1;	/* the scanners end */
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		for (i = 0; i < nscan; i++)
			pthread_join(scanner[i], NULL);
		rc = pipe_inline(p, in, path, strict);
		goto out;
	}
	rc = pipe_take(p, in, path, strict, &base);
	pthread_join(reader, NULL);
	for (i = 0; i < nscan; i++)
		pthread_join(scanner[i], NULL);
	/* Which side set the pace (-v): the sink waited for the reading. */
	log_debug(NULL, "%s: %d lines read by %d threads in %.2f s of CPU; "
	    "the sink waited for them %zu times", path, base, nscan + 1,
	    p->thread_cpu, p->sink_waits);
out:
	for (i = 0; i < PIPE_JOBS; i++) {
		job_drop(&p->job[i]);
		record_scan_free(&p->job[i].scan);
		free(p->job[i].raw);
		free(p->job[i].rec);
		free(p->job[i].e);
	}
	free(p->carry);
	if (p->wake[0] >= 0) {
		close(p->wake[0]);
		close(p->wake[1]);
	}
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
	return rc;
}
