/*
 * Fan-out ping: the remote script and the splitting of its output. The
 * script is POSIX sh. With fping it runs one `fping -C` over every target
 * and prints its report between "np-fping STATUS" and "np-fping-end" in
 * one printf, when nothing else writes. Otherwise each target gets a
 * background `ping | tag` pipeline: the tag loop prefixes every line with
 * the target's position and writes it with one printf, and a line written
 * in one write(2) of less than PIPE_BUF bytes is never torn by the other
 * writers of the pipe, so the lines of different targets interleave but
 * never mix. "IDX np-exit STATUS" closes a target's part. Everything the
 * script starts stays in the channel's process group, so the engine's kill
 * reaches every ping. fping is preferred because it is one process per
 * host: a ping per pair is N(N-1) process starts per sweep, which on a
 * small shared machine costs more than the sweep itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fanout.h"
#include "probe_ping.h"
#include "record.h"
#include "shell.h"
#include "util.h"

#define LINE_MAX_LEN 4096	/* longer lines are cut (ping's are ~70) */
#define TEXT_MAX_LEN (1u << 20)	/* per target; beyond, output is dropped */
#define EXIT_MARK "np-exit "
#define FPING_MARK "np-fping "
#define FPING_END "np-fping-end"

struct fanout_split {
	char *source;
	char **addresses;
	size_t n, n_done;
	struct buf *texts;	/* ping: each target's output so far */
	unsigned char *done;
	char line[LINE_MAX_LEN];
	size_t line_len;
	int in_fping, fping_status, understood;
	struct buf fping_other;	/* fping lines that name no target */
	fanout_outcome_cb cb;
	void *arg;
};

/* An address as a shell word: as it is when plain, else quoted. */
static int
put_word(FILE *f, const char *s)
{
	char *q;

	if (shell_is_plain_word(s))
		return fputs(s, f) < 0 ? NP_ERR_NOMEM : 0;
	if ((q = shell_quote(s)) == NULL)
		return NP_ERR_NOMEM;
	fputs(q, f);
	free(q);
	return 0;
}

/* fping's period and per-packet timeout, in ms, for ping's interval. */
static int
fping_period_ms(const struct probe_settings *ps)
{
	double ms = (ps->ping_interval > 0 ? ps->ping_interval : 1.0) * 1000;

	return ms < 1 ? 1 : (int)(ms + 0.5);
}

static void
put_fping(FILE *f, const struct probe_settings *ps, char *const *addresses,
    size_t n, int forced)
{
	int period = fping_period_ms(ps), gap;
	size_t i;

	/* the targets' packets spread over the period (at most fping's
	   default 10 ms apart), not sent in one burst */
	gap = n > 0 ? period / (int)n : 10;
	gap = gap < 1 ? 1 : gap > 10 ? 10 : gap;
	/* fping refuses some settings (a period below its minimum): then
	   status 3 or 4, and ping does the work unless fping was asked for */
	fprintf(f, "%s\no=$(fping -C %d -p %d -t %d -i %d -q",
	    forced ? "{" : "if command -v fping >/dev/null 2>&1; then",
	    ps->ping_count, period, period < 500 ? 500 : period, gap);
	for (i = 0; i < n; i++) {
		fputc(' ', f);
		put_word(f, addresses[i]);
	}
	fprintf(f, " 2>&1); s=$?\n");
	if (forced)
		fprintf(f, "printf '" FPING_MARK "%%s\\n%%s\\n" FPING_END
		    "\\n' \"$s\" \"$o\"; exit 0\n}\n");
	else
		fprintf(f, "if [ \"$s\" -le 2 ]; then printf '" FPING_MARK
		    "%%s\\n%%s\\n" FPING_END "\\n' \"$s\" \"$o\"; exit 0; fi\n"
		    "fi\n");
}

char *
fanout_command(const struct probe_settings *ps, char *const *addresses,
    size_t n, enum fanout_tool tool)
{
	char *s = NULL;
	size_t len = 0, i;
	FILE *f;

	if ((f = open_memstream(&s, &len)) == NULL)
		return NULL;
	/* the first line tells netprof when the pings start on the host */
	fprintf(f, "LC_ALL=C; export LC_ALL; echo np-start\n");
	if (tool != FANOUT_TOOL_PING)
		put_fping(f, ps, addresses, n, tool == FANOUT_TOOL_FPING);
	if (tool != FANOUT_TOOL_FPING) {
		fprintf(f, "np_ping() { ping -c %d -i %g \"$1\" 2>&1; "
		    "echo \"" EXIT_MARK "$?\"; }\n"
		    "np_tag() { while IFS= read -r l; do "
		    "printf '%%s %%s\\n' \"$1\" \"$l\"; done; }\n",
		    ps->ping_count, ps->ping_interval > 0 ? ps->ping_interval :
		    1.0);
		for (i = 0; i < n; i++) {
			fputs("np_ping ", f);
			put_word(f, addresses[i]);
			fprintf(f, " | np_tag %zu &\n", i);
		}
		fputs("wait\n", f);
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

char *
fanout_target_command(const struct probe_settings *ps, const char *address,
    int fping)
{
	char *argv[12], count[16], period[16], timeout[16];
	int p = fping_period_ms(ps);

	if (!fping) {	/* the fanned-out kind's own command */
		const struct probe_kind *k = probe_kinds;

		while (k->name != NULL && !(k->flags & PROBE_FANOUT))
			k++;
		return k->name != NULL ? k->command(ps, address) : NULL;
	}
	snprintf(count, sizeof count, "%d", ps->ping_count);
	snprintf(period, sizeof period, "%d", p);
	snprintf(timeout, sizeof timeout, "%d", p < 500 ? 500 : p);
	argv[0] = "LC_ALL=C";
	argv[1] = "fping";
	argv[2] = "-C";
	argv[3] = count;
	argv[4] = "-p";
	argv[5] = period;
	argv[6] = "-t";
	argv[7] = timeout;
	argv[8] = "-q";
	argv[9] = (char *)address;
	return shell_join(argv, 10);
}

/* ------------------------------------------------------------------ */

/* Append to a target's text, up to TEXT_MAX_LEN (a runaway output: the
   start is kept). */
static int
text_add(struct buf *t, const char *s, size_t n)
{
	if (t->len + n + 1 > TEXT_MAX_LEN)
		return 0;
	return buf_append(t, s, n);
}

int
fanout_outcome_from_ping(const char *source, const char *text,
    int exit_status, struct fanout_outcome *o)
{
	struct probe_output po = { .out = text, .len = strlen(text),
	    .err = text, .exit_status = exit_status, .host = source,
	    .who = "" };

	o->ping = NULL;
	return probe_ping_classify(&po, &o->ping, &o->rec);
}

/* Hand target i its outcome (once), then free what the callback left. */
static void
deliver(struct fanout_split *sp, size_t i, struct fanout_outcome *o)
{
	o->index = i;
	sp->done[i] = 1;
	sp->n_done++;
	buf_free(&sp->texts[i]);
	sp->cb(o, sp->arg);
	ping_result_free(o->ping);
	record_outcome_clear(&o->rec);
}

static int
ping_exit(struct fanout_split *sp, size_t i, int status)
{
	struct fanout_outcome o = { 0 };
	int r;

	r = fanout_outcome_from_ping(sp->source, sp->texts[i].data != NULL ?
	    sp->texts[i].data : "", status, &o);
	if (r != 0) {
		ping_result_free(o.ping);
		record_outcome_clear(&o.rec);
		return r;
	}
	deliver(sp, i, &o);
	return 0;
}

/* "IDX rest": a line of target IDX's ping. */
static int
tagged_line(struct fanout_split *sp, const char *line)
{
	char *end;
	unsigned long i = strtoul(line, &end, 10);

	if (end == line || *end != ' ' || i >= sp->n || sp->done[i])
		return 0;	/* remote_setup's output, a banner: not ours */
	sp->understood = 1;
	end++;
	if (strncmp(end, EXIT_MARK, strlen(EXIT_MARK)) == 0)
		return ping_exit(sp, i, atoi(end + strlen(EXIT_MARK)));
	if (text_add(&sp->texts[i], end, strlen(end)) != 0 ||
	    text_add(&sp->texts[i], "\n", 1) != 0)
		return NP_ERR_NOMEM;
	return 0;
}

/* "ADDRESS : 0.04 0.05 - 0.03": fping -C's report for one target. */
static int
fping_line(struct fanout_split *sp, const char *line)
{
	struct fanout_outcome o = { 0 };
	double v[4096];
	size_t i, n = 0, alen = strcspn(line, " ");
	const char *p = line + alen;
	int sent = 0, r;
	char *end;

	for (i = 0; i < sp->n; i++) {
		if (!sp->done[i] && strlen(sp->addresses[i]) == alen &&
		    strncmp(sp->addresses[i], line, alen) == 0)
			break;
	}
	p += strspn(p, " ");
	if (i == sp->n || *p != ':')
		return text_add(&sp->fping_other, line, strlen(line)) != 0 ||
		    text_add(&sp->fping_other, "\n", 1) != 0 ? NP_ERR_NOMEM : 0;
	for (p++; *(p += strspn(p, " ")) != '\0'; sent++) {
		if (*p == '-') {
			p++;
			continue;
		}
		if (n == sizeof v / sizeof v[0])
			break;
		v[n] = strtod(p, &end);
		if (end == p)
			break;
		n++;
		p = end;
	}
	o.fping = 1;
	if ((r = ping_result_from_samples(sent, v, n, &o.ping)) != 0)
		return r;
	if ((r = probe_ping_judge(o.ping, &o.rec)) != 0) {
		ping_result_free(o.ping);
		record_outcome_clear(&o.rec);
		return r;
	}
	deliver(sp, i, &o);
	return 0;
}

/* The end of fping's report: targets it did not report failed. */
static void
fping_end(struct fanout_split *sp)
{
	const char *other = sp->fping_other.data != NULL ?
	    sp->fping_other.data : "";
	int missing = sp->fping_status == 127 ||
	    strstr(other, ": not found") != NULL;
	char *line = probe_ping_reason(other);
	size_t i;

	for (i = 0; i < sp->n; i++) {
		struct fanout_outcome o = { 0 };

		if (sp->done[i])
			continue;
		o.fping = 1;
		if (missing)
			probe_outcome_fail(&o.rec, ERROR_CLASS_TOOL_MISSING,
			    str_printf("%s: fping is not installed or not on "
			    "PATH there (exit %d)", sp->source,
			    sp->fping_status));
		else
			probe_outcome_fail(&o.rec, ERROR_CLASS_TOOL_FAILED,
			    str_printf("fping exited %d without a result for "
			    "%s%s%s", sp->fping_status, sp->addresses[i],
			    line != NULL ? ": " : "", line != NULL ? line : ""));
		deliver(sp, i, &o);
	}
	free(line);
	buf_free(&sp->fping_other);
}

static int
split_line(struct fanout_split *sp, const char *line)
{
	if (sp->in_fping) {
		if (strcmp(line, FPING_END) == 0) {
			sp->in_fping = 0;
			fping_end(sp);
			return 0;
		}
		return fping_line(sp, line);
	}
	if (strncmp(line, FPING_MARK, strlen(FPING_MARK)) == 0) {
		sp->in_fping = 1;
		sp->understood = 1;
		sp->fping_status = atoi(line + strlen(FPING_MARK));
		return 0;
	}
	return tagged_line(sp, line);
}

/*
 * Made as every context of ours is (calloc, then its callback, argument
 * and owned copies; a copy finder pairs it with node_api_call(),
 * engine_tunnel_open() and transport_ssh_host_get()): the fields are each
 * struct's own, and a shared constructor would only take them back as
 * arguments.
 */
int
fanout_split_new(const char *source, char *const *addresses, size_t n,
    fanout_outcome_cb on_outcome, void *arg, struct fanout_split **out)
{
	struct fanout_split *sp;
	size_t i;

	*out = NULL;
	if ((sp = calloc(1, sizeof *sp)) == NULL)
		return NP_ERR_NOMEM;
	sp->n = n;
	sp->cb = on_outcome;
	sp->arg = arg;
	if ((sp->source = strdup(source)) == NULL ||
	    (sp->addresses = calloc(n + 1, sizeof *sp->addresses)) == NULL ||
	    (sp->texts = calloc(n + 1, sizeof *sp->texts)) == NULL ||
	    (sp->done = calloc(n + 1, 1)) == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		if ((sp->addresses[i] = strdup(addresses[i])) == NULL)
			goto nomem;
	}
	*out = sp;
	return 0;
nomem:
	fanout_split_free(sp);
	return NP_ERR_NOMEM;
}

int
fanout_split_feed(struct fanout_split *sp, const char *buf, size_t len)
{
	const char *nl;
	size_t take;
	int r;

	while (len > 0) {
		nl = memchr(buf, '\n', len);
		take = nl != NULL ? (size_t)(nl - buf) : len;
		if (take > sizeof sp->line - 1 - sp->line_len)
			take = sizeof sp->line - 1 - sp->line_len;
		memcpy(sp->line + sp->line_len, buf, take);
		sp->line_len += take;
		if (nl == NULL) {
			/* a line longer than the buffer: the rest is cut */
			return 0;
		}
		sp->line[sp->line_len] = '\0';
		sp->line_len = 0;
		if ((r = split_line(sp, sp->line)) != 0)
			return r;
		len -= (size_t)(nl - buf) + 1;
		buf = nl + 1;
	}
	return 0;
}

void
fanout_split_end(struct fanout_split *sp, enum error_class error_class,
    const char *why)
{
	size_t i;

	if (sp->line_len > 0) {		/* a last line without its newline */
		sp->line[sp->line_len] = '\0';
		sp->line_len = 0;
		(void)split_line(sp, sp->line);
	}
	if (sp->in_fping) {
		sp->in_fping = 0;
		fping_end(sp);
	}
	for (i = 0; i < sp->n; i++) {
		struct fanout_outcome o = { 0 };

		if (sp->done[i])
			continue;
		probe_outcome_fail(&o.rec, error_class, why != NULL ?
		    strdup(why) :
		    str_printf("%s: the fan-out printed no result for %s",
		    sp->source, sp->addresses[i]));
		deliver(sp, i, &o);
	}
}

int
fanout_split_understood(const struct fanout_split *sp)
{
	return sp->understood;
}

size_t
fanout_split_done(const struct fanout_split *sp)
{
	return sp->n_done;
}

void
fanout_split_free(struct fanout_split *sp)
{
	size_t i;

	if (sp == NULL)
		return;
	for (i = 0; i < sp->n; i++) {
		if (sp->addresses != NULL)
			free(sp->addresses[i]);
		if (sp->texts != NULL)
			buf_free(&sp->texts[i]);
	}
	buf_free(&sp->fping_other);
	free(sp->addresses);
	free(sp->texts);
	free(sp->done);
	free(sp->source);
	free(sp);
}
