/*
 * The probes' settings: the option block that overrides the inventory's,
 * the family of the kinds' own blocks (each kind's row brings its own),
 * and the settings of a run made of both.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "inventory.h"
#include "probe.h"
#include "probe_kind.h"
#include "shell.h"
#include "util.h"

/* The kinds' own blocks: the i-th row with options, over its slot. */
static int
kind_blocks(size_t i, struct option_block *out)
{
	const struct probe_kind *k;

	for (k = probe_kinds; k->name != NULL; k++) {
		if (k->options == NULL || i-- > 0)
			continue;
		out->specs = k->options;
		out->base = offsetof(struct probe_options, kinds) +
		    probe_kind_index(k) * sizeof(union probe_values);
		return 1;
	}
	return 0;
}

const struct option_spec probe_option_specs[] = {
	{ .name = "ping-count", .type = OPTION_INT,
	  .offset = offsetof(struct probe_options, ping_count), .arg = "N",
	  .bounds = &bounds_ping_count,
	  .help = "override the inventory's ping_count" },
	{ .name = "ping-interval", .type = OPTION_SECONDS,
	  .offset = offsetof(struct probe_options, ping_interval), .arg = "S",
	  .bounds = &bounds_ping_interval,
	  .help = "override ping_interval (seconds)" },
	{ .name = "iperf-seconds", .type = OPTION_INT,
	  .offset = offsetof(struct probe_options, iperf_seconds), .arg = "N",
	  .bounds = &bounds_iperf_seconds,
	  .help = "override iperf_seconds" },
	{ .name = "iperf-port", .type = OPTION_INT,
	  .offset = offsetof(struct probe_options, iperf_port), .arg = "P",
	  .bounds = &bounds_port, .what = "a TCP port",
	  .help = "override iperf_port" },
	{ .name = "", .type = OPTION_FAMILY, .family = kind_blocks },
	{ .name = NULL }
};

const void *
probe_values(const struct probe_settings *ps,
    const struct option_spec *specs)
{
	const struct probe_kind *k;

	for (k = probe_kinds; k->name != NULL; k++)
		if (k->options == specs)
			return &ps->kinds[probe_kind_index(k)];
	return NULL;
}

void
probe_settings_init(struct probe_settings *ps, const struct probe_options *o,
    const struct inventory *inv)
{
	memset(ps, 0, sizeof *ps);
	ps->ping_count = o->ping_count > 0 ? o->ping_count : inv->ping_count;
	ps->ping_interval = o->ping_interval > 0 ? o->ping_interval :
	    inv->ping_interval;
	ps->iperf_seconds = o->iperf_seconds > 0 ? o->iperf_seconds :
	    inv->iperf_seconds;
	ps->iperf_port = o->iperf_port > 0 ? o->iperf_port : inv->iperf_port;
	memcpy(ps->kinds, o->kinds, sizeof ps->kinds);
}

char *
probe_script_line(const char *address, const char *script)
{
	char *q, *line;

	if ((q = shell_is_plain_word(address) ? strdup(address) :
	    shell_quote(address)) == NULL)
		return NULL;
	line = str_printf("LC_ALL=C; export LC_ALL; a=%s; %s", q, script);
	free(q);
	return line;
}
