/*
 * command_line_reproduce(): the line a user pastes to re-run a probe, per
 * transport (ssh options only where the inventory sets them, the expanded
 * remote_command template, sh -c), with remote_setup, and quoting that a
 * real shell undoes exactly (the local line is run and its output
 * compared).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "command_line.h"
#include "error.h"
#include "inventory.h"

static struct inventory *
parse(const char *json)
{
	struct inventory *inv = NULL;
	char *cause = NULL;

	if (inventory_parse(json, "machines.json", &inv, &cause) != 0)
		fail_msg("inventory: %s", cause);
	return inv;
}

static char *
line_for(const struct inventory *inv, size_t i, const char *command)
{
	char *line = NULL;

	assert_int_equal(command_line_reproduce(inv, &inv->machines[i],
	    command, &line), 0);
	assert_non_null(line);
	return line;
}

static void
ssh_line_names_port_user_and_key_only_when_set(void **state)
{
	struct inventory *inv;
	char *line;

	setenv("HOME", "/home/u", 1);
	inv = parse("{\"machines\": ["
	    "{\"name\": \"a\", \"address\": \"198.18.0.1\"},"
	    "{\"name\": \"b\", \"address\": \"198.18.0.2\", \"ssh_host\": "
	    "\"lab-b\", \"port\": 2222, \"user\": \"bench\", "
	    "\"identity_file\": \"/keys/id\"}]}");
	line = line_for(inv, 0, "LC_ALL=C ping -c 5 198.18.0.2");
	assert_string_equal(line, "ssh a 'LC_ALL=C ping -c 5 198.18.0.2'");
	free(line);
	line = line_for(inv, 1, "LC_ALL=C ping -c 5 198.18.0.1");
	assert_string_equal(line, "ssh -p 2222 -l bench -i /keys/id lab-b "
	    "'LC_ALL=C ping -c 5 198.18.0.1'");
	free(line);
	inventory_free(inv);

	inv = parse("{\"known_hosts_file\": \"/lab/known_hosts\", "
	    "\"ssh_config_file\": \"/lab/ssh config\", \"machines\": ["
	    "{\"name\": \"a\", \"address\": \"198.18.0.1\"},"
	    "{\"name\": \"b\", \"address\": \"198.18.0.2\"}]}");
	line = line_for(inv, 0, "true");
	assert_string_equal(line, "ssh -F '/lab/ssh config' -o "
	    "UserKnownHostsFile=/lab/known_hosts a 'true'");
	free(line);
	inventory_free(inv);
}

/* The form upstream records: bash -lc '...' from its template. */
static void
command_line_is_the_expanded_template(void **state)
{
	struct inventory *inv = parse("{\"transport\": \"command\", "
	    "\"remote_command\": [\"rcc-emu\", \"{host}\", \"bash\", \"-lc\", "
	    "\"export PATH=$HOME/bin:$PATH; {command}\"], \"machines\": ["
	    "{\"name\": \"h1\", \"address\": \"198.18.0.1\", "
	    "\"rcc_host\": \"p1\"},"
	    "{\"name\": \"h2\", \"address\": \"198.18.0.2\"}]}");
	char *line = line_for(inv, 0, "LC_ALL=C ping -c 2 198.18.0.2");

	assert_string_equal(line, "rcc-emu p1 bash -lc 'export "
	    "PATH=$HOME/bin:$PATH; LC_ALL=C ping -c 2 198.18.0.2'");
	free(line);
	inventory_free(inv);
}

/* The local line, run by a real shell, does what the command does. */
static void
local_line_runs_the_same_command_with_setup(void **state)
{
	struct inventory *inv = parse("{\"transport\": \"local\", "
	    "\"machines\": ["
	    "{\"name\": \"a\", \"address\": \"127.0.0.1\", "
	    "\"remote_setup\": \"X='it'\\\"'\\\"'s'; export X\"},"
	    "{\"name\": \"b\", \"address\": \"127.0.0.2\"}]}");
	char *line = line_for(inv, 0, "printf '%s|%s\\n' \"$X\" 'a b'");
	char out[128] = "";
	FILE *p;

	assert_int_equal(strncmp(line, "sh -c '", 7), 0);
	assert_non_null(p = popen(line, "r"));
	assert_non_null(fgets(out, sizeof out, p));
	assert_int_equal(pclose(p), 0);
	assert_string_equal(out, "it's|a b\n");
	free(line);
	line = line_for(inv, 1, "echo hi");
	assert_string_equal(line, "sh -c 'echo hi'");
	free(line);
	inventory_free(inv);
}

static void
on_host_puts_the_setup_first(void **state)
{
	struct machine m = { .name = "a", .remote_setup = "cd /tmp" };
	char *s = command_line_on_host(&m, "ls");

	assert_string_equal(s, "{\ncd /tmp\n} || exit\nls");
	free(s);
	m.remote_setup = NULL;
	s = command_line_on_host(&m, "ls");
	assert_string_equal(s, "ls");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ssh_line_names_port_user_and_key_only_when_set),
		cmocka_unit_test(command_line_is_the_expanded_template),
		cmocka_unit_test(local_line_runs_the_same_command_with_setup),
		cmocka_unit_test(on_host_puts_the_setup_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
