/*
 * Teardown by PID. The remote script checks the PID against the bench
 * directory before signalling (a PID recycled since the node died belongs
 * to someone else), sends TERM, waits up to the grace (--stop-grace, 0.5 s:
 * the real node's own cleanup, about 10 s, leaves nothing that outlives
 * the run; docs/bench.md), sends KILL, and then verifies that the process
 * is gone (a zombie counts as gone: it holds no port and no file; a
 * loaded host may take a while to free a big process after KILL, so that
 * is waited for too) before removing the directory. Nothing is matched on
 * names, unlike upstream's `pkill -f`. It is begun on every host init
 * reached as soon as no phase ahead needs the nodes (the last probe of
 * the sweep has ended), on a job and a timer of the host's own, and the
 * teardown phase, the run's last, waits for it; `bench --teardown RUN`
 * runs it on every host a run left behind. This file calls into
 * bench_host.c (a step's end), never the other way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "bench_teardown.h"
#include "error.h"
#include "file.h"
#include "log.h"
#include "shell.h"
#include "timeutil.h"
#include "util.h"

/*
 * After KILL, how long (steps of KILL_STEP s) a node may take to be gone:
 * a loaded host may take a while to free a big process, whatever the grace
 * was; but it is mostly gone within milliseconds, and every run with a
 * node that outlives the grace (both known ones) waits for the first step.
 */
#define KILL_STEP "0.02"
#define KILL_WAIT_STEPS 250

char *
bench_teardown_command(const char *dir, long pid, long long start,
    double grace_s)
{
	char *qdir = shell_quote(dir), *s = NULL, p[24] = "", st[24] = "";

	if (pid > 0)
		snprintf(p, sizeof p, "%ld", pid);
	if (pid > 0 && start > 0)
		snprintf(st, sizeof st, "%lld", start);
	if (qdir == NULL)
		return NULL;
	/*
	 * D is touched only if it is the user's own directory (not a link).
	 * P is a positive decimal or nothing: "-1" or "0" would signal every
	 * process the user may. ours: P runs, is not a zombie, one element
	 * of its argv is exactly D (not a substring: ...-h1 is not ...-h10)
	 * and it started when the node did (S, when known). Checked before
	 * every signal and in every wait: on a busy host a PID freed by the
	 * node may belong to someone else a moment later. With S the argv is
	 * read once (a PID and its start time name one process), and a check
	 * forks nothing: /proc/P/stat read by the shell itself, as its
	 * fields, so that a wait's steps of 0.1 s are not stretched on a
	 * loaded host by a pipeline of processes each.
	 */
	s = str_printf(
	    "D=%s; P=%s; S=%s; mine=0; by=; seen=0\n"
	    "if [ -L \"$D\" ] || { [ -e \"$D\" ] && { [ ! -d \"$D\" ] || "
	    "[ ! -O \"$D\" ]; }; }; then\n"
	    "  echo \"$D is not a directory of this user (a link, or made by "
	    "someone else): left alone\" >&2; exit 1\n"
	    "fi\n"
	    "[ -d \"$D\" ] && mine=1\n"
	    "if [ -z \"$P\" ] && [ $mine = 1 ] && [ -f \"$D/pid\" ] && "
	    "[ ! -L \"$D/pid\" ]; then\n"
	    "  P=$(head -c 24 \"$D/pid\" | tr -d '\\n')\n"
	    "  case $P in\n"
	    "  [1-9]|[1-9]*[0-9]) case $P in *[!0-9]*|???????????*) P=bad;; esac;;\n"
	    "  *) P=bad;;\n"
	    "  esac\n"
	    "  if [ \"$P\" = bad ]; then echo \"$D/pid holds no PID: the "
	    "node may still run; $D left in place\" >&2; exit 1; fi\n"
	    "fi\n"
	    "if [ -z \"$P\" ] && [ $mine = 1 ] && [ -e \"$D/log\" ]; then\n"
	    "  echo \"no PID known for the node started in $D: the node may "
	    "still run; $D left in place\" >&2; exit 1\n"
	    "fi\n"
	    "ours() {\n"
	    "  kill -0 \"$P\" 2>/dev/null || return 1\n"
	    "  read -r t 2>/dev/null </proc/\"$P\"/stat || return 1\n"
	    "  t=${t##*) }\n"
	    "  [ -n \"$t\" ] && [ \"${t%%%% *}\" != Z ] || return 1\n"
	    "  if [ $seen = 0 ]; then\n"
	    "    tr '\\0' '\\n' </proc/\"$P\"/cmdline 2>/dev/null | "
	    "grep -qxF -- \"$D\" || return 1\n"
	    "    [ -z \"$S\" ] || seen=1\n"
	    "  fi\n"
	    "  [ -z \"$S\" ] || { set -- $t; shift 19; [ \"$1\" = \"$S\" ]; }\n"
	    "}\n"
	    "wait_gone() { i=0; while ours && [ $i -lt $1 ]; do sleep $2; "
	    "i=$((i+1)); done; }\n"
	    "if [ -n \"$P\" ] && kill -0 \"$P\" 2>/dev/null && "
	    "[ ! -r /proc/\"$P\"/stat ]; then\n"
	    "  echo \"cannot tell whether PID $P is the node of $D (no /proc "
	    "there): left alone; the node may still run\" >&2; exit 1\n"
	    "fi\n"
	    "if [ -n \"$P\" ] && ours; then\n"
	    "  kill -TERM \"$P\" 2>/dev/null; wait_gone %d 0.1; by=TERM\n"
	    "  if ours; then kill -KILL \"$P\" 2>/dev/null; wait_gone %d "
	    KILL_STEP "; by=KILL; fi\n"
	    "  if ours; then echo \"node $P still running after KILL\" >&2; "
	    "exit 1; fi\n"
	    "elif [ -n \"$P\" ] && [ -r /proc/\"$P\"/cmdline ]; then\n"
	    "  echo \"PID $P is not the node of $D (left alone)\" >&2\n"
	    "fi\n"
	    "[ $mine = 0 ] || rm -rf -- \"$D\" || exit 1\n"
	    "[ -z \"$by\" ] || echo $by\n",
	    qdir, p, st, (int)(grace_s * 10 + 0.5), KILL_WAIT_STEPS);
	free(qdir);
	return s;
}

/* ---- the stop, and the teardown phase's step --------------------- */

/* After its stop, how long the node's job step has to end by itself. */
#define NODE_STEP_END_MS 5000

/* The stop has ended: the teardown's step too, if it waits for it. */
static void
stop_end(struct bench_host *h)
{
	h->stop_state = 2;
	if (h->stop_awaited) {
		h->stop_awaited = 0;
		bench_host_step_done(h);
	}
}

/* The held node's step has ended (bench_start.c calls it). */
static void
node_ended(struct bench_host *h)
{
	uv_timer_stop(&h->stop_timer);
	stop_end(h);
}

static void
node_end_timer_cb(uv_timer_t *t)
{
	struct bench_host *h = t->data;

	if (h->node_job == NULL)
		return;
	log_warn("%s: the node's job step still runs after the teardown: "
	    "cancelling it", h->m->name);
	engine_cancel(h->node_job);	/* then node_ended() */
}

/* Why the stop failed, said once and kept as the host's teardown's. */
static void
stop_failed(struct bench_host *h, char *why)
{
	h->status[BENCH_TEARDOWN] = BENCH_ST_FAILED;
	log_error("%s", why != NULL ? why : error_string(NP_ERR_NOMEM));
	if (h->error == NULL)
		h->error = why;
	else
		free(why);
}

static void
stop_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;

	h->stop_job = NULL;
	if (res->error != NP_OK)
		stop_failed(h, str_printf("%s: teardown: %s", m->name,
		    res->error_text != NULL ? res->error_text :
		    error_string(res->error)));
	else if (res->exit_status != 0)
		stop_failed(h, str_printf("%s: teardown: %s", m->name,
		    res->err[0] != '\0' ? res->err : "failed"));
	else {
		h->torn_down = 1;
		h->stop_signal = strncmp(res->out, "KILL", 4) == 0 ? "KILL" :
		    strncmp(res->out, "TERM", 4) == 0 ? "TERM" : NULL;
	}
	if (h->node_job != NULL) {
		/*
		 * The node's step ends when the node does: given a moment
		 * after a stop that ended it, cancelled at once after one
		 * that did not (Slurm then ends what the step runs).
		 */
		h->node_ended = node_ended;
		uv_timer_start(&h->stop_timer, node_end_timer_cb, h->torn_down ?
		    NODE_STEP_END_MS : 0, 0);
		return;
	}
	stop_end(h);
}

/* Begin h's stop; it ends in stop_end(), or here if it cannot start. */
static void
stop_begin(struct bench_host *h)
{
	char *cmd = bench_teardown_command(h->dir, h->pid, h->pid_start,
	    h->b->o->stop_grace);
	struct engine_request req = {
		.command = cmd,
		.timeout_s = h->b->o->stop_grace + 15,
		.on_done = stop_done_cb,
		.arg = h,
	};
	int r = NP_ERR_NOMEM;

	h->stop_state = 1;
	h->step_at[BENCH_TEARDOWN] = time_wall();
	if (cmd != NULL) {
		log_debug(h->m->name, "teardown: %s", cmd);
		r = engine_submit(h->b->engine, h->m, &req, &h->stop_job);
	}
	free(cmd);
	if (r != 0) {
		stop_failed(h, str_printf("%s: teardown: %s", h->m->name,
		    error_string(r)));
		h->stop_state = 2;
	}
}

void
bench_teardown_begin(struct bench *b)
{
	size_t i;

	/* every host's at once: the grace is paid once a run */
	for (i = 0; i < b->n; i++)
		if (bench_phase_visits(BENCH_TEARDOWN, &b->hosts[i]) &&
		    b->hosts[i].stop_state == 0)
			stop_begin(&b->hosts[i]);
}

int
bench_teardown_host(struct bench_host *h)
{
	if (h->stop_state == 0)
		stop_begin(h);
	if (h->stop_state == 2)
		return 1;
	h->stop_awaited = 1;
	return 0;
}

/* ---- --teardown RUN: what a run left behind ---------------------- */

/* Where run.json is for ARG; new string. */
static char *
run_json_path(const char *arg, const char *outdir)
{
	struct stat st;
	size_t n = strlen(arg);

	if (n >= 8 && strcmp(arg + n - 8, "run.json") == 0)
		return strdup(arg);
	if (strchr(arg, '/') != NULL || (stat(arg, &st) == 0 &&
	    S_ISDIR(st.st_mode)))
		return str_printf("%s/run.json", arg);
	return str_printf("%s/%s/run.json", outdir, arg);
}

static int
load_machines(struct bench *b, const cJSON *root, const char *path)
{
	const cJSON *machines = cJSON_GetObjectItem(root, "machines"), *m;
	size_t i;

	cJSON_ArrayForEach(m, machines) {
		const cJSON *name = cJSON_GetObjectItem(m, "name");
		const cJSON *pid = cJSON_GetObjectItem(m, "pid");
		const cJSON *start = cJSON_GetObjectItem(m, "pid_start");

		if (!cJSON_IsString(name))
			continue;
		for (i = 0; i < b->n; i++)
			if (strcmp(b->hosts[i].m->name, name->valuestring) == 0)
				break;
		if (i == b->n) {
			log_warn("%s: machine %s is not in the inventory; its "
			    "node is left alone", path, name->valuestring);
			continue;
		}
		/*
		 * Its "dir" is not read: the directory comes from the run id
		 * and the host's name, so an edited run.json cannot point
		 * rm -rf elsewhere. A PID is a positive integer or unknown.
		 */
		if (cJSON_IsNumber(pid) && pid->valuedouble >= 1 &&
		    pid->valuedouble <= 2147483647.0 &&
		    pid->valuedouble == (double)(long)pid->valuedouble)
			b->hosts[i].pid = (long)pid->valuedouble;
		if (b->hosts[i].pid > 0 && cJSON_IsNumber(start) &&
		    start->valuedouble >= 1 && start->valuedouble < 9e15)
			b->hosts[i].pid_start = (long long)start->valuedouble;
		b->hosts[i].touched = 1;
	}
	return 0;
}

static int
safe_run_id(const char *s)
{
	return *s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(s);
}

int
bench_teardown_load(struct bench *b, const char *arg, const char *outdir,
    char **cause)
{
	char *path = run_json_path(arg, outdir), *text = NULL;
	cJSON *root = NULL, *id;
	size_t i;
	int r = NP_ERR_NOMEM;

	*cause = NULL;
	if (path == NULL)
		goto out;
	if (file_read(path, &text, NULL, cause) != 0) {
		r = NP_ERR_IO;
		if (strchr(arg, '/') != NULL || !safe_run_id(arg))
			goto out;
		/* no run.json (killed early): derive from the run id */
		free(*cause);
		*cause = NULL;
		snprintf(b->run_id, sizeof b->run_id, "%s", arg);
		for (i = 0; i < b->n; i++) {
			free(b->hosts[i].dir);
			b->hosts[i].dir = bench_host_dir(arg,
			    b->hosts[i].m->name);
			b->hosts[i].touched = 1;
		}
		log_info("%s not found: tearing down %s on every host (PIDs "
		    "from each host's pid file)", path, arg);
		r = 0;
		goto out;
	}
	r = NP_ERR_PARSE;
	if ((root = cJSON_Parse(text)) == NULL || !cJSON_IsObject(root) ||
	    !cJSON_IsString(id = cJSON_GetObjectItem(root, "run_id")) ||
	    !safe_run_id(id->valuestring)) {
		*cause = str_printf("%s: not a bench run.json (no run_id)",
		    path);
		goto out;
	}
	snprintf(b->run_id, sizeof b->run_id, "%s", id->valuestring);
	for (i = 0; i < b->n; i++) {
		free(b->hosts[i].dir);
		if ((b->hosts[i].dir = bench_host_dir(b->run_id,
		    b->hosts[i].m->name)) == NULL) {
			r = NP_ERR_NOMEM;
			goto out;
		}
	}
	r = load_machines(b, root, path);
out:
	cJSON_Delete(root);
	free(text);
	free(path);
	return r;
}
