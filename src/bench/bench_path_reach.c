/*
 * The path phase's reach checks as a command and its output
 * (bench_path.c runs it on each host): a TCP connect from the host to
 * each target, all at once, in one bash (its first argument: the wait,
 * then ADDR PORT pairs). Each connect is a fork of that bash by /dev/tcp
 * (no exec); a child that connected prints "I ok US" (US: the connect's
 * time in µs by bash's clock, EPOCHREALTIME; left out by a bash before
 * 5.0), one that failed bash's own ".../dev/tcp/ADDR/PORT: WHY" (stderr,
 * a line a write). A watchdog of the same shell's (read -t on a pipe it
 * holds: no process sleeps) kills the children still connecting after
 * the wait, as a stateful firewall's drop leaves them; the shell then
 * prints "I fail" or "I timeout" for each child that printed no ok. I
 * counts the targets from 0. So a host runs one exec and a process per
 * target, where a connect under timeout(1) in a bash of its own took four
 * processes and two execs per target: the checks share the cores with the
 * nodes, which answer the convergence and the punch meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_path.h"
#include "shell.h"
#include "util.h"

static const char reach_script[] =
    "t=$1 i=0 p=; shift; "
    "while [ $# -ge 2 ]; do "
    "{ s=${EPOCHREALTIME//[!0-9]/}; exec 3<>\"/dev/tcp/$1/$2\" || exit 1; "
    "e=${EPOCHREALTIME//[!0-9]/}; echo \"$i ok${s:+ $((e - s))}\"; } 2>&1 & "
    "p=\"$p $!\" i=$((i + 1)); shift 2; done; "
    "exec 2>/dev/null 9<> <(:); "
    "{ read -t $t -u 9; [ $? -gt 128 ] || sleep $t; kill $p; } & w=$!; "
    "i=0; for q in $p; do wait $q; c=$?; "
    "if [ $c -ge 128 ]; then echo \"$i timeout\"; "
    "elif [ $c != 0 ]; then echo \"$i fail\"; fi; i=$((i + 1)); done; "
    "kill $w; exit 0";

char *
bench_path_reach_command(const struct bench_reach_target *t, size_t n,
    int wait_s)
{
	char **argv, **ports, *words = NULL, *cmd = NULL, wait[16];
	size_t i, argc = 0;

	argv = calloc(2 * n + 6, sizeof *argv);
	ports = calloc(n + 1, sizeof *ports);
	if (argv == NULL || ports == NULL)
		goto out;
	snprintf(wait, sizeof wait, "%d", wait_s);
	argv[argc++] = (char *)"bash";
	argv[argc++] = (char *)"-c";
	argv[argc++] = (char *)reach_script;
	argv[argc++] = (char *)"bash";
	argv[argc++] = wait;
	for (i = 0; i < n; i++) {
		if ((ports[i] = str_printf("%d", t[i].port)) == NULL)
			goto out;
		argv[argc++] = (char *)t[i].address;
		argv[argc++] = ports[i];
	}
	if ((words = shell_join(argv, argc)) != NULL)
		cmd = str_printf("LC_ALL=C %s", words);
out:
	for (i = 0; ports != NULL && i < n; i++)
		free(ports[i]);
	free(ports);
	free(argv);
	free(words);
	return cmd;
}

/* What bash said of t's failed connect, at most 200 bytes of it. */
static char *
reach_why(const struct bench_reach_target *t, const char *out)
{
	char *key = str_printf("/dev/tcp/%s/%d: ", t->address, t->port);
	const char *at = key != NULL ? strstr(out, key) : NULL;
	size_t len;

	if (at == NULL) {
		free(key);
		return strdup("the connect failed");
	}
	at += strlen(key);
	free(key);
	len = strcspn(at, "\n");
	return strndup(at, len < 200 ? len : 200);
}

void
bench_path_reach_read(const struct bench_reach_target *t,
    struct bench_reach *const *r, size_t n, int wait_s, const char *out)
{
	const char *line, *w;
	char *end;
	long idx, us;
	size_t len;

	for (line = out; line != NULL && *line != '\0';
	    line = strchr(line, '\n'), line = line != NULL ? line + 1 : NULL) {
		struct bench_reach *c;

		idx = strtol(line, &end, 10);
		if (end == line || idx < 0 || (size_t)idx >= n || *end != ' ')
			continue;
		w = end + 1;
		len = strcspn(w, "\n");
		c = r[idx];
		if (c->tcp != -1)	/* the first word wins: a child's ok */
			continue;
		if ((len == 2 || (len > 3 && w[2] == ' ')) &&
		    strncmp(w, "ok", 2) == 0) {
			c->tcp = 1;
			c->connect_us = 0;
			if (len > 3 && (us = strtol(w + 3, &end, 10)) > 0 &&
			    us <= 1000000L * wait_s && end == w + len)
				c->connect_us = us;
		} else if (len == 7 && strncmp(w, "timeout", 7) == 0) {
			c->tcp = 0;
			c->why = str_printf("no answer in %d s", wait_s);
		} else if (len == 4 && strncmp(w, "fail", 4) == 0) {
			c->tcp = 0;
			c->why = reach_why(&t[idx], out);
		}
	}
}
