/*
 * netprof's entry point: global options, then the command table. A command is
 * matched by its exact name or a unique prefix ("col" for collect).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cmd.h"
#include "error.h"
#include "log.h"
#include "suggest.h"


static void
print_overview(FILE *f)
{
	const struct cmd_entry *const *e;

	fprintf(f, "usage: netprof [-v|-q] COMMAND [OPTIONS]\n"
	    "       netprof help [COMMAND]\n"
	    "       netprof --version\n\n"
	    "Measure the network between the machines of an inventory "
	    "(machines.json).\n\ncommands:\n");
	for (e = cmd_entries; *e != NULL; e++)
		fprintf(f, "  %-10s %s\n", (*e)->name, (*e)->summary);
	fprintf(f, "  %-10s %s\n", "help", "show help for a command");
	fprintf(f, "\nglobal options:\n"
	    "  -v, --verbose   tell the story of the run on stderr (twice: more)\n"
	    "  -q, --quiet     print only errors\n"
	    "  -V, --version   print the version and exit\n"
	    "\nRun 'netprof COMMAND --help' for a command's options. "
	    "See netprof(1).\n");
}

/* Exact name, else the one command the prefix names; NULL and a message. */
static const struct cmd_entry *
cmd_find(const char *name)
{
	const struct cmd_entry *const *e, *found = NULL;
	char others[256] = "";
	size_t len = strlen(name);
	int matches = 0;

	for (e = cmd_entries; *e != NULL; e++) {
		if (strcmp((*e)->name, name) == 0)
			return *e;
		if (len > 0 && strncmp((*e)->name, name, len) == 0) {
			found = *e;
			matches++;
			if (strlen(others) + strlen((*e)->name) + 3 < sizeof others) {
				if (*others != '\0')
					strcat(others, ", ");
				strcat(others, (*e)->name);
			}
		}
	}
	if (matches == 1)
		return found;
	if (matches > 1) {
		log_error("ambiguous command '%s': could be %s", name, others);
		return NULL;
	}
	{
		const char *names[32], *near;
		size_t n = 0;

		for (e = cmd_entries; *e != NULL && n < 31; e++)
			names[n++] = (*e)->name;
		names[n++] = "help";
		if ((near = suggest_nearest(name, names, n)) != NULL)
			log_error("unknown command '%s'; did you mean '%s'? (run "
			    "'netprof help' for the list)", name, near);
		else
			log_error("unknown command '%s'; run 'netprof help' for "
			    "the list", name);
	}
	return NULL;
}

/* Does a command know the option word (--NAME[=ARG])? */
struct known_option {
	const char *name;
	size_t len;
	int found;
};

static void
known_option_cb(const struct option_spec *spec, void *arg)
{
	struct known_option *k = arg;

	if (strlen(spec->name) == k->len && strncmp(spec->name, k->name,
	    k->len) == 0)
		k->found = 1;
}

static const struct cmd_entry *
command_with_option(const char *word)
{
	const struct cmd_entry *const *e;
	struct known_option k;

	if (strncmp(word, "--", 2) != 0)
		return NULL;
	k.name = word + 2;
	k.len = strcspn(k.name, "=");
	for (e = cmd_entries; *e != NULL; e++) {
		k.found = 0;
		option_each(*e, known_option_cb, &k);
		if (k.found)
			return *e;
	}
	return NULL;
}

static int
cmd_help(int argc, char **argv)
{
	const struct cmd_entry *entry;

	if (argc < 2) {
		print_overview(stdout);
		return NP_EXIT_OK;
	}
	if ((entry = cmd_find(argv[1])) == NULL)
		return NP_EXIT_USAGE;
	option_print_usage(entry, stdout, 1);
	return NP_EXIT_OK;
}

/*
 * Every host holds a socket (and a spawned command three pipes): the soft
 * limit on open files, often 1,024, would fail hosts past the 500th, while
 * the hard limit is there to be used. Raised once, for the whole run.
 */
static void
raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		log_debug(NULL, "cannot raise the open-file limit: %s",
		    strerror(errno));
}

static int
run_command(int argc, char **argv)
{
	const struct cmd_entry *entry;
	static char prog[64];
	int i;

	/*
	 * A write to a reader that went away (a remote command that exits
	 * without reading its stdin, `| head -1`) must fail with EPIPE, which
	 * every writer reports, not kill the process with its records unsaid.
	 */
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)
			log_more_verbose();
		else if (strcmp(a, "-vv") == 0) {
			log_more_verbose();
			log_more_verbose();
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
			log_set_quiet();
		else if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
			printf("netprof %s\n", NETPROF_VERSION);
			return NP_EXIT_OK;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			print_overview(stdout);
			return NP_EXIT_OK;
		} else if (command_with_option(a) != NULL) {
			const char *cmd = "COMMAND";
			int j;

			/* the command named later on the line, if one is */
			for (j = i + 1; j < argc; j++) {
				const struct cmd_entry *const *e;

				for (e = cmd_entries; *e != NULL; e++)
					if (strcmp((*e)->name, argv[j]) == 0)
						cmd = (*e)->name;
				if (strcmp(cmd, "COMMAND") != 0)
					break;
			}
			log_error("%.*s is a command's option: give it after the "
			    "command (netprof %s %s ...)", (int)strcspn(a, "="), a,
			    cmd, a);
			return NP_EXIT_USAGE;
		} else {
			log_error("unknown option '%s'; run 'netprof help'", a);
			return NP_EXIT_USAGE;
		}
	}
	if (i == argc) {
		print_overview(stderr);
		return NP_EXIT_USAGE;
	}
	if (strcmp(argv[i], "help") == 0)
		return cmd_help(argc - i, argv + i);
	if ((entry = cmd_find(argv[i])) == NULL)
		return NP_EXIT_USAGE;
	/* getopt names argv[0] in its messages: the command's full name */
	snprintf(prog, sizeof prog, "netprof %s", entry->name);
	argv[i] = prog;
	return entry->exec(entry, argc - i, argv + i);
}

/*
 * What a command printed must have reached standard output: a full disk or
 * a failing device is an error (exit 1), as a failing --output file is. A
 * reader that stopped reading (EPIPE, as with `| head -1`) gets no message.
 */
static int
stdout_finish(int code)
{
	int failed = fflush(stdout) != 0, err = errno;

	if (!failed && !ferror(stdout))
		return code;
	if (!failed || err != EPIPE)
		log_error("standard output: write error%s%s%s",
		    failed ? " (" : "", failed ? strerror(err) : "",
		    failed ? ")" : "");
	return code == NP_EXIT_OK ? NP_EXIT_FAILED : code;
}

int
main(int argc, char **argv)
{
	return stdout_finish(run_command(argc, argv));
}
