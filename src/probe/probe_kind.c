/*
 * The probe kinds' table (probe_kind.h): a row per kind, its metrics
 * beside it. The rows and the metric lists look alike on purpose (a copy
 * finder pairs them): they are data, one kind or one metric each. The
 * Prometheus names follow Prometheus' rules (base units: seconds, bytes;
 * _ratio for fractions), docs/metrics.md lists them.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "probe.h"
#include "probe_kind.h"
#include "record.h"
#include "util.h"

/*
 * Each kind's command and parser, in a file of its own (as tmux's cmd.c
 * declares each command's entry): the rows below are their only users.
 */
char *probe_ping_command(const struct probe_settings *, const char *);
double probe_ping_timeout(const struct probe_settings *, double);
double probe_ping_duration(const struct probe_settings *);
int probe_ping_parse(const struct probe_output *, struct record *);
char *probe_iperf3_client_command(const struct probe_settings *,
    const char *);
double probe_iperf3_timeout(const struct probe_settings *, double);
double probe_iperf3_duration(const struct probe_settings *);
int probe_iperf3_parse(const struct probe_output *, struct record *);
char *probe_iperf3_server_command(const struct probe_settings *);
extern const struct option_spec probe_iperf3_option_specs[];
int probe_iperf3_config(const struct probe_settings *, cJSON *);
double probe_iperf3_server_bound(const struct probe_settings *, double,
    size_t);
char *probe_mtu_command(const struct probe_settings *, const char *);
double probe_mtu_timeout(const struct probe_settings *, double);
double probe_mtu_duration(const struct probe_settings *);
int probe_mtu_parse(const struct probe_output *, struct record *);
char *probe_traceroute_command(const struct probe_settings *,
    const char *);
double probe_traceroute_timeout(const struct probe_settings *, double);
double probe_traceroute_duration(const struct probe_settings *);
int probe_traceroute_parse(const struct probe_output *,
    struct record *);
char *probe_udp_command(const struct probe_settings *, const char *);
int probe_udp_parse(const struct probe_output *, struct record *);
extern const struct option_spec probe_udp_option_specs[];
int probe_udp_config(const struct probe_settings *, cJSON *);
int probe_node_parse(const struct probe_output *, struct record *);

/* What iperf3 -s prints (with --forceflush) each time it listens. */
#define PROBE_IPERF3_READY "Server listening on"

const struct probe_unit probe_unit_ms = { "ms", 0, 1.0, 1e-3 };
const struct probe_unit probe_unit_mbps = { "Mbit/s", 1, 0, 1e6 / 8 };
const struct probe_unit probe_unit_pct = { "%", 0, 1.0, 1e-2 };
const struct probe_unit probe_unit_samples = { "samples", 0, 1.0, 1 };
const struct probe_unit probe_unit_bytes = { "bytes", 1, 0, 1 };
const struct probe_unit probe_unit_s = { "s", 0, 0.1, 1 };
const struct probe_unit probe_unit_count = { "", 0, 0, 1 };
/* yes or no: 1 or 0, yes the better */
static const struct probe_unit unit_flag = { "1 yes, 0 no", 1, 1.0, 1 };

#define MS (&probe_unit_ms)
#define MBPS (&probe_unit_mbps)
#define PCT (&probe_unit_pct)
#define SAMPLES (&probe_unit_samples)
#define BYTES (&probe_unit_bytes)
#define SECONDS (&probe_unit_s)
#define COUNT (&probe_unit_count)
#define FLAG (&unit_flag)

/* name, unit, Prometheus gauge, its help */
static const struct probe_metric ping_metrics[] = {
	{ "min", MS, "netprof_ping_rtt_min_seconds",
	    "ICMP round-trip time, smallest of the probe" },
	{ "avg", MS, "netprof_ping_rtt_avg_seconds",
	    "ICMP round-trip time, mean of the probe" },
	{ "max", MS, "netprof_ping_rtt_max_seconds",
	    "ICMP round-trip time, largest of the probe" },
	{ "p50", MS, "netprof_ping_rtt_p50_seconds",
	    "ICMP round-trip time, median of the probe" },
	{ "p95", MS, "netprof_ping_rtt_p95_seconds",
	    "ICMP round-trip time, 95th percentile of the probe" },
	{ "jitter", MS, "netprof_ping_jitter_seconds",
	    "ICMP round-trip time, mean deviation (ping's mdev)" },
	{ "loss_pct", PCT, "netprof_ping_loss_ratio",
	    "Fraction of the probe's ICMP echo requests not answered" },
	{ "transmitted", COUNT, NULL, NULL },
	{ "received", COUNT, NULL, NULL },
	{ .name = NULL }
};

static const struct probe_metric iperf3_metrics[] = {
	{ "mbps", MBPS, "netprof_iperf3_throughput_bytes_per_second",
	    "iperf3 TCP throughput at the receiver" },
	{ "sender_mbps", MBPS, "netprof_iperf3_sender_bytes_per_second",
	    "iperf3 TCP throughput at the sender" },
	{ "retransmits", COUNT, "netprof_iperf3_retransmits",
	    "TCP retransmissions during the iperf3 test" },
	{ "receiver_mbps", MBPS, NULL, NULL },
	{ "seconds", SECONDS, NULL, NULL },
	{ "bytes", BYTES, NULL, NULL },
	{ .name = NULL }
};

static const struct probe_metric mtu_metrics[] = {
	{ "mtu", BYTES, "netprof_path_mtu_bytes",
	    "Largest IP packet that crossed the pair with don't-fragment set" },
	{ "quic_ok", FLAG, "netprof_path_mtu_quic_ok",
	    "1 if the path carries QUIC's 1,200-byte datagrams, else 0" },
	{ "local_mtu", BYTES, NULL, NULL },
	{ "tries", COUNT, NULL, NULL },
	{ .name = NULL }
};

static const struct probe_metric traceroute_metrics[] = {
	{ "rtt_ms", MS, NULL, NULL },
	{ "hops", COUNT, NULL, NULL },
	{ "jump_hop", COUNT, NULL, NULL },
	{ "jump_ms", MS, NULL, NULL },
	{ .name = NULL }
};

static const struct probe_metric udp_metrics[] = {
	{ "loss_pct", PCT, "netprof_udp_loss_ratio",
	    "Fraction of the UDP test's datagrams lost, at its set rate" },
	{ "loss_resolution_pct", PCT, "netprof_udp_loss_resolution_ratio",
	    "The smallest loss the UDP test resolves: one datagram of those "
	    "sent" },
	{ "jitter_ms", MS, "netprof_udp_jitter_seconds",
	    "UDP jitter at the receiver (RFC 3550's interarrival variation)" },
	{ "out_of_order", COUNT, "netprof_udp_out_of_order_datagrams",
	    "UDP datagrams of the test that arrived out of order" },
	{ "mbps", MBPS, "netprof_udp_throughput_bytes_per_second",
	    "UDP throughput at the receiver, at the test's set rate" },
	{ "packets", COUNT, NULL, NULL },
	{ "lost", COUNT, NULL, NULL },
	{ "sent", COUNT, NULL, NULL },
	{ "seconds", SECONDS, NULL, NULL },
	{ .name = NULL }
};

static const struct probe_metric libp2p_ping_metrics[] = {
	{ "min_ms", MS, "netprof_libp2p_ping_rtt_min_seconds",
	    "libp2p ping round-trip time, smallest of the probe" },
	{ "avg_ms", MS, "netprof_libp2p_ping_rtt_avg_seconds",
	    "libp2p ping round-trip time, mean of the probe" },
	{ "max_ms", MS, "netprof_libp2p_ping_rtt_max_seconds",
	    "libp2p ping round-trip time, largest of the probe" },
	{ "p50_ms", MS, "netprof_libp2p_ping_rtt_p50_seconds",
	    "libp2p ping round-trip time, median of the probe" },
	{ "p95_ms", MS, "netprof_libp2p_ping_rtt_p95_seconds",
	    "libp2p ping round-trip time, 95th percentile of the probe" },
	{ "failed_samples", SAMPLES, "netprof_libp2p_ping_failed_samples",
	    "libp2p pings of the probe that failed" },
	{ .name = NULL }
};

static const struct probe_metric latency_metrics[] = {
	{ "min_ms", MS, "netprof_libp2p_latency_min_seconds",
	    "HTTP-over-libp2p request latency, smallest of the probe" },
	{ "avg_ms", MS, "netprof_libp2p_latency_avg_seconds",
	    "HTTP-over-libp2p request latency, mean of the probe" },
	{ "max_ms", MS, "netprof_libp2p_latency_max_seconds",
	    "HTTP-over-libp2p request latency, largest of the probe" },
	{ "p50_ms", MS, "netprof_libp2p_latency_p50_seconds",
	    "HTTP-over-libp2p request latency, median of the probe" },
	{ "p95_ms", MS, "netprof_libp2p_latency_p95_seconds",
	    "HTTP-over-libp2p request latency, 95th percentile" },
	{ "failed_samples", SAMPLES, "netprof_libp2p_latency_failed_samples",
	    "HTTP-over-libp2p requests of the probe that failed" },
	{ .name = NULL }
};

static const struct probe_metric throughput_metrics[] = {
	{ "mbps", MBPS, "netprof_libp2p_throughput_bytes_per_second",
	    "HTTP-over-libp2p transfer throughput" },
	{ "failed_samples", SAMPLES,
	    "netprof_libp2p_throughput_failed_samples",
	    "HTTP-over-libp2p transfers of the probe that failed" },
	{ "bytes_received", BYTES, NULL, NULL },
	{ "elapsed_ms", MS, NULL, NULL },
	{ .name = NULL }
};

static const struct probe_metric connect_metrics[] = {
	{ "min_ms", MS, "netprof_libp2p_connect_min_seconds",
	    "A new libp2p connection and its first ping, smallest of the probe" },
	{ "p50_ms", MS, "netprof_libp2p_connect_p50_seconds",
	    "A new libp2p connection and its first ping, median of the probe" },
	{ "max_ms", MS, NULL, NULL },
	{ "dial_ms", MS, NULL, NULL },
	{ "first_rtt_ms", MS, NULL, NULL },
	{ "failed_samples", SAMPLES, "netprof_libp2p_connect_failed_samples",
	    "New libp2p connections of the probe that failed" },
	{ .name = NULL }
};

#undef MS
#undef MBPS
#undef PCT
#undef SAMPLES
#undef BYTES
#undef SECONDS
#undef COUNT
#undef FLAG

#define SHELL PROBE_VIA_SHELL
#define NODE PROBE_VIA_NODE
#define OVERLAP PROBE_OVERLAP
#define EXCLUSIVE PROBE_EXCLUSIVE

const struct probe_kind probe_kinds[] = {
	/*
	 * name, tool, its package, via, shape, flags;
	 * command, timeout, duration, parse; server, its bound, its ready
	 * line;
	 * plan's name, default metric, summary {metric, unit, decimals,
	 * what}, metrics; the diagnosis' judge {slow ratio and floor,
	 * narrow ratio and floor, worse ratio, the latency and the rate
	 * judged, the samples lost and sent, as, its base's words, where
	 * its path's round trip jumps and by how much}; overlay over, its
	 * ratio, inbound;
	 * its own options, its records' config
	 */
	{ "ping", "ping", "iputils-ping",
	    SHELL, OVERLAP,
	    PROBE_FANOUT | PROBE_BASELINE | PROBE_NET_RTT | PROBE_UPSTREAM |
	    PROBE_DEFAULT,
	    probe_ping_command, probe_ping_timeout, probe_ping_duration,
	    probe_ping_parse,
	    NULL, NULL, NULL,
	    "ping", "avg", { "p50", "ms", 3, "median RTT" }, ping_metrics,
	    { 1.3, 2.0, 0, 0, 1.25, NULL, NULL, NULL, NULL, PROBE_AS_BASE,
	    NULL, NULL, NULL },
	    NULL, NULL, PROBE_INBOUND_ICMP,
	    NULL, NULL },
	{ "mtu", "ping", "iputils-ping",
	    SHELL, OVERLAP,
	    0,
	    probe_mtu_command, probe_mtu_timeout, probe_mtu_duration,
	    probe_mtu_parse,
	    NULL, NULL, NULL,
	    "mtu", "mtu", { "mtu", "bytes", 0, "path MTU" }, mtu_metrics,
	    { 0, 0, 1.0, 8.0, 1.0, NULL, "mtu", NULL, NULL, 0, NULL, NULL,
	    NULL },
	    NULL, NULL, PROBE_INBOUND_ICMP,
	    NULL, NULL },
	{ "traceroute", "ping", "iputils-ping",
	    SHELL, OVERLAP,
	    0,
	    probe_traceroute_command, probe_traceroute_timeout,
	    probe_traceroute_duration, probe_traceroute_parse,
	    NULL, NULL, NULL,
	    "traceroute", "rtt_ms", { "rtt_ms", "ms", 3, "round trip" },
	    traceroute_metrics,
	    { 1.3, 2.0, 0, 0, 1.25, NULL, NULL, NULL, NULL, 0, NULL, "jump_hop",
	    "jump_ms" },
	    NULL, NULL, PROBE_INBOUND_ICMP,
	    NULL, NULL },
	{ "iperf3", "iperf3", "iperf3",
	    SHELL, EXCLUSIVE,
	    PROBE_DUPLEX | PROBE_SERVER | PROBE_UPSTREAM | PROBE_IPERF,
	    probe_iperf3_client_command, probe_iperf3_timeout,
	    probe_iperf3_duration, probe_iperf3_parse,
	    probe_iperf3_server_command, probe_iperf3_server_bound,
	    PROBE_IPERF3_READY,
	    "iperf", "mbps", { "mbps", "Mbps", 1, NULL }, iperf3_metrics,
	    { 0, 0, 1.5, 1.0, 1.5, NULL, NULL, NULL, NULL, 0, NULL, NULL,
	    NULL },
	    NULL, NULL, PROBE_INBOUND_PORT,
	    probe_iperf3_option_specs, probe_iperf3_config },
	{ "udp", "iperf3", "iperf3",
	    SHELL, EXCLUSIVE,
	    PROBE_DUPLEX | PROBE_SERVER | PROBE_RETRY,
	    probe_udp_command, probe_iperf3_timeout, probe_iperf3_duration,
	    probe_udp_parse,
	    probe_iperf3_server_command, probe_iperf3_server_bound,
	    PROBE_IPERF3_READY,
	    "udp", "loss_pct", { "loss_pct", "%", 2, "datagrams lost" },
	    udp_metrics,
	    { 0, 0, 0, 0, 0, NULL, NULL, "lost", "packets", 0, NULL, NULL,
	    NULL },
	    NULL, NULL, PROBE_INBOUND_PORT,
	    probe_udp_option_specs, probe_udp_config },
	{ "libp2p_ping", "otela", NULL,
	    NODE, OVERLAP,
	    PROBE_NET_RTT,
	    NULL, NULL, NULL, probe_node_parse,
	    NULL, NULL, NULL,
	    NULL, "p50_ms", { "p50_ms", "ms", 3, "p50" }, libp2p_ping_metrics,
	    { 1.5, 10.0, 0, 0, 1.5, "min_ms", NULL, NULL, NULL, PROBE_AS_STREAM,
	    "an ICMP round trip of", NULL, NULL },
	    "ping", "libp2p_ping_x_rtt",
	    PROBE_INBOUND_LIBP2P,
	    NULL, NULL },
	{ "latency", "otela", NULL,
	    NODE, OVERLAP,
	    0,
	    NULL, NULL, NULL, probe_node_parse,
	    NULL, NULL, NULL,
	    NULL, "p50_ms", { "p50_ms", "ms", 3, "p50" }, latency_metrics,
	    { 1.5, 10.0, 0, 0, 1.5, "min_ms", NULL, NULL, NULL, PROBE_AS_APP,
	    "libp2p_ping (else ICMP)", NULL, NULL },
	    "ping", "latency_x_rtt",
	    PROBE_INBOUND_LIBP2P,
	    NULL, NULL },
	{ "throughput", "otela", NULL,
	    NODE, EXCLUSIVE,
	    PROBE_TRANSFER | PROBE_DUPLEX,
	    NULL, NULL, NULL, probe_node_parse,
	    NULL, NULL, NULL,
	    NULL, "mbps", { "mbps", "Mbps", 3, NULL }, throughput_metrics,
	    { 0, 0, 2.0, 1.0, 2.0, NULL, NULL, NULL, NULL, 0, NULL, NULL,
	    NULL },
	    "iperf3", "throughput_x_iperf3",
	    PROBE_INBOUND_LIBP2P,
	    NULL, NULL },
	/* after the others of its pair (exclusive: no host in two probes),
	   as it hangs up the pair's connections */
	{ "connect", "otela", NULL,
	    NODE, EXCLUSIVE,
	    PROBE_ASKED,
	    NULL, NULL, NULL, probe_node_parse,
	    NULL, NULL, NULL,
	    NULL, "p50_ms", { "p50_ms", "ms", 3, "p50" }, connect_metrics,
	    { 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL },
	    "ping", "connect_x_rtt",
	    PROBE_INBOUND_LIBP2P,
	    NULL, NULL },
	{ .name = NULL }
};

/* a kind's own values have a slot each (probe.h) */
_Static_assert(sizeof probe_kinds / sizeof probe_kinds[0] <=
    PROBE_KINDS_MAX + 1, "more kinds than PROBE_KINDS_MAX");

#undef SHELL
#undef NODE
#undef OVERLAP
#undef EXCLUSIVE

const struct probe_kind *
probe_kind_find(const char *name)
{
	const struct probe_kind *k;

	if (name == NULL)
		return NULL;
	for (k = probe_kinds; k->name != NULL; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

int
probe_kind_command_port(const struct probe_kind *k, const char *command)
{
	const char *p;
	long port;

	if (k == NULL || command == NULL || k->inbound != PROBE_INBOUND_PORT ||
	    (p = strstr(command, k->tool)) == NULL)
		return 0;
	while ((p = strstr(p, " -p")) != NULL) {
		p += 3;
		if (*p != ' ' && !isdigit((unsigned char)*p))
			continue;
		port = strtol(p, NULL, 10);
		return port > 0 && port < 65536 ? (int)port : 0;
	}
	return 0;
}

size_t
probe_kind_index(const struct probe_kind *k)
{
	return (size_t)(k - probe_kinds);
}

const struct probe_metric *
probe_kind_metric(const struct probe_kind *k, const char *name)
{
	const struct probe_metric *m;

	for (m = k != NULL ? k->metrics : NULL; m != NULL && m->name != NULL;
	    m++)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

void
probe_kind_names(char *buf, size_t size, unsigned via_mask)
{
	const struct probe_kind *k;
	size_t n = 0, i = 0, used = 0;

	for (k = probe_kinds; k->name != NULL; k++)
		n += (via_mask >> k->via) & 1;
	buf[0] = '\0';
	for (k = probe_kinds; k->name != NULL && used < size; k++) {
		if (!((via_mask >> k->via) & 1))
			continue;
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
		    i == 0 ? "" : i + 1 == n ? " or " : ", ", k->name);
		i++;
	}
}

int
probe_kind_parse_list(const char *list, unsigned via_mask, unsigned *bits)
{
	char *copy = strdup(list), *save = NULL, *w;
	const struct probe_kind *k;
	int r = 0;

	*bits = 0;
	if (copy == NULL)
		return NP_ERR_USAGE;
	for (w = strtok_r(copy, ", ", &save); w != NULL;
	    w = strtok_r(NULL, ", ", &save)) {
		if ((k = probe_kind_find(w)) == NULL ||
		    !((via_mask >> k->via) & 1)) {
			r = NP_ERR_USAGE;
			break;
		}
		*bits |= 1u << probe_kind_index(k);
	}
	free(copy);
	return r == 0 && *bits == 0 ? NP_ERR_USAGE : r;
}

void
probe_kind_describe_list(char *buf, size_t size, unsigned via_mask)
{
	char names[200];

	probe_kind_names(names, sizeof names, via_mask);
	snprintf(buf, size, "a comma-separated list of %s", names);
}

int
probe_tool_missing(const char *tool, const struct probe_output *o,
    struct record *rec)
{
	if (o->exit_status != 127 && (o->exit_status == 0 ||
	    (strstr(o->err, ": not found") == NULL &&
	    strstr(o->err, "command not found") == NULL)))
		return 0;
	/* a kept server runs under GNU timeout */
	if (strstr(o->err, "timeout: not found") != NULL)
		tool = "timeout (GNU coreutils)";
	rec->ok = 0;
	rec->error_class = error_class_name(ERROR_CLASS_TOOL_MISSING);
	rec->error = str_printf("%s%s: %s is not installed or not on PATH "
	    "there (exit %d)", o->who != NULL ? o->who : "", o->host, tool,
	    o->exit_status);
	return 1;
}

void
probe_outcome_start(struct record *rec)
{
	rec->ok = 0;
	rec->error = NULL;
	rec->error_class = NULL;
	rec->metrics_text = NULL;
	rec->metrics = NULL;
	rec->nmetrics = 0;
	rec->nsamples = -1;
}

int
probe_outcome_fail(struct record *rec, enum error_class cls, char *error)
{
	rec->ok = 0;
	rec->error_class = error_class_name(cls);
	rec->error = error;
	return error != NULL ? 0 : NP_ERR_NOMEM;
}

double
probe_kind_value(const struct probe_kind *k, const struct record *rec)
{
	double v;

	return record_metric_value(rec, k->summary.metric, &v) ? v : 0;
}
