/*
 * The probes' settings: the option block that overrides the inventory's,
 * and the settings of a run made of both.
 */
#include <stddef.h>
#include <string.h>

#include "bounds.h"
#include "inventory.h"
#include "probe.h"

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
	{ .name = NULL }
};

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
}
