/*
 * bench_otela_env(), run by /bin/sh: the command after it sees HOME as the
 * run's directory, none of the host's OF_* and AXIOM_* variables, OF_X
 * from NETPROF_OF_X, and everything else as it was; the command's own
 * words still expand $HOME to the user's (a deployed binary's path).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench.h"
#include "util.h"

/* Run "ENV sh -c 'echo \"$1\"; env'" with env set; its output in buf. */
static void
run_env(const char *dir, char *buf, size_t size)
{
	char *env = bench_otela_env(dir), *cmd;
	FILE *p;
	size_t n;

	assert_non_null(env);
	cmd = str_printf("%s sh -c 'echo \"words: $1\"; env | sort' sh "
	    "\"$HOME\"", env);
	assert_non_null(cmd);
	assert_non_null(p = popen(cmd, "r"));
	n = fread(buf, 1, size - 1, p);
	buf[n] = '\0';
	assert_int_equal(pclose(p), 0);
	free(cmd);
	free(env);
}

static void
test_home_and_of_variables(void **state)
{
	static char out[65536];

	setenv("HOME", "/home/user", 1);
	setenv("OF_PORT", "19999", 1);
	setenv("OF_SECURITY_REQUIRE_SIGNED_BINARY", "true", 1);
	setenv("AXIOM_DATASET", "traces", 1);
	setenv("NETPROF_OF_LOG_LEVEL", "debug level", 1);
	setenv("OFTEN", "kept", 1);
	run_env("/tmp/otela-bench-r-h1", out, sizeof out);
	assert_non_null(strstr(out, "words: /home/user\n"));
	assert_non_null(strstr(out, "\nHOME=/tmp/otela-bench-r-h1\n"));
	assert_null(strstr(out, "OF_PORT="));
	assert_null(strstr(out, "OF_SECURITY_REQUIRE_SIGNED_BINARY="));
	assert_null(strstr(out, "AXIOM_DATASET="));
	assert_non_null(strstr(out, "\nOF_LOG_LEVEL=debug level\n"));
	assert_non_null(strstr(out, "\nOFTEN=kept\n"));
	/* a directory that needs quoting */
	run_env("/tmp/a dir's", out, sizeof out);
	assert_non_null(strstr(out, "\nHOME=/tmp/a dir's\n"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_home_and_of_variables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
