/*
 * Reproduction lines for probes (command_line.h). The remote part is
 * always one single-quoted shell word, so the user's shell hands it to ssh
 * or sh exactly as netprof sent it; ssh options are spelled out only where
 * the inventory departs from what a plain `ssh HOST` would use (its own
 * known_hosts or ssh config file, a key, a user, a port), so the line works
 * as it stands and stays short in the common case.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "command_line.h"
#include "error.h"
#include "inventory_slurm.h"
#include "inventory.h"
#include "shell.h"
#include "template.h"
#include "util.h"

char *
command_line_on_host(const struct machine *m, const char *command)
{
	const char *setup = m->remote_setup;

	if (setup == NULL || *setup == '\0')
		return strdup(command);
	return str_printf("{\n%s\n} || exit\n%s", setup, command);
}

/* 64 random bits, drawn once per process. */
static uint64_t
process_random(void)
{
	static uint64_t v;
	static int drawn;
	struct timespec ts;

	if (drawn)
		return v;
	if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
		/* no entropy source: unique enough for a marker */
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (uint64_t)ts.tv_nsec * 6364136223846793005u ^
		    (uint64_t)ts.tv_sec << 20 ^ (uint64_t)getpid();
	}
	drawn = 1;
	return v;
}

const char *
command_line_setup_marker(void)
{
	static char marker[48];

	if (marker[0] == '\0')
		snprintf(marker, sizeof marker, "netprof-setup-done-%016llx",
		    (unsigned long long)process_random());
	return marker;
}

const char *
command_line_process_tag(void)
{
	static char tag[16];

	if (tag[0] == '\0')
		snprintf(tag, sizeof tag, "%08lx",
		    (unsigned long)(process_random() >> 32));
	return tag;
}

char *
command_line_on_host_marked(const struct machine *m, const char *command,
    int *marked)
{
	const char *setup = m->remote_setup;

	*marked = 0;
	if (setup == NULL || *setup == '\0')
		return strdup(command);
	*marked = 1;
	return str_printf("{\n%s\n} || exit\necho %s\n%s", setup,
	    command_line_setup_marker(), command);
}

/* Nonzero if path is $HOME/rest, what ssh reads without being told. */
static int
is_home_default(const char *path, const char *rest)
{
	const char *home = getenv("HOME");
	size_t n;

	if (path == NULL || home == NULL)
		return 1;
	n = strlen(home);
	return strncmp(path, home, n) == 0 && strcmp(path + n, rest) == 0;
}

/* Like shell_join, but the last word is always quoted: it is a script. */
static char *
join_quoting_last(char *const *argv, size_t argc)
{
	char *head, *tail, *s = NULL;

	if ((head = shell_join(argv, argc - 1)) == NULL)
		return NULL;
	if ((tail = shell_quote(argv[argc - 1])) != NULL)
		s = str_printf("%s %s", head, tail);
	free(head);
	free(tail);
	return s;
}

/* "ssh [options] HOST 'remote'": at most 13 words. */
static char *
ssh_line(const struct inventory *inv, const struct machine *m,
    const char *remote)
{
	char *argv[16], port[16], known[4200];
	size_t n = 0;

	argv[n++] = "ssh";
	if (m->port > 0) {
		snprintf(port, sizeof port, "%d", m->port);
		argv[n++] = "-p";
		argv[n++] = port;
	}
	if (m->user != NULL) {
		argv[n++] = "-l";
		argv[n++] = m->user;
	}
	if (m->identity_file != NULL) {
		argv[n++] = "-i";
		argv[n++] = m->identity_file;
	}
	if (!is_home_default(inv->ssh_config_file, "/.ssh/config")) {
		argv[n++] = "-F";
		argv[n++] = inv->ssh_config_file;
	}
	if (!is_home_default(inv->known_hosts_file, "/.ssh/known_hosts")) {
		snprintf(known, sizeof known, "UserKnownHostsFile=%s",
		    inv->known_hosts_file);
		argv[n++] = "-o";
		argv[n++] = known;
	}
	argv[n++] = m->ssh_host;
	argv[n++] = (char *)remote;
	return join_quoting_last(argv, n);
}

int
command_line_reproduce(const struct inventory *inv, const struct machine *m,
    const char *command, char **out)
{
	char *remote, **argv = NULL, *line = NULL;
	size_t n;
	int r = 0;

	*out = NULL;
	if ((remote = command_line_on_host(m, command)) == NULL)
		return NP_ERR_NOMEM;
	switch (m->transport) {
	case TRANSPORT_SSH:
		line = ssh_line(inv, m, remote);
		break;
	case TRANSPORT_COMMAND:
		if (inv->remote_command == NULL || inv->n_remote_command == 0) {
			r = NP_ERR_INVENTORY;
			goto out;
		}
		if ((r = template_expand(inv->remote_command,
		    inv->n_remote_command, m, remote, &argv)) != 0)
			goto out;
		for (n = 0; argv[n] != NULL; n++)
			;
		line = shell_join(argv, n);
		break;
	case TRANSPORT_LOCAL: {
		char *words[] = { "sh", "-c", remote };

		line = join_quoting_last(words, 3);
		break;
	}
	case TRANSPORT_SLURM:
		if (inv->slurm_job == NULL) {
			r = NP_ERR_INVENTORY;
			goto out;
		}
		if ((argv = inventory_slurm_step_argv(inv->slurm_job, m->name,
		    NULL, remote)) == NULL) {
			r = NP_ERR_NOMEM;
			goto out;
		}
		for (n = 0; argv[n] != NULL; n++)
			;
		line = shell_join(argv, n);
		break;
	}
	if (line == NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	*out = line;
out:
	template_argv_free(argv);
	free(remote);
	return r;
}
