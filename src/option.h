/*
 * Command-line options as tables: each command lists its options as typed
 * entries (the shared blocks of the runner, the plan and the probes, then
 * its own), and one parser, one error format and one help layout serve
 * them all (curl's tool_getparam.c, tmux's args_parse). A range comes
 * from bounds.h, which the inventory loader uses too.
 *
 * The tables of the commands look alike on purpose (a copy finder lists
 * them): they are data, one entry per option, and what they share is
 * already shared as the blocks above.
 *
 * Adding an option: one entry in the command's table (or a shared block)
 * with its field's offset, its type and its help; docs/netprof.1 and the
 * command's page get it too (tests/integration/test_options.sh fails
 * otherwise).
 */
#ifndef NETPROF_OPTION_H
#define NETPROF_OPTION_H

#include <stddef.h>
#include <stdio.h>

struct bounds;

enum option_type {
	OPTION_FLAG,		/* int: set to 1 */
	OPTION_STRING,		/* const char *: the argument itself */
	OPTION_OPTIONAL,	/* const char *: --NAME=ARG gives ARG, a bare
				   --NAME "" (long only: --slurm [JOBID]);
				   with .next_word, --NAME ARG too when ARG
				   is such a word */
	OPTION_LIST,		/* const char **, repeatable, grown (the
				   caller frees the array); its count is the
				   size_t at .count */
	OPTION_INT,		/* int within .bounds */
	OPTION_SECONDS,		/* double within .bounds */
	OPTION_ENUM,		/* int: the index of the argument in .choices */
	OPTION_CUSTOM,		/* .parse() */
	OPTION_FAMILY		/* not an option: the blocks another table
				   owns (the probe kinds' own settings),
				   .family(i, out) the i-th, its base within
				   this block's, 0 past the last */
};

struct option_block;

struct option_spec {
	const char *name;	/* the long name, without "--"; NULL ends */
	int letter;		/* the short one, or 0 */
	enum option_type type;
	size_t offset;		/* of the field, in the block's struct */
	const char *arg;	/* "FILE", "N": the argument's name in help */
	const char *help;	/* '\n' between lines; the layout indents */
	const struct bounds *bounds;	/* OPTION_INT, OPTION_SECONDS */
	const char *const *choices;	/* OPTION_ENUM: NULL-terminated */
	size_t count;		/* OPTION_LIST: offset of its size_t count */
	/* OPTION_CUSTOM: arg into field; 0, or NP_ERR_USAGE */
	int (*parse)(const char *arg, void *field);
	/*
	 * OPTION_OPTIONAL: nonzero if the word after a bare --NAME is its
	 * argument (--slurm 42, as srun --jobid 42), not the first operand.
	 * NULL: only --NAME=ARG gives one (GNU getopt's rule).
	 */
	int (*next_word)(const char *word);
	/* "'ARG' is not WHAT": what the argument must be; NULL: said from
	   the type, the bounds or the choices */
	const char *what;
	/* or said when needed, into buf (a list read from a table) */
	void (*describe)(char *buf, size_t size);
	/* OPTION_FAMILY */
	int (*family)(size_t i, struct option_block *out);
	int also;		/* another short letter for it (pdsh's -w
				   for --hosts), or 0 */
	/* OPTION_CUSTOM: nonzero if it may be given again, each argument
	   parsed into the field in turn (--kinds a --kinds b). Any other
	   option but a flag or a list given twice with two arguments is a
	   usage error: the second would silently replace the first. */
	int repeat;
};

/* A command's table: blocks of entries, each at an offset in its struct. */
struct option_block {
	const struct option_spec *specs;	/* NULL ends the table */
	size_t base;		/* offset of the block's struct in the
				   command's options struct */
};

/*
 * A command: what the parser, the usage and the help read of it, and its
 * function. The type is the option table's, below the commands; cmd.h
 * lists the entries (one per src/cmd_*.c).
 */
struct cmd_entry {
	const char *name;
	const char *summary;	/* one line for "netprof help" */
	const char *usage;	/* synopsis, after "usage: netprof NAME " */
	const char *about;	/* --help: text before the options, or NULL */
	const struct option_block *options;	/* its table */
	int options_first;	/* options end at the first operand */
	const char *notes;	/* --help: text after the options, or NULL */
	/* --help and the man page's EXAMPLES: the commands a user runs
	   most, each a "# what it does" line then the command line */
	const char *examples;
	/* argv[0] is the command name; returns an enum np_exit code. */
	int (*exec)(const struct cmd_entry *self, int argc, char **argv);
};

/* What option_parse() returns besides 0 (all parsed): never an exit code
   or an error code, so no caller can take one for the other. */
#define OPTION_HELP_PRINTED 1000

/*
 * Parse argv (argv[0] is the command's name) by self->options into the
 * struct at opts. Every table also has -v/--verbose (again: more), which
 * raises log.h's level, -q/--quiet (errors only; with -v the story
 * still, but no progress, no summary: log_quiet()), and -h/--help,
 * anywhere on the line.
 * Returns 0 with *operand the index of the first operand;
 * OPTION_HELP_PRINTED after -h/--help printed the help on stdout;
 * NP_ERR_USAGE after the error was reported ("netprof CMD: --NAME: 'ARG'
 * is not WHAT", the synopsis, the hint); or NP_ERR_NOMEM (reported). With
 * self->options_first, parsing stops at the first operand (exec's remote
 * command keeps its own options).
 */
int option_parse(const struct cmd_entry *self, int argc, char **argv,
    void *opts, int *operand);

/* The exit status for option_parse()'s nonzero result (enum np_exit). */
int option_exit(int r);

/* Print self's options in the one help layout. */
void option_print_help(const struct cmd_entry *self, FILE *f);

/* "usage: netprof NAME USAGE" and, if full, the help: the summary, about,
   the options from the table, notes. */
void option_print_usage(const struct cmd_entry *self, FILE *f, int full);

/*
 * A usage error of command self, said once ("netprof NAME: msg", the
 * synopsis, the hint to --help); returns NP_EXIT_USAGE, so that a command
 * can write: return option_usage_error(...).
 */
int option_usage_error(const struct cmd_entry *self, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The usage error of an operand that self takes none of (word: the
 * argv element option_parse() left): "unexpected argument 'WORD'", and
 * where it followed a bare --NAME whose value is optional (and is not a
 * word its .next_word takes), how to give it: "--NAME takes its ARG as
 * --NAME=ARG". Returns NP_EXIT_USAGE.
 */
int option_unexpected(const struct cmd_entry *self, const char *word);

/* s as an integer in [lo, hi] into *out; NP_ERR_USAGE otherwise. */
int option_parse_int(const char *s, int lo, int hi, int *out);
/*
 * s as a size in bytes, whole, in [lo, hi]: digits with an optional
 * binary suffix k/K, M, G, T (KiB ... as 1024, 1024^2 ...), and B or iB
 * after it ("10M", "1.5G", "10MiB", "10485760"). NP_ERR_USAGE otherwise.
 */
int option_parse_size(const char *s, long long lo, long long hi,
    long long *out);
#define OPTION_SIZE_WHAT "a size like 10M, 1G or 10485760 (bytes)"
/* s as a number in [lo, hi] into *out; NP_ERR_USAGE otherwise. */
int option_parse_number(const char *s, double lo, double hi, double *out);

/* Call fn for every long option of self (for the test of the docs). */
void option_each(const struct cmd_entry *self,
    void (*fn)(const struct option_spec *spec, void *arg), void *arg);

#endif
