/*
 * template_expand(): the remote_command argv template filled in for one
 * machine and one command, including placeholders inside longer elements
 * as in the upstream PATH-injecting example.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "inventory.h"
#include "template.h"

static struct machine clariden = {
	.name = "clariden",
	.address = "clariden.cscs.ch",
	.rcc_host = "clariden-profile",
	.ssh_host = "clariden-ssh",
};

static struct machine lab = {
	.name = "h1",
	.address = "198.18.0.1",
	.ssh_host = "lab-h1",
};

static void
check_argv(char **got, const char *const *want)
{
	size_t i;

	assert_non_null(got);
	for (i = 0; want[i] != NULL; i++) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want[i]);
	}
	assert_null(got[i]);
}

static void
test_upstream_example(void **state)
{
	char *tmpl[] = { "rcc", "run", "--profile", "{host}", "--", "bash",
	    "-lc", ("export PATH=$HOME/otela-bench-bin/$(uname -m):$PATH; "
	    "{command}") };
	const char *want[] = { "rcc", "run", "--profile", "clariden-profile",
	    "--", "bash", "-lc", ("export PATH=$HOME/otela-bench-bin/"
	    "$(uname -m):$PATH; otela peer-id --config-dir '/tmp/x y'"), NULL };
	char **argv = NULL;

	assert_int_equal(template_expand(tmpl, 8, &clariden,
	    "otela peer-id --config-dir '/tmp/x y'", &argv), 0);
	check_argv(argv, want);
	template_argv_free(argv);
}

static void
test_host_falls_back_to_ssh_host(void **state)
{
	char *tmpl[] = { "ssh", "{host}", "{command}" };
	const char *want[] = { "ssh", "lab-h1", "uname -m", NULL };
	char **argv = NULL;

	assert_int_equal(template_expand(tmpl, 3, &lab, "uname -m", &argv), 0);
	check_argv(argv, want);
	template_argv_free(argv);
}

static void
test_every_placeholder_embedded_and_repeated(void **state)
{
	char *tmpl[] = { "{name}@{address}:{host}", "{command}&&{command}",
	    "{name}{name}" };
	const char *want[] = { "clariden@clariden.cscs.ch:clariden-profile",
	    "true&&true", "claridenclariden", NULL };
	char **argv = NULL;

	assert_int_equal(template_expand(tmpl, 3, &clariden, "true", &argv),
	    0);
	check_argv(argv, want);
	template_argv_free(argv);
}

static void
test_unknown_braces_left_alone(void **state)
{
	char *tmpl[] = { "{user}", "{", "}{", "{host", "{{command}}", "" };
	const char *want[] = { "{user}", "{", "}{", "{host", "{id}", "",
	    NULL };
	char **argv = NULL;

	assert_int_equal(template_expand(tmpl, 6, &lab, "id", &argv), 0);
	check_argv(argv, want);
	template_argv_free(argv);
}

static void
test_values_are_not_expanded_again(void **state)
{
	char *tmpl[] = { "sh", "-c", "{command}" };
	const char *want[] = { "sh", "-c", "echo {host} {name}", NULL };
	char **argv = NULL;

	assert_int_equal(template_expand(tmpl, 3, &lab, "echo {host} {name}",
	    &argv), 0);
	check_argv(argv, want);
	template_argv_free(argv);
}

static void
test_empty_template_and_free_null(void **state)
{
	char **argv = NULL;

	assert_int_equal(template_expand(NULL, 0, &lab, "x", &argv), 0);
	assert_non_null(argv);
	assert_null(argv[0]);
	template_argv_free(argv);
	template_argv_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upstream_example),
		cmocka_unit_test(test_host_falls_back_to_ssh_host),
		cmocka_unit_test(test_every_placeholder_embedded_and_repeated),
		cmocka_unit_test(test_unknown_braces_left_alone),
		cmocka_unit_test(test_values_are_not_expanded_again),
		cmocka_unit_test(test_empty_template_and_free_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
