/*
 * A kind's settings as a command line gives them, for the kinds' unit
 * tests: argv parsed by the probe options' block (its kinds' own blocks
 * included) as collect parses it, over an inventory of the defaults; and
 * what a kind makes of them (its command, its records' config).
 * Include after <cmocka.h>.
 */
#ifndef NETPROF_TEST_KIND_SETTINGS_H
#define NETPROF_TEST_KIND_SETTINGS_H

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "inventory.h"
#include "option.h"
#include "probe.h"
#include "probe_kind.h"

/* ps from argv (NULL-terminated, argv[0] the command's name); 0 or the
   parser's result. */
static inline int
kind_settings(struct probe_settings *ps, char **argv)
{
	static const struct option_block table[] = {
		{ probe_option_specs, 0 },
		{ NULL, 0 }
	};
	static const struct cmd_entry entry = { .name = "collect",
	    .usage = "", .options = table };
	struct probe_options o;
	struct inventory inv;
	int argc = 0, operand, r;

	while (argv[argc] != NULL)
		argc++;
	memset(&o, 0, sizeof o);
	memset(&inv, 0, sizeof inv);
	inv.ping_count = 5;
	inv.ping_interval = 1;
	inv.iperf_seconds = 5;
	inv.iperf_port = 5201;
	if ((r = option_parse(&entry, argc, argv, &o, &operand)) != 0)
		return r;
	probe_settings_init(ps, &o, &inv);
	return 0;
}

/* k's command (to 198.18.0.3) and its records' config for argv's
   settings are command and config (JSON, unformatted). */
static inline void
kind_check(const struct probe_kind *k, char **argv, const char *command,
    const char *config)
{
	struct probe_settings ps;
	cJSON *cfg = cJSON_CreateObject();
	char *cmd, *text;

	assert_int_equal(kind_settings(&ps, argv), 0);
	cmd = k->command(&ps, "198.18.0.3");
	assert_string_equal(cmd, command);
	free(cmd);
	assert_int_equal(k->config(&ps, cfg), 0);
	text = cJSON_PrintUnformatted(cfg);
	assert_string_equal(text, config);
	cJSON_free(text);
	cJSON_Delete(cfg);
}

#endif
