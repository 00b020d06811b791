/*
 * Output that never blocks the loop: lines for a file descriptor are
 * written at once when the descriptor takes them and otherwise queued, in
 * order, and written by a uv_poll when it becomes writable. A reader that
 * stops reading (collect --output - | sleep) then holds back only the
 * output, never the sessions, timers and signal watchers of the loop.
 *
 * A regular file is written directly (a disk does not make the loop wait
 * on another process); a write that fails half-way is cut back, so the
 * file never holds half a line. Pipes, terminals and sockets get their own
 * non-blocking open file description (/proc/self/fd/N), so the O_NONBLOCK
 * flag is never set on a description the shell or another process shares;
 * where that cannot be opened (a socket) the flag is set and restored.
 *
 *	output_open_fd(fd, own, &o);	output_attach(o, loop);
 *	output_write(o, line, len);	... from loop callbacks ...
 *	output_detach(o);		before the loop ends (closes the poll)
 *	output_close(o, -1);		writes what is queued, waiting for it
 */
#ifndef NETPROF_OUTPUT_H
#define NETPROF_OUTPUT_H

#include <stddef.h>

#include <uv.h>

struct output;

/* Wrap fd (closed by output_close when own). 0 or NP_ERR_NOMEM. */
int output_open_fd(int fd, int own, struct output **out);

/* Queue on this loop from now on; a no-op for regular files. */
int output_attach(struct output *o, uv_loop_t *loop);

/*
 * Write len bytes (whole lines) in order: at once if the descriptor takes
 * them, else queued. NP_ERR_IO once a write failed (ENOSPC, EPIPE, …;
 * output_error() says which); nothing more is written after that.
 */
int output_write(struct output *o, const void *data, size_t len);

/* The errno of the first failed write, or 0. */
int output_error(const struct output *o);

/* Bytes still queued (the reader has not taken them yet). */
size_t output_queued(const struct output *o);

/* Close the poll handle (the loop can end); later writes queue. */
void output_detach(struct output *o);

/*
 * Write everything still queued, waiting for the reader (the loop is over:
 * nothing else waits) at most wait_ms between two writes it takes (-1: as
 * long as it takes; an interrupted run gives up sooner), sync a regular
 * file, close if owned, free. 0, or NP_ERR_IO if anything was not written.
 * NULL is a no-op.
 */
int output_close(struct output *o, int wait_ms);

#endif
