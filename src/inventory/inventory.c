/*
 * machines.json: reading, validating and resolving the inventory. Every
 * field the upstream profiler knows keeps its meaning and default; netprof's
 * SSH fields (ssh_host, user, port, identity_file, transport, remote_setup,
 * known_hosts_file, ssh_config_file) are optional, and the per-connection
 * ones may be given once at the top level as defaults for every machine.
 * Validation is strict and happens here, once: names, host names and user
 * names end up in shell command lines and in the argv of ssh-like
 * programs, so anything that could be read as shell syntax or as an option
 * is refused with a message naming the file, the JSON path and the fix
 * (the typed member getters behind those messages are json_get.c's, the
 * checks of a field's text and of the keys inventory_fields.c's; --hosts
 * and --exclude on the result are inventory_select.c's).
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bounds.h"
#include "error.h"
#include "file.h"
#include "inventory.h"
#include "inventory_fields.h"
#include "json_get.h"
#include "json_pos.h"
#include "json_strict.h"
#include "multiaddr.h"
#include "util.h"

#define INVENTORY_MAX_SIZE (16 * 1024 * 1024)
#define REMOTE_CMD_ENV "NETWORK_PROFILER_REMOTE_CMD"
#define TEMPLATE_HINT "[\"ssh\", \"{host}\", \"{command}\"]"

/* Top-level values every machine inherits unless it sets its own. */
struct defaults {
	char *user;
	int port;
	char *identity_file;
	char *remote_setup;
	int transport;		/* -1: not given */
};

static const char *
home_dir(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home != NULL && *home != '\0')
		return home;
	if ((pw = getpwuid(getuid())) != NULL && pw->pw_dir != NULL)
		return pw->pw_dir;
	return NULL;
}

/* "~" and "~/x" become $HOME and $HOME/x, in place. */
static int
expand_home(char **path)
{
	const char *home;
	char *expanded;

	if (*path == NULL || (*path)[0] != '~' ||
	    ((*path)[1] != '/' && (*path)[1] != '\0'))
		return 0;
	if ((home = home_dir()) == NULL)
		return 0;
	if ((expanded = str_printf("%s%s", home, *path + 1)) == NULL)
		return NP_ERR_NOMEM;
	free(*path);
	*path = expanded;
	return 0;
}

/* An optional path member, ~ expanded; an empty path is refused. */
static int
get_path(struct json_doc *p, const cJSON *obj, const char *prefix,
    const char *key, char **out)
{
	char where[96];
	int r;

	if ((r = json_get_string(p, obj, prefix, key, out)) != 0)
		return r;
	if (*out == NULL || **out != '\0')
		return expand_home(out);
	json_member_path(where, sizeof where, prefix, key);
	return json_fail(p, where, "is empty; give a path or remove \"%s\"",
	    key);
}

static int
get_transport(struct json_doc *p, const cJSON *obj, const char *prefix,
    int *out)
{
	static const char *const names[] = { "ssh", "command", "local" };
	char *s = NULL, where[96], shown[128];
	size_t i;
	int r;

	if ((r = json_get_string(p, obj, prefix, "transport", &s)) != 0 ||
	    s == NULL)
		return r;
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (int)i;
			free(s);
			return 0;
		}
	}
	json_member_path(where, sizeof where, prefix, "transport");
	r = json_fail(p, where,
	    "%s is not a transport; use \"ssh\", \"command\" or \"local\"",
	    json_show(s, shown, sizeof shown));
	free(s);
	return r;
}

/* A user name: it becomes part of an ssh destination, so no options. */
static int
get_user(struct json_doc *p, const cJSON *obj, const char *prefix, char **out)
{
	char where[96], shown[128];
	int r;

	if ((r = json_get_string(p, obj, prefix, "user", out)) != 0 ||
	    *out == NULL)
		return r;
	if (inventory_valid_word(*out, INVENTORY_NAME_MAX))
		return 0;
	json_member_path(where, sizeof where, prefix, "user");
	return json_fail(p, where,
	    "%s is not a valid user name; use letters, digits, '.', '_' and "
	    "'-', not starting with '-'", json_show(*out, shown, sizeof shown));
}

static int
has_command_placeholder(char **argv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strstr(argv[i], "{command}") != NULL)
			return 1;
	}
	return 0;
}

static int
parse_remote_command(struct json_doc *p, const cJSON *root,
    struct inventory *inv)
{
	const cJSON *v = json_member(root, "remote_command");
	int r;

	if (v == NULL)
		return 0;
	if ((r = json_string_array(v, &inv->remote_command,
	    &inv->n_remote_command)) < 0)
		return r;
	if (r == 0 && has_command_placeholder(inv->remote_command,
	    inv->n_remote_command))
		return 0;
	return json_fail(p, "remote_command", "must be an array of strings "
	    "containing \"{command}\", e.g. " TEMPLATE_HINT);
}

/* Whitespace-separated words of s as a new vector. */
static int
split_words(const char *s, char ***out, size_t *n_out)
{
	char **vec;
	size_t n = 0, len;

	if ((vec = calloc(strlen(s) / 2 + 2, sizeof *vec)) == NULL)
		return NP_ERR_NOMEM;
	for (;;) {
		s += strspn(s, " \t\r\n");
		if (*s == '\0')
			break;
		len = strcspn(s, " \t\r\n");
		if ((vec[n++] = strndup(s, len)) == NULL) {
			json_strings_free(vec, n);
			return NP_ERR_NOMEM;
		}
		s += len;
	}
	*out = vec;
	*n_out = n;
	return 0;
}

/*
 * The upstream environment override: NETWORK_PROFILER_REMOTE_CMD holds the
 * argv template as a JSON array, or as plain words. It replaces the file's
 * remote_command when set.
 */
static int
parse_remote_command_env(struct json_doc *p, struct inventory *inv)
{
	const char *env = getenv(REMOTE_CMD_ENV);
	cJSON *json = NULL;
	char **argv = NULL;
	size_t n = 0;
	int r;

	if (env == NULL || env[strspn(env, " \t\r\n")] == '\0')
		return 0;
	env += strspn(env, " \t\r\n");
	if (*env == '[') {
		if ((json = cJSON_Parse(env)) == NULL)
			r = 1;
		else
			r = json_string_array(json, &argv, &n);
		cJSON_Delete(json);
	} else
		r = split_words(env, &argv, &n);
	if (r < 0)
		return r;
	if (r != 0 || !has_command_placeholder(argv, n)) {
		json_strings_free(argv, n);
		if (p->cause != NULL) {
			free(*p->cause);
			*p->cause = strdup(REMOTE_CMD_ENV " (environment): "
			    "must be a JSON array of strings containing "
			    "\"{command}\", e.g. " TEMPLATE_HINT ", or words "
			    "separated by spaces");
		}
		return NP_ERR_INVENTORY;
	}
	json_strings_free(inv->remote_command, inv->n_remote_command);
	inv->remote_command = argv;
	inv->n_remote_command = n;
	inv->remote_command_env = 1;
	return 0;
}

/*
 * NETWORK_PROFILER_REMOTE_CMD, set, takes the place of what the file
 * says: its remote_command, and for every machine that names no
 * transport, SSH itself (and so the file's user, port, identity_file,
 * ssh_host and SSH files). A leftover variable would do so silently:
 * said once, with what it replaced.
 */
static int
env_notice(struct inventory *inv, const cJSON *root)
{
	static const char *const ssh_fields[] = { "user", "port",
	    "identity_file", "ssh_host", "known_hosts_file",
	    "ssh_config_file", NULL };
	const cJSON *machines = json_member(root, "machines"), *m;
	struct buf fields = { 0 }, tmpl = { 0 };
	size_t i, k, affected = 0;
	int r;

	if (!inv->remote_command_env)
		return 0;
	for (i = 0; i < inv->n_remote_command && tmpl.len < 60; i++)
		buf_printf(&tmpl, "%s%s", i > 0 ? " " : "",
		    inv->remote_command[i]);
	if (tmpl.len >= 60)
		buf_printf(&tmpl, " ...");
	i = 0;
	cJSON_ArrayForEach(m, machines) {
		if (i >= inv->n_machines)
			break;
		if (inv->machines[i++].transport != TRANSPORT_COMMAND ||
		    json_member(m, "transport") != NULL ||
		    json_member(root, "transport") != NULL)
			continue;
		affected++;
		for (k = 0; ssh_fields[k] != NULL; k++) {
			if ((json_member(m, ssh_fields[k]) == NULL &&
			    json_member(root, ssh_fields[k]) == NULL) ||
			    (fields.data != NULL && strstr(fields.data,
			    ssh_fields[k]) != NULL))
				continue;
			buf_printf(&fields, "%s%s", fields.len > 0 ? ", " : "",
			    ssh_fields[k]);
		}
	}
	if (json_member(root, "remote_command") != NULL || affected > 0)
		r = inventory_warn(inv, 0, "%s: " REMOTE_CMD_ENV " is set (%s): it "
		    "replaces %s%s%s%s%s%s; unset it (env -u " REMOTE_CMD_ENV
		    " netprof ...) to use the file's", inv->path,
		    tmpl.data != NULL ? tmpl.data : "",
		    json_member(root, "remote_command") != NULL ? "the file's "
		    "remote_command" : "", json_member(root, "remote_command") !=
		    NULL && affected > 0 ? ", and " : "", affected > 0 ? "SSH for "
		    "every machine without a \"transport\"" : "",
		    fields.len > 0 ? " (the file's " : "",
		    fields.data != NULL ? fields.data : "",
		    fields.len > 0 ? " are not used)" : "");
	else
		r = 0;
	buf_free(&fields);
	buf_free(&tmpl);
	return r;
}

static int
parse_bootstrap_extra(struct json_doc *p, const cJSON *obj, const char *prefix,
    struct machine *m)
{
	const cJSON *v = json_member(obj, "bootstrap_extra"), *item;
	char where[96], shown[128];
	size_t i = 0;
	int r;

	if (v == NULL)
		return 0;
	if ((r = json_string_array(v, &m->bootstrap_extra,
	    &m->n_bootstrap_extra)) < 0)
		return r;
	if (r != 0) {
		json_member_path(where, sizeof where, prefix,
		    "bootstrap_extra");
		if (!cJSON_IsArray(v))
			return json_fail(p, where,
			    "expected an array of multiaddr "
			    "strings, found %s", json_type_name(v));
		cJSON_ArrayForEach(item, v) {
			if (!cJSON_IsString(item))
				break;
			i++;
		}
		snprintf(where, sizeof where, "%s.bootstrap_extra[%zu]",
		    prefix, i);
		return json_fail(p, where,
		    "expected a multiaddr string, found %s",
		    json_type_name(item));
	}
	for (i = 0; i < m->n_bootstrap_extra; i++) {
		const char *s = m->bootstrap_extra[i];
		char *why = NULL;

		if (multiaddr_check(s, &why))
			continue;
		snprintf(where, sizeof where, "%s.bootstrap_extra[%zu]",
		    prefix, i);
		/* why quotes s: only a printable one */
		for (; *s != '\0' && (unsigned char)*s >= 0x20 &&
		    (unsigned char)*s < 0x7f; s++)
			;
		if (why != NULL && *s == '\0')
			r = json_fail(p, where, "%s", why);
		else
			r = json_fail(p, where, "%s is not a multiaddr; expected "
			    "e.g. \"" MULTIADDR_EXAMPLE "\"", json_show(
			    m->bootstrap_extra[i], shown, sizeof shown));
		free(why);
		return r;
	}
	return 0;
}

/* name, address and rcc_host: the upstream identity of a machine. */
static int
parse_identity(struct json_doc *p, const cJSON *obj, const char *prefix,
    struct machine *m)
{
	char where[96], shown[128];
	int r;

	json_member_path(where, sizeof where, prefix, "name");
	if ((r = json_get_string(p, obj, prefix, "name", &m->name)) != 0)
		return r;
	if (m->name == NULL)
		return inventory_missing(p, obj, 0, where, "name",
		    "every machine needs a unique \"name\" (the label used "
		    "in records)");
	if (!inventory_name_valid(m->name))
		return json_fail(p, where,
		    "%s is not a valid name; use letters, "
		    "digits, '.', '_' and '-', starting with a letter or "
		    "digit (at most 64)", json_show(m->name, shown,
		    sizeof shown));

	json_member_path(where, sizeof where, prefix, "address");
	if ((r = json_get_string(p, obj, prefix, "address", &m->address)) != 0)
		return r;
	if (m->address == NULL)
		return inventory_missing(p, obj, 0, where, "address",
		    "add the address other machines dial, e.g. \"address\": "
		    "\"198.18.0.2\"");
	if (!inventory_valid_address(m->address))
		return json_fail(p, where,
		    "%s is not an IP address or host name",
		    json_show(m->address, shown, sizeof shown));

	json_member_path(where, sizeof where, prefix, "rcc_host");
	if ((r = json_get_string(p, obj, prefix, "rcc_host",
	    &m->rcc_host)) != 0)
		return r;
	if (m->rcc_host != NULL && !inventory_valid_word(m->rcc_host, 255))
		return json_fail(p, where,
		    "%s is not a valid profile name; use "
		    "letters, digits, '.', '_' and '-', not starting with '-'",
		    json_show(m->rcc_host, shown, sizeof shown));

	/* A label the heatmap groups by and metrics carry: a shell-safe
	 * word, like a name, so it can go anywhere a name goes. */
	json_member_path(where, sizeof where, prefix, "site");
	if ((r = json_get_string(p, obj, prefix, "site", &m->site)) != 0)
		return r;
	if (m->site != NULL && !inventory_name_valid(m->site))
		return json_fail(p, where,
		    "%s is not a valid site; use letters, digits, '.', '_' "
		    "and '-', starting with a letter or digit (at most 64), "
		    "e.g. \"site\": \"zurich\"",
		    json_show(m->site, shown, sizeof shown));
	return 0;
}

/* How to reach a machine: the SSH fields, falling back on the defaults. */
static int
parse_connection(struct json_doc *p, const cJSON *obj, const char *prefix,
    const struct defaults *d, struct machine *m)
{
	char where[96], shown[128];
	const char *host;
	int r, transport = -1;

	json_member_path(where, sizeof where, prefix, "ssh_host");
	if ((r = json_get_string(p, obj, prefix, "ssh_host",
	    &m->ssh_host)) != 0)
		return r;
	if (m->ssh_host != NULL && !inventory_valid_ssh_host(m->ssh_host))
		return json_fail(p, where,
		    "%s is not a host name, IP address or "
		    "ssh config alias", json_show(m->ssh_host, shown,
		    sizeof shown));
	if (m->ssh_host == NULL) {
		host = m->rcc_host != NULL ? m->rcc_host : m->name;
		if ((m->ssh_host = strdup(host)) == NULL)
			return NP_ERR_NOMEM;
	}
	if ((r = get_user(p, obj, prefix, &m->user)) != 0)
		return r;
	if (m->user == NULL && d->user != NULL &&
	    (m->user = strdup(d->user)) == NULL)
		return NP_ERR_NOMEM;
	m->port = d->port;
	if ((r = json_get_int(p, obj, prefix, "port", BOUNDS_INT(bounds_port), &m->port)) != 0)
		return r;
	if ((r = get_path(p, obj, prefix, "identity_file",
	    &m->identity_file)) != 0)
		return r;
	if (m->identity_file == NULL && d->identity_file != NULL &&
	    (m->identity_file = strdup(d->identity_file)) == NULL)
		return NP_ERR_NOMEM;
	if ((r = json_get_string(p, obj, prefix, "remote_setup",
	    &m->remote_setup)) != 0)
		return r;
	if (m->remote_setup == NULL && d->remote_setup != NULL &&
	    (m->remote_setup = strdup(d->remote_setup)) == NULL)
		return NP_ERR_NOMEM;
	if ((r = get_transport(p, obj, prefix, &transport)) != 0)
		return r;
	m->transport = transport != -1 ? transport : d->transport;
	return 0;
}

static int
parse_machine(struct json_doc *p, const cJSON *obj, size_t index,
    const struct defaults *d, struct machine *m)
{
	char prefix[48];
	int r;

	m->index = index;
	snprintf(prefix, sizeof prefix, "machines[%zu]", index);
	if (!cJSON_IsObject(obj))
		return json_fail(p, prefix,
		    "expected an object like {\"name\": ..., "
		    "\"address\": ...}, found %s", json_type_name(obj));
	if ((r = parse_identity(p, obj, prefix, m)) != 0)
		return r;
	if ((r = parse_connection(p, obj, prefix, d, m)) != 0)
		return r;
	m->http_port = INVENTORY_DEFAULT_HTTP_PORT;
	m->libp2p_port = INVENTORY_DEFAULT_LIBP2P_PORT;
	if ((r = json_get_int(p, obj, prefix, "http_port",
	    BOUNDS_INT(bounds_port),
	    &m->http_port)) != 0 ||
	    (r = json_get_int(p, obj, prefix, "libp2p_port",
	    BOUNDS_INT(bounds_libp2p_port),
	    &m->libp2p_port)) != 0)
		return r;
	return parse_bootstrap_extra(p, obj, prefix, m);
}

static int
check_unique_names(struct json_doc *p, const struct inventory *inv)
{
	char where[48], shown[128];
	size_t i, j;

	for (j = 1; j < inv->n_machines; j++) {
		for (i = 0; i < j; i++) {
			if (strcmp(inv->machines[i].name,
			    inv->machines[j].name) != 0)
				continue;
			snprintf(where, sizeof where, "machines[%zu].name", j);
			return json_fail(p, where,
			    "%s is used twice (machines[%zu] "
			    "and machines[%zu]); names must be unique",
			    json_show(inv->machines[j].name, shown,
			    sizeof shown),
			    i, j);
		}
	}
	return 0;
}

/* "command" without a template cannot work; say where to put one. */
static int
check_transports(struct json_doc *p, const struct inventory *inv,
    const struct defaults *d)
{
	const char *fix = "\"command\" needs a remote_command template; add "
	    "\"remote_command\": " TEMPLATE_HINT " or set " REMOTE_CMD_ENV;
	char where[48];
	size_t i;

	if (inv->remote_command != NULL)
		return 0;
	if (d->transport == TRANSPORT_COMMAND)
		return json_fail(p, "transport", "%s", fix);
	for (i = 0; i < inv->n_machines; i++) {
		if (inv->machines[i].transport != TRANSPORT_COMMAND)
			continue;
		snprintf(where, sizeof where, "machines[%zu].transport", i);
		return json_fail(p, where, "%s", fix);
	}
	return 0;
}

static void
defaults_free(struct defaults *d)
{
	free(d->user);
	free(d->identity_file);
	free(d->remote_setup);
}

static int
parse_defaults(struct json_doc *p, const cJSON *root, struct defaults *d)
{
	int r;

	if (json_member(root, "ssh_host") != NULL)
		return json_fail(p, "ssh_host",
		    "is a per-machine field; move it "
		    "into the machine it names");
	if ((r = get_user(p, root, NULL, &d->user)) != 0 ||
	    (r = json_get_int(p, root, NULL, "port", BOUNDS_INT(bounds_port),
	    &d->port)) != 0 ||
	    (r = get_path(p, root, NULL, "identity_file",
	    &d->identity_file)) != 0 ||
	    (r = json_get_string(p, root, NULL, "remote_setup",
	    &d->remote_setup)) != 0 ||
	    (r = get_transport(p, root, NULL, &d->transport)) != 0)
		return r;
	return 0;
}

/* The upstream settings and the SSH files. */
static int
parse_settings(struct json_doc *p, const cJSON *root, struct inventory *inv)
{
	const char *home = home_dir();
	int r;

	inv->ping_count = 5;
	inv->ping_interval = 1.0;
	inv->iperf_seconds = 5;
	inv->iperf_port = 5201;
	inv->connect_timeout_seconds = 10;
	if ((r = json_get_int(p, root, NULL, "ping_count",
	    BOUNDS_INT(bounds_ping_count),
	    &inv->ping_count)) != 0 ||
	    (r = json_get_seconds(p, root, "ping_interval",
	    bounds_ping_interval.hi,
	    &inv->ping_interval)) != 0 ||
	    (r = json_get_int(p, root, NULL, "iperf_seconds",
	    BOUNDS_INT(bounds_iperf_seconds),
	    &inv->iperf_seconds)) != 0 ||
	    (r = json_get_int(p, root, NULL, "iperf_port",
	    BOUNDS_INT(bounds_port),
	    &inv->iperf_port)) != 0 ||
	    (r = json_get_int(p, root, NULL, "connect_timeout_seconds",
	    BOUNDS_INT(bounds_connect_timeout),
	    &inv->connect_timeout_seconds)) != 0)
		return r;
	if ((r = get_path(p, root, NULL, "known_hosts_file",
	    &inv->known_hosts_file)) != 0 ||
	    (r = get_path(p, root, NULL, "ssh_config_file",
	    &inv->ssh_config_file)) != 0)
		return r;
	if (inv->known_hosts_file == NULL && home != NULL &&
	    (inv->known_hosts_file = str_printf("%s/.ssh/known_hosts",
	    home)) == NULL)
		return NP_ERR_NOMEM;
	if (inv->ssh_config_file == NULL && home != NULL &&
	    (inv->ssh_config_file = str_printf("%s/.ssh/config", home)) == NULL)
		return NP_ERR_NOMEM;
	if ((r = parse_remote_command(p, root, inv)) != 0)
		return r;
	return parse_remote_command_env(p, inv);
}

static int
parse_machines(struct json_doc *p, const cJSON *root, struct inventory *inv)
{
	const cJSON *list = json_member(root, "machines"), *item;
	struct defaults d = { .transport = -1 };
	int r;

	if ((r = parse_defaults(p, root, &d)) != 0)
		goto out;
	if (d.transport == -1)
		d.transport = inv->remote_command != NULL ?
		    TRANSPORT_COMMAND : TRANSPORT_SSH;
	if (list == NULL) {
		r = inventory_missing(p, root, 1, "machines", "machines",
		    "add \"machines\": [{\"name\": ..., \"address\": ...}]");
		goto out;
	}
	if (!cJSON_IsArray(list)) {
		r = json_fail(p, "machines",
		    "expected an array of machines, found "
		    "%s", json_type_name(list));
		goto out;
	}
	if (cJSON_GetArraySize(list) == 0) {
		r = json_fail(p, "machines", "empty; add at least one machine "
		    "{\"name\": ..., \"address\": ...}");
		goto out;
	}
	inv->machines = calloc((size_t)cJSON_GetArraySize(list),
	    sizeof *inv->machines);
	if (inv->machines == NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	cJSON_ArrayForEach(item, list) {
		r = parse_machine(p, item, inv->n_machines,
		    &d, &inv->machines[inv->n_machines]);
		inv->n_machines++;
		if (r != 0)
			goto out;
	}
	if ((r = check_unique_names(p, inv)) != 0)
		goto out;
	r = check_transports(p, inv, &d);
out:
	defaults_free(&d);
	return r;
}

/* "path:LINE:COL: syntax error: what" for text cJSON refused. */
static int
syntax_error(struct json_doc *p, const char *text, size_t len,
    const char *cjson_end)
{
	const char *what = "syntax error";
	size_t offset;
	int line, column;

	if (json_find_error(text, len, &offset, &what) != 0)
		;
	else if (cjson_end != NULL && cjson_end >= text &&
	    cjson_end <= text + len)
		offset = (size_t)(cjson_end - text);
	else
		offset = 0;
	json_line_column(text, offset, &line, &column);
	if (p->cause != NULL) {
		free(*p->cause);
		if (strcmp(what, "syntax error") == 0)
			*p->cause = str_printf("%s:%d:%d: syntax error", p->path,
			    line, column);
		else
			*p->cause = str_printf("%s:%d:%d: syntax error: %s",
			    p->path, line, column, what);
	}
	return NP_ERR_INVENTORY;
}

static int
parse_text(const char *text, size_t len, const char *path,
    struct inventory **out, char **cause)
{
	struct json_doc p = { .path = path, .cause = cause,
	    .error = NP_ERR_INVENTORY };
	struct inventory *inv = NULL;
	const char *end = NULL;
	const cJSON *item;
	cJSON *root;
	size_t i = 0;
	long nul;
	int r;

	*out = NULL;
	if (cause != NULL)
		*cause = NULL;
	/*
	 * cJSON wants the terminating NUL inside the length when asked to
	 * refuse trailing text, and would stop quietly at a NUL byte inside.
	 */
	if (memchr(text, '\0', len) != NULL ||
	    (root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1)) == NULL)
		return syntax_error(&p, text, len, end);
	/* A \u0000 would cut the string (a host "a\u0000x" read as "a"); of
	 * duplicate keys the last counts, as in Python's json. */
	if ((nul = json_find_nul(text, len)) >= 0) {
		int line, column;

		json_line_column(text, (size_t)nul, &line, &column);
		if (cause != NULL)
			*cause = str_printf("%s:%d:%d: a \\u0000 (NUL) in a string "
			    "is not supported; remove it", path, line, column);
		r = NP_ERR_INVENTORY;
		goto out;
	}
	if ((r = json_keep_last(root)) != 0)
		goto out;
	if (!cJSON_IsObject(root)) {
		r = json_fail(&p, NULL,
		    "expected a JSON object with \"machines\" at "
		    "the top level, found %s", json_type_name(root));
		goto out;
	}
	if ((inv = calloc(1, sizeof *inv)) == NULL ||
	    (inv->path = strdup(path)) == NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	if ((r = parse_settings(&p, root, inv)) != 0 ||
	    (r = parse_machines(&p, root, inv)) != 0 ||
	    (r = inventory_check_keys(inv, root, NULL)) != 0)
		goto out;
	cJSON_ArrayForEach(item, json_member(root, "machines")) {
		char where[48];

		snprintf(where, sizeof where, "machines[%zu]", i++);
		if (cJSON_IsObject(item) &&
		    (r = inventory_check_keys(inv, item, where)) != 0)
			goto out;
	}
	if ((r = env_notice(inv, root)) != 0)
		goto out;
	*out = inv;
	inv = NULL;	/* transferred */
out:
	inventory_free(inv);
	cJSON_Delete(root);
	return r;
}

int
inventory_parse(const char *text, const char *path, struct inventory **out,
    char **cause)
{
	return parse_text(text, strlen(text), path, out, cause);
}

int
inventory_load(const char *path, struct inventory **out, char **cause)
{
	char *text = NULL, *ignored = NULL;
	size_t len = 0;
	int r;

	*out = NULL;
	if (cause == NULL)
		cause = &ignored;
	*cause = NULL;
	if ((r = file_read(path, &text, &len, cause)) != 0)
		goto out;
	if (len > INVENTORY_MAX_SIZE) {
		*cause = str_printf("%s: too large (over 16 MiB); is this the "
		    "inventory?", path);
		r = NP_ERR_INVENTORY;
		goto out;
	}
	r = parse_text(text, len, path, out, cause);
out:
	free(text);
	free(ignored);
	return r;
}

void
inventory_machine_clear(struct machine *m)
{
	free(m->name);
	free(m->address);
	free(m->rcc_host);
	free(m->site);
	free(m->ssh_host);
	free(m->user);
	free(m->identity_file);
	free(m->remote_setup);
	json_strings_free(m->bootstrap_extra, m->n_bootstrap_extra);
	memset(m, 0, sizeof *m);
}

void
inventory_free(struct inventory *inv)
{
	size_t i;

	if (inv == NULL)
		return;
	for (i = 0; i < inv->n_machines; i++)
		inventory_machine_clear(&inv->machines[i]);
	free(inv->machines);
	json_strings_free(inv->remote_command, inv->n_remote_command);
	for (i = 0; i < inv->n_warnings; i++)
		free(inv->warnings[i].text);
	free(inv->warnings);
	free(inv->known_hosts_file);
	free(inv->ssh_config_file);
	free(inv->slurm_job);
	free(inv->path);
	free(inv);
}

struct machine *
inventory_find(const struct inventory *inv, const char *name)
{
	size_t i;

	for (i = 0; i < inv->n_machines; i++) {
		if (strcmp(inv->machines[i].name, name) == 0)
			return &inv->machines[i];
	}
	return NULL;
}

int
inventory_multiaddr(const struct machine *m, int port, const char *peer_id,
    char **out)
{
	const char *proto;

	*out = NULL;
	if (inventory_valid_ipv6(m->address))
		proto = "ip6";
	else if (inventory_valid_ipv4(m->address))
		proto = "ip4";
	else
		proto = "dns4";
	if (peer_id != NULL)
		*out = str_printf("/%s/%s/tcp/%d/p2p/%s", proto, m->address, port,
		    peer_id);
	else
		*out = str_printf("/%s/%s/tcp/%d", proto, m->address, port);
	return *out == NULL ? NP_ERR_NOMEM : 0;
}
