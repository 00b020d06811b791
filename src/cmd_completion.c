/*
 * netprof completion bash|zsh: a shell completion script, written from the
 * command table and each command's option table (option.h), so that it
 * knows every command and option the binary knows and cannot drift from
 * them: the commands, each command's options (long and short), a file for
 * an option whose argument is a FILE or DIR, an enumerated option's
 * choices, and for --hosts and --exclude the machines and @sites of the
 * --config given on the line (read with jq when it is there).
 *
 * A machines.json may be anyone's: the scripts offer of it only the names
 * and sites that keep the inventory's name rule (inventory_name_valid()),
 * checked by jq and again by the shell, and bash gets them as words it
 * never expands (compgen -W would run $(...) and `...` inside them).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "error.h"
#include "inventory.h"
#include "option.h"

/* The inventory's name rule, as an extended regular expression. */
#define NAME_RE_CHARS "[A-Za-z0-9][A-Za-z0-9._-]{0,%d}"

/*
 * The jq program that lists the machines and @sites of a machines.json
 * that keep the name rule; single-quoted in both shells. \A and \z: a
 * name with a newline is one string to jq, so $ would match before it.
 */
static void
put_jq_names(FILE *f)
{
	fprintf(f, "jq -r 'def ok: strings | select(test(\"\\\\A"
	    NAME_RE_CHARS "\\\\z\")); .machines[]? | (.name? | ok), "
	    "(.site? | ok | \"@\" + .)'", INVENTORY_NAME_MAX - 1);
}

/* What the argument of an option is, for completing it. */
enum arg_kind { ARG_NONE, ARG_FILE, ARG_CHOICES, ARG_HOSTS, ARG_OTHER };

static enum arg_kind
arg_kind(const struct option_spec *s)
{
	if (s->type == OPTION_FLAG)
		return ARG_NONE;
	if (s->type == OPTION_ENUM)
		return ARG_CHOICES;
	if (s->arg != NULL && strcmp(s->arg, "HOSTS") == 0)
		return ARG_HOSTS;
	if (s->arg != NULL && (strstr(s->arg, "FILE") != NULL ||
	    strstr(s->arg, "DIR") != NULL || strcmp(s->arg, "RUN") == 0))
		return ARG_FILE;
	return ARG_OTHER;
}

/* An option's words ("-o --output"), for bash. */
struct words {
	FILE *f;
	enum arg_kind want;	/* only options of this kind; ARG_OTHER+1: all */
	int any;
};

static void
words_cb(const struct option_spec *s, void *arg)
{
	struct words *w = arg;

	if ((int)w->want <= ARG_OTHER && (arg_kind(s) != w->want ||
	    s->type == OPTION_OPTIONAL))	/* --slurm: its word is optional */
		return;
	if (s->letter != 0)
		fprintf(w->f, "%s-%c", w->any++ ? (w->want <= ARG_OTHER ?
		    "|" : " ") : "", s->letter);
	if (s->also != 0)
		fprintf(w->f, "%s-%c", w->any++ ? (w->want <= ARG_OTHER ?
		    "|" : " ") : "", s->also);
	fprintf(w->f, "%s--%s", w->any++ ? (w->want <= ARG_OTHER ? "|" : " ") :
	    "", s->name);
}

/* "case $prev in" arms of one enumerated option */
static void
choices_cb(const struct option_spec *s, void *arg)
{
	FILE *f = arg;
	size_t i;
	int n = 0;

	if (arg_kind(s) != ARG_CHOICES)
		return;
	fprintf(f, "\t\t");
	if (s->letter != 0)
		fprintf(f, "-%c|", s->letter);
	fprintf(f, "--%s) COMPREPLY=($(compgen -W '", s->name);
	for (i = 0; s->choices[i] != NULL; i++)
		if (*s->choices[i] != '\0')
			fprintf(f, "%s%s", n++ > 0 ? " " : "", s->choices[i]);
	fprintf(f, "' -- \"$cur\")); return ;;\n");
}

static void
bash_command(const struct cmd_entry *e, FILE *f)
{
	struct words w = { .f = f };

	fprintf(f, "\t%s)\n\t\tcase $prev in\n", e->name);
	option_each(e, choices_cb, f);
	w.want = ARG_FILE;
	w.any = 0;
	fprintf(f, "\t\t");
	option_each(e, words_cb, &w);
	if (w.any)
		fprintf(f, ") COMPREPLY=($(compgen -f -- \"$cur\")); "
		    "return ;;\n\t\t");
	w.want = ARG_HOSTS;
	w.any = 0;
	option_each(e, words_cb, &w);
	if (w.any)
		fprintf(f, ") _netprof_host_words; return ;;\n\t\t");
	w.want = ARG_OTHER;
	w.any = 0;
	option_each(e, words_cb, &w);
	if (w.any)	/* a number, a name: nothing to offer, not files */
		fprintf(f, ") compopt +o default 2>/dev/null; return ;;\n\t\t");
	fprintf(f, "esac\n\t\topts='");
	w.want = ARG_OTHER + 1;
	w.any = 0;
	option_each(e, words_cb, &w);
	fprintf(f, "'");
	/* its operand, unless an option is being typed */
	if (e == &cmd_completion_entry)
		fprintf(f, "\n\t\t[[ $cur == -* ]] || opts='bash zsh'");
	fprintf(f, " ;;\n");
}

static void
write_bash(FILE *f)
{
	const struct cmd_entry *const *e;

	fprintf(f, "# bash completion for netprof, written by `netprof "
	    "completion bash`\n# from its option tables. Load it with:\n"
	    "#   source <(netprof completion bash)\n"
	    "# or put it in ~/.local/share/bash-completion/completions/netprof\n"
	    "\n"
	    "# The machines and @sites of the --config (-c) on the line.\n"
	    "_netprof_hosts() {\n"
	    "\tlocal i cfg=\n"
	    "\tfor ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do\n"
	    "\t\tcase ${COMP_WORDS[i]} in\n"
	    "\t\t-c|--config) cfg=${COMP_WORDS[i+1]} ;;\n"
	    "\t\tesac\n"
	    "\tdone\n"
	    "\t[ -n \"$cfg\" ] && [ -r \"$cfg\" ] && command -v jq >/dev/null "
	    "|| return\n\t");
	put_jq_names(f);
	fprintf(f, " \"$cfg\" 2>/dev/null | sort -u\n"
	    "}\n\n"
	    "# Those that start with $cur and keep the name rule, as words bash\n"
	    "# does not expand (no compgen -W: it would run $(...) in them).\n"
	    "_netprof_host_words() {\n"
	    "\tlocal w\n"
	    "\tCOMPREPLY=()\n"
	    "\twhile IFS= read -r w; do\n"
	    "\t\tif [[ $w =~ ^@?" NAME_RE_CHARS "$ && $w == \"$cur\"* ]]\n"
	    "\t\tthen COMPREPLY+=(\"$w\"); fi\n"
	    "\tdone < <(_netprof_hosts)\n"
	    "}\n\n", INVENTORY_NAME_MAX - 1);
	fprintf(f,
	    "_netprof() {\n"
	    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} "
	    "prev=${COMP_WORDS[COMP_CWORD-1]} cmd= opts i\n"
	    "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	    "\t\tcase ${COMP_WORDS[i]} in\n"
	    "\t\t-*) ;;\n"
	    "\t\t*) cmd=${COMP_WORDS[i]}; break ;;\n"
	    "\t\tesac\n"
	    "\tdone\n"
	    "\tcase $cmd in\n"
	    "\t'')\n"
	    "\t\tCOMPREPLY=($(compgen -W '");
	for (e = cmd_entries; *e != NULL; e++)
		fprintf(f, "%s ", (*e)->name);
	fprintf(f, "help -v --verbose -q --quiet -V --version -h --help' -- "
	    "\"$cur\"))\n\t\treturn ;;\n"
	    "\thelp)\n\t\tCOMPREPLY=($(compgen -W '");
	for (e = cmd_entries; *e != NULL; e++)
		fprintf(f, "%s%s", e == cmd_entries ? "" : " ", (*e)->name);
	fprintf(f, "' -- \"$cur\"))\n\t\treturn ;;\n");
	for (e = cmd_entries; *e != NULL; e++)
		bash_command(*e, f);
	fprintf(f, "\t*) return ;;\n\tesac\n"
	    "\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n}\n"
	    "complete -o default -F _netprof netprof\n");
}

/* s for zsh's _arguments: its first line, []: and \ escaped. */
static void
zsh_text(FILE *f, const char *s)
{
	for (; s != NULL && *s != '\0' && *s != '\n'; s++) {
		if (strchr("[]:\\'", *s) != NULL)
			fputc(*s == '\'' ? '`' : '\\', f);
		if (*s != '\'')
			fputc(*s, f);
	}
}

static void
zsh_spec_cb(const struct option_spec *s, void *arg)
{
	FILE *f = arg;
	size_t i;

	fprintf(f, " \\\n\t    '");
	if (s->type == OPTION_LIST || s->repeat || s->letter == 'v')
		fputc('*', f);
	else if (s->letter != 0 || s->also != 0) {
		fprintf(f, "(");
		if (s->letter != 0)
			fprintf(f, "-%c ", s->letter);
		if (s->also != 0)
			fprintf(f, "-%c ", s->also);
		fprintf(f, "--%s)'", s->name);
		fprintf(f, "{");
		if (s->letter != 0)
			fprintf(f, "-%c,", s->letter);
		if (s->also != 0)
			fprintf(f, "-%c,", s->also);
		fprintf(f, "--%s}'", s->name);
		goto text;
	}
	if (s->letter != 0 || s->also != 0) {
		fprintf(f, "'{");
		if (s->letter != 0)
			fprintf(f, "-%c,", s->letter);
		if (s->also != 0)
			fprintf(f, "-%c,", s->also);
		fprintf(f, "--%s}'", s->name);
	} else
		fprintf(f, "--%s", s->name);
text:
	if (s->type == OPTION_OPTIONAL)
		fputs("=-", f);		/* --slurm=42 only: its own word */
	fputc('[', f);
	zsh_text(f, s->help);
	fputc(']', f);
	if (arg_kind(s) != ARG_NONE) {
		fputs(s->type == OPTION_OPTIONAL ? "::" : ":", f);
		zsh_text(f, s->arg != NULL ? s->arg : "VALUE");
		fputc(':', f);
	}
	switch (arg_kind(s)) {
	case ARG_NONE:
		break;
	case ARG_FILE:
		fprintf(f, "_files");
		break;
	case ARG_CHOICES:
		fputc('(', f);
		for (i = 0; s->choices[i] != NULL; i++)
			if (*s->choices[i] != '\0')
				fprintf(f, "%s%s", i > 0 && *s->choices[i - 1] !=
				    '\0' ? " " : "", s->choices[i]);
		fputc(')', f);
		break;
	case ARG_HOSTS:
		fprintf(f, "_netprof_hosts");
		break;
	case ARG_OTHER:
		fputc(' ', f);
		break;
	}
	fputc('\'', f);
}

static void
write_zsh(FILE *f)
{
	const struct cmd_entry *const *e;

	fprintf(f, "#compdef netprof\n"
	    "# zsh completion for netprof, written by `netprof completion zsh`\n"
	    "# from its option tables. Put it in a directory of $fpath as\n"
	    "# _netprof (netprof completion zsh > ~/.zfunc/_netprof), or load\n"
	    "# it with: source <(netprof completion zsh)\n\n"
	    "# The machines and @sites of the --config (-c) on the line.\n"
	    "_netprof_hosts() {\n"
	    "\tlocal cfg=${opt_args[--config]:-${opt_args[-c]}}\n"
	    "\tlocal -a hosts\n"
	    "\t[[ -n $cfg && -r $cfg ]] && (( $+commands[jq] )) || return 1\n"
	    "\thosts=(${(f)\"$(");
	put_jq_names(f);
	fprintf(f, " $cfg 2>/dev/null)\"})\n"
	    "\t_wanted hosts expl host compadd -a hosts\n"
	    "}\n\n"
	    "_netprof() {\n"
	    "\tlocal curcontext=$curcontext state line ret=1\n"
	    "\tlocal -A opt_args\n"
	    /* not "commands": _netprof_hosts needs zsh's $commands */
	    "\tlocal -a subcommands\n"
	    "\tsubcommands=(\n");
	for (e = cmd_entries; *e != NULL; e++) {
		fprintf(f, "\t    '%s:", (*e)->name);
		zsh_text(f, (*e)->summary);
		fprintf(f, "'\n");
	}
	fprintf(f, "\t    'help:show help for a command'\n\t)\n"
	    "\t_arguments -C \\\n"
	    "\t    '*'{-v,--verbose}'[tell the story of the run on stderr]' \\\n"
	    "\t    '(-q --quiet)'{-q,--quiet}'[print only errors]' \\\n"
	    "\t    '(- *)'{-V,--version}'[print the version and exit]' \\\n"
	    "\t    '(- *)'{-h,--help}'[show the commands]' \\\n"
	    "\t    '1: :->command' \\\n"
	    "\t    '*:: :->args' && ret=0\n"
	    "\tcase $state in\n"
	    "\tcommand) _describe -t commands 'netprof command' subcommands "
	    "&& ret=0 ;;\n"
	    "\targs)\n"
	    "\t\tcurcontext=${curcontext%%:*:*}:netprof-$words[1]:\n"
	    "\t\tcase $words[1] in\n"
	    "\t\thelp) _describe -t commands 'netprof command' subcommands "
	    "&& ret=0 ;;\n");
	for (e = cmd_entries; *e != NULL; e++) {
		fprintf(f, "\t\t%s)\n\t\t\t_arguments -s", (*e)->name);
		option_each(*e, zsh_spec_cb, f);
		if (*e == &cmd_completion_entry)
			fprintf(f, " \\\n\t\t\t    '1:shell:(bash zsh)'");
		if ((*e)->options_first)
			fprintf(f, " \\\n\t\t\t    '*:: :_normal'");
		fprintf(f, " && ret=0 ;;\n");
	}
	fprintf(f, "\t\tesac ;;\n\tesac\n\treturn ret\n}\n\n"
	    "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
	    "\t_netprof \"$@\"\nelse\n\tcompdef _netprof netprof\nfi\n");
}

static const char *const shells[] = { "bash", "zsh", NULL };

struct completion_options {
	int shell;
};

static int
cmd_completion_exec(const struct cmd_entry *self, int argc, char **argv)
{
	struct completion_options o = { 0 };
	int operand, r;
	size_t i;

	if ((r = option_parse(self, argc, argv, &o, &operand)) != 0)
		return option_exit(r);
	if (operand >= argc)
		return option_usage_error(self, "which shell? bash or zsh");
	if (operand != argc - 1)
		return option_usage_error(self, "unexpected argument '%s'",
		    argv[operand + 1]);
	for (i = 0; shells[i] != NULL; i++)
		if (strcmp(argv[operand], shells[i]) == 0)
			break;
	if (shells[i] == NULL)
		return option_usage_error(self, "'%s' is not bash or zsh",
		    argv[operand]);
	if (i == 0)
		write_bash(stdout);
	else
		write_zsh(stdout);
	return NP_EXIT_OK;
}

static const struct option_block completion_options_table[] = {
	{ NULL, 0 }
};

const struct cmd_entry cmd_completion_entry = {
	.name = "completion",
	.summary = "print a shell completion script (bash or zsh)",
	.usage = "bash|zsh",
	.about =
	    "Writes the completion script of the shell to standard output,\n"
	    "made from the command and option tables of this binary: the\n"
	    "commands, each one's options, files where a FILE or DIR is\n"
	    "taken, the choices of an option that has them, and for --hosts\n"
	    "and --exclude the machines and @sites of the --config on the\n"
	    "line (with jq; only names that keep the name rule, nothing of\n"
	    "the file evaluated). bash: source <(netprof completion bash);\n"
	    "zsh: netprof completion zsh > ~/.zfunc/_netprof with ~/.zfunc\n"
	    "in $fpath before compinit.\n",
	.options = completion_options_table,
	.examples =
	    "# bash: completion in this shell\n"
	    "source <(netprof completion bash)\n"
	    "# zsh: the script where compinit finds it\n"
	    "netprof completion zsh > ~/.zfunc/_netprof\n",
	.exec = cmd_completion_exec,
};
