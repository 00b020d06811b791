/*
 * Output that never blocks the loop: a pipe nobody reads takes what it can
 * and the rest waits in the queue (the writer returns at once), the loop
 * writes the queue when the reader reads, every byte arrives in order; a
 * reader that never comes back is given up on after the close's wait
 * with whole lines in the pipe; a full device is an error with its errno.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "error.h"
#include "output.h"

#define LINES 200
#define LINE_LEN 100

/* A pipe of one page, its read end non-blocking. */
static void
small_pipe(int fds[2])
{
	assert_int_equal(pipe(fds), 0);
	fcntl(fds[1], F_SETPIPE_SZ, 4096);
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
}

static void
line_of(int i, char *line)
{
	memset(line, 'a' + i % 26, LINE_LEN - 1);
	snprintf(line, 8, "%06d", i);
	line[6] = ' ';
	line[LINE_LEN - 1] = '\n';
}

/* Writes return at once whatever the reader does; the loop delivers all. */
static void
test_pipe_not_read(void **state)
{
	static char got[LINES * LINE_LEN + 1], want[LINES * LINE_LEN];
	struct output *o;
	uv_loop_t loop;
	size_t len = 0;
	ssize_t n;
	int fds[2], i;

	small_pipe(fds);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(output_open_fd(fds[1], 1, &o), 0);
	assert_int_equal(output_attach(o, &loop), 0);
	for (i = 0; i < LINES; i++) {
		line_of(i, want + i * LINE_LEN);
		assert_int_equal(output_write(o, want + i * LINE_LEN,
		    LINE_LEN), 0);
	}
	assert_true(output_queued(o) > 0);	/* the pipe is full */
	while (len < sizeof want) {
		n = read(fds[0], got + len, sizeof got - len);
		if (n > 0)
			len += (size_t)n;
		uv_run(&loop, UV_RUN_NOWAIT);
	}
	assert_int_equal(output_queued(o), 0);
	assert_memory_equal(got, want, sizeof want);
	output_detach(o);
	assert_int_equal(output_close(o, -1), 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&loop), 0);
	close(fds[0]);
}

/* A reader that never reads again: close gives up, the pipe has whole lines. */
static void
test_reader_gone_quiet(void **state)
{
	static char got[LINES * LINE_LEN];
	char line[LINE_LEN];
	struct output *o;
	ssize_t n;
	int fds[2], i;

	small_pipe(fds);
	assert_int_equal(output_open_fd(fds[1], 1, &o), 0);
	for (i = 0; i < LINES; i++) {
		line_of(i, line);
		assert_int_equal(output_write(o, line, LINE_LEN), 0);
	}
	assert_true(output_queued(o) > 0);
	assert_int_equal(output_close(o, 100), NP_ERR_IO);
	n = read(fds[0], got, sizeof got);
	assert_true(n > 0 && n < (ssize_t)sizeof got);
	assert_int_equal(n % LINE_LEN, 0);
	assert_int_equal(got[n - 1], '\n');
	close(fds[0]);
}

/* /dev/full: the write fails with ENOSPC, and later ones too. */
static void
test_full_device(void **state)
{
	struct output *o;
	int fd = open("/dev/full", O_WRONLY);

	if (fd == -1)
		skip();
	assert_int_equal(output_open_fd(fd, 1, &o), 0);
	assert_int_equal(output_write(o, "x\n", 2), NP_ERR_IO);
	assert_int_equal(output_error(o), ENOSPC);
	assert_int_equal(output_write(o, "y\n", 2), NP_ERR_IO);
	assert_int_equal(output_close(o, -1), NP_ERR_IO);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_not_read),
		cmocka_unit_test(test_reader_gone_quiet),
		cmocka_unit_test(test_full_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
