/*
 * netprof check: is every host ready? All hosts are asked at once, through
 * the engine, with one small shell script per host that reports the
 * architecture and which of the tools netprof drives are on PATH (after the
 * machine's remote_setup). Connection, host key and authentication
 * failures come from the engine itself. The verdict per host is a table on
 * stdout (or JSON with --json); the exit status is 0 only when every host
 * is ready for what --for asks.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bounds.h"
#include "cmd.h"
#include "engine.h"
#include "engine_route.h"
#include "error.h"
#include "inventory.h"
#include "json_write.h"
#include "log.h"
#include "option.h"
#include "probe.h"
#include "probe_kind.h"
#include "runner.h"
#include "util.h"

/* What --for asks for, in the order of purpose_names[] (a bit each). */
enum { FOR_COLLECT = 1, FOR_IPERF = 2, FOR_BENCH = 4, FOR_ALL = 8 };

/* A tool netprof runs on hosts: the kinds' (their rows' tool), and bench's
   node's launcher's, bash and curl (its start, its calls where no SSH
   channel carries them). */
struct check_tool {
	const char *name;
	const char *package;	/* NULL: a binary of the user's */
	unsigned purposes;	/* FOR_* that need it */
};
#define CHECK_TOOLS_MAX (PROBE_KINDS_MAX + 2)

/* The tools in the report's order: bash, the kinds' in the table's
   order, curl. */
static size_t
check_tools(struct check_tool *t)
{
	const struct probe_kind *k;
	size_t n = 0, i;

	t[n++] = (struct check_tool){ "bash", "bash", FOR_BENCH | FOR_ALL };
	for (k = probe_kinds; k->name != NULL; k++) {
		for (i = 0; i < n && strcmp(t[i].name, k->tool) != 0; i++)
			;
		if (i == n)
			t[n++] = (struct check_tool){ k->tool, k->package,
			    FOR_ALL };
		t[i].purposes |= (k->flags & PROBE_DEFAULT ? FOR_COLLECT |
		    FOR_IPERF : 0) | (k->flags & PROBE_IPERF ? FOR_IPERF : 0) |
		    (k->via == PROBE_VIA_NODE ? FOR_BENCH : 0);
	}
	t[n++] = (struct check_tool){ "curl", "curl", FOR_BENCH | FOR_ALL };
	return n;
}

/*
 * Run on each host. Prints "arch M", one "tool NAME PATH|-" line per tool,
 * and for a user's binary "rc NAME N": whether it can be executed at all
 * (126 is the shell's "cannot execute", e.g. a binary of another
 * architecture). uname is looked for in /bin and /usr/bin too:
 * remote_setup may have left a PATH without it, and the architecture is
 * what the advice is about. NULL: no memory.
 */
static char *
check_script(const struct check_tool *t, size_t n)
{
	char names[256] = "", rc[512] = "";
	size_t i, used = 0, rc_used = 0;

	for (i = 0; i < n; i++) {
		used += (size_t)snprintf(names + used, sizeof names - used,
		    "%s%s", i ? " " : "", t[i].name);
		if (t[i].package == NULL)
			rc_used += (size_t)snprintf(rc + rc_used,
			    sizeof rc - rc_used, "if command -v %s >/dev/null "
			    "2>&1; then %s --help >/dev/null 2>&1 </dev/null; "
			    "echo \"rc %s $?\"; fi; ", t[i].name, t[i].name,
			    t[i].name);
	}
	return str_printf("LC_ALL=C; export LC_ALL; "
	    "a=$(uname -m 2>/dev/null || /bin/uname -m 2>/dev/null || "
	    "/usr/bin/uname -m 2>/dev/null); echo \"arch ${a:--}\"; "
	    "for t in %s; do "
	    "p=$(command -v \"$t\" 2>/dev/null) || p=-; echo \"tool $t $p\"; "
	    "done; %s", names, rc);
}

struct check_run;

struct host_check {
	struct check_run *run;
	const struct machine *machine;
	int done;
	int error;			/* engine error, NP_OK if the script ran */
	char *error_text;
	char *arch;
	char *tool_path[CHECK_TOOLS_MAX];	/* NULL when missing */
	int rc[CHECK_TOOLS_MAX];	/* a user's binary's --help: -1 when
					   not run */
	double elapsed_s;
	char *route;			/* where it goes (engine_route.h) */
};

struct check_run {
	struct runner *runner;
	struct host_check *hosts;
	size_t n_hosts, n_done;
	unsigned needs;			/* FOR_* */
	struct check_tool tools[CHECK_TOOLS_MAX];
	size_t n_tools;
};

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* Fill h from the script's output. */
static void
check_parse(struct host_check *h, const char *out)
{
	const struct check_run *run = h->run;
	char *copy = strdup(out), *line, *save = NULL;
	size_t i;
	int rc;

	if (copy == NULL)
		return;
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char name[32], path[4096];

		if (strncmp(line, "arch ", 5) == 0) {
			free(h->arch);
			h->arch = NULL;
			if (line[5] != '\0' && strcmp(line + 5, "-") != 0)
				h->arch = strdup(line + 5);
		} else if (sscanf(line, "tool %31s %4095s", name, path) == 2) {
			for (i = 0; i < run->n_tools; i++) {
				if (strcmp(name, run->tools[i].name) != 0 ||
				    strcmp(path, "-") == 0)
					continue;
				free(h->tool_path[i]);
				h->tool_path[i] = strdup(path);
			}
		} else if (sscanf(line, "rc %31s %d", name, &rc) == 2) {
			for (i = 0; i < run->n_tools; i++)
				if (strcmp(name, run->tools[i].name) == 0)
					h->rc[i] = rc;
		}
	}
	free(copy);
}

/* The script got as far as its last tool line. */
static int
last_tool_said(const struct check_run *run, const char *out)
{
	char line[64];

	snprintf(line, sizeof line, "tool %s",
	    run->tools[run->n_tools - 1].name);
	return strstr(out, line) != NULL;
}

static void
host_check_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct host_check *h = arg;

	if (++h->run->n_done == h->run->n_hosts)
		runner_finish(h->run->runner);
	h->done = 1;
	h->error = res->error;
	h->elapsed_s = res->ended_at - res->queued_at;
	if (res->error != NP_OK) {
		h->error_text = dup_or_null(res->error_text != NULL ?
		    res->error_text : error_string(res->error));
		log_debug(m->name, "check failed: %s", h->error_text);
		return;
	}
	check_parse(h, res->out);
	if (res->exit_status != 0 && !last_tool_said(h->run, res->out)) {
		int len = (int)res->err_len;

		while (len > 0 && (res->err[len - 1] == '\n' ||
		    res->err[len - 1] == '\r'))
			len--;
		h->error = NP_ERR_PROTOCOL;
		if (asprintf(&h->error_text, "the check did not run: the "
		    "remote shell exited with status %d (%.*s); check the "
		    "machine's remote_setup", res->exit_status, len > 0 ?
		    len : 18, len > 0 ? res->err : "no error output") < 0)
			h->error_text = NULL;
	}
}

static int
host_missing(const struct check_run *run, const struct host_check *h,
    size_t tool)
{
	return (run->needs & run->tools[tool].purposes) &&
	    h->tool_path[tool] == NULL;
}

/* A user's binary there that cannot be executed, and run needs it. */
static int
host_noexec(const struct check_run *run, const struct host_check *h,
    size_t tool)
{
	return (run->needs & run->tools[tool].purposes) && h->rc[tool] == 126;
}

static int
host_ready(const struct check_run *run, const struct host_check *h)
{
	size_t i;

	if (!h->done || h->error != NP_OK)
		return 0;
	for (i = 0; i < run->n_tools; i++)
		if (host_missing(run, h, i) || host_noexec(run, h, i))
			return 0;
	return 1;
}

/* Connect, host key, auth: how far the session got, from the error. */
enum check_step { STEP_CONNECT, STEP_HOSTKEY, STEP_AUTH };

static const char *
step_state(const struct host_check *h, enum check_step step)
{
	enum check_step failed_at;
	const char *why = "FAIL";

	if (!h->done)
		return "?";
	/* a job step, remote_command's program, a local shell: no host key
	   and no authentication of netprof's (the notes say why); CONNECT is
	   whether the step, the program or the shell started */
	if (engine_route_no_login(h->machine) != NULL && step != STEP_CONNECT)
		return h->error == NP_ERR_CANCELLED ? "?" : "n/a";
	switch (h->error) {
	case NP_ERR_CONNECT: failed_at = STEP_CONNECT; break;
	case NP_ERR_SPAWN: failed_at = STEP_CONNECT; break;	/* no rcc */
	case NP_ERR_PROTOCOL:	/* the script did not run */
		if (h->machine->transport != TRANSPORT_COMMAND)
			return "ok";
		failed_at = STEP_CONNECT;	/* the program did not get there */
		break;
	case NP_ERR_HOSTKEY_UNKNOWN: failed_at = STEP_HOSTKEY; why = "UNKNOWN"; break;
	case NP_ERR_HOSTKEY_CHANGED: failed_at = STEP_HOSTKEY; why = "CHANGED"; break;
	case NP_ERR_AUTH: failed_at = STEP_AUTH; break;
	case NP_ERR_CANCELLED: return "?";	/* interrupted: unknown */
	default: return "ok";
	}
	if (step < failed_at)
		return "ok";
	return step == failed_at ? why : "-";
}

/*
 * A name that does not resolve, when it is the machine's name standing
 * in for ssh_host (upstream's files have no ssh_host): say that SSH goes
 * to ssh_host and peers to address, which are not the same thing.
 */
static void
print_login_hint(const struct host_check *h, const char *text, FILE *f)
{
	const struct machine *m = h->machine;

	if (m->transport != TRANSPORT_SSH || h->error != NP_ERR_CONNECT ||
	    strstr(text, "cannot resolve") == NULL ||
	    strcmp(m->ssh_host, m->address) == 0 ||
	    (strcmp(m->ssh_host, m->name) != 0 && (m->rcc_host == NULL ||
	    strcmp(m->ssh_host, m->rcc_host) != 0)))
		return;
	fprintf(f, "  %s: netprof logs in to the machine's ssh_host, which is "
	    "its %s \"%s\" when not given; \"address\" (%s) is where the "
	    "other machines dial it. Give \"ssh_host\": \"%s\" (or the "
	    "login node's name), or a \"Host %s\" block with its HostName "
	    "in ~/.ssh/config\n", m->name, strcmp(m->ssh_host, m->name) == 0 ?
	    "name" : "rcc_host", m->ssh_host, m->address, m->address,
	    m->ssh_host);
}

/*
 * A connection refused or unanswered: what to look at, and the ssh line
 * that tries the same login (the route's user@host:port and its jump
 * host, as the ssh config gave them).
 */
static void
print_connect_hint(const struct host_check *h, const char *text, FILE *f)
{
	const char *route = h->route, *via, *colon, *jump = NULL;
	int refused = text != NULL && strstr(text, "refused") != NULL;
	int port_len;
	size_t login_len;

	if (h->machine->transport != TRANSPORT_SSH || route == NULL ||
	    (!refused && strstr(text, "timed out") == NULL))
		return;
	via = strstr(route, " via ");
	login_len = via != NULL ? (size_t)(via - route) : strlen(route);
	for (colon = route + login_len; colon > route && *colon != ':'; colon--)
		;
	if (*colon != ':')
		return;
	port_len = (int)(route + login_len - colon - 1);
	if (via != NULL && strncmp(via + 5, "ProxyCommand", 12) != 0)
		jump = via + 5;
	if (refused)
		fprintf(f, "    nothing listens on port %.*s there: is sshd "
		    "running on %s (systemctl status ssh)? is %.*s its port (the "
		    "machine's \"port\", or Port in ~/.ssh/config)? does a "
		    "firewall reject it?\n", port_len, colon + 1,
		    h->machine->name, port_len, colon + 1);
	else
		fprintf(f, "    no answer: is the address right, the host up, "
		    "and port %.*s let through by the firewalls on the way? "
		    "on a slow network: --connect-timeout S\n", port_len,
		    colon + 1);
	fprintf(f, "    try: ssh -v -p %.*s%s%s %.*s true\n", port_len,
	    colon + 1, jump != NULL ? " -J " : "", jump != NULL ? jump : "",
	    (int)(colon - route), route);
}

/* The fix for what is wrong with h, in plain words; NULL when ready. */
static void
print_advice(const struct check_run *run, const struct host_check *h,
    FILE *f)
{
	const char *name = h->machine->name;
	size_t i;

	if (h->error != NP_OK) {
		const char *text = h->error_text != NULL ? h->error_text :
		    error_string(h->error);
		size_t len = strlen(name);

		/* the engine's texts start with the host's name already */
		if (strncmp(text, name, len) == 0 && (text[len] == ':' ||
		    text[len] == ' '))
			fprintf(f, "  %s\n", text);
		else
			fprintf(f, "  %s: %s\n", name, text);
		print_login_hint(h, text, f);
		print_connect_hint(h, text, f);
		return;
	}
	for (i = 0; i < run->n_tools; i++) {
		const struct check_tool *t = &run->tools[i];

		if (!host_missing(run, h, i))
			continue;
		if (t->package == NULL)
			fprintf(f, "  %s: %s is not on PATH: put the binary "
			    "for %s on the host and add its directory to PATH "
			    "with remote_setup in the inventory, e.g. \"export "
			    "PATH=$HOME/%s-bench-bin/$(uname -m):$PATH\"\n",
			    name, t->name, h->arch != NULL ? h->arch :
			    "its architecture", t->name);
		else
			fprintf(f, "  %s: %s is not on PATH: install it "
			    "(Debian: apt-get install %s; HPC: module load "
			    "%s) or extend PATH with remote_setup\n", name,
			    t->name, t->package, t->name);
	}
	for (i = 0; i < run->n_tools; i++)
		if (host_noexec(run, h, i))
			fprintf(f, "  %s: %s cannot be executed (wrong "
			    "architecture? the host is %s): install the %s "
			    "build and use the $(uname -m) PATH trick in "
			    "remote_setup\n", name, h->tool_path[i],
			    h->arch != NULL ? h->arch : "?", h->arch != NULL ?
			    h->arch : "matching");
}

/* A tool's cell in the table. */
static const char *
tool_state(const struct check_run *run, const struct host_check *h,
    size_t tool)
{
	if (h->error != NP_OK)
		return "-";
	if (h->tool_path[tool] == NULL)
		return host_missing(run, h, tool) ? "MISSING" : "no";
	if (h->rc[tool] == 126)
		return "NOEXEC";
	return "yes";
}

/* Why HOSTKEY and AUTH say n/a, once per reason, with its hosts. */
static void
print_na_notes(const struct check_run *run, FILE *f)
{
	const char *why, *other;
	size_t i, j;
	int shown;

	for (i = 0; i < run->n_hosts; i++) {
		if ((why = engine_route_no_login(run->hosts[i].machine)) == NULL)
			continue;
		for (j = 0; j < i; j++)
			if ((other = engine_route_no_login(
			    run->hosts[j].machine)) != NULL && other == why)
				break;
		if (j < i)
			continue;	/* said already */
		fprintf(f, "n/a (HOSTKEY, AUTH of");
		for (j = i, shown = 0; j < run->n_hosts; j++)
			if (engine_route_no_login(run->hosts[j].machine) == why)
				fprintf(f, "%s %s", shown++ ? "," : "",
				    run->hosts[j].machine->name);
		fprintf(f, "): %s\n", why);
	}
}

/* TARGET's width: the longest route, up to ROUTE_COLUMN */
#define ROUTE_COLUMN 48

static void
print_table(const struct check_run *run, FILE *f)
{
	size_t i, t, ready = 0;
	int w = 4, rw = 6;

	for (i = 0; i < run->n_hosts; i++) {
		int len = (int)strlen(run->hosts[i].machine->name);
		w = len > w ? len : w;
		len = run->hosts[i].route != NULL ?
		    (int)strlen(run->hosts[i].route) : 1;
		rw = len > rw ? len : rw;
	}
	if (rw > ROUTE_COLUMN)
		rw = ROUTE_COLUMN;
	fprintf(f, "%-*s  %-*s  %-7s %-8s %-5s %-8s", w, "HOST", rw, "TARGET",
	    "CONNECT", "HOSTKEY", "AUTH", "ARCH");
	for (t = 0; t < run->n_tools; t++)
		fprintf(f, " %-7s", run->tools[t].name);
	fprintf(f, " READY\n");
	for (i = 0; i < run->n_hosts; i++) {
		const struct host_check *h = &run->hosts[i];
		int ok = host_ready(run, h);

		const char *route = h->route != NULL ? h->route : "?";

		ready += ok;
		if ((int)strlen(route) > rw)
			fprintf(f, "%-*s  %.*s...  ", w, h->machine->name, rw - 3,
			    route);
		else
			fprintf(f, "%-*s  %-*s  ", w, h->machine->name, rw, route);
		fprintf(f, "%-7s %-8s %-5s %-8s",
		    step_state(h, STEP_CONNECT), step_state(h, STEP_HOSTKEY),
		    step_state(h, STEP_AUTH),
		    h->arch != NULL ? h->arch : "-");
		for (t = 0; t < run->n_tools; t++)
			fprintf(f, " %-7s", tool_state(run, h, t));
		fprintf(f, " %s\n", ok ? "yes" : "NO");
	}
	fprintf(f, "\n");
	print_na_notes(run, f);
	fprintf(f, "%zu of %zu hosts ready\n", ready, run->n_hosts);
	if (ready == run->n_hosts)
		return;
	fprintf(f, "\nWhat to do:\n");
	for (i = 0; i < run->n_hosts; i++)
		print_advice(run, &run->hosts[i], f);
}

static cJSON *
host_json(const struct check_run *run, const struct host_check *h)
{
	cJSON *o = cJSON_CreateObject(), *tools = cJSON_CreateObject();
	size_t t;

	cJSON_AddStringToObject(o, "name", h->machine->name);
	cJSON_AddStringToObject(o, "address", h->machine->address);
	json_add_string_or_null(o, "target", h->route);
	json_add_string_or_null(o, "no_login", engine_route_no_login(
	    h->machine));
	cJSON_AddBoolToObject(o, "ready", host_ready(run, h));
	cJSON_AddStringToObject(o, "connect", step_state(h, STEP_CONNECT));
	cJSON_AddStringToObject(o, "host_key", step_state(h, STEP_HOSTKEY));
	cJSON_AddStringToObject(o, "auth", step_state(h, STEP_AUTH));
	if (h->arch != NULL)
		cJSON_AddStringToObject(o, "arch", h->arch);
	else
		cJSON_AddNullToObject(o, "arch");
	for (t = 0; t < run->n_tools; t++) {
		if (h->tool_path[t] != NULL)
			cJSON_AddStringToObject(tools, run->tools[t].name,
			    h->tool_path[t]);
		else
			cJSON_AddNullToObject(tools, run->tools[t].name);
	}
	cJSON_AddItemToObject(o, "tools", tools);
	if (h->error_text != NULL)
		cJSON_AddStringToObject(o, "error", h->error_text);
	else
		cJSON_AddNullToObject(o, "error");
	cJSON_AddNumberToObject(o, "elapsed_s", h->elapsed_s);
	return o;
}

static void
print_json(const struct check_run *run, FILE *f)
{
	cJSON *root = cJSON_CreateObject(), *hosts = cJSON_CreateArray();
	size_t i, ready = 0;
	char *text;

	for (i = 0; i < run->n_hosts; i++) {
		ready += host_ready(run, &run->hosts[i]);
		cJSON_AddItemToArray(hosts, host_json(run, &run->hosts[i]));
	}
	cJSON_AddBoolToObject(root, "ready", ready == run->n_hosts);
	cJSON_AddItemToObject(root, "hosts", hosts);
	if ((text = cJSON_Print(root)) != NULL) {
		fprintf(f, "%s\n", text);
		free(text);
	}
	cJSON_Delete(root);
}

static void
check_run_free(struct check_run *run)
{
	size_t i, t;

	for (i = 0; i < run->n_hosts; i++) {
		free(run->hosts[i].error_text);
		free(run->hosts[i].arch);
		free(run->hosts[i].route);
		for (t = 0; t < run->n_tools; t++)
			free(run->hosts[i].tool_path[t]);
	}
	free(run->hosts);
}

/* Ask every host at once; returns an np_error code for setup failures. */
static int
check_hosts(struct check_run *run, const struct inventory *inv,
    const struct runner_options *ro, int *interrupted)
{
	char *script = check_script(run->tools, run->n_tools);
	size_t i;
	int r;

	*interrupted = 0;
	if (script == NULL)
		return NP_ERR_NOMEM;
	if ((r = runner_new(inv, ro, NULL, &run->runner)) != 0)
		goto out;
	for (i = 0; i < run->n_hosts; i++) {
		struct engine_request req = {
			.command = script,
			.timeout_s = inv->connect_timeout_seconds + 20,
			.on_done = host_check_done_cb,
			.arg = &run->hosts[i],
		};

		if ((r = engine_submit(runner_engine(run->runner),
		    run->hosts[i].machine, &req, NULL)) != 0)
			goto out;
	}
	if (run->n_hosts == 0)
		runner_finish(run->runner);
	runner_run(run->runner);
	*interrupted = runner_interrupted(run->runner);
out:
	runner_free(run->runner);
	run->runner = NULL;
	free(script);
	return r;
}

struct check_options {
	struct runner_options common;
	int purpose;		/* index in purpose_names[] */
	int json;
	int connect_timeout;	/* seconds; 0: the inventory's */
};

/* in the order of the FOR_* bits */
static const char *const purpose_names[] = {
	"collect", "iperf", "bench", "all", NULL
};

static const struct option_spec check_specs[] = {
	{ .name = "for", .letter = 'f', .type = OPTION_ENUM,
	  .offset = offsetof(struct check_options, purpose), .arg = "PURPOSE",
	  .choices = purpose_names,
	  .help = "what the hosts must be ready for:\n"
	  "collect (ping; default), iperf (ping,\n"
	  "iperf3), bench (bash, otela, curl), all" },
	{ .name = "json", .letter = 'j', .type = OPTION_FLAG,
	  .offset = offsetof(struct check_options, json),
	  .help = "print a JSON document, not a table" },
	{ .name = "connect-timeout", .type = OPTION_INT,
	  .offset = offsetof(struct check_options, connect_timeout),
	  .arg = "S", .bounds = &bounds_connect_timeout,
	  .help = "seconds to connect and authenticate to a\n"
	  "host (1-3600; default the inventory's\n"
	  "connect_timeout_seconds, else 10)" },
	{ .name = NULL }
};

static const struct option_block check_options_table[] = {
	{ runner_inventory_specs, offsetof(struct check_options, common) },
	{ check_specs, 0 },
	{ runner_session_specs, offsetof(struct check_options, common) },
	{ runner_slurm_specs, offsetof(struct check_options, common) },
	{ NULL, 0 }
};

static int
cmd_check_exec(const struct cmd_entry *self, int argc, char **argv)
{
	struct check_options o = { 0 };
	struct runner_options *ro = &o.common;
	struct check_run run = { 0 };
	struct inventory *inv = NULL;
	int operand, interrupted = 0, exit_code = NP_EXIT_USAGE, r;
	size_t i, t;

	if ((r = option_parse(self, argc, argv, &o, &operand)) != 0)
		return option_exit(r);
	if (runner_need_inventory(self, argc - operand, argv + operand,
	    ro) != NP_EXIT_OK)
		return NP_EXIT_USAGE;
	run.needs = 1u << o.purpose;
	run.n_tools = check_tools(run.tools);

	if ((exit_code = runner_load_inventory(ro, &inv)) != 0)
		goto out;
	if (o.connect_timeout > 0)
		inv->connect_timeout_seconds = o.connect_timeout;
	run.n_hosts = inv->n_machines;
	if ((run.hosts = calloc(run.n_hosts, sizeof *run.hosts)) == NULL) {
		log_error("%s", error_string(NP_ERR_NOMEM));
		exit_code = NP_EXIT_FAILED;
		goto out;
	}
	for (i = 0; i < run.n_hosts; i++) {
		run.hosts[i].run = &run;
		run.hosts[i].machine = &inv->machines[i];
		for (t = 0; t < CHECK_TOOLS_MAX; t++)
			run.hosts[i].rc[t] = -1;
		run.hosts[i].route = engine_route(inv, &inv->machines[i]);
	}
	if ((r = check_hosts(&run, inv, ro, &interrupted)) != 0) {
		log_error("check: %s", error_string(r));
		exit_code = NP_EXIT_FAILED;
		goto out;
	}
	if (o.json)
		print_json(&run, stdout);
	else
		print_table(&run, stdout);
	exit_code = NP_EXIT_OK;
	for (i = 0; i < run.n_hosts; i++)
		if (!host_ready(&run, &run.hosts[i]))
			exit_code = NP_EXIT_FAILED;
	if (interrupted)
		exit_code = NP_EXIT_INTERRUPTED;
out:
	check_run_free(&run);
	inventory_free(inv);
	return exit_code;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.summary = "tell whether every host is reachable and ready",
	.usage = "--config FILE [--hosts HOSTS] [--exclude HOSTS] [--json]\n"
	    "       [--for PURPOSE] [--connect-timeout S] [--accept-new-host-keys]",
	.about =
	    "Connects to every host at once and reports, per host: where its\n"
	    "commands go (TARGET: user@host:port and the jump host, as the ssh\n"
	    "config resolves them; remote_command's program; this machine),\n"
	    "whether it is reachable, its host key is known, authentication\n"
	    "works, its architecture (uname -m) and which of bash, ping,\n"
	    "iperf3, otela and curl are on PATH (after the machine's\n"
	    "remote_setup). MISSING marks a tool that --for needs, NOEXEC an\n"
	    "otela that cannot be executed (a build for another architecture).\n"
	    "HOSTKEY and AUTH are n/a where netprof does not log in (the\n"
	    "command transport's program, a local shell, a Slurm job step),\n"
	    "with the reason below the table; CONNECT is then whether the\n"
	    "program ran (a missing rcc fails it, named). With --slurm, a row\n"
	    "per node of the job, each checked by a job step there (a drained\n"
	    "or down node fails with Slurm's reason).\n",
	.options = check_options_table,
	.notes =
	    "exit status: 0 every host is ready, 1 some host is not, 2 usage or\n"
	    "inventory error, 130 interrupted.\n",
	.examples =
	    "# is every host reachable and ready to collect?\n"
	    "netprof check --config machines.json\n"
	    "# ready for everything (iperf3, the libp2p bench), as JSON\n"
	    "netprof check --config machines.json --for all --json\n"
	    "# four machines of a range, a slow network's connect\n"
	    "netprof check --config machines.json --hosts 'n[1-4]' --connect-timeout 30\n",
	.exec = cmd_check_exec,
};
