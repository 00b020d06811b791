/*
 * bench_teardown_command(), run by /bin/sh against real processes: a node
 * that stops on TERM is gone and its directory removed; one that ignores
 * TERM is KILLed after the grace; the PID is read from DIR/pid when none
 * is given; a PID whose command line does not name the directory (a
 * recycled PID) is never signalled, nor one that names it only as a
 * substring (...-h1 in ...-h10) or started at another time; a pid file
 * holding "-1" or "0" signals nothing and keeps the directory; a node
 * started without a known PID keeps it too; a link is left alone; the
 * waits' checks fork no text tool once the node's start time is known;
 * after KILL they come every 0.02 s.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench_teardown.h"

/* A stand-in node: a shell loop whose command line names dir. */
static pid_t
spawn_node(const char *dir, int ignore_term)
{
	const char *loop = ignore_term ?
	    "trap '' TERM; while :; do sleep 0.05; done" :
	    "while :; do sleep 0.05; done";
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", loop, "node", "--config-dir", dir,
		    (char *)NULL);
		_exit(127);
	}
	usleep(100000);
	return pid;
}

static char *
make_dir(void)
{
	char tmpl[] = "/tmp/otela-bench-unit-XXXXXX";
	char *dir = mkdtemp(tmpl);

	assert_non_null(dir);
	return strdup(dir);
}

/* rm -rf dir (a test's own directory under /tmp). */
static void
rmdir_all(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Run the teardown (grace_s from TERM to KILL); returns its exit status. */
static int
run_teardown_full(const char *dir, long pid, long long start, double grace_s)
{
	char *cmd = bench_teardown_command(dir, pid, start, grace_s);
	int st;
	pid_t c;

	assert_non_null(cmd);
	c = fork();
	if (c == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	free(cmd);
	assert_int_equal(waitpid(c, &st, 0), c);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
run_teardown(const char *dir, long pid)
{
	return run_teardown_full(dir, pid, 0, 5);
}

static int
run_teardown_at(const char *dir, long pid, long long start)
{
	return run_teardown_full(dir, pid, start, 5);
}

/* Run the teardown with a grace of grace_s; returns its exit status. */
static int
run_teardown_grace(const char *dir, long pid, double grace_s)
{
	return run_teardown_full(dir, pid, 0, grace_s);
}

/* Field 22 of /proc/PID/stat. */
static long long
start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	long long v = 0;
	size_t n;
	FILE *f;
	int i;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	assert_non_null(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_non_null(p = strrchr(buf, ')'));
	p += 2;
	for (i = 3; i < 22; i++) {
		p = strchr(p, ' ');
		assert_non_null(p);
		p++;
	}
	sscanf(p, "%lld", &v);
	return v;
}

static void
write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static int
exists(const char *path)
{
	struct stat sb;

	return lstat(path, &sb) == 0;
}

/* The node was signalled: it is a zombie of ours now, or gone. */
static int
reaped(pid_t pid)
{
	int st;

	return waitpid(pid, &st, WNOHANG) == pid;
}

static void
test_term_stops_node_and_removes_dir(void **state)
{
	char *dir = make_dir();
	pid_t node = spawn_node(dir, 0);
	struct stat sb;

	assert_int_equal(run_teardown(dir, node), 0);
	assert_true(reaped(node));
	assert_int_equal(stat(dir, &sb), -1);
	free(dir);
}

static void
test_kill_after_grace_when_term_ignored(void **state)
{
	char *dir = make_dir();
	pid_t node = spawn_node(dir, 1);

	assert_int_equal(run_teardown(dir, node), 0);
	assert_true(reaped(node));
	free(dir);
}

static void
test_pid_read_from_dir(void **state)
{
	char *dir = make_dir(), path[256];
	pid_t node = spawn_node(dir, 0);
	FILE *f;

	snprintf(path, sizeof path, "%s/pid", dir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%ld\n", (long)node);
	fclose(f);
	assert_int_equal(run_teardown(dir, 0), 0);
	assert_true(reaped(node));
	free(dir);
}

static void
test_recycled_pid_left_alone(void **state)
{
	char *dir = make_dir(), *other = make_dir();
	pid_t stranger = spawn_node(other, 0);
	struct stat sb;

	/* the PID now belongs to a process that is not dir's node */
	assert_int_equal(run_teardown(dir, stranger), 0);
	assert_int_equal(kill(stranger, 0), 0);
	assert_false(reaped(stranger));
	assert_int_equal(stat(dir, &sb), -1);
	kill(stranger, SIGKILL);
	waitpid(stranger, NULL, 0);
	assert_int_equal(run_teardown(other, 0), 0);
	free(dir);
	free(other);
}

/*
 * A node whose TERM cleanup takes 4 s (the real one takes about 10): a
 * grace shorter than that KILLs it mid-cleanup, a longer one lets it end.
 * The margins are wide: on a loaded machine the script's waits run long.
 */
static void
test_grace_covers_cleanup(void **state)
{
	char *dir = make_dir(), *marks = make_dir(), mark[256], loop[512];
	int g;
	pid_t node;
	struct stat sb;

	snprintf(mark, sizeof mark, "%s/cleaned", marks);
	snprintf(loop, sizeof loop, "trap 'sleep 4; : >%s; exit 0' TERM; "
	    "while :; do sleep 0.05; done", mark);
	for (g = 0; g < 2; g++) {
		if (g == 1)
			assert_int_equal(mkdir(dir, 0700), 0);
		node = fork();
		assert_true(node >= 0);
		if (node == 0) {
			execl("/bin/sh", "sh", "-c", loop, "node",
			    "--config-dir", dir, (char *)NULL);
			_exit(127);
		}
		usleep(100000);
		assert_int_equal(run_teardown_grace(dir, node, g == 0 ? 0.2 :
		    8), 0);
		assert_true(reaped(node));
		/* 0.2 s: KILLed before its cleanup ended; 8 s: it ended */
		assert_int_equal(stat(mark, &sb), g == 0 ? -1 : 0);
		assert_int_equal(stat(dir, &sb), -1);
	}
	unlink(mark);
	rmdir(marks);
	free(marks);
	free(dir);
}

/*
 * With the node's start time known, the checks of the waits fork no text
 * tool: its argv is read once (tr and grep), its state and start time by
 * the shell itself, where each check of a 0.1 s step ran sed, tr, grep
 * and cut (on a loaded host they stretched a 0.5 s grace to seconds).
 * The tools are wrappers on PATH that count their calls.
 */
static void
test_waits_fork_no_tool(void **state)
{
	static const char *const tools[] = { "sed", "tr", "grep", "cut" };
	char *dir = make_dir(), *bin = make_dir(), path[4096], f[300];
	char *old = strdup(getenv("PATH")), log[300], line[64];
	int n = 0, i;
	pid_t node = spawn_node(dir, 1);
	FILE *fp;

	snprintf(log, sizeof log, "%s/calls", bin);
	for (i = 0; i < 4; i++) {
		snprintf(f, sizeof f, "%s/%s", bin, tools[i]);
		snprintf(path, sizeof path, "#!/bin/sh\necho %s >>%s\n"
		    "PATH=%s exec %s \"$@\"\n", tools[i], log, old, tools[i]);
		write_file(bin, tools[i], path);
		assert_int_equal(chmod(f, 0755), 0);
	}
	snprintf(path, sizeof path, "%s:%s", bin, old);
	setenv("PATH", path, 1);
	assert_int_equal(run_teardown_full(dir, node, start_time(node), 0.5),
	    0);
	setenv("PATH", old, 1);
	assert_true(reaped(node));
	assert_false(exists(dir));
	if ((fp = fopen(log, "r")) != NULL) {
		while (fgets(line, sizeof line, fp) != NULL)
			n++;
		fclose(fp);
	}
	assert_true(n <= 2);	/* tr and grep, once */
	rmdir_all(bin);
	free(bin);
	free(old);
	free(dir);
}

static void
test_bad_pid_file_signals_nothing(void **state)
{
	static const char *const bad[] = { "-1\n", "0\n", "-0\n", "01\n",
	    "1 2\n", "$(id)\n", "99999999999\n", "" };
	char *dir = make_dir();
	pid_t node = spawn_node(dir, 0);
	size_t i;

	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		write_file(dir, "pid", bad[i]);
		/* "-1" would be kill -TERM -1: every process of the user */
		assert_int_equal(run_teardown(dir, 0), 1);
		assert_true(exists(dir));
		assert_false(reaped(node));
	}
	kill(node, SIGKILL);
	waitpid(node, NULL, 0);
	rmdir_all(dir);
	free(dir);
}

static void
test_substring_of_dir_left_alone(void **state)
{
	char *dir = make_dir(), longer[256];
	pid_t stranger;

	/* another run's node: its dir has ours as a prefix (-h1, -h10) */
	snprintf(longer, sizeof longer, "%s0", dir);
	stranger = spawn_node(longer, 0);
	assert_int_equal(run_teardown(dir, stranger), 0);
	assert_false(reaped(stranger));
	assert_int_equal(kill(stranger, 0), 0);
	assert_false(exists(dir));
	kill(stranger, SIGKILL);
	waitpid(stranger, NULL, 0);
	free(dir);
}

static void
test_other_start_time_left_alone(void **state)
{
	char *dir = make_dir();
	pid_t node = spawn_node(dir, 0);
	long long t = start_time(node);

	/* same PID and argv, another start: a PID recycled into a rerun */
	assert_int_equal(run_teardown_at(dir, node, t + 1), 0);
	assert_false(reaped(node));
	assert_int_equal(kill(node, 0), 0);
	assert_true(mkdir(dir, 0700) == 0);
	assert_int_equal(run_teardown_at(dir, node, t), 0);
	assert_true(reaped(node));
	free(dir);
}

static void
test_started_without_pid_keeps_dir(void **state)
{
	char *dir = make_dir();

	write_file(dir, "log", "");
	assert_int_equal(run_teardown(dir, 0), 1);
	assert_true(exists(dir));
	rmdir_all(dir);
	free(dir);
}

static void
test_link_left_alone(void **state)
{
	char *target = make_dir(), link[256];

	snprintf(link, sizeof link, "%s-link", target);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(run_teardown(link, 0), 1);
	assert_true(exists(link));
	assert_true(exists(target));
	unlink(link);
	rmdir_all(target);
	free(target);
}

/*
 * After KILL the node is mostly gone within milliseconds: the wait checks
 * every 0.02 s (the grace's 0.1 s steps cost every run with a node that
 * outlives the grace most of a step), for up to 5 s.
 */
static void
test_kill_wait_fine_steps(void **state)
{
	char *cmd = bench_teardown_command("/tmp/otela-bench-r-h1", 42, 7, 0.5);

	assert_non_null(cmd);
	assert_non_null(strstr(cmd, "wait_gone 5 0.1;"));
	assert_non_null(strstr(cmd, "kill -KILL \"$P\" 2>/dev/null; "
	    "wait_gone 250 0.02;"));
	free(cmd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_stops_node_and_removes_dir),
		cmocka_unit_test(test_kill_after_grace_when_term_ignored),
		cmocka_unit_test(test_pid_read_from_dir),
		cmocka_unit_test(test_recycled_pid_left_alone),
		cmocka_unit_test(test_grace_covers_cleanup),
		cmocka_unit_test(test_bad_pid_file_signals_nothing),
		cmocka_unit_test(test_substring_of_dir_left_alone),
		cmocka_unit_test(test_other_start_time_left_alone),
		cmocka_unit_test(test_started_without_pid_keeps_dir),
		cmocka_unit_test(test_link_left_alone),
		cmocka_unit_test(test_waits_fork_no_tool),
		cmocka_unit_test(test_kill_wait_fine_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
