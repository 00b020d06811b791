/*
 * The udp kind: loss and jitter at a set rate. An iperf3 UDP client on
 * the source (`iperf3 -c ADDRESS -u -b RATE -l 1200 -J
 * --get-server-output`) against the iperf3 kind's server on the target
 * (the same server serves TCP and UDP). 1,200-byte datagrams fit every
 * path QUIC fits, so a path whose MTU is lower than its hosts' does not
 * show as loss here (the mtu kind measures that); the rate is the udp
 * kind's own setting (--udp-rate), in its records' config.
 *
 * What the receiver saw is the report's end.sum_received (the server's
 * counts, which iperf3 hands the client at the end): datagrams lost and
 * the highest sequence number seen, jitter (RFC 3550's smoothed
 * interarrival variation). Datagrams out of order the server counts but
 * does not hand over, so the client asks for the server's own output
 * (--get-server-output) and reads its "N datagrams received out-of-order"
 * line. The loss's resolution is one datagram of those sent.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "option.h"
#include "probe.h"
#include "probe_kind.h"
#include "record.h"
#include "shell.h"
#include "util.h"

/* Its functions are its row's in the kinds' table (probe_kind.c). */

/* Datagrams of this many bytes (iperf3 -l): QUIC's floor, 1,200. */
#define UDP_LENGTH "1200"
/* --udp-rate's default, bits per second */
#define UDP_RATE_DEFAULT 10e6
/* and its range: iperf3 -b takes up to about 2^64, a link 400 Gbit/s */
#define UDP_RATE_MIN 1e3
#define UDP_RATE_MAX 400e9

/* Its own settings; zero is the default. */
struct udp_values {
	double rate;		/* bits per second; 0: UDP_RATE_DEFAULT */
};
_Static_assert(sizeof(struct udp_values) <= PROBE_VALUES_MAX,
    "udp's values outgrow their slot");

/* RATE as iperf3 -b writes it: a number, K, M or G for 10^3, 10^6, 10^9 */
static int
rate_parse(const char *arg, void *field)
{
	double *rate = field, v, unit = 1;
	char *end;

	v = strtod(arg, &end);
	if (end == arg || !isfinite(v))
		return NP_ERR_USAGE;
	if (*end == 'k' || *end == 'K')
		unit = 1e3;
	else if (*end == 'm' || *end == 'M')
		unit = 1e6;
	else if (*end == 'g' || *end == 'G')
		unit = 1e9;
	if (unit != 1)
		end++;
	v *= unit;
	if (*end != '\0' || v < UDP_RATE_MIN || v > UDP_RATE_MAX)
		return NP_ERR_USAGE;
	*rate = v;
	return 0;
}

const struct option_spec probe_udp_option_specs[] = {
	{ .name = "udp-rate", .type = OPTION_CUSTOM,
	  .offset = offsetof(struct udp_values, rate), .arg = "RATE",
	  .parse = rate_parse,
	  .what = "a rate in bits per second from 1K to 400G (10M: 10^7)",
	  .help = "udp: the rate the datagrams are sent at, bits per\n"
	  "second with K, M or G (default 10M)" },
	{ .name = NULL }
};

static double
rate_of(const struct probe_settings *ps)
{
	const struct udp_values *v = probe_values(ps,
	    probe_udp_option_specs);

	return v != NULL && v->rate > 0 ? v->rate : UDP_RATE_DEFAULT;
}

int
probe_udp_config(const struct probe_settings *ps, cJSON *config)
{
	if (cJSON_AddNumberToObject(config, "rate_mbps", rate_of(ps) / 1e6) ==
	    NULL || cJSON_AddNumberToObject(config, "datagram_bytes",
	    atoi(UDP_LENGTH)) == NULL)
		return NP_ERR_NOMEM;
	return 0;
}

char *
probe_udp_command(const struct probe_settings *ps, const char *address)
{
	char port[16], secs[16], rate[32];
	char *argv[] = { "LC_ALL=C", "iperf3", "-c", (char *)address, "-p",
	    port, "-u", "-b", rate, "-l", UDP_LENGTH, "-t", secs, "-J",
	    "--get-server-output" };

	snprintf(port, sizeof port, "%d", ps->iperf_port);
	snprintf(secs, sizeof secs, "%d", ps->iperf_seconds);
	snprintf(rate, sizeof rate, "%.0f", rate_of(ps));
	return shell_join(argv, sizeof argv / sizeof argv[0]);
}

/* o's member key as a number, or NAN. */
static double
number(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ?
	    v->valuedouble : NAN;
}

/*
 * The out-of-order datagrams of the server's own output: its summary (after
 * its last "- - -" line) says "[SUM] ... N datagrams received out-of-order"
 * (or one such line per stream). 0 when it says none; -1 without the
 * server's output (an iperf3 that does not hand it over).
 */
static double
out_of_order(const cJSON *root)
{
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(root,
	    "server_output_text");
	const char *p, *line, *mark = "datagrams received out-of-order";
	double sum = 0, sum_line = -1, n;
	char *end;

	if (!cJSON_IsString(text) || text->valuestring == NULL)
		return -1;
	p = NULL;
	for (line = text->valuestring; (line = strstr(line, "\n- - -")) !=
	    NULL; line++)
		p = line + 1;	/* the summary follows the last separator */
	if (p == NULL)
		return -1;
	for (line = p; *line != '\0'; line += strcspn(line, "\n"),
	    line += *line == '\n') {
		const char *at = strstr(line, mark), *nl = strchr(line, '\n');
		const char *q;

		if (at == NULL || (nl != NULL && at > nl))
			continue;
		for (q = at; q > line && q[-1] == ' '; q--)
			;
		while (q > line && q[-1] >= '0' && q[-1] <= '9')
			q--;
		n = strtod(q, &end);
		if (end == q)
			continue;
		if (strncmp(line, "[SUM]", 5) == 0)
			sum_line = n;
		else
			sum += n;
	}
	return sum_line >= 0 ? sum_line : sum;
}

/* The report's figures as the record's metrics. */
static int
udp_metrics(const cJSON *root, struct record *rec)
{
	const cJSON *end = cJSON_GetObjectItemCaseSensitive(root, "end");
	const cJSON *recv = cJSON_GetObjectItemCaseSensitive(end,
	    "sum_received");
	const cJSON *sent = cJSON_GetObjectItemCaseSensitive(end, "sum_sent");
	double packets, lost, sent_packets, ooo = out_of_order(root);
	cJSON *m;

	if (!cJSON_IsObject(recv))	/* iperf3 before 3.11: one sum */
		recv = cJSON_GetObjectItemCaseSensitive(end, "sum");
	if (!cJSON_IsObject(sent))
		sent = recv;
	packets = number(recv, "packets");
	lost = number(recv, "lost_packets");
	sent_packets = number(sent, "packets");
	if (!cJSON_IsObject(recv) || isnan(packets) || isnan(lost) ||
	    isnan(number(recv, "jitter_ms")) || packets < 0 || lost < 0 ||
	    lost > packets)
		return probe_outcome_fail(rec, ERROR_CLASS_PARSE,
		    strdup("iperf3 report has no UDP receiver's sum "
		    "(end.sum_received: packets, lost_packets, jitter_ms)"));
	if (isnan(sent_packets) || sent_packets < packets)
		sent_packets = packets;
	if ((m = cJSON_CreateObject()) == NULL)
		return NP_ERR_NOMEM;
	cJSON_AddNumberToObject(m, "loss_pct", packets > 0 ?
	    100.0 * lost / packets : 100.0);
	cJSON_AddNumberToObject(m, "loss_resolution_pct", sent_packets > 0 ?
	    100.0 / sent_packets : 100.0);
	cJSON_AddNumberToObject(m, "jitter_ms", number(recv, "jitter_ms"));
	if (ooo >= 0)
		cJSON_AddNumberToObject(m, "out_of_order", ooo);
	else
		cJSON_AddNullToObject(m, "out_of_order");
	cJSON_AddNumberToObject(m, "mbps", isnan(number(recv,
	    "bits_per_second")) ? 0 : number(recv, "bits_per_second") / 1e6);
	cJSON_AddNumberToObject(m, "packets", packets);
	cJSON_AddNumberToObject(m, "lost", lost);
	cJSON_AddNumberToObject(m, "sent", sent_packets);
	cJSON_AddNumberToObject(m, "seconds", isnan(number(recv, "seconds")) ?
	    0 : number(recv, "seconds"));
	if (record_set_metrics(rec, m) != 0)
		return NP_ERR_NOMEM;
	if (packets == 0)
		return probe_outcome_fail(rec, ERROR_CLASS_TOOL_FAILED,
		    str_printf("no UDP datagram arrived: %.0f sent at the set "
		    "rate", sent_packets));
	rec->ok = 1;
	return 0;
}

/* The client's report: loss, jitter and order, or iperf3's own error. */
int
probe_udp_parse(const struct probe_output *o, struct record *rec)
{
	const cJSON *err;
	cJSON *root;
	int r;

	probe_outcome_start(rec);
	if (probe_tool_missing("iperf3", o, rec))
		return rec->error != NULL ? 0 : NP_ERR_NOMEM;
	if (o->out == NULL || *o->out == '\0')
		return probe_outcome_fail(rec, ERROR_CLASS_PARSE,
		    strdup("iperf3 printed nothing"));
	if ((root = cJSON_Parse(o->out)) == NULL)
		return probe_outcome_fail(rec, ERROR_CLASS_PARSE,
		    strdup("iperf3 output is not a complete JSON report "
		    "(truncated: the client was stopped early?)"));
	err = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (cJSON_IsString(err) && err->valuestring != NULL)
		r = probe_outcome_fail(rec, ERROR_CLASS_TOOL_FAILED,
		    str_printf("iperf3: %s", err->valuestring));
	else
		r = udp_metrics(root, rec);
	cJSON_Delete(root);
	return r;
}
