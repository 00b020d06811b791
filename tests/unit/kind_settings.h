/*
 * A kind's settings as a command line gives them, for the kinds' unit
 * tests: argv parsed by the probe options' block (its kinds' own blocks
 * included) as collect parses it, over an inventory of the defaults.
 * Include after <cmocka.h>.
 */
#ifndef NETPROF_TEST_KIND_SETTINGS_H
#define NETPROF_TEST_KIND_SETTINGS_H

#include <string.h>

#include "cmd.h"
#include "inventory.h"
#include "option.h"
#include "probe.h"

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

#endif
