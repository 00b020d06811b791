/*
 * The traceroute kind: the hops of the path from the source to the
 * target, each one's round trip, and the hop where the round trip jumps
 * (a WAN link, a tunnel, a slow router's queue), found with iputils'
 * ping alone: what every host that runs the ping kind has, where
 * tracepath and mtr often are not.
 *
 * The command is a small POSIX sh script on the source. For each TTL from
 * 1 it sends one echo with that TTL (`ping -t`): the router where it dies
 * says so ("From 10.0.0.1 icmp_seq=1 Time to live exceeded"), the target
 * answers it; that hop is then pinged itself, three echoes, and their
 * fastest is its round trip (a router's ICMP answers are slow now and
 * then: the fastest is the path's). It prints a line a hop:
 *
 *   np-hop 1 10.0.0.1 0.071
 *   np-hop 2 * -
 *   np-hop 3 198.18.1.2 30.412
 *
 *   np-reached
 *
 * ("*": no answer at that TTL; "-": the hop answered the TTL but not the
 * echoes) and ends at the target (np-reached), at an unreachable answer,
 * or after HOPS_MAX hops. The parser makes the record's metrics: the hops
 * and the target's round trip, the hop whose round trip rose most over
 * the hop before it that answered, and the per-hop addresses and round
 * trips.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "log.h"
#include "probe.h"
#include "probe_kind.h"
#include "probe_ping.h"
#include "record.h"
#include "shell.h"
#include "util.h"

/* Its functions are its row's in the kinds' table (probe_kind.c). */

#define HOPS_MAX 30
/* one hop: the TTL's echo (1 s) and the hop's three (0.2 s apart, 2 s) */
#define HOP_SECONDS 3.0

/*
 * The script, with the address as $a. A ping that fails for another
 * reason than silence (exit 2: no such host, an unknown option) ends it
 * with ping's status and words on stderr, as the tool's own failure.
 */
static const char script[] =
    "n=1; while [ $n -le 30 ]; do "
    "r=$(ping -n -c 1 -w 1 -t $n \"$a\" 2>&1); s=$?; "
    "[ $s -le 1 ] || { printf '%s\\n' \"$r\" >&2; exit $s; }; "
    "case $r in *' bytes from '*) h=${r#*bytes from }; h=${h%%:*};; "
    "*'From '*) h=${r#*From }; h=${h%% *};; *) h=;; esac; "
    "if [ -z \"$h\" ]; then echo \"np-hop $n * -\"; else "
    "q=$(ping -n -q -c 3 -i 0.2 -w 2 \"$h\" 2>/dev/null); "
    "case $q in *'= '*/*) q=${q##*= }; q=${q%%/*};; *) q=-;; esac; "
    "echo \"np-hop $n $h $q\"; fi; "
    "[ $s = 0 ] && { echo np-reached; exit 0; }; "
    "case $r in *nreachable*) exit 0;; esac; "
    "n=$((n + 1)); done";

char *
probe_traceroute_command(const struct probe_settings *ps, const char *address)
{
	(void)ps;
	return probe_script_line(address, script);
}

double
probe_traceroute_timeout(const struct probe_settings *ps,
    double connect_timeout)
{
	(void)ps;
	return HOPS_MAX * HOP_SECONDS + connect_timeout + 5.0;
}

/* a path of a few hops that all answer */
double
probe_traceroute_duration(const struct probe_settings *ps)
{
	(void)ps;
	return 4 * 0.5;
}

/* One hop of what the script printed. */
struct hop {
	char address[64];	/* "" when it did not answer */
	double rtt;		/* ms; NAN when not measured */
};

/* The hops printed, in order, into h (up to HOPS_MAX): how many. */
static size_t
read_hops(const char *text, struct hop *h)
{
	const char *line;
	size_t n = 0;

	for (line = text; line != NULL && *line != '\0' && n < HOPS_MAX;
	    line = strchr(line, '\n'), line = line != NULL ? line + 1 : NULL) {
		char addr[64], rtt[32];
		int ttl;

		if (sscanf(line, "np-hop %d %63s %31s", &ttl, addr, rtt) != 3 ||
		    ttl != (int)n + 1)
			continue;
		snprintf(h[n].address, sizeof h[n].address, "%s",
		    strcmp(addr, "*") == 0 ? "" : addr);
		h[n].rtt = strcmp(rtt, "-") == 0 ? NAN : strtod(rtt, NULL);
		if (!(h[n].rtt >= 0))
			h[n].rtt = NAN;
		n++;
	}
	return n;
}

/* The hops as the record's metrics; NULL: no memory. */
static cJSON *
hops_metrics(const struct hop *h, size_t n)
{
	cJSON *m = cJSON_CreateObject(), *addrs = cJSON_CreateArray(),
	    *rtts = cJSON_CreateArray();
	double last = 0, jump = 0;
	size_t i, at = 0;

	if (m == NULL || addrs == NULL || rtts == NULL) {
		cJSON_Delete(m);
		cJSON_Delete(addrs);
		cJSON_Delete(rtts);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		cJSON_AddItemToArray(addrs, h[i].address[0] != '\0' ?
		    cJSON_CreateString(h[i].address) : cJSON_CreateNull());
		cJSON_AddItemToArray(rtts, isnan(h[i].rtt) ?
		    cJSON_CreateNull() : cJSON_CreateNumber(h[i].rtt));
		if (isnan(h[i].rtt))
			continue;
		if (h[i].rtt - last > jump || at == 0) {
			jump = h[i].rtt - last;
			at = i + 1;
		}
		last = h[i].rtt;
	}
	cJSON_AddNumberToObject(m, "hops", (double)n);
	if (n > 0 && !isnan(h[n - 1].rtt))
		cJSON_AddNumberToObject(m, "rtt_ms", h[n - 1].rtt);
	if (at > 0) {
		cJSON_AddNumberToObject(m, "jump_hop", (double)at);
		cJSON_AddNumberToObject(m, "jump_ms", jump);
	}
	cJSON_AddItemToObject(m, "hop_address", addrs);
	cJSON_AddItemToObject(m, "hop_ms", rtts);
	return m;
}

/* The script's hops: the path to the target, or why it was not found. */
int
probe_traceroute_parse(const struct probe_output *o,
    struct record *rec)
{
	struct hop h[HOPS_MAX];
	char *line, *error;
	size_t n;

	probe_outcome_start(rec);
	if (probe_tool_missing("ping", o, rec))
		return rec->error != NULL ? 0 : NP_ERR_NOMEM;
	if (o->exit_status != 0) {	/* ping's own failure, its words */
		line = probe_ping_reason(o->err);
		error = str_printf("ping exited %d: %s", o->exit_status,
		    line != NULL ? line : "(nothing said)");
		free(line);
		return probe_outcome_fail(rec, ERROR_CLASS_TOOL_FAILED, error);
	}
	n = read_hops(o->out, h);
	if (record_set_metrics(rec, hops_metrics(h, n)) != 0)
		return NP_ERR_NOMEM;
	if (strstr(o->out, "np-reached") == NULL || n == 0 ||
	    isnan(h[n - 1].rtt))
		return probe_outcome_fail(rec, ERROR_CLASS_TOOL_FAILED,
		    str_printf("the target did not answer (100%% packet "
		    "loss): %zu hop%s, the last %s", n, PLURAL(n), n > 0 &&
		    h[n - 1].address[0] ? h[n - 1].address : "silent"));
	rec->ok = 1;
	return 0;
}
