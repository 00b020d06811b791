/*
 * --slurm: a running job's nodes as the inventory. Slurm is asked with its
 * own commands (scontrol), as a user would, before the loop starts: the
 * job's state and NodeList, the node names of that list (hostlist.h, the
 * expander --hosts uses), each node's NodeAddr. The machines are written as machines.json text, merged with
 * the defaults file if there is one, and parsed by inventory_parse(), so
 * every check and default of machines.json applies to them too.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "file.h"
#include "hostlist.h"
#include "inventory_slurm.h"
#include "log.h"
#include "template.h"
#include "util.h"

extern char **environ;

#define SLURM_FIX_MISSING "install Slurm's client commands (Debian: " \
	"slurm-client) or run netprof where they are on PATH"

/*
 * Run argv (found on PATH) and collect its stdout and stderr together.
 * 0 with *status its exit status; NP_ERR_TOOL_MISSING when argv[0] is not
 * there; NP_ERR_SPAWN otherwise.
 */
static int
run_capture(char *const argv[], struct buf *out, int *status)
{
	posix_spawn_file_actions_t fa;
	char chunk[4096];
	int fds[2] = { -1, -1 }, r, w;
	pid_t pid;
	ssize_t n;

	*status = -1;
	if (pipe(fds) != 0)
		return NP_ERR_SYSTEM;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (r != 0) {
		close(fds[0]);
		return r == ENOENT ? NP_ERR_TOOL_MISSING : NP_ERR_SPAWN;
	}
	r = 0;
	while ((n = read(fds[0], chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (r == 0 && buf_append(out, chunk, (size_t)n) != 0)
			r = NP_ERR_NOMEM;
	}
	close(fds[0]);
	while (waitpid(pid, &w, 0) < 0)
		if (errno != EINTR)
			return NP_ERR_SYSTEM;
	if (r != 0)
		return r;
	if (buf_append(out, "", 1) != 0)
		return NP_ERR_NOMEM;
	out->len--;
	*status = WIFEXITED(w) ? WEXITSTATUS(w) : 128 + WTERMSIG(w);
	/* exec failed in the child (glibc may report it so) */
	return *status == 127 && out->len == 0 ? NP_ERR_TOOL_MISSING : 0;
}

/* Run scontrol ARGS; on failure *cause says what and how to fix it. */
static int
scontrol(const char *job, char *const argv[], struct buf *out, char **cause)
{
	int r, status;

	if ((r = run_capture(argv, out, &status)) == NP_ERR_TOOL_MISSING) {
		*cause = str_printf("--slurm: Slurm's scontrol is not on PATH; "
		    "%s", SLURM_FIX_MISSING);
		return r;
	}
	if (r != 0) {
		*cause = str_printf("--slurm: could not run scontrol: %s",
		    error_string(r));
		return r;
	}
	if (status != 0) {
		while (out->len > 0 && (out->data[out->len - 1] == '\n'))
			out->data[--out->len] = '\0';
		*cause = str_printf("--slurm: job %s: scontrol %s %s failed: %s",
		    job, argv[1], argv[2], out->len > 0 ? out->data :
		    "(no message)");
		return NP_ERR_NOT_FOUND;
	}
	return 0;
}

/*
 * The value of KEY= in one line of scontrol's one-liner output (fields
 * separated by spaces), as a new string, or NULL. A key matches only at
 * the start of a field ("NodeList" is not "ReqNodeList").
 */
static char *
field(const char *line, const char *key)
{
	size_t klen = strlen(key), vlen;
	const char *p = line;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ') && p[klen] == '=') {
			p += klen + 1;
			vlen = strcspn(p, " \n");
			return strndup(p, vlen);
		}
		p += klen;
	}
	return NULL;
}

/* Job ids as Slurm writes them: 42, or an array task 42_3. */
int
inventory_slurm_job_id_valid(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0)
		return 0;
	if (s[n] == '_' && strspn(s + n + 1, "0123456789") > 0)
		n += 1 + strspn(s + n + 1, "0123456789");
	return s[n] == '\0' && n < 32;
}

/*
 * The job's node names, in Slurm's order, as a JSON array of strings:
 * its NodeList read by hostlist.h, the expander --hosts uses too (as
 * scontrol show hostnames would, without another process).
 */
static int
job_nodes(const char *job, cJSON **names, char **cause)
{
	struct buf out = { 0 };
	char *state = NULL, *list = NULL, *reason = NULL, **nodes = NULL;
	char *why = NULL;
	char *argv_job[] = { "scontrol", "show", "job", "-o", (char *)job, NULL };
	size_t n = 0, i;
	int r;

	*names = NULL;
	if ((r = scontrol(job, argv_job, &out, cause)) != 0)
		goto out;
	state = field(out.data, "JobState");
	list = field(out.data, "NodeList");
	reason = field(out.data, "Reason");
	if (state == NULL) {
		*cause = str_printf("--slurm: job %s: scontrol show job gave no "
		    "JobState: %s", job, out.data);
		r = NP_ERR_PARSE;
		goto out;
	}
	if (strcmp(state, "RUNNING") != 0) {
		*cause = str_printf("--slurm: job %s is %s, not RUNNING%s%s%s; "
		    "netprof needs the job's nodes allocated: wait until "
		    "`squeue -j %s` shows it R, or give a running job", job,
		    state, reason != NULL && strcmp(reason, "None") != 0 ?
		    " (reason: " : "", reason != NULL && strcmp(reason,
		    "None") != 0 ? reason : "", reason != NULL &&
		    strcmp(reason, "None") != 0 ? ")" : "", job);
		r = NP_ERR_NOT_FOUND;
		goto out;
	}
	if (list == NULL || strcmp(list, "(null)") == 0) {
		*cause = str_printf("--slurm: job %s has no NodeList", job);
		r = NP_ERR_NOT_FOUND;
		goto out;
	}
	if ((r = hostlist_expand(list, &nodes, &n, &why)) != 0) {
		*cause = str_printf("--slurm: job %s: its NodeList %s: %s", job,
		    list, why != NULL ? why : error_string(r));
		r = r == NP_ERR_USAGE ? NP_ERR_PARSE : r;
		goto out;
	}
	if ((*names = cJSON_CreateArray()) == NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		if (!cJSON_AddItemToArray(*names, cJSON_CreateString(nodes[i]))) {
			r = NP_ERR_NOMEM;
			goto out;
		}
	log_debug(NULL, "slurm job %s: %s is %s", job, list, state);
out:
	hostlist_free(nodes, n);
	free(why);
	if (r != 0) {
		cJSON_Delete(*names);
		*names = NULL;
	}
	buf_free(&out);
	free(state);
	free(list);
	free(reason);
	return r;
}

/* NodeAddr of node, a new string (the name itself if Slurm gives none). */
static int
node_addr(const char *job, const char *node, char **addr, char **cause)
{
	struct buf out = { 0 };
	char *argv[] = { "scontrol", "show", "node", "-o", (char *)node, NULL };
	int r;

	*addr = NULL;
	if ((r = scontrol(job, argv, &out, cause)) != 0)
		goto out;
	if ((*addr = field(out.data, "NodeAddr")) == NULL &&
	    (*addr = strdup(node)) == NULL)
		r = NP_ERR_NOMEM;
out:
	buf_free(&out);
	return r;
}

/* The defaults file's machine called name, or NULL. */
static const cJSON *
default_machine(const cJSON *machines, const char *name)
{
	const cJSON *m, *n;

	cJSON_ArrayForEach(m, machines) {
		n = cJSON_GetObjectItemCaseSensitive(m, "name");
		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return m;
	}
	return NULL;
}

/* Set key to a string unless the object has it already. */
static int
default_string(cJSON *obj, const char *key, const char *value)
{
	if (cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
		return 0;
	return cJSON_AddStringToObject(obj, key, value) != NULL ? 0 :
	    NP_ERR_NOMEM;
}

int
inventory_slurm_load(const char *job, const char *defaults_path,
    enum transport_kind transport, struct inventory **out, char **cause)
{
	struct inventory *inv = NULL;
	cJSON *root = NULL, *names = NULL, *machines = NULL, *m;
	const cJSON *name, *given = NULL, *d;
	char *text = NULL, *addr = NULL, *path = NULL;
	size_t i;
	int r;

	*out = NULL;
	*cause = NULL;
	if (*job == '\0' && ((job = getenv("SLURM_JOB_ID")) == NULL ||
	    *job == '\0')) {
		*cause = str_printf("--slurm: no job: $SLURM_JOB_ID is not set; "
		    "run netprof inside an allocation (salloc -N 2, then "
		    "netprof ... --slurm; or in an sbatch script), or name "
		    "the job: --slurm=JOBID");
		return NP_ERR_USAGE;
	}
	if (!inventory_slurm_job_id_valid(job)) {
		*cause = str_printf("--slurm: '%s' is not a job id (like 42 or "
		    "42_3)", job);
		return NP_ERR_USAGE;
	}
	if (defaults_path != NULL) {
		if ((r = file_read(defaults_path, &text, NULL, cause)) != 0)
			goto out;
		if ((root = cJSON_Parse(text)) == NULL ||
		    !cJSON_IsObject(root)) {
			/* inventory_load() says where and what, once */
			r = inventory_load(defaults_path, &inv, cause);
			if (r == 0) {
				inventory_free(inv);
				inv = NULL;
				r = NP_ERR_INVENTORY;
			}
			goto out;
		}
		free(text);
		text = NULL;
		given = cJSON_GetObjectItemCaseSensitive(root, "machines");
	} else if ((root = cJSON_CreateObject()) == NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	if ((r = job_nodes(job, &names, cause)) != 0)
		goto out;
	if ((machines = cJSON_CreateArray()) == NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < (size_t)cJSON_GetArraySize(names); i++) {
		name = cJSON_GetArrayItem(names, (int)i);
		if ((r = node_addr(job, name->valuestring, &addr, cause)) != 0)
			goto out;
		d = given != NULL ? default_machine(given, name->valuestring) :
		    NULL;
		m = d != NULL ? cJSON_Duplicate(d, 1) : cJSON_CreateObject();
		if (m == NULL || !cJSON_AddItemToArray(machines, m)) {
			cJSON_Delete(m);
			r = NP_ERR_NOMEM;
			goto out;
		}
		if ((r = default_string(m, "name", name->valuestring)) != 0 ||
		    (r = default_string(m, "address", addr)) != 0 ||
		    (r = default_string(m, "ssh_host", addr)) != 0)
			goto out;
		cJSON_DeleteItemFromObjectCaseSensitive(m, "transport");
		log_debug(name->valuestring, "slurm node: NodeAddr %s", addr);
		free(addr);
		addr = NULL;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(root, "machines");
	cJSON_DeleteItemFromObjectCaseSensitive(root, "transport");
	if (!cJSON_AddItemToObject(root, "machines", machines)) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	machines = NULL;	/* transferred */
	if ((text = cJSON_Print(root)) == NULL ||
	    (path = defaults_path != NULL ? str_printf("%s (with slurm job "
	    "%s)", defaults_path, job) : str_printf("slurm job %s", job)) ==
	    NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	if ((r = inventory_parse(text, path, &inv, cause)) != 0)
		goto out;
	for (i = 0; i < inv->n_machines; i++)
		inv->machines[i].transport = transport;
	if ((inv->slurm_job = strdup(job)) == NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	*out = inv;
	inv = NULL;	/* transferred */
out:
	if (r != 0 && *cause == NULL)
		*cause = str_printf("--slurm: job %s: %s", job,
		    error_string(r));
	inventory_free(inv);
	cJSON_Delete(root);
	cJSON_Delete(names);
	cJSON_Delete(machines);
	free(text);
	free(addr);
	free(path);
	return r;
}

/*
 * Before a step: is the node still one to use? A drained (or down, failed,
 * in maintenance) node of a running job still takes steps, but its admin
 * wants it left alone: say so with Slurm's reason, on stderr behind
 * INVENTORY_SLURM_NODE_MARK, with exit status INVENTORY_SLURM_NODE_EXIT.
 * One scontrol call (a few ms) against a step's launch (hundreds).
 */
#define NODE_CHECK \
	"s=$(scontrol show node -o \"$1\" 2>/dev/null) || s=; " \
	"case $s in *' State='*DRAIN*|*' State='*DOWN*|*' State='*FAIL*|" \
	"*' State='*MAINT*) st=${s#* State=}; st=${st%% *}; " \
	"r=${s#* Reason=}; [ \"$r\" = \"$s\" ] && r=none; " \
	"printf '" INVENTORY_SLURM_NODE_MARK "%s (reason: %s)\\n' " \
	"\"$st\" \"$r\" >&2; exit 75;; esac; shift; exec \"$@\""

char **
inventory_slurm_step_argv(const char *job, const char *node,
    const char *step_name, const char *command)
{
	const char *home = getenv("HOME");
	char **argv;
	size_t n = 0;

	if ((argv = calloc(19, sizeof *argv)) == NULL)
		return NULL;
	if (step_name != NULL &&
	    ((argv[n++] = strdup("/bin/sh")) == NULL ||
	    (argv[n++] = strdup("-c")) == NULL ||
	    (argv[n++] = strdup(NODE_CHECK)) == NULL ||
	    (argv[n++] = strdup("sh")) == NULL ||
	    (argv[n++] = strdup(node)) == NULL))
		goto fail;
	if ((argv[n++] = strdup("srun")) == NULL ||
	    (argv[n++] = str_printf("--jobid=%s", job)) == NULL ||
	    (argv[n++] = strdup("--overlap")) == NULL ||
	    (argv[n++] = strdup("--quiet")) == NULL ||
	    (argv[n++] = strdup("-N1")) == NULL ||
	    (argv[n++] = strdup("-n1")) == NULL ||
	    (argv[n++] = str_printf("--nodelist=%s", node)) == NULL)
		goto fail;
	if (step_name != NULL &&
	    (argv[n++] = str_printf("--job-name=%s", step_name)) == NULL)
		goto fail;
	/* where an SSH session would start */
	if (home != NULL && *home != '\0' &&
	    (argv[n++] = str_printf("--chdir=%s", home)) == NULL)
		goto fail;
	if ((argv[n++] = strdup("/bin/sh")) == NULL ||
	    (argv[n++] = strdup("-c")) == NULL ||
	    (argv[n++] = strdup(command)) == NULL)
		goto fail;
	return argv;
fail:
	template_argv_free(argv);
	return NULL;
}

/*
 * Before a batch's step: its nodes' states in one scontrol call; the
 * drained (down, failed, in maintenance) ones said and left out. Words:
 * JOB NODES STEP DIR WRAPPER, then the wrapper's (node, command) pairs.
 */
#define BATCH_CHECK \
	"j=$1 n=$2 name=$3 dir=$4 w=$5; shift 5\n" \
	"bad=$(scontrol show node -o \"$n\" 2>/dev/null | " \
	"while IFS= read -r s; do case $s in " \
	"*' State='*DRAIN*|*' State='*DOWN*|*' State='*FAIL*|" \
	"*' State='*MAINT*) nm=${s#NodeName=}; nm=${nm%% *}; " \
	"st=${s#* State=}; st=${st%% *}; r=${s#* Reason=}; " \
	"[ \"$r\" = \"$s\" ] && r=none; printf '" \
	INVENTORY_SLURM_BATCH_MARK "%s %s (reason: %s)\\n' \"$nm\" " \
	"\"$st\" \"$r\" >&2; printf '%s\\n' \"$nm\";; esac; done)\n" \
	"ok= k=0\nIFS=,\nfor x in $n; do case \"\n$bad\n\" in " \
	"*\"\n$x\n\"*) ;; *) ok=$ok${ok:+,}$x; k=$((k + 1));; esac; " \
	"done\nunset IFS\n[ \"$k\" -gt 0 ] || exit 75\n" \
	"exec srun --jobid=\"$j\" --overlap --quiet -N\"$k\" " \
	"--ntasks-per-node=1 --nodelist=\"$ok\" --label " \
	"--kill-on-bad-exit=0 --wait=0 --job-name=\"$name\" " \
	"${dir:+\"--chdir=$dir\"} /bin/sh -c \"$w\" sh \"$@\"\n"

/*
 * A batch's task: its node's command (from its words, by the node's
 * name) in a session of its own (setsid, where there is one), its output
 * encoded a line at a time by awk (mawk only streams with -W interactive),
 * stdin read for the kill of its node; the end lines last. The command's
 * session (the runner, R) hands its exit status out on fd 3, after both
 * encoders have ended.
 */
#define BATCH_TASK \
	"me=$SLURMD_NODENAME\n" \
	"while [ $# -ge 2 ] && [ \"$1\" != \"$me\" ]; do shift 2; done\n" \
	"[ $# -ge 2 ] || exit 0\n" \
	"c=$2\n" \
	"case $(awk -W version 2>&1) in mawk*) a='awk -W interactive';; " \
	"*) a=awk;; esac\n" \
	"R='e='\\''{ while (length($0) > 1000) { print \"+\" " \
	"substr($0, 1, 1000); $0 = substr($0, 1001) } print \"|\" $0; " \
	"fflush() }'\\''\n" \
	"exec 5>&1 6>&2\n" \
	"s=$( { { { /bin/sh -c \"$1\" 3>&- 5>&- 6>&- 7>&-; " \
	"echo \"$?\" >&3; printf \"\\n\\001\\n\"; " \
	"printf \"\\n\\001\\n\" >&2; } " \
	"2>&1 1>&7 | LC_ALL=C $2 \"$e\" >&6; } 7>&1 | " \
	"LC_ALL=C $2 \"$e\" >&5; } 3>&1 )\n" \
	"exit \"${s:-1}\"'\n" \
	"printf '" INVENTORY_SLURM_TASK_START "%s\\n' \"$me\"\n" \
	"if command -v setsid >/dev/null 2>&1; then " \
	"setsid /bin/sh -c \"$R\" sh \"$c\" \"$a\" </dev/null &\n" \
	"else /bin/sh -c \"$R\" sh \"$c\" \"$a\" </dev/null &\nfi\n" \
	"p=$!\n" \
	"exec 3<&0\n" \
	"( while IFS= read -r l; do if [ \"$l\" = \"" \
	INVENTORY_SLURM_TASK_KILL "$me\" ]; then " \
	"kill -TERM -\"$p\" 2>/dev/null || kill -TERM \"$p\"; " \
	"sleep 2 </dev/null; " \
	"kill -KILL -\"$p\" 2>/dev/null || kill -KILL \"$p\"; fi; " \
	"done ) <&3 >/dev/null 2>&1 &\n" \
	"r=$!\n" \
	"exec 3<&-\n" \
	"wait \"$p\"; s=$?\n" \
	"kill \"$r\" 2>/dev/null\n" \
	"printf '\\n" INVENTORY_SLURM_TASK_END "%s\\n' \"$s\"\n" \
	"printf '\\n" INVENTORY_SLURM_TASK_END "%s\\n' \"$s\" >&2\n" \
	"exit 0\n"

char **
inventory_slurm_batch_argv(const char *job, const char *step_name,
    char *const *nodes, char *const *commands, size_t n)
{
	const char *home = getenv("HOME");
	struct buf list = { 0 };
	char **argv;
	size_t i, k = 0;

	if ((argv = calloc(2 * n + 10, sizeof *argv)) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if ((i > 0 && buf_append(&list, ",", 1) != 0) ||
		    buf_append(&list, nodes[i], strlen(nodes[i])) != 0)
			goto fail;
	if (buf_append(&list, "", 1) != 0 ||
	    (argv[k++] = strdup("/bin/sh")) == NULL ||
	    (argv[k++] = strdup("-c")) == NULL ||
	    (argv[k++] = strdup(BATCH_CHECK)) == NULL ||
	    (argv[k++] = strdup("sh")) == NULL ||
	    (argv[k++] = strdup(job)) == NULL ||
	    (argv[k++] = strdup(list.data)) == NULL ||
	    (argv[k++] = strdup(step_name)) == NULL ||
	    (argv[k++] = strdup(home != NULL ? home : "")) == NULL ||
	    (argv[k++] = strdup(BATCH_TASK)) == NULL)
		goto fail;
	for (i = 0; i < n; i++)
		if ((argv[k++] = strdup(nodes[i])) == NULL ||
		    (argv[k++] = strdup(commands[i])) == NULL)
			goto fail;
	free(list.data);
	return argv;
fail:
	free(list.data);
	template_argv_free(argv);
	return NULL;
}
