/*
 * The ping kind: `ping -c COUNT -i INTERVAL ADDRESS` on the source, read
 * by ping_parse.c (iputils, busybox, BSD), and the one classifier of what
 * it printed (probe_ping.h). The words are joined with shell_join(), which
 * quotes any word that is not plainly safe, so an inventory address never
 * becomes shell syntax on the remote side; LC_ALL=C gives the parser the
 * same words and decimal points on every host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "probe.h"
#include "probe_ping.h"
#include "record.h"
#include "shell.h"
#include "util.h"

/* Its command and parser are its row's in the kinds' table (probe_kind.c). */

char *
probe_ping_command(const struct probe_settings *ps, const char *address)
{
	char count[16], interval[32];
	char *argv[] = { "LC_ALL=C", "ping", "-c", count, "-i", interval,
	    (char *)address };

	snprintf(count, sizeof count, "%d", ps->ping_count);
	snprintf(interval, sizeof interval, "%g", ps->ping_interval);
	return shell_join(argv, 7);
}

double
probe_ping_timeout(const struct probe_settings *ps, double connect_timeout)
{
	return ps->ping_count * (ps->ping_interval > 0 ? ps->ping_interval :
	    1.0) + connect_timeout + 5.0;
}

double
probe_ping_duration(const struct probe_settings *ps)
{
	return ps->ping_count * ps->ping_interval;
}

char *
probe_ping_reason(const char *text)
{
	const char *p = text, *nl;
	size_t len;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len > 0 && strncmp(p, "PING ", 5) != 0)
			return strndup(p, len > 200 ? 200 : len);
		p += len + (nl != NULL);
	}
	return NULL;
}

int
probe_ping_judge(const struct ping_result *p, struct record *rec)
{
	if (record_set_metrics(rec, ping_result_metrics(p)) != 0)
		return NP_ERR_NOMEM;
	if (p->received == 0)
		return probe_outcome_fail(rec, ERROR_CLASS_TOOL_FAILED,
		    str_printf("100%% packet loss: %d sent, none answered",
		    p->transmitted));
	rec->ok = 1;
	return 0;
}

int
probe_ping_classify(const struct probe_output *o,
    struct ping_result **figures, struct record *rec)
{
	struct ping_result *p = NULL;
	char *cause = NULL, *line;
	int r;

	probe_outcome_start(rec);
	if (figures != NULL)
		*figures = NULL;
	if (probe_tool_missing("ping", o, rec))
		return rec->error != NULL ? 0 : NP_ERR_NOMEM;
	if ((r = ping_parse(o->out, &p, &cause)) == NP_ERR_NOMEM)
		return r;
	if (r != 0) {
		line = o->exit_status != 0 ? probe_ping_reason(o->err) : NULL;
		if (line != NULL) {
			free(cause);
			cause = str_printf("ping exited %d: %s", o->exit_status,
			    line);
			free(line);
			return probe_outcome_fail(rec, ERROR_CLASS_TOOL_FAILED,
			    cause);
		}
		return probe_outcome_fail(rec, ERROR_CLASS_PARSE, cause);
	}
	r = probe_ping_judge(p, rec);
	if (figures != NULL && r == 0)
		*figures = p;
	else
		ping_result_free(p);
	return r;
}

int
probe_ping_parse(const struct probe_output *o, struct record *rec)
{
	return probe_ping_classify(o, NULL, rec);
}
