/*
 * The one option parser: a command's table (option.h) becomes getopt_long's
 * table, each argument is checked by its entry's type and bounds, and every
 * error is said one way, naming the option. The usage and the help are
 * printed from the same table, so the two cannot drift. It knows nothing
 * of the commands: their entry's type is option.h's.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "error.h"
#include "log.h"
#include "option.h"
#include "suggest.h"

/* getopt's value of entry i of a table when it has no letter */
#define LONG_ONLY_BASE 0x200

/* Every command's, after its own: the same -v, -q and -h everywhere. */
static const struct option_spec verbose_spec = {
	.name = "verbose", .letter = 'v', .type = OPTION_FLAG,
	.help = "tell the story of the run on stderr (again:\nmore)",
};
static const struct option_spec quiet_spec = {
	.name = "quiet", .letter = 'q', .type = OPTION_FLAG,
	.help = "print only errors (no progress, no summary)",
};
static const struct option_spec help_spec = {
	.name = "help", .letter = 'h', .type = OPTION_FLAG,
	.help = "this help",
};
static const struct option_spec *const common_specs[] = {
	&verbose_spec, &quiet_spec, &help_spec, NULL
};

/*
 * Two parsers on purpose: an integer option takes digits only (strtol:
 * "1e3" and "5.0" are refused), a number of seconds any decimal form
 * (strtod), for OPTION_INT and OPTION_SECONDS and the custom parsers.
 */
int
option_parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	if (*s == '\0')
		return NP_ERR_USAGE;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < lo || v > hi)
		return NP_ERR_USAGE;
	*out = (int)v;
	return 0;
}

int
option_parse_size(const char *s, long long lo, long long hi, long long *out)
{
	static const char units[] = "kKMGT";
	char *end;
	const char *u;
	double v;

	if (*s == '\0' || *s == '-' || *s == '+' || *s == ' ')
		return NP_ERR_USAGE;
	v = strtod(s, &end);
	if (end == s || !isfinite(v))
		return NP_ERR_USAGE;
	if (*end != '\0' && (u = strchr(units, *end)) != NULL) {
		v *= pow(1024, u - units < 2 ? 1 : (double)(u - units));
		end++;
		if (*end == 'i' && end[1] == 'B')
			end++;
	}
	if (*end == 'B')
		end++;
	if (*end != '\0' || v != floor(v) || v < (double)lo || v > (double)hi)
		return NP_ERR_USAGE;
	*out = (long long)v;
	return 0;
}

int
option_parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (*s == '\0')
		return NP_ERR_USAGE;
	v = strtod(s, &end);
	if (*end != '\0' || !(v >= lo && v <= hi))
		return NP_ERR_USAGE;
	*out = v;
	return 0;
}

/* The examples, "# what" lines and commands, each line indented. */
static void
print_examples(const char *text, FILE *f)
{
	const char *p, *nl;

	fputs("\nexamples:\n", f);
	for (p = text; *p != '\0'; p = nl + (*nl != '\0')) {
		nl = p + strcspn(p, "\n");
		fprintf(f, "  %.*s\n", (int)(nl - p), p);
	}
}

void
option_print_usage(const struct cmd_entry *self, FILE *f, int full)
{
	fprintf(f, "usage: netprof %s %s\n", self->name, self->usage);
	if (full) {
		fprintf(f, "\n%s.\n", self->summary);
		if (self->about != NULL)
			fprintf(f, "\n%s", self->about);
		fputs("\noptions:\n", f);
		option_print_help(self, f);
		if (self->notes != NULL)
			fprintf(f, "\n%s", self->notes);
		if (self->examples != NULL)
			print_examples(self->examples, f);
	}
}

int
option_usage_error(const struct cmd_entry *self, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "netprof %s: ", self->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	option_print_usage(self, stderr, 0);
	fprintf(stderr, "Run 'netprof %s --help' for the options.\n",
	    self->name);
	return NP_EXIT_USAGE;
}

static const struct option_spec *spec_at(const struct cmd_entry *self,
    size_t i, size_t *base);

/*
 * getopt_long's ':' and '?': the option that was wrong, said once: an
 * abbreviation that fits several, or the option meant by a misspelt one
 * (--ping-cont: did you mean --ping-count?).
 */
static void
getopt_error(const struct cmd_entry *self, int c, char **argv)
{
	const char *word = argv[optind - 1], *names[256], *near;
	const struct option_spec *s;
	char name[64], could[512] = "";
	size_t i, n = 0, len, base, fits = 0;

	if (c == ':') {
		option_usage_error(self, "option '%s' needs an argument", word);
		return;
	}
	if (optopt != 0 && word[0] == '-' && word[1] != '-') {
		option_usage_error(self, "unknown option '-%c'", optopt);
		return;
	}
	/* --NAME[=ARG]: NAME */
	len = strcspn(word + 2, "=");
	snprintf(name, sizeof name, "%.*s", (int)len, word + 2);
	for (i = 0; (s = spec_at(self, i, &base)) != NULL && n < 256; i++) {
		names[n++] = s->name;
		if (len > 0 && strncmp(s->name, name, len) == 0 &&
		    strlen(could) + strlen(s->name) + 5 < sizeof could) {
			snprintf(could + strlen(could), sizeof could -
			    strlen(could), "%s--%s", fits++ ? ", " : "",
			    s->name);
		}
	}
	if (fits > 1)
		option_usage_error(self, "option '--%s' is ambiguous: it could "
		    "be %s", name, could);
	else if ((near = suggest_nearest(name, names, n)) != NULL)
		option_usage_error(self, "unknown option '%s'; did you mean "
		    "'--%s'?", word, near);
	else
		option_usage_error(self, "unknown option '%s'", word);
}

/*
 * Entry i of the block of specs at base (a family's blocks in turn, where
 * it stands), its block's base in *base; NULL with i counted down by the
 * entries passed.
 */
static const struct option_spec *
block_spec_at(const struct option_spec *specs, size_t base, size_t *i,
    size_t *out_base)
{
	struct option_block sub;
	const struct option_spec *s;
	size_t k, j;

	for (k = 0; specs[k].name != NULL; k++) {
		if (specs[k].type == OPTION_FAMILY) {
			for (j = 0; specs[k].family(j, &sub); j++)
				if ((s = block_spec_at(sub.specs, base +
				    sub.base, i, out_base)) != NULL)
					return s;
			continue;
		}
		if ((*i)-- == 0) {
			*out_base = base;
			return &specs[k];
		}
	}
	return NULL;
}

/* The entries of a table in order, -v, -q and the help last; NULL past
   the end. */
static const struct option_spec *
spec_at(const struct cmd_entry *self, size_t i, size_t *base)
{
	const struct option_block *b;
	const struct option_spec *s;
	size_t k;

	for (b = self->options; b != NULL && b->specs != NULL; b++)
		if ((s = block_spec_at(b->specs, b->base, &i, base)) != NULL)
			return s;
	*base = 0;
	for (k = 0; common_specs[k] != NULL; k++, i--)
		if (i == 0)
			return common_specs[k];
	return NULL;
}

void
option_each(const struct cmd_entry *self,
    void (*fn)(const struct option_spec *spec, void *arg), void *arg)
{
	const struct option_spec *s;
	size_t i, base;

	for (i = 0; (s = spec_at(self, i, &base)) != NULL; i++)
		fn(s, arg);
}

/*
 * The word after the last bare --NAME of an optional value that did not
 * take it, as option_parse() saw it (getopt moves operands to the end:
 * the element, not its place, tells it again).
 */
static struct {
	const struct option_spec *spec;
	const char *word;
} bare_next;

int
option_unexpected(const struct cmd_entry *self, const char *word)
{
	const struct option_spec *s = bare_next.spec;

	if (s == NULL || word != bare_next.word)
		return option_usage_error(self, "unexpected argument '%s'",
		    word);
	return option_usage_error(self, "unexpected argument '%s'; --%s "
	    "takes its %s as --%s=%s", word, s->name, s->arg, s->name,
	    s->arg);
}

/* "a or b", "one of a, b, c" */
static void
choices_text(const char *const *c, char *buf, size_t len)
{
	size_t n, i, used;

	for (n = 0; c[n] != NULL; n++)
		;
	used = (size_t)snprintf(buf, len, "%s", n > 2 ? "one of " : "");
	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
		    i == 0 ? "" : n > 2 ? ", " : " or ", c[i]);
}

static int
spec_error(const struct cmd_entry *self, const struct option_spec *s,
    const char *arg)
{
	char what[256];

	if (s->what != NULL)
		snprintf(what, sizeof what, "%s", s->what);
	else if (s->describe != NULL)
		s->describe(what, sizeof what);
	else if (s->type == OPTION_ENUM)
		choices_text(s->choices, what, sizeof what);
	else if (s->type == OPTION_SECONDS)
		snprintf(what, sizeof what,
		    "a number of seconds from %.15g to %.15g",
		    s->bounds->lo, s->bounds->hi);
	else
		snprintf(what, sizeof what, "a number from %.15g to %.15g",
		    s->bounds->lo, s->bounds->hi);
	option_usage_error(self, "--%s: '%s' is not %s", s->name, arg, what);
	return NP_ERR_USAGE;
}

/* Take one option's argument into its field. */
static int
spec_take(const struct cmd_entry *self, const struct option_spec *s,
    char *opts, const char *arg)
{
	void *field = opts + s->offset;
	const char ***list;
	size_t *n, k;
	double d;

	switch (s->type) {
	case OPTION_FLAG:
		*(int *)field = 1;
		return 0;
	case OPTION_STRING:
		*(const char **)field = arg;
		return 0;
	case OPTION_OPTIONAL:
		*(const char **)field = arg != NULL ? arg : "";
		return 0;
	case OPTION_LIST:
		list = field;
		n = (size_t *)(void *)(opts + s->count);
		{
			const char **more = realloc(*list, (*n + 1) *
			    sizeof *more);

			if (more == NULL) {
				log_error("%s", error_string(NP_ERR_NOMEM));
				return NP_ERR_NOMEM;
			}
			more[(*n)++] = arg;
			*list = more;
		}
		return 0;
	case OPTION_INT:
		if (option_parse_int(arg, (int)s->bounds->lo, (int)s->bounds->hi,
		    (int *)field) != 0)
			return spec_error(self, s, arg);
		return 0;
	case OPTION_SECONDS:
		if (option_parse_number(arg, s->bounds->lo, s->bounds->hi, &d) != 0)
			return spec_error(self, s, arg);
		*(double *)field = d;
		return 0;
	case OPTION_ENUM:
		for (k = 0; s->choices[k] != NULL; k++)
			if (strcmp(s->choices[k], arg) == 0) {
				*(int *)field = (int)k;
				return 0;
			}
		return spec_error(self, s, arg);
	case OPTION_CUSTOM:
		if (s->parse(arg, field) != 0)
			return spec_error(self, s, arg);
		return 0;
	case OPTION_FAMILY:	/* never an option of its own */
		break;
	}
	return spec_error(self, s, arg);
}

int
option_parse(const struct cmd_entry *self, int argc, char **argv,
    void *opts, int *operand)
{
	struct option *longopts = NULL;
	char *shortopts = NULL, *sp;
	const struct option_spec *s;
	const char *arg, **first = NULL;
	size_t n, i, base;
	int ch, r = 0;

	*operand = argc;
	bare_next.spec = NULL;
	bare_next.word = NULL;
	for (n = 0; spec_at(self, n, &base) != NULL; n++)
		;
	longopts = calloc(n + 1, sizeof *longopts);
	shortopts = malloc(5 * n + 3);
	first = calloc(n + 1, sizeof *first);	/* each one's first argument */
	if (longopts == NULL || shortopts == NULL || first == NULL) {
		r = NP_ERR_NOMEM;
		log_error("%s", error_string(r));
		goto out;
	}
	sp = shortopts;
	if (self->options_first)
		*sp++ = '+';
	*sp++ = ':';
	for (i = 0; i < n; i++) {
		s = spec_at(self, i, &base);
		longopts[i].name = s->name;
		longopts[i].has_arg = s->type == OPTION_FLAG ? no_argument :
		    s->type == OPTION_OPTIONAL ? optional_argument :
		    required_argument;
		longopts[i].val = s->letter != 0 ? s->letter :
		    LONG_ONLY_BASE + (int)i;
		if (s->letter != 0) {
			*sp++ = (char)s->letter;
			if (s->type != OPTION_FLAG)
				*sp++ = ':';
		}
		if (s->also != 0) {
			*sp++ = (char)s->also;
			if (s->type != OPTION_FLAG)
				*sp++ = ':';
		}
	}
	*sp = '\0';
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (ch == ':' || ch == '?') {
			getopt_error(self, ch, argv);
			r = NP_ERR_USAGE;
			goto out;
		}
		for (i = 0; i < n; i++)
			if (longopts[i].val == ch || (ch < LONG_ONLY_BASE &&
			    spec_at(self, i, &base)->also == ch))
				break;
		s = spec_at(self, i, &base);
		if (s == &help_spec) {
			option_print_usage(self, stdout, 1);
			r = OPTION_HELP_PRINTED;
			goto out;
		}
		if (s == &verbose_spec || s == &quiet_spec) {
			if (s == &quiet_spec)
				log_set_quiet();
			else
				log_more_verbose();
			continue;
		}
		arg = optarg;
		/* the word after it, as getopt takes a required argument's */
		if (s->type == OPTION_OPTIONAL && arg == NULL &&
		    s->next_word != NULL && optind < argc &&
		    s->next_word(argv[optind]))
			arg = argv[optind++];
		else if (s->type == OPTION_OPTIONAL && arg == NULL &&
		    optind < argc) {
			bare_next.spec = s;
			bare_next.word = argv[optind];
		}
		if (s->type != OPTION_FLAG && s->type != OPTION_LIST &&
		    !s->repeat) {
			if (first[i] != NULL && strcmp(first[i], arg != NULL ?
			    arg : "") != 0) {
				option_usage_error(self, "--%s given twice ('%s', "
				    "then '%s'); give it once", s->name, first[i],
				    arg != NULL ? arg : "");
				r = NP_ERR_USAGE;
				goto out;
			}
			first[i] = arg != NULL ? arg : "";
		}
		if ((r = spec_take(self, s, (char *)opts + base, arg)) != 0)
			goto out;
	}
	*operand = optind;
out:
	free(longopts);
	free(shortopts);
	free(first);
	return r;
}

int
option_exit(int r)
{
	if (r == OPTION_HELP_PRINTED || r == 0)
		return NP_EXIT_OK;
	return r == NP_ERR_USAGE ? NP_EXIT_USAGE : NP_EXIT_FAILED;
}

/* The help column: where every option's text starts. */
#define HELP_COLUMN 27

void
option_print_help(const struct cmd_entry *self, FILE *f)
{
	const struct option_spec *s;
	size_t i, base;
	int len;
	const char *p, *nl;

	for (i = 0; (s = spec_at(self, i, &base)) != NULL; i++) {
		if (s->letter != 0 && s->also != 0)
			len = fprintf(f, "  -%c, -%c, --%s", s->letter, s->also,
			    s->name);
		else if (s->letter != 0)
			len = fprintf(f, "  -%c, --%s", s->letter, s->name);
		else
			len = fprintf(f, "      --%s", s->name);
		if (s->arg != NULL)
			len += fprintf(f, s->type != OPTION_OPTIONAL ? " %s" :
			    s->next_word != NULL ? " [%s]" : "[=%s]", s->arg);
		if (len >= HELP_COLUMN - 1)
			len += fprintf(f, "  ");
		fprintf(f, "%*s", len < HELP_COLUMN ? HELP_COLUMN - len : 0, "");
		for (p = s->help; p != NULL; p = nl != NULL ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			if (p != s->help)
				fprintf(f, "%*s", HELP_COLUMN, "");
			fprintf(f, "%.*s\n", nl != NULL ? (int)(nl - p) :
			    (int)strlen(p), p);
		}
	}
}
