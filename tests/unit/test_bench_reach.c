/*
 * The path phase's reach checks (bench_path_reach.c), run by /bin/sh here
 * against sockets of this process: a port that listens is ok with the
 * connect's time, a closed one fails with bash's reason, one whose queue
 * is full (its SYNs dropped, as a firewall's drop) times out after the
 * wait, and the whole check of every target is one exec of bash: no
 * sleep, no timeout(1), no bash per target, each PATH lookup logged by a
 * wrapper.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "bench_path.h"
#include "util.h"

/* A TCP socket on 127.0.0.1, listening with backlog (or closed, < 0). */
static int
local_port(int backlog, int *fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof a;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true((*fd = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(*fd, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(getsockname(*fd, (struct sockaddr *)&a, &len), 0);
	if (backlog >= 0)
		assert_int_equal(listen(*fd, backlog), 0);
	return ntohs(a.sin_port);
}

/* A connect to 127.0.0.1:port, blocking or not. */
static int
dial(int port, int flags)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	assert_true((fd = socket(AF_INET, SOCK_STREAM | flags, 0)) >= 0);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
		assert_true(flags != 0);	/* under way */
	return fd;
}

static char *
in_dir(const char *dir, const char *name)
{
	char *p = str_printf("%s/%s", dir, name);

	assert_non_null(p);
	return p;
}

static char *
slurp(const char *file)
{
	char *text = NULL;
	size_t cap = 0;
	FILE *f = fopen(file, "r");

	assert_non_null(f);
	assert_true(getdelim(&text, &cap, '\0', f) > 0);
	fclose(f);
	return text;
}

/* dir/name: logs its name to dir/log, then runs the tool that PATH path
   has, with the caller's PATH (dir: each lookup after it is logged too). */
static void
wrapper(const char *dir, const char *name, const char *path)
{
	char *file = in_dir(dir, name);
	FILE *f;

	assert_non_null(f = fopen(file, "w"));
	fprintf(f, "#!/bin/sh\necho %s >>'%s/log'\n"
	    "exec \"$(PATH='%s' command -v %s)\" \"$@\"\n", name, dir, path,
	    name);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(file, 0755), 0);
	free(file);
}

static void
test_one_bash_checks_every_target(void **state)
{
	static const char *const tools[] = { "bash", "sh", "sleep",
		"timeout", "nc", "log" };
	const char *tmp = getenv("NETPROF_TEST_TMP"), *path = getenv("PATH");
	struct bench_reach_target t[4];
	struct bench_reach c[4], *r[4];
	int open_fd, closed_fd, full_fd, q1, q2, i;
	char *dir, *cmd, *line, *log, out[4096];
	size_t n;
	FILE *p;

	(void)state;
	if (tmp != NULL)
		(void)mkdir(tmp, 0755);	/* ctest's; its parent is there */
	dir = str_printf("%s/test_bench_reach.%ld", tmp != NULL ? tmp :
	    "/tmp", (long)getpid());
	assert_non_null(dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	for (i = 0; i < 5; i++)
		wrapper(dir, tools[i], path != NULL ? path : "/usr/bin:/bin");

	t[0].port = local_port(16, &open_fd);
	t[1].port = local_port(-1, &closed_fd);	/* bound, never listening */
	t[2].port = local_port(0, &full_fd);
	q1 = dial(t[2].port, 0);		/* its queue full: SYNs dropped */
	q2 = dial(t[2].port, SOCK_NONBLOCK);
	t[3].port = t[0].port;
	for (i = 0; i < 4; i++) {
		t[i].address = "127.0.0.1";
		memset(&c[i], 0, sizeof c[i]);
		c[i].tcp = -1;
		r[i] = &c[i];
	}

	assert_non_null(cmd = bench_path_reach_command(t, 4, 1));
	assert_non_null(line = str_printf("PATH='%s' %s", dir, cmd));
	assert_non_null(p = popen(line, "r"));
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	bench_path_reach_read(t, r, 4, 1, out);

	assert_int_equal(c[0].tcp, 1);
	assert_true(c[0].connect_us > 0 && c[0].connect_us <= 1000000L);
	assert_int_equal(c[1].tcp, 0);
	assert_string_equal(c[1].why, "Connection refused");
	assert_int_equal(c[2].tcp, 0);
	assert_string_equal(c[2].why, "no answer in 1 s");
	assert_int_equal(c[3].tcp, 1);

	/* one exec of bash for them all, nothing else looked up */
	free(line);
	log = slurp(line = in_dir(dir, "log"));
	assert_string_equal(log, "bash\n");

	for (i = 0; i < 4; i++)
		free(c[i].why);
	free(log);
	free(line);
	free(cmd);
	close(q1);
	close(q2);
	close(open_fd);
	close(closed_fd);
	close(full_fd);
	for (i = 0; i < 6; i++) {
		line = in_dir(dir, tools[i]);
		unlink(line);
		free(line);
	}
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_bash_checks_every_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
