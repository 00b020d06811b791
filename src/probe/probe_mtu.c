/*
 * The mtu kind: the largest IP packet that crosses the pair unfragmented,
 * found by pings with don't-fragment set (iputils' `ping -M do`) and a
 * search over sizes, and whether it carries QUIC's 1,200-byte datagrams.
 *
 * A path's MTU is often lower than its hosts' (a tunnel, a VPN, a jumbo
 * frame setting on one side only), and such a path often drops the large
 * packets silently instead of saying so (an ICMP "fragmentation needed"
 * that a firewall drops): small packets cross, large ones vanish, and
 * only a search with packets of each size finds where. tracepath reads
 * those ICMP answers, so it cannot see a silent drop; this search does.
 *
 * The command is a small POSIX sh script on the source. It asks ping for
 * the source's own limit first (a packet too large for the interface fails
 * at once: "message too long, mtu=1500"; one that crosses, on loopback,
 * is the limit; no answer at all, 1,500), tries that size, and when it
 * does not cross searches between the protocol's floor (576 bytes for IPv4,
 * 1,280 for IPv6) and it, one ping per size that waits for the first of up
 * to five echoes a second (so a lossy path's lost echo is not taken for a
 * size too large). It prints what it did, a line a step:
 *
 *   np-mtu local 1500 overhead 28
 *   np-mtu try 1500 lost
 *   np-mtu try 576 ok
 *   ...
 *
 * and the parser takes the largest size that crossed, checked against the
 * smallest that did not. Sizes are whole IP packets (ping's payload plus
 * the IP and ICMP headers, 28 bytes over IPv4, 48 over IPv6).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "probe.h"
#include "probe_kind.h"
#include "probe_ping.h"
#include "record.h"
#include "shell.h"
#include "util.h"

/* Its functions are its row's in the kinds' table (probe_kind.c). */

/* QUIC's smallest datagram (RFC 9000 14.1): a UDP payload of 1,200 bytes */
#define QUIC_DATAGRAM 1200
#define UDP_HEADER 8
#define ICMP_HEADER 8
/* the most sizes the search tries: the local limit, the floor, 68 and a
   binary search up to 65,535 */
#define TRIES_MAX 20
/* one try: the first echo of up to five, within a second */
#define TRY_SECONDS 1.0

/*
 * The script, with the address as its first word ($a): what it prints is
 * above. A ping that fails for another reason than silence (exit 2: no
 * such host; an unknown option: a ping without -M) ends it with ping's
 * status and words on stderr, as the tool's own failure.
 */
static const char script[] =
    "o=28; f=576; case $a in *:*) o=48; f=1280;; esac; "
    "r=$(ping -n -c 1 -w 1 -M do -s 65000 \"$a\" 2>&1) && l=$((65000 + o)) "
    "|| l=1500; "
    "case $r in *mtu=[0-9]*) l=${r##*mtu=}; l=${l%%[!0-9]*};; esac; "
    "[ \"$l\" -ge \"$f\" ] 2>/dev/null || l=1500; "
    "[ $l -le 65535 ] || l=65535; "
    "echo \"np-mtu local $l overhead $o\"; "
    "t() { r=$(ping -n -c 1 -i 0.2 -w 1 -M do -s $(($1 - o)) \"$a\" "
    "2>&1 >/dev/null); s=$?; case $s$r in 1*option*|1*sage*) s=2;; esac; "
    "case $s in 0) echo \"np-mtu try $1 ok\";; "
    "1) echo \"np-mtu try $1 lost\"; return 1;; "
    "*) printf '%s\\n' \"$r\" >&2; exit $s;; esac; }; "
    "t $l && exit 0; lo=0; hi=$l; "
    "if t $f; then lo=$f; elif [ $o = 28 ] && t 68; then lo=68; hi=$f; "
    "else exit 0; fi; "
    "while [ $((hi - lo)) -gt 1 ]; do m=$(((lo + hi) / 2)); "
    "if t $m; then lo=$m; else hi=$m; fi; done";

char *
probe_mtu_command(const struct probe_settings *ps, const char *address)
{
	(void)ps;
	return probe_script_line(address, script);
}

double
probe_mtu_timeout(const struct probe_settings *ps, double connect_timeout)
{
	(void)ps;
	return TRIES_MAX * (TRY_SECONDS + 0.5) + connect_timeout + 5.0;
}

/* a path that takes its hosts' MTU: the first size crosses */
double
probe_mtu_duration(const struct probe_settings *ps)
{
	(void)ps;
	return 0.5;
}

/* What the script printed: the local limit, the sizes that crossed. */
struct search {
	long local, overhead;
	long crossed;		/* the largest that did; 0: none */
	long stopped;		/* the smallest that did not; 0: none */
	int tries;
};

static int
read_search(const char *text, struct search *s)
{
	const char *line;
	long size;
	char word[8];

	memset(s, 0, sizeof *s);
	for (line = text; line != NULL && *line != '\0';
	    line = strchr(line, '\n'), line = line != NULL ? line + 1 : NULL) {
		if (sscanf(line, "np-mtu local %ld overhead %ld", &s->local,
		    &s->overhead) == 2)
			continue;
		if (sscanf(line, "np-mtu try %ld %7s", &size, word) != 2)
			continue;
		s->tries++;
		if (strcmp(word, "ok") == 0 && size > s->crossed)
			s->crossed = size;
		else if (strcmp(word, "lost") == 0 && (s->stopped == 0 ||
		    size < s->stopped))
			s->stopped = size;
	}
	return s->local > 0 && s->overhead > 0 ? 0 : NP_ERR_PARSE;
}

/* The search's figures as the record's metrics. */
static cJSON *
mtu_metrics(const struct search *s)
{
	cJSON *m = cJSON_CreateObject();

	if (m == NULL)
		return NULL;
	if (s->crossed > 0) {
		cJSON_AddNumberToObject(m, "mtu", (double)s->crossed);
		/* the IP header is the overhead's but ICMP's */
		cJSON_AddNumberToObject(m, "quic_ok", s->crossed >=
		    QUIC_DATAGRAM + UDP_HEADER + s->overhead - ICMP_HEADER);
	}
	cJSON_AddNumberToObject(m, "local_mtu", (double)s->local);
	cJSON_AddNumberToObject(m, "tries", s->tries);
	return m;
}

/* The script's output: the path MTU, or why there is none. */
int
probe_mtu_parse(const struct probe_output *o, struct record *rec)
{
	struct search s;
	char *line, *error;

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
	if (read_search(o->out, &s) != 0)
		return probe_outcome_fail(rec, ERROR_CLASS_PARSE,
		    strdup("the path MTU search printed no \"np-mtu local\" "
		    "line"));
	if (record_set_metrics(rec, mtu_metrics(&s)) != 0)
		return NP_ERR_NOMEM;
	if (s.crossed == 0)
		return probe_outcome_fail(rec, ERROR_CLASS_TOOL_FAILED,
		    str_printf("no packet crossed with don't-fragment set, "
		    "%ld bytes and smaller, in %d tries", s.stopped, s.tries));
	if (s.crossed < s.local && s.stopped != s.crossed + 1)
		return probe_outcome_fail(rec, ERROR_CLASS_PARSE,
		    str_printf("the path MTU search did not end: %ld bytes "
		    "crossed, %ld did not", s.crossed, s.stopped));
	rec->ok = 1;
	return 0;
}
