/*
 * A collect task's outcome and its command, shared by the run's parts
 * (collect_run.c, collect_fanout.c, collect_server.c): a failure kept
 * with its first reason, a host marked down when SSH could not reach it,
 * its command submitted to the engine (or failed with why it was not). Nothing here ends a task or starts
 * one: the parts end theirs through the run's hooks (collect.h).
 */
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "dispatch.h"
#include "engine.h"
#include "error.h"
#include "log.h"
#include "probe_kind.h"
#include "util.h"

void
collect_task_fail(struct task *t, enum error_class cls, char *error)
{
	if (t->rec.error != NULL) {	/* the first reason is the real one */
		free(error);
		return;
	}
	t->rec.ok = 0;
	t->cls = cls;
	t->rec.error_class = error_class_name(cls);
	t->rec.error = error != NULL ? error : strdup("out of memory");
}

void
collect_task_requeue(struct task *t)
{
	dispatch_task_requeue(t->c->d, t->dt);
}

enum error_class
collect_host_failed(struct collector *c, size_t host,
    const struct engine_result *res, const char *text)
{
	struct host_state *h = &c->hosts[host];
	enum error_class cls = error_class_of_code(res->error);
	int host_level = res->error == NP_ERR_CONNECT ||
	    res->error == NP_ERR_AUTH ||
	    res->error == NP_ERR_HOSTKEY_UNKNOWN ||
	    res->error == NP_ERR_HOSTKEY_CHANGED;

	if (host_level && h->down == NULL) {
		h->down = strdup(text);
		h->down_class = cls;
		log_debug(h->m->name, "host down: %s", text);
	}
	return cls;
}

int
collect_check_result(struct task *t, const struct machine *m,
    const struct engine_result *res, const char *who)
{
	struct probe_output o = { .out = res->out, .err = res->err,
	    .exit_status = res->exit_status, .kind = t->stage->kind,
	    .host = m->name, .who = who };
	struct record missing = { 0 };
	char *text;

	if (res->error != NP_OK) {
		text = str_printf("%s%s", who, res->error_text != NULL ?
		    res->error_text : error_string(res->error));
		collect_task_fail(t, collect_host_failed(t->c, m->index, res,
		    text != NULL ? text : "out of memory"), text);
		return 1;
	}
	if (probe_tool_missing(t->stage->kind->tool, &o, &missing)) {
		collect_task_fail(t, ERROR_CLASS_TOOL_MISSING,
		    (char *)missing.error);
		return 1;
	}
	return 0;
}

int
collect_task_submit(struct task *t, const char *role, engine_done_cb on_done)
{
	const struct probe_kind *k = t->stage->kind;
	struct collector *c = t->c;
	struct engine_request req = {
		.command = t->command,
		.timeout_s = k->timeout(&c->ps, c->connect_timeout),
		.on_done = on_done,
		.arg = t,
	};
	int r;

	log_debug(t->src->name, "%s %s->%s: %s", k->name, t->src->name,
	    t->dst->name, t->command);
	if ((r = engine_submit(c->engine, t->src, &req, &t->job)) != 0)
		collect_task_fail(t, ERROR_CLASS_TOOL_FAILED, str_printf("%s%s%s "
		    "on %s: %s", k->tool, role != NULL ? " " : "",
		    role != NULL ? role : "", t->src->name, error_string(r)));
	return r;
}
