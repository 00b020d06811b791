/*
 * The inventory: defaults, inheritance of the top-level SSH fields,
 * transport resolution (including NETWORK_PROFILER_REMOTE_CMD), ~ expansion,
 * --hosts selection, multiaddrs, and the exact text of every error a user
 * can get from a bad machines.json, injection attempts included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "inventory.h"

#define ENV_TEMPLATE "NETWORK_PROFILER_REMOTE_CMD"

struct error_case {
	const char *name;
	const char *json;
	const char *env;	/* NETWORK_PROFILER_REMOTE_CMD, or NULL */
	const char *want;
};

#define PEER "12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz13"

static const struct error_case error_cases[] = {
	{ "syntax_missing_comma",
	  "{\n  \"machines\": [\n    {\"name\": \"a\" \"address\": \"x\"}\n"
	  "  ]\n}\n", NULL,
	  "machines.json:3:18: syntax error: expected ',' or '}'" },
	{ "syntax_trailing_comma", "{\"machines\": [],}", NULL,
	  "machines.json:1:17: syntax error: expected a member name "
	  "(JSON allows no ',' before '}')" },
	{ "syntax_empty_file", "  \n", NULL,
	  "machines.json:2:1: syntax error: empty file; expected a JSON "
	  "object" },
	{ "syntax_unterminated_string", "{\"machines\": [{\"name\": \"a",
	  NULL, "machines.json:1:26: syntax error: unterminated string" },
	{ "syntax_bad_escape", "{\n\"machines\": \"a\\qb\"}", NULL,
	  "machines.json:2:16: syntax error: invalid escape in a string" },
	{ "syntax_truncated", "{\"machines\": [", NULL,
	  "machines.json:1:15: syntax error: unexpected end of file" },
	{ "syntax_unquoted_key", "{machines: []}", NULL,
	  "machines.json:1:2: syntax error: expected a member name in double "
	  "quotes" },
	{ "syntax_trailing_text", "{\"machines\": []} x", NULL,
	  "machines.json:1:18: syntax error: unexpected text after the end of "
	  "the JSON value" },
	{ "top_level_array", "[]", NULL,
	  "machines.json: expected a JSON object with \"machines\" at the top "
	  "level, found an array" },
	{ "machines_missing", "{\"ping_count\": 3}", NULL,
	  "machines.json: machines: missing; add \"machines\": [{\"name\": "
	  "..., \"address\": ...}]" },
	{ "machines_not_array", "{\"machines\": {\"name\": \"a\"}}", NULL,
	  "machines.json: machines: expected an array of machines, found an "
	  "object" },
	{ "machines_empty", "{\"machines\": []}", NULL,
	  "machines.json: machines: empty; add at least one machine "
	  "{\"name\": ..., \"address\": ...}" },
	{ "machine_not_object", "{\"machines\": [\"h1\"]}", NULL,
	  "machines.json: machines[0]: expected an object like {\"name\": "
	  "..., \"address\": ...}, found a string" },
	{ "name_missing", "{\"machines\": [{\"address\": \"198.18.0.1\"}]}",
	  NULL, "machines.json: machines[0].name: missing; every machine "
	  "needs a unique \"name\" (the label used in records)" },
	{ "name_not_string", "{\"machines\": [{\"name\": 7, \"address\": "
	  "\"h\"}]}", NULL,
	  "machines.json: machines[0].name: expected a string, found a "
	  "number" },
	{ "name_injection", "{\"machines\": [{\"name\": \"a;rm -rf /\", "
	  "\"address\": \"h\"}]}", NULL,
	  "machines.json: machines[0].name: \"a;rm -rf /\" is not a valid "
	  "name; use letters, digits, '.', '_' and '-', starting with a "
	  "letter or digit (at most 64)" },
	{ "name_leading_dash", "{\"machines\": [{\"name\": \"-h\", "
	  "\"address\": \"h\"}]}", NULL,
	  "machines.json: machines[0].name: \"-h\" is not a valid name; use "
	  "letters, digits, '.', '_' and '-', starting with a letter or "
	  "digit (at most 64)" },
	{ "name_too_long", "{\"machines\": [{\"name\": \"aaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", \"address\": "
	  "\"h\"}]}", NULL,
	  "machines.json: machines[0].name: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaa...\" is not a valid name; use letters, digits, "
	  "'.', '_' and '-', starting with a letter or digit (at most 64)" },
	{ "name_newline_shown_escaped", "{\"machines\": [{\"name\": "
	  "\"a\\nb\\\"\", \"address\": \"h\"}]}", NULL,
	  "machines.json: machines[0].name: \"a\\nb\\\"\" is not a valid "
	  "name; use letters, digits, '.', '_' and '-', starting with a "
	  "letter or digit (at most 64)" },
	{ "name_twice", "{\"machines\": [{\"name\": \"h1\", \"address\": "
	  "\"198.18.0.1\"}, {\"name\": \"h1\", \"address\": \"198.18.0.2\"}]}",
	  NULL, "machines.json: machines[1].name: \"h1\" is used twice "
	  "(machines[0] and machines[1]); names must be unique" },
	{ "address_missing", "{\"machines\": [{\"name\": \"h1\"}]}", NULL,
	  "machines.json: machines[0].address: missing; add the address "
	  "other machines dial, e.g. \"address\": \"198.18.0.2\"" },
	{ "address_octet_too_big", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"10.0.0.300\"}]}", NULL,
	  "machines.json: machines[0].address: \"10.0.0.300\" is not an IP "
	  "address or host name" },
	{ "address_three_octets", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"10.0.1\"}]}", NULL,
	  "machines.json: machines[0].address: \"10.0.1\" is not an IP "
	  "address or host name" },
	{ "address_command_substitution", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"$(reboot)\"}]}", NULL,
	  "machines.json: machines[0].address: \"$(reboot)\" is not an IP "
	  "address or host name" },
	{ "address_option", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"-oProxyCommand=x\"}]}", NULL,
	  "machines.json: machines[0].address: \"-oProxyCommand=x\" is not an "
	  "IP address or host name" },
	{ "address_underscore", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"my_host.example\"}]}", NULL,
	  "machines.json: machines[0].address: \"my_host.example\" is not an "
	  "IP address or host name" },
	{ "address_bad_ipv6", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"fd00:::1\"}]}", NULL,
	  "machines.json: machines[0].address: \"fd00:::1\" is not an IP "
	  "address or host name" },
	{ "rcc_host_option", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"rcc_host\": \"-x\"}]}", NULL,
	  "machines.json: machines[0].rcc_host: \"-x\" is not a valid profile "
	  "name; use letters, digits, '.', '_' and '-', not starting with "
	  "'-'" },
	{ "site_not_a_word", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"site\": \"z\u00fcrich west\"}]}", NULL,
	  "machines.json: machines[0].site: \"z\u00fcrich west\" is not a "
	  "valid site; use letters, digits, '.', '_' and '-', starting with a "
	  "letter or digit (at most 64), e.g. \"site\": \"zurich\"" },
	{ "site_not_a_string", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"site\": 3}]}", NULL,
	  "machines.json: machines[0].site: expected a string, found a number" },
	{ "http_port_too_big", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"http_port\": 70000}]}", NULL,
	  "machines.json: machines[0].http_port: 70000 is not a port "
	  "(1-65535)" },
	{ "libp2p_port_zero", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"libp2p_port\": 0}]}", NULL,
	  "machines.json: machines[0].libp2p_port: 0 is not a port "
	  "(1-65534)" },
	/* its UDP port (QUIC) is libp2p_port + 1: 65535 would make 65536 */
	{ "libp2p_port_65535", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"libp2p_port\": 65535}]}", NULL,
	  "machines.json: machines[0].libp2p_port: 65535 is not a port "
	  "(1-65534)" },
	{ "port_fraction", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"port\": 22.5}]}", NULL,
	  "machines.json: machines[0].port: 22.5 is not a port (1-65535)" },
	{ "port_string", "{\"port\": \"22\", \"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\"}]}", NULL,
	  "machines.json: port: expected a number, found a string" },
	{ "ping_count_string", "{\"ping_count\": \"5\", \"machines\": []}",
	  NULL, "machines.json: ping_count: expected a number, found a "
	  "string" },
	{ "ping_count_zero", "{\"ping_count\": 0, \"machines\": []}", NULL,
	  "machines.json: ping_count: 0 is out of range; use 1 to 100000" },
	{ "iperf_seconds_fraction", "{\"iperf_seconds\": 2.5, "
	  "\"machines\": []}", NULL,
	  "machines.json: iperf_seconds: 2.5 is not a whole number; use one "
	  "from 1 to 86400" },
	{ "iperf_port_negative", "{\"iperf_port\": -1, \"machines\": []}",
	  NULL, "machines.json: iperf_port: -1 is not a port (1-65535)" },
	{ "connect_timeout_bool", "{\"connect_timeout_seconds\": true, "
	  "\"machines\": []}", NULL,
	  "machines.json: connect_timeout_seconds: expected a number, found "
	  "a boolean" },
	{ "ping_interval_zero", "{\"ping_interval\": 0, \"machines\": []}",
	  NULL, "machines.json: ping_interval: 0 is out of range; use a "
	  "number of seconds above 0 and at most 60" },
	{ "remote_command_string", "{\"remote_command\": \"ssh {host} "
	  "{command}\", \"machines\": []}", NULL,
	  "machines.json: remote_command: must be an array of strings "
	  "containing \"{command}\", e.g. [\"ssh\", \"{host}\", "
	  "\"{command}\"]" },
	{ "remote_command_no_placeholder", "{\"remote_command\": [\"ssh\", "
	  "\"{host}\"], \"machines\": []}", NULL,
	  "machines.json: remote_command: must be an array of strings "
	  "containing \"{command}\", e.g. [\"ssh\", \"{host}\", "
	  "\"{command}\"]" },
	{ "remote_command_number", "{\"remote_command\": [\"ssh\", 1, "
	  "\"{command}\"], \"machines\": []}", NULL,
	  "machines.json: remote_command: must be an array of strings "
	  "containing \"{command}\", e.g. [\"ssh\", \"{host}\", "
	  "\"{command}\"]" },
	{ "remote_command_empty", "{\"remote_command\": [], \"machines\": []}",
	  NULL, "machines.json: remote_command: must be an array of strings "
	  "containing \"{command}\", e.g. [\"ssh\", \"{host}\", "
	  "\"{command}\"]" },
	{ "env_template_bad", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\"}]}", "[\"ssh\", \"{host}\"]",
	  ENV_TEMPLATE " (environment): must be a JSON array of strings "
	  "containing \"{command}\", e.g. [\"ssh\", \"{host}\", "
	  "\"{command}\"], or words separated by spaces" },
	{ "env_template_bad_json", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\"}]}", "[\"ssh\", ",
	  ENV_TEMPLATE " (environment): must be a JSON array of strings "
	  "containing \"{command}\", e.g. [\"ssh\", \"{host}\", "
	  "\"{command}\"], or words separated by spaces" },
	{ "transport_unknown", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"transport\": \"scp\"}]}", NULL,
	  "machines.json: machines[0].transport: \"scp\" is not a transport; "
	  "use \"ssh\", \"command\" or \"local\"" },
	{ "transport_command_without_template", "{\"machines\": [{\"name\": "
	  "\"h1\", \"address\": \"h\"}, {\"name\": \"h2\", \"address\": "
	  "\"h\", \"transport\": \"command\"}]}", NULL,
	  "machines.json: machines[1].transport: \"command\" needs a "
	  "remote_command template; add \"remote_command\": [\"ssh\", "
	  "\"{host}\", \"{command}\"] or set " ENV_TEMPLATE },
	{ "top_transport_command_without_template", "{\"transport\": "
	  "\"command\", \"machines\": [{\"name\": \"h1\", \"address\": "
	  "\"h\"}]}", NULL,
	  "machines.json: transport: \"command\" needs a remote_command "
	  "template; add \"remote_command\": [\"ssh\", \"{host}\", "
	  "\"{command}\"] or set " ENV_TEMPLATE },
	{ "user_option", "{\"machines\": [{\"name\": \"h1\", \"address\": "
	  "\"h\", \"user\": \"-oProxyCommand=x\"}]}", NULL,
	  "machines.json: machines[0].user: \"-oProxyCommand=x\" is not a "
	  "valid user name; use letters, digits, '.', '_' and '-', not "
	  "starting with '-'" },
	{ "top_user_space", "{\"user\": \"a b\", \"machines\": [{\"name\": "
	  "\"h1\", \"address\": \"h\"}]}", NULL,
	  "machines.json: user: \"a b\" is not a valid user name; use "
	  "letters, digits, '.', '_' and '-', not starting with '-'" },
	{ "ssh_host_substitution", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"ssh_host\": \"$(reboot)\"}]}", NULL,
	  "machines.json: machines[0].ssh_host: \"$(reboot)\" is not a host "
	  "name, IP address or ssh config alias" },
	{ "ssh_host_option", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"ssh_host\": \"-oProxyCommand=x\"}]}", NULL,
	  "machines.json: machines[0].ssh_host: \"-oProxyCommand=x\" is not a "
	  "host name, IP address or ssh config alias" },
	{ "ssh_host_top_level", "{\"ssh_host\": \"x\", \"machines\": "
	  "[{\"name\": \"h1\", \"address\": \"h\"}]}", NULL,
	  "machines.json: ssh_host: is a per-machine field; move it into the "
	  "machine it names" },
	{ "identity_file_empty", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"identity_file\": \"\"}]}", NULL,
	  "machines.json: machines[0].identity_file: is empty; give a path "
	  "or remove \"identity_file\"" },
	{ "remote_setup_not_string", "{\"remote_setup\": [\"x\"], "
	  "\"machines\": [{\"name\": \"h1\", \"address\": \"h\"}]}", NULL,
	  "machines.json: remote_setup: expected a string, found an array" },
	{ "bootstrap_extra_string", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"bootstrap_extra\": \"/ip4/1.2.3.4\"}]}",
	  NULL, "machines.json: machines[0].bootstrap_extra: expected an "
	  "array of multiaddr strings, found a string" },
	{ "bootstrap_extra_number", "{\"machines\": [{\"name\": \"h1\", "
	  "\"address\": \"h\", \"bootstrap_extra\": [\"/ip4/1.2.3.4/tcp/1\", "
	  "4001]}]}", NULL,
	  "machines.json: machines[0].bootstrap_extra[1]: expected a "
	  "multiaddr string, found a number" },
	{ "bootstrap_extra_not_multiaddr", "{\"machines\": [{\"name\": "
	  "\"h1\", \"address\": \"h\", \"bootstrap_extra\": [\"/ip4/1.2.3.4/"
	  "tcp/1; reboot\"]}]}", NULL,
	  "machines.json: machines[0].bootstrap_extra[0]: \"/ip4/1.2.3.4/tcp/"
	  "1; reboot\": 1; reboot (after /tcp) is not a port (0-65535)" },
	{ "bootstrap_extra_no_peer_id", "{\"machines\": [{\"name\": "
	  "\"h1\", \"address\": \"h\", \"bootstrap_extra\": [\"/ip4/1.2.3.4/"
	  "tcp/4001\"]}]}", NULL,
	  "machines.json: machines[0].bootstrap_extra[0]: \"/ip4/1.2.3.4/tcp/"
	  "4001\" does not end with /p2p/PEER_ID; a bootstrap peer is an "
	  "address and its peer id, e.g. \"/ip4/203.0.113.7/tcp/4001/p2p/"
	  "12D3KooW...\"" },
	{ "bootstrap_extra_control", "{\"machines\": [{\"name\": "
	  "\"h1\", \"address\": \"h\", \"bootstrap_extra\": [\"/ip4/1.2.3.4/"
	  "tcp/1\\n2\"]}]}", NULL,
	  "machines.json: machines[0].bootstrap_extra[0]: \"/ip4/1.2.3.4/tcp/"
	  "1\\n2\" is not a multiaddr; expected e.g. \"/ip4/203.0.113.7/tcp/"
	  "4001/p2p/12D3KooW...\"" },
	{ "nul_escape_in_name", "{\"machines\": [\n  {\"name\": \"a\\u0000x\", "
	  "\"address\": \"h\"}]}", NULL,
	  "machines.json:2:14: a \\u0000 (NUL) in a string is not supported; "
	  "remove it" },
};

static const char *
fixture(const char *name, char *buf, size_t size)
{
	const char *dir = getenv("NETPROF_FIXTURES");

	if (dir == NULL)
		return NULL;
	snprintf(buf, size, "%s/inventory/%s", dir, name);
	return buf;
}

static int
clean_env(void **state)
{
	unsetenv(ENV_TEMPLATE);
	setenv("HOME", "/home/tester", 1);
	return 0;
}

static struct inventory *
parse_ok(const char *json)
{
	struct inventory *inv = NULL;
	char *cause = NULL;
	int r;

	r = inventory_parse(json, "machines.json", &inv, &cause);
	if (r != 0)
		fail_msg("unexpected error %d: %s", r, cause);
	assert_non_null(inv);
	return inv;
}

static void
test_error_case(void **state)
{
	const struct error_case *c = *state;
	struct inventory *inv = (struct inventory *)0x1;
	char *cause = NULL;

	if (c->env != NULL)
		setenv(ENV_TEMPLATE, c->env, 1);
	assert_int_equal(inventory_parse(c->json, "machines.json", &inv,
	    &cause), NP_ERR_INVENTORY);
	assert_null(inv);
	assert_non_null(cause);
	assert_string_equal(cause, c->want);
	free(cause);
	unsetenv(ENV_TEMPLATE);
}

static void
test_defaults(void **state)
{
	struct inventory *inv = parse_ok("{\"machines\": [{\"name\": \"h1\", "
	    "\"address\": \"198.18.0.1\"}]}");
	struct machine *m = &inv->machines[0];

	assert_int_equal(inv->n_machines, 1);
	assert_int_equal(inv->ping_count, 5);
	assert_true(inv->ping_interval == 1.0);
	assert_int_equal(inv->iperf_seconds, 5);
	assert_int_equal(inv->iperf_port, 5201);
	assert_int_equal(inv->connect_timeout_seconds, 10);
	assert_null(inv->remote_command);
	assert_string_equal(inv->known_hosts_file,
	    "/home/tester/.ssh/known_hosts");
	assert_string_equal(inv->ssh_config_file, "/home/tester/.ssh/config");
	assert_string_equal(inv->path, "machines.json");
	assert_string_equal(m->name, "h1");
	assert_string_equal(m->address, "198.18.0.1");
	assert_null(m->rcc_host);
	assert_null(m->site);
	assert_string_equal(m->ssh_host, "h1");
	assert_null(m->user);
	assert_int_equal(m->port, 0);
	assert_null(m->identity_file);
	assert_null(m->remote_setup);
	assert_int_equal(m->transport, TRANSPORT_SSH);
	assert_int_equal(m->http_port, 19090);
	assert_int_equal(m->libp2p_port, 19091);
	assert_int_equal(m->n_bootstrap_extra, 0);
	assert_int_equal(m->index, 0);
	inventory_free(inv);
}

static void
test_ssh_host_falls_back_to_rcc_host_then_name(void **state)
{
	struct inventory *inv = parse_ok("{\"machines\": ["
	    "{\"name\": \"a\", \"address\": \"h\", \"rcc_host\": \"rcc-a\"},"
	    "{\"name\": \"b\", \"address\": \"h\", \"rcc_host\": \"rcc-b\", "
	    "\"ssh_host\": \"ssh-b\"},"
	    "{\"name\": \"c\", \"address\": \"h\"}]}");

	assert_string_equal(inv->machines[0].ssh_host, "rcc-a");
	assert_string_equal(inv->machines[1].ssh_host, "ssh-b");
	assert_string_equal(inv->machines[2].ssh_host, "c");
	assert_int_equal(inv->machines[2].index, 2);
	inventory_free(inv);
}

static void
test_top_level_defaults_inherited_and_overridden(void **state)
{
	struct inventory *inv = parse_ok("{\"user\": \"bench\", \"port\": "
	    "2222, \"identity_file\": \"/k/top\", \"remote_setup\": \"cd /\", "
	    "\"transport\": \"local\", \"machines\": ["
	    "{\"name\": \"a\", \"address\": \"h\"},"
	    "{\"name\": \"b\", \"address\": \"h\", \"user\": \"root\", "
	    "\"port\": 22, \"identity_file\": \"/k/b\", \"remote_setup\": "
	    "\"true\", \"transport\": \"ssh\"}]}");
	struct machine *a = &inv->machines[0], *b = &inv->machines[1];

	assert_string_equal(a->user, "bench");
	assert_int_equal(a->port, 2222);
	assert_string_equal(a->identity_file, "/k/top");
	assert_string_equal(a->remote_setup, "cd /");
	assert_int_equal(a->transport, TRANSPORT_LOCAL);
	assert_string_equal(b->user, "root");
	assert_int_equal(b->port, 22);
	assert_string_equal(b->identity_file, "/k/b");
	assert_string_equal(b->remote_setup, "true");
	assert_int_equal(b->transport, TRANSPORT_SSH);
	inventory_free(inv);
}

static void
test_template_in_file_means_command_transport(void **state)
{
	struct inventory *inv = parse_ok("{\"remote_command\": [\"ssh\", "
	    "\"{host}\", \"{command}\"], \"machines\": ["
	    "{\"name\": \"a\", \"address\": \"h\"},"
	    "{\"name\": \"b\", \"address\": \"h\", \"transport\": \"ssh\"}]}");

	assert_int_equal(inv->n_remote_command, 3);
	assert_string_equal(inv->remote_command[1], "{host}");
	assert_int_equal(inv->machines[0].transport, TRANSPORT_COMMAND);
	assert_int_equal(inv->machines[1].transport, TRANSPORT_SSH);
	inventory_free(inv);
}

static void
test_env_template_json_and_words(void **state)
{
	struct inventory *inv;

	setenv(ENV_TEMPLATE, " [\"rcc\", \"run\", \"{host}\", \"bash -lc "
	    "'{command}'\"]", 1);
	inv = parse_ok("{\"machines\": [{\"name\": \"a\", \"address\": "
	    "\"h\"}]}");
	assert_int_equal(inv->n_remote_command, 4);
	assert_string_equal(inv->remote_command[3], "bash -lc '{command}'");
	assert_int_equal(inv->machines[0].transport, TRANSPORT_COMMAND);
	inventory_free(inv);

	setenv(ENV_TEMPLATE, "ssh  -T\t{host} {command}", 1);
	inv = parse_ok("{\"machines\": [{\"name\": \"a\", \"address\": "
	    "\"h\"}]}");
	assert_int_equal(inv->n_remote_command, 4);
	assert_string_equal(inv->remote_command[0], "ssh");
	assert_string_equal(inv->remote_command[1], "-T");
	assert_string_equal(inv->remote_command[3], "{command}");
	assert_int_equal(inv->machines[0].transport, TRANSPORT_COMMAND);
	inventory_free(inv);
	unsetenv(ENV_TEMPLATE);
}

static void
test_env_template_overrides_file(void **state)
{
	struct inventory *inv;

	setenv(ENV_TEMPLATE, "[\"env\", \"{command}\"]", 1);
	inv = parse_ok("{\"remote_command\": [\"file\", \"{command}\"], "
	    "\"machines\": [{\"name\": \"a\", \"address\": \"h\"}]}");
	assert_int_equal(inv->n_remote_command, 2);
	assert_string_equal(inv->remote_command[0], "env");
	inventory_free(inv);

	setenv(ENV_TEMPLATE, "  ", 1);	/* blank counts as unset */
	inv = parse_ok("{\"machines\": [{\"name\": \"a\", \"address\": "
	    "\"h\"}]}");
	assert_null(inv->remote_command);
	assert_int_equal(inv->machines[0].transport, TRANSPORT_SSH);
	inventory_free(inv);
	unsetenv(ENV_TEMPLATE);
}

static void
test_tilde_expansion(void **state)
{
	struct inventory *inv = parse_ok("{\"identity_file\": \"~/.ssh/id\", "
	    "\"known_hosts_file\": \"~\", \"ssh_config_file\": "
	    "\"~other/cfg\", \"machines\": ["
	    "{\"name\": \"a\", \"address\": \"h\"},"
	    "{\"name\": \"b\", \"address\": \"h\", \"identity_file\": "
	    "\"keys/~/b\"}]}");

	assert_string_equal(inv->machines[0].identity_file,
	    "/home/tester/.ssh/id");
	assert_string_equal(inv->machines[1].identity_file, "keys/~/b");
	assert_string_equal(inv->known_hosts_file, "/home/tester");
	assert_string_equal(inv->ssh_config_file, "~other/cfg");
	inventory_free(inv);
}

static void
test_addresses_accepted(void **state)
{
	struct inventory *inv = parse_ok("{\"machines\": ["
	    "{\"name\": \"a\", \"address\": \"255.255.255.255\"},"
	    "{\"name\": \"b\", \"address\": \"fd00::1\"},"
	    "{\"name\": \"c\", \"address\": \"clariden.cscs.ch\"},"
	    "{\"name\": \"d\", \"address\": \"x-1.example\"},"
	    "{\"name\": \"E.9_z-\", \"address\": \"localhost\", "
	    "\"ssh_host\": \"198.18.0.5\"},"
	    "{\"name\": \"f\", \"address\": \"h\", \"ssh_host\": \"::1\"},"
	    "{\"name\": \"g\", \"address\": \"h\", \"ssh_host\": "
	    "\"lab_alias.1\", \"user\": \"a.b_c-d\"}]}");

	assert_int_equal(inv->n_machines, 7);
	assert_string_equal(inv->machines[4].ssh_host, "198.18.0.5");
	assert_string_equal(inv->machines[6].user, "a.b_c-d");
	inventory_free(inv);
}

static void
test_unknown_keys_and_nulls_ignored(void **state)
{
	struct inventory *inv = parse_ok("{\"comment\": \"x\", \"ping_count\": "
	    "null, \"machines\": [{\"name\": \"a\", \"address\": \"h\", "
	    "\"future\": {\"x\": 1}, \"user\": null}]}");

	assert_int_equal(inv->ping_count, 5);
	assert_null(inv->machines[0].user);
	/* ignored, but named */
	assert_int_equal(inv->n_warnings, 2);
	assert_string_equal(inv->warnings[0].text, "machines.json: "
	    "\"comment\": unknown key (netprof(1) and docs/inventory.md list "
	    "the keys)");
	assert_string_equal(inv->warnings[1].text, "machines.json: "
	    "machines[0]: \"future\": unknown key (netprof(1) and "
	    "docs/inventory.md list the keys)");
	inventory_free(inv);
}

/* An upstream file migrated by hand: each misspelt key named, with the
   one meant, and keys of the other level; none for a good file. */
static void
test_misspelt_keys_warn(void **state)
{
	struct inventory *inv = parse_ok("{\"ping-count\": 3, \"http_port\": "
	    "1, \"machines\": [{\"name\": \"a\", \"adress\": \"x\", "
	    "\"address\": \"h\", \"rcc-host\": \"a\", \"iperf_port\": 1}]}");
	size_t i;

	assert_int_equal(inv->ping_count, 5);	/* not taken */
	assert_int_equal(inv->n_warnings, 5);
	for (i = 0; i < inv->n_warnings; i++)
		assert_true(inv->warnings[i].unknown_key);
	assert_string_equal(inv->warnings[0].text, "machines.json: "
	    "\"ping-count\": unknown key; did you mean \"ping_count\"?");
	assert_string_equal(inv->warnings[1].text, "machines.json: "
	    "\"http_port\": a machine's field, not a top-level setting; give "
	    "it in each machine");
	assert_string_equal(inv->warnings[2].text, "machines.json: "
	    "machines[0]: \"adress\": unknown key; did you mean \"address\"?");
	assert_string_equal(inv->warnings[3].text, "machines.json: "
	    "machines[0]: \"rcc-host\": unknown key; did you mean "
	    "\"rcc_host\"?");
	assert_string_equal(inv->warnings[4].text, "machines.json: "
	    "machines[0]: \"iperf_port\": a top-level setting, not a "
	    "machine's; move it to the top level");
	inventory_free(inv);
	inv = parse_ok("{\"ping_count\": 3, \"machines\": [{\"name\": \"a\", "
	    "\"address\": \"h\", \"rcc_host\": \"a\"}]}");
	assert_int_equal(inv->n_warnings, 0);
	inventory_free(inv);
}

/* NETWORK_PROFILER_REMOTE_CMD, set, says what of the file it replaces. */
static void
test_env_template_says_what_it_replaces(void **state)
{
	struct inventory *inv;

	setenv("NETWORK_PROFILER_REMOTE_CMD", "rcc run --profile {host} -- "
	    "{command}", 1);
	inv = parse_ok("{\"user\": \"bench\", \"machines\": [{\"name\": "
	    "\"a\", \"address\": \"h\", \"port\": 2222}, {\"name\": \"b\", "
	    "\"address\": \"h\", \"transport\": \"ssh\"}]}");
	assert_int_equal(inv->machines[0].transport, TRANSPORT_COMMAND);
	assert_int_equal(inv->machines[1].transport, TRANSPORT_SSH);
	assert_int_equal(inv->n_warnings, 1);
	assert_false(inv->warnings[0].unknown_key);
	assert_string_equal(inv->warnings[0].text, "machines.json: "
	    "NETWORK_PROFILER_REMOTE_CMD is set (rcc run --profile {host} -- "
	    "{command}): it replaces SSH for every machine without a "
	    "\"transport\" (the file's user, port are not used); unset it "
	    "(env -u NETWORK_PROFILER_REMOTE_CMD netprof ...) to use the "
	    "file's");
	inventory_free(inv);
	inv = parse_ok("{\"remote_command\": [\"ssh\", \"{host}\", "
	    "\"{command}\"], \"machines\": [{\"name\": \"a\", \"address\": "
	    "\"h\"}]}");
	assert_int_equal(inv->n_warnings, 1);
	assert_non_null(strstr(inv->warnings[0].text, "it replaces the "
	    "file's remote_command, and SSH for every machine"));
	inventory_free(inv);
	/* what it replaces nothing of says nothing */
	inv = parse_ok("{\"transport\": \"ssh\", \"machines\": [{\"name\": "
	    "\"a\", \"address\": \"h\"}]}");
	assert_int_equal(inv->n_warnings, 0);
	inventory_free(inv);
	unsetenv("NETWORK_PROFILER_REMOTE_CMD");
}

static void
test_settings_and_machine_fields(void **state)
{
	struct inventory *inv = parse_ok("{\"ping_count\": 20, "
	    "\"ping_interval\": 0.2, \"iperf_seconds\": 3, \"iperf_port\": "
	    "5301, \"connect_timeout_seconds\": 4, \"machines\": ["
	    "{\"name\": \"a\", \"address\": \"h\", \"http_port\": 29090, "
	    "\"libp2p_port\": 29091, \"bootstrap_extra\": "
	    "[\"/ip4/198.18.0.9/tcp/43905/p2p/" PEER "\", \"/dns4/r.example/"
	    "tcp/4001/p2p/" PEER "\"]}]}");
	struct machine *m = &inv->machines[0];

	assert_int_equal(inv->ping_count, 20);
	assert_true(inv->ping_interval == 0.2);
	assert_int_equal(inv->iperf_seconds, 3);
	assert_int_equal(inv->iperf_port, 5301);
	assert_int_equal(inv->connect_timeout_seconds, 4);
	assert_int_equal(m->http_port, 29090);
	assert_int_equal(m->libp2p_port, 29091);
	assert_int_equal(m->n_bootstrap_extra, 2);
	assert_string_equal(m->bootstrap_extra[1], "/dns4/r.example/tcp/4001/"
	    "p2p/" PEER);
	inventory_free(inv);
}

static void
test_load_upstream_example(void **state)
{
	struct inventory *inv = NULL;
	char path[4096], *cause = NULL;

	if (fixture("upstream.json", path, sizeof path) == NULL)
		skip();
	assert_int_equal(inventory_load(path, &inv, &cause), 0);
	assert_null(cause);
	assert_int_equal(inv->n_machines, 2);
	assert_int_equal(inv->n_remote_command, 8);
	assert_string_equal(inv->machines[1].name, "euler");
	assert_string_equal(inv->machines[1].ssh_host, "euler");
	assert_int_equal(inv->machines[1].http_port, 29090);
	assert_int_equal(inv->machines[1].transport, TRANSPORT_COMMAND);
	assert_string_equal(inv->path, path);
	inventory_free(inv);
}

static void
test_load_ssh_example(void **state)
{
	struct inventory *inv = NULL;
	char path[4096], *cause = NULL;

	if (fixture("ssh.json", path, sizeof path) == NULL)
		skip();
	assert_int_equal(inventory_load(path, &inv, &cause), 0);
	assert_int_equal(inv->n_machines, 3);
	assert_string_equal(inv->known_hosts_file, "/home/tester/lab/known_hosts");
	assert_string_equal(inv->machines[0].identity_file,
	    "/home/tester/.ssh/id_ed25519_bench");
	assert_string_equal(inv->machines[1].identity_file, "keys/h2");
	assert_string_equal(inv->machines[1].ssh_host, "lab-h2");
	assert_int_equal(inv->machines[2].transport, TRANSPORT_LOCAL);
	assert_string_equal(inv->machines[2].remote_setup, "cd /tmp");
	inventory_free(inv);
}

static void
test_load_errors_name_the_file(void **state)
{
	struct inventory *inv = NULL;
	char path[4096], want[4200], *cause = NULL;

	assert_int_equal(inventory_load("no/such/machines.json", &inv, &cause),
	    NP_ERR_IO);
	assert_string_equal(cause, "no/such/machines.json: cannot read: No "
	    "such file or directory");
	assert_null(inv);
	free(cause);
	if (fixture("syntax-error.json", path, sizeof path) == NULL)
		skip();
	assert_int_equal(inventory_load(path, &inv, &cause), NP_ERR_INVENTORY);
	snprintf(want, sizeof want, "%s:3:18: syntax error: expected ',' or "
	    "'}'", path);
	assert_string_equal(cause, want);
	free(cause);
	fixture("bad-address.json", path, sizeof path);
	assert_int_equal(inventory_load(path, &inv, &cause), NP_ERR_INVENTORY);
	snprintf(want, sizeof want, "%s: machines[2].address: \"10.0.0.300\" "
	    "is not an IP address or host name", path);
	assert_string_equal(cause, want);
	free(cause);
	fixture("", path, sizeof path);
	assert_int_equal(inventory_load(path, &inv, &cause), NP_ERR_IO);
	snprintf(want, sizeof want, "%s: cannot read: Is a directory", path);
	assert_string_equal(cause, want);
	free(cause);
}

/* The files under examples/ are documentation: they must stay valid. */
static void
test_examples_load(void **state)
{
	static const char *const names[] = { "machines.json",
	    "machines-ssh.json" };
	const char *src = getenv("NETPROF_SRC");
	struct inventory *inv = NULL;
	char path[4096], *cause = NULL;
	size_t i;

	if (src == NULL)
		skip();
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/examples/%s", src, names[i]);
		if (inventory_load(path, &inv, &cause) != 0)
			fail_msg("%s", cause);
		assert_true(inv->n_machines >= 2);
		inventory_free(inv);
	}
}

static struct inventory *
three_hosts(void)
{
	return parse_ok("{\"machines\": [{\"name\": \"a\", \"address\": "
	    "\"198.18.0.1\"}, {\"name\": \"b\", \"address\": \"fd00::2\"}, "
	    "{\"name\": \"c\", \"address\": \"c.example\"}]}");
}

static void
test_find(void **state)
{
	struct inventory *inv = three_hosts();

	assert_ptr_equal(inventory_find(inv, "b"), &inv->machines[1]);
	assert_null(inventory_find(inv, "d"));
	assert_null(inventory_find(inv, "B"));
	inventory_free(inv);
}

/* --hosts HOSTS [--exclude EXCLUDE] (NULL: not given) */
static int
select_hosts(struct inventory *inv, const char *hosts, const char *exclude,
    char **cause)
{
	return inventory_select(inv, &hosts, hosts != NULL, &exclude,
	    exclude != NULL, cause);
}

static void
test_select_keeps_inventory_order(void **state)
{
	struct inventory *inv = three_hosts();
	char *cause = NULL;

	assert_int_equal(select_hosts(inv, "c, a,c", NULL, &cause), 0);
	assert_null(cause);
	assert_int_equal(inv->n_machines, 2);
	assert_string_equal(inv->machines[0].name, "a");
	assert_string_equal(inv->machines[1].name, "c");
	assert_string_equal(inv->machines[1].address, "c.example");
	assert_int_equal(inv->machines[1].index, 1);
	inventory_free(inv);
}

static void
test_select_unknown_and_empty(void **state)
{
	struct inventory *inv = three_hosts();
	char *cause = NULL;

	assert_int_equal(select_hosts(inv, "a,zz", NULL, &cause),
	    NP_ERR_NOT_FOUND);
	assert_string_equal(cause, "--hosts: no machine named \"zz\" in "
	    "machines.json (of \"a,zz\"); its machines: a, b, c");
	free(cause);
	assert_int_equal(inv->n_machines, 3);
	assert_int_equal(select_hosts(inv, " , ", NULL, &cause), NP_ERR_USAGE);
	assert_string_equal(cause, "--hosts: no machine names given; use e.g. "
	    "--hosts a");
	free(cause);
	assert_int_equal(inv->n_machines, 3);
	inventory_free(inv);
}

static struct inventory *
cluster(void)
{
	return parse_ok("{\"machines\": ["
	    "{\"name\": \"n01\", \"address\": \"10.0.0.1\", \"site\": \"zurich\"},"
	    "{\"name\": \"n02\", \"address\": \"10.0.0.2\", \"site\": \"zurich\"},"
	    "{\"name\": \"n03\", \"address\": \"10.0.0.3\", \"site\": \"lugano\"},"
	    "{\"name\": \"n10\", \"address\": \"10.0.0.10\", \"site\": \"lugano\"},"
	    "{\"name\": \"login\", \"address\": \"10.0.0.99\"}]}");
}

static char *
names_of(const struct inventory *inv)
{
	static char s[256];
	size_t i;

	s[0] = '\0';
	for (i = 0; i < inv->n_machines; i++)
		snprintf(s + strlen(s), sizeof s - strlen(s), "%s%s",
		    i > 0 ? " " : "", inv->machines[i].name);
	return s;
}

/* pdsh's ranges, @SITE, --exclude, as a user of pdsh would expect */
static void
test_select_ranges_sites_exclude(void **state)
{
	static const struct {
		const char *hosts, *exclude, *want;
	} cases[] = {
		{ "n[01-03]", NULL, "n01 n02 n03" },
		{ "n[01-02,10]", NULL, "n01 n02 n10" },
		{ "@zurich", NULL, "n01 n02" },
		{ "@lugano,login", NULL, "n03 n10 login" },
		{ NULL, "n[02-03]", "n01 n10 login" },
		{ "n[01-03,10]", "@lugano", "n01 n02" },
		{ NULL, "login", "n01 n02 n03 n10" },
	};
	struct inventory *inv;
	char *cause = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		inv = cluster();
		assert_int_equal(select_hosts(inv, cases[i].hosts,
		    cases[i].exclude, &cause), 0);
		assert_string_equal(names_of(inv), cases[i].want);
		inventory_free(inv);
	}
	/* several --hosts lists add up, as pdsh's -w */
	inv = cluster();
	{
		const char *hosts[] = { "n01", "n10" };

		assert_int_equal(inventory_select(inv, hosts, 2, NULL, 0,
		    &cause), 0);
	}
	assert_string_equal(names_of(inv), "n01 n10");
	inventory_free(inv);
}

/* A name that matches nothing is refused, with the one meant. */
static void
test_select_names_what_matches_nothing(void **state)
{
	struct inventory *inv = cluster();
	char *cause = NULL;

	(void)state;
	assert_int_equal(select_hosts(inv, "n[01-04]", NULL, &cause),
	    NP_ERR_NOT_FOUND);
	assert_string_equal(cause, "--hosts: \"n[01-04]\" names 1 machine "
	    "that is not in machines.json: n04; give the ones there (or add "
	    "the rest to machines.json); its machines: n01, n02, n03, n10, "
	    "login");
	free(cause);
	assert_int_equal(select_hosts(inv, "@zurick", NULL, &cause),
	    NP_ERR_NOT_FOUND);
	assert_string_equal(cause, "--hosts: no machine of machines.json is "
	    "in site \"zurick\"; did you mean \"@zurich\"?; its sites: "
	    "@zurich, @lugano");
	free(cause);
	assert_int_equal(select_hosts(inv, NULL, "lgin", &cause),
	    NP_ERR_NOT_FOUND);
	assert_non_null(strstr(cause, "--exclude: no machine named \"lgin\""));
	assert_non_null(strstr(cause, "did you mean \"login\"?"));
	free(cause);
	assert_int_equal(select_hosts(inv, "n[3-1]", NULL, &cause),
	    NP_ERR_USAGE);
	assert_string_equal(cause, "--hosts: \"n[3-1]\": the range 3-1 goes "
	    "backwards; give names like n1,n2, ranges like n[1-8,10] or a "
	    "site like @zurich");
	free(cause);
	assert_int_equal(select_hosts(inv, "@lugano", "n03,n10", &cause),
	    NP_ERR_USAGE);
	assert_string_equal(cause, "--hosts and --exclude leave no machine of "
	    "machines.json to run on");
	free(cause);
	assert_int_equal(inv->n_machines, 5);
	inventory_free(inv);
}

static void
test_multiaddr(void **state)
{
	struct inventory *inv = three_hosts();
	char *s = NULL;

	assert_int_equal(inventory_multiaddr(&inv->machines[0], 19091, "QmA",
	    &s), 0);
	assert_string_equal(s, "/ip4/198.18.0.1/tcp/19091/p2p/QmA");
	free(s);
	assert_int_equal(inventory_multiaddr(&inv->machines[1], 4001, "QmB",
	    &s), 0);
	assert_string_equal(s, "/ip6/fd00::2/tcp/4001/p2p/QmB");
	free(s);
	assert_int_equal(inventory_multiaddr(&inv->machines[2], 19091, NULL,
	    &s), 0);
	assert_string_equal(s, "/dns4/c.example/tcp/19091");
	free(s);
	inventory_free(inv);
}

/* Of duplicate keys the last counts, as in Python's json. */
static void
test_duplicate_keys_last_wins(void **state)
{
	struct inventory *inv = parse_ok("{\"ping_count\": 3, \"machines\": "
	    "[{\"name\": \"first\", \"address\": \"h\", \"name\": \"last\"}], "
	    "\"ping_count\": 7}");

	assert_int_equal(inv->n_machines, 1);
	assert_string_equal(inv->machines[0].name, "last");
	assert_int_equal(inv->ping_count, 7);
	inventory_free(inv);
}

/* site: a label per machine, kept as written; absent is NULL. */
static void
test_site(void **state)
{
	struct inventory *inv = parse_ok("{\"machines\": ["
	    "{\"name\": \"a\", \"address\": \"h\", \"site\": \"zrh-1\"},"
	    "{\"name\": \"b\", \"address\": \"h\"}]}");

	(void)state;
	assert_string_equal(inv->machines[0].site, "zrh-1");
	assert_null(inv->machines[1].site);
	inventory_free(inv);
}

static void
test_free_null(void **state)
{
	inventory_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_ssh_host_falls_back_to_rcc_host_then_name),
		cmocka_unit_test(test_top_level_defaults_inherited_and_overridden),
		cmocka_unit_test(test_template_in_file_means_command_transport),
		cmocka_unit_test(test_env_template_json_and_words),
		cmocka_unit_test(test_env_template_overrides_file),
		cmocka_unit_test(test_tilde_expansion),
		cmocka_unit_test(test_addresses_accepted),
		cmocka_unit_test(test_unknown_keys_and_nulls_ignored),
		cmocka_unit_test(test_misspelt_keys_warn),
		cmocka_unit_test(test_env_template_says_what_it_replaces),
		cmocka_unit_test(test_settings_and_machine_fields),
		cmocka_unit_test(test_load_upstream_example),
		cmocka_unit_test(test_load_ssh_example),
		cmocka_unit_test(test_load_errors_name_the_file),
		cmocka_unit_test(test_examples_load),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_select_keeps_inventory_order),
		cmocka_unit_test(test_select_ranges_sites_exclude),
		cmocka_unit_test(test_select_names_what_matches_nothing),
		cmocka_unit_test(test_select_unknown_and_empty),
		cmocka_unit_test(test_multiaddr),
		cmocka_unit_test(test_duplicate_keys_last_wins),
		cmocka_unit_test(test_site),
		cmocka_unit_test(test_free_null),
	};
	size_t n_fixed = sizeof fixed / sizeof fixed[0];
	size_t n_errors = sizeof error_cases / sizeof error_cases[0];
	struct CMUnitTest *tests;
	size_t i;
	int failed;

	if ((tests = calloc(n_fixed + n_errors, sizeof *tests)) == NULL)
		return 1;
	memcpy(tests, fixed, sizeof fixed);
	for (i = 0; i < n_errors; i++) {
		tests[n_fixed + i].name = error_cases[i].name;
		tests[n_fixed + i].test_func = test_error_case;
		tests[n_fixed + i].initial_state = (void *)&error_cases[i];
	}
	failed = _cmocka_run_group_tests("inventory", tests, n_fixed + n_errors,
	    clean_env, NULL);
	free(tests);
	return failed;
}
