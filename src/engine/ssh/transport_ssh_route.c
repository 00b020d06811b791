/*
 * A machine's session options, from its inventory entry and its ssh
 * config, set in one place for the session that connects
 * (transport_ssh_session.c) and for the route check shows
 * (engine_route.h): what libssh will log in as and where, read back from
 * a session that is configured but never connected.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "inventory.h"
#include "transport_ssh.h"
#include "util.h"

int
transport_ssh_configure(ssh_session s, const struct inventory *inv,
    const struct machine *m)
{
	struct stat st;
	unsigned int port;
	int process_config = 0;

	ssh_options_set(s, SSH_OPTIONS_HOST, m->ssh_host);
	/* config first: Host blocks match the alias; explicit values win */
	if (inv->ssh_config_file != NULL &&
	    stat(inv->ssh_config_file, &st) == 0 &&
	    ssh_options_parse_config(s, inv->ssh_config_file) != 0)
		return NP_ERR_INVENTORY;
	ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &process_config);
	if (m->user != NULL)
		ssh_options_set(s, SSH_OPTIONS_USER, m->user);
	if (m->port > 0) {
		port = (unsigned int)m->port;
		ssh_options_set(s, SSH_OPTIONS_PORT, &port);
	}
	return 0;
}

/* The word after flag in the command line cmd ("-l USER"), or NULL. */
static char *
word_after(const char *cmd, const char *flag)
{
	const char *p = cmd;
	size_t len = strlen(flag);

	while ((p = strstr(p, flag)) != NULL) {
		if ((p == cmd || p[-1] == ' ') && p[len] == ' ') {
			p += len + 1;
			return strndup(p, strcspn(p, " "));
		}
		p += len;
	}
	return NULL;
}

/*
 * The jump host of a proxy command that is OpenSSH's "ssh ... -W
 * HOST:PORT JUMP" (how libssh runs ProxyJump, and the usual
 * ProxyCommand): "[USER@]JUMP[:PORT]". NULL for another command.
 */
static char *
jump_of(const char *cmd)
{
	char *user, *port, *jump = NULL;
	const char *last;

	if (strncmp(cmd, "ssh ", 4) != 0 || strstr(cmd, " -W ") == NULL)
		return NULL;
	last = strrchr(cmd, ' ') + 1;
	user = word_after(cmd, "-l");
	port = word_after(cmd, "-p");
	jump = str_printf("%s%s%s%s%s", user != NULL ? user : "",
	    user != NULL ? "@" : "", last, port != NULL ? ":" : "",
	    port != NULL ? port : "");
	free(user);
	free(port);
	return jump;
}

char *
transport_ssh_route(const struct inventory *inv, const struct machine *m)
{
	char *host = NULL, *user = NULL, *proxy = NULL, *jump = NULL, *r;
	const struct passwd *pw;
	unsigned int port = 22;
	ssh_session s;

	if ((s = ssh_new()) == NULL)
		return NULL;
	if (transport_ssh_configure(s, inv, m) != 0) {
		r = str_printf("%s (the ssh config %s cannot be read: %s)",
		    m->ssh_host, inv->ssh_config_file, ssh_get_error(s));
		ssh_free(s);
		return r;
	}
	ssh_options_get_port(s, &port);
	if (ssh_options_get(s, SSH_OPTIONS_HOST, &host) != SSH_OK)
		host = NULL;
	if (ssh_options_get(s, SSH_OPTIONS_USER, &user) != SSH_OK)
		user = NULL;
	if (ssh_options_get(s, SSH_OPTIONS_PROXYCOMMAND, &proxy) != SSH_OK ||
	    strcmp(proxy, "none") == 0) {
		ssh_string_free_char(proxy);
		proxy = NULL;
	}
	if (proxy != NULL)
		jump = jump_of(proxy);
	/* libssh's user when none is set: this process's */
	pw = user == NULL ? getpwuid(getuid()) : NULL;
	r = str_printf("%s@%s:%u%s%s%s%s%s", user != NULL ? user : pw != NULL ?
	    pw->pw_name : "?", host != NULL ? host : m->ssh_host, port,
	    jump != NULL ? " via " : "", jump != NULL ? jump : "",
	    proxy != NULL && jump == NULL ? " via ProxyCommand '" : "",
	    proxy != NULL && jump == NULL ? proxy : "",
	    proxy != NULL && jump == NULL ? "'" : "");
	ssh_string_free_char(host);
	ssh_string_free_char(user);
	ssh_string_free_char(proxy);
	free(jump);
	ssh_free(s);
	return r;
}
