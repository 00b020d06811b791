/*
 * netprof heatmap: read collect and bench records (and bench run.json
 * files), and render the N x N matrix of every kind and metric as one
 * self-contained HTML page, or as text on the terminal, with the failures
 * and a diagnosis of the known failure patterns. Command-line compatible
 * with the tool netprof replaces: --input, --output, --kind, --metric.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bounds.h"
#include "cmd.h"
#include "error.h"
#include "file.h"
#include "heatmap.h"
#include "heatmap_advise.h"
#include "heatmap_compare.h"
#include "probe_kind.h"
#include "diagnose.h"
#include "heatmap_diagnosis_json.h"
#include "diagnose_gate.h"
#include "heatmap_html.h"
#include "matrix_sites.h"
#include "heatmap_text.h"
#include "inventory.h"
#include "log.h"
#include "option.h"
#include "metrics.h"
#include "timeutil.h"
#include "util.h"

struct heatmap_args {
	const char **inputs;
	size_t ninputs;
	const char *output;
	const char *kind;
	const char *metric;
	const char *title;
	int aggregate;		/* enum matrix_aggregate */
	int text;
	int strict;
	const char **compare;		/* the old run's inputs */
	size_t ncompare;
	const char *config;		/* machines.json: sites */
	int group_by;		/* enum matrix_sites_group_by */
	double group_rtt;		/* ms */
	int metrics;		/* --metrics: the exposition on stdout */
	const char *metrics_file;
	int max_memory;		/* MiB; 0: MATRIX_BUDGET_DEFAULT */
	const char *diagnosis_json;	/* the findings as JSON */
	struct diagnose_gate_options gate;	/* --fail-on */
	double fail_on_worse;	/* --fail-on-worse: times worse; 0 none */
	mode_t output_mode;	/* the page's: a replaced one keeps its own */
	mode_t diagnosis_mode;	/* --diagnosis-json FILE's, the same */
	int advise;		/* --advise: the relay advice on stdout */
	const char *advise_json;	/* the same as JSON */
	mode_t advise_mode;	/* --advise-json FILE's, as the findings' */
	struct heatmap_advise_options relay;	/* --relay-cap ... --seed */
};

/* No --input: collect's default output, as upstream. */
static int
default_input(const struct cmd_entry *self, struct heatmap_args *a)
{
	if (access(CMD_DEFAULT_RECORDS, F_OK) != 0)
		return option_usage_error(self, "no --input FILE, and no %s here "
		    "(collect's default output): give a collect or bench "
		    ".jsonl, or a bench run.json", CMD_DEFAULT_RECORDS);
	if ((a->inputs = malloc(sizeof *a->inputs)) == NULL)
		return NP_EXIT_FAILED;
	a->inputs[a->ninputs++] = CMD_DEFAULT_RECORDS;
	return NP_EXIT_OK;
}

static const char *const aggregates[] = { "latest", "median", NULL };
/* in enum matrix_sites_group_by's order; "auto" is the default's name */
static const char *const group_bys[] = { "auto", "site", "rtt", "none", NULL };
static const struct bounds group_rtt_bounds = { 0.001, 1e6 };
/* times worse than the old run */
static const struct bounds fail_worse_bounds = { 1.01, 1e6 };
static const struct bounds relay_cap_bounds = { 0, 100000 };
static const struct bounds relay_within_bounds = { 0, 1000 };
static const struct bounds seed_bounds = { 0, 2147483647 };
/* --max-memory: MiB from 16 to 1 TiB; a plain number is MiB, a size
   with its suffix (2G) as every size option takes one */
static int
max_memory_parse(const char *s, void *field)
{
	long long bytes;

	if (option_parse_int(s, 16, 1 << 20, field) == 0)
		return 0;
	if (strspn(s, "0123456789") == strlen(s) ||
	    option_parse_size(s, 16LL << 20, 1LL << 40, &bytes) != 0)
		return NP_ERR_USAGE;
	*(int *)field = (int)(bytes >> 20);
	return 0;
}

static const struct option_spec heatmap_specs[] = {
	{ .name = "input", .letter = 'i', .type = OPTION_LIST,
	  .offset = offsetof(struct heatmap_args, inputs),
	  .count = offsetof(struct heatmap_args, ninputs), .arg = "FILE",
	  .help = "collect or bench records (.jsonl), or a bench run.json;\n"
	  "- for standard input; repeat to combine collect and\n"
	  "bench runs (default: " CMD_DEFAULT_RECORDS ")" },
	{ .name = "output", .letter = 'o', .type = OPTION_STRING,
	  .offset = offsetof(struct heatmap_args, output), .arg = "FILE",
	  .help = "the page to write, one self-contained HTML file\n"
	  "(default: " CMD_DEFAULT_PAGE " unless --text;\n"
	  "directories created)" },
	{ .name = "kind", .letter = 'k', .type = OPTION_STRING,
	  .offset = offsetof(struct heatmap_args, kind), .arg = "KIND",
	  .help = "only this kind of probe (collect's or bench's);\n"
	  "default: every kind found, switchable on the page" },
	{ .name = "metric", .letter = 'm', .type = OPTION_STRING,
	  .offset = offsetof(struct heatmap_args, metric), .arg = "METRIC",
	  .help = "metric shown first (default: the kind's own, as\n"
	  "docs/heatmap.md lists them)" },
	{ .name = "title", .letter = 't', .type = OPTION_STRING,
	  .offset = offsetof(struct heatmap_args, title), .arg = "TEXT",
	  .help = "page title" },
	{ .name = "aggregate", .type = OPTION_ENUM,
	  .offset = offsetof(struct heatmap_args, aggregate), .arg = "HOW",
	  .choices = aggregates,
	  .help = "several records for a pair: latest (default) or\n"
	  "median (of each metric over the ok records)" },
	{ .name = "text", .type = OPTION_FLAG,
	  .offset = offsetof(struct heatmap_args, text),
	  .help = "print the matrix, diagnosis and failures to stdout\n"
	  "(ANSI colours on a terminal unless NO_COLOR is set)" },
	{ .name = "strict", .type = OPTION_FLAG,
	  .offset = offsetof(struct heatmap_args, strict),
	  .help = "a malformed input line is an error (exit 2)" },
	{ .name = "config", .type = OPTION_STRING,
	  .offset = offsetof(struct heatmap_args, config), .arg = "FILE",
	  .help = "machines.json: each machine's site (also read from\n"
	  "a bench run.json's machines; default ./machines.json\n"
	  "if there is one)" },
	{ .name = "group-by", .type = OPTION_ENUM,
	  .offset = offsetof(struct heatmap_args, group_by), .arg = "HOW",
	  .choices = group_bys, .what = "site, rtt or none",
	  .help = "rows and columns grouped by site, by rtt (clusters of\n"
	  "the measured round trips) or none; default: site when\n"
	  "every host has one, else rtt" },
	{ .name = "group-rtt", .type = OPTION_SECONDS,
	  .offset = offsetof(struct heatmap_args, group_rtt), .arg = "MS",
	  .bounds = &group_rtt_bounds,
	  .what = "a round trip in ms above 0, e.g. 5",
	  .help = "hosts on average at most MS apart form one cluster\n"
	  "(default 5)" },
	{ .name = "metrics", .type = OPTION_FLAG,
	  .offset = offsetof(struct heatmap_args, metrics),
	  .help = "print the latest record of every pair as Prometheus\n"
	  "metrics (text format) to stdout; no page unless\n"
	  "--output (docs/metrics.md)" },
	{ .name = "metrics-file", .type = OPTION_STRING,
	  .offset = offsetof(struct heatmap_args, metrics_file), .arg = "FILE",
	  .help = "write the same to FILE atomically (node_exporter's\n"
	  "textfile collector reads *.prom)" },
	{ .name = "compare", .type = OPTION_LIST,
	  .offset = offsetof(struct heatmap_args, compare),
	  .count = offsetof(struct heatmap_args, ncompare), .arg = "FILE",
	  .help = "an older run's records (repeat it): colour each pair by\n"
	  "how many times worse it got, and list the pairs worse\n"
	  "by 1.25x and the metric's floor, or failed since" },
	{ .name = "max-memory", .type = OPTION_CUSTOM,
	  .offset = offsetof(struct heatmap_args, max_memory), .arg = "MIB",
	  .parse = max_memory_parse,
	  .what = "a size from 16M to 1T, like 2G (a plain number is MiB)",
	  .help = "memory budget of the records' cells, per run read\n"
	  "(default 1024 MiB; a 1,000-host bench run takes ~400)" },
	{ .name = "diagnosis-json", .type = OPTION_STRING,
	  .offset = offsetof(struct heatmap_args, diagnosis_json),
	  .arg = "FILE",
	  .help = "write the diagnosis's findings as JSON to FILE\n"
	  "(- for stdout; the schema: docs/heatmap.md)" },
	{ .name = "fail-on-worse", .type = OPTION_SECONDS,
	  .offset = offsetof(struct heatmap_args, fail_on_worse),
	  .arg = "FACTOR", .bounds = &fail_worse_bounds,
	  .what = "a factor above 1, e.g. 1.5",
	  .help = "with --compare: exit 3 when a finding got FACTOR\n"
	  "times worse than the old run (or failed since)" },
	{ .name = "advise", .type = OPTION_FLAG,
	  .offset = offsetof(struct heatmap_args, advise),
	  .help = "print where to put the relay: per host that cannot\n"
	  "be dialled the relay whose legs give its pairs the\n"
	  "lowest median, and machines.json's bootstrap_extra" },
	{ .name = "advise-json", .type = OPTION_STRING,
	  .offset = offsetof(struct heatmap_args, advise_json), .arg = "FILE",
	  .help = "write the relay advice as JSON to FILE (- for stdout)" },
	{ .name = "relay-cap", .type = OPTION_INT,
	  .offset = offsetof(struct heatmap_args, relay.cap), .arg = "K",
	  .bounds = &relay_cap_bounds,
	  .help = "the advice gives a relay at most K hosts (0: no cap,\n"
	  "the default)" },
	{ .name = "relay-within", .type = OPTION_SECONDS,
	  .offset = offsetof(struct heatmap_args, relay.within), .arg = "PCT",
	  .bounds = &relay_within_bounds,
	  .what = "a percentage from 0 to 1000, e.g. 10",
	  .help = "the advice draws a host's relay among those within\n"
	  "PCT % of its best (10)" },
	{ .name = "seed", .type = OPTION_INT,
	  .offset = offsetof(struct heatmap_args, relay.seed), .arg = "N",
	  .bounds = &seed_bounds,
	  .help = "the advice's draw (1): the same run and seed give\n"
	  "the same advice" },
	{ .name = NULL }
};

static const struct option_block heatmap_options_table[] = {
	{ heatmap_specs, 0 },
	{ diagnose_gate_specs, offsetof(struct heatmap_args, gate) },
	{ NULL, 0 }
};

/* The options into a, checked; 0 to go on, else the exit status. */
/* The old run of --compare, built like the new one. */
static int
build_old(const struct heatmap_args *a, struct matrix **out)
{
	struct matrix *old;
	size_t i;
	int rc = 0;

	*out = NULL;
	if ((old = matrix_new()) == NULL)
		return NP_ERR_NOMEM;
	matrix_set_aggregate(old, (enum matrix_aggregate)a->aggregate);
	if (a->max_memory > 0)
		matrix_set_budget(old, (size_t)a->max_memory << 20);
	for (i = 0; i < a->ncompare && rc == 0; i++)
		rc = matrix_read(old, a->compare[i], a->strict);
	if (rc == 0 && (rc = matrix_overlay_build(old, a->aggregate, a->kind)) ==
	    NP_ERR_NOT_FOUND)
		log_error("--compare: no %s%srecords in %s", a->kind ? a->kind :
		    "", a->kind ? " " : "", a->compare[0]);
	if (rc == 0 && old->nkinds == 0) {
		log_error("--compare: no records in %s; give the old run's "
		    "collect or bench .jsonl", a->compare[0]);
		rc = NP_ERR_NOT_FOUND;
	}
	if (rc != 0) {
		matrix_free(old);
		return rc;
	}
	*out = old;
	return 0;
}

/* Each machine's site from --config machines.json, as hints by name. */
static int
load_sites(struct matrix *hm, const char *path)
{
	struct inventory *inv = NULL;
	char *cause = NULL;
	size_t i;
	int rc;

	if ((rc = inventory_load(path, &inv, &cause)) != 0) {
		log_error("%s", cause != NULL ? cause : error_string(rc));
		free(cause);
		return rc;
	}
	for (i = 0; i < inv->n_machines && rc == 0; i++)
		if (inv->machines[i].site != NULL)
			rc = matrix_sites_hint(hm, inv->machines[i].name,
			    inv->machines[i].site);
	inventory_free(inv);
	return rc;
}

/* --input - (standard input: collect --output - | netprof heatmap
   --input -) once at most, over --input and --compare. */
static int
one_stdin(const struct cmd_entry *self, const struct heatmap_args *a)
{
	size_t i, n = 0;

	for (i = 0; i < a->ninputs; i++)
		n += strcmp(a->inputs[i], "-") == 0;
	for (i = 0; i < a->ncompare; i++)
		n += strcmp(a->compare[i], "-") == 0;
	if (n > 1)
		return option_usage_error(self, "- (standard input) is given %zu "
		    "times; it can be read once", n);
	if (a->output != NULL && strcmp(a->output, "-") == 0)
		return option_usage_error(self, "--output -: the page goes to a "
		    "file; --text prints to standard output");
	return NP_EXIT_OK;
}

static int
parse_args(const struct cmd_entry *self, int argc, char **argv,
    struct heatmap_args *a, int *stop)
{
	size_t i;
	int operand, rc;

	*stop = 1;
	if ((rc = option_parse(self, argc, argv, a, &operand)) != 0)
		return option_exit(rc);
	if (operand < argc)
		return option_usage_error(self, "unexpected argument '%s'",
		    argv[operand]);
	if (a->ninputs == 0 && (rc = default_input(self, a)) != NP_EXIT_OK)
		return rc;
	/* the default page, unless the output is already said: on standard
	 * output (--text, --metrics, --diagnosis-json -) or a metrics file */
	if (a->output == NULL && !a->text && !a->metrics &&
	    a->metrics_file == NULL && (a->diagnosis_json == NULL ||
	    strcmp(a->diagnosis_json, "-") != 0) && !a->advise &&
	    (a->advise_json == NULL || strcmp(a->advise_json, "-") != 0))
		a->output = CMD_DEFAULT_PAGE;
	for (i = 0; a->metrics_file != NULL && i < a->ninputs; i++)
		if (file_same(a->metrics_file, a->inputs[i]))
			return option_usage_error(self, "--metrics-file %s is the "
			    "input %s; give another --metrics-file",
			    a->metrics_file, a->inputs[i]);
	for (i = 0; a->output != NULL && i < a->ninputs; i++) {
		if (file_same(a->output, a->inputs[i]))
			return option_usage_error(self, "--output %s is the input "
			    "%s: writing the page would replace the records; "
			    "give another --output", a->output, a->inputs[i]);
	}
	for (i = 0; a->output != NULL && i < a->ncompare; i++) {
		if (file_same(a->output, a->compare[i]))
			return option_usage_error(self, "--output %s is the "
			    "--compare input: writing the page would replace "
			    "the records; give another --output", a->output);
	}
	for (i = 0; a->diagnosis_json != NULL &&
	    strcmp(a->diagnosis_json, "-") != 0 && i < a->ninputs; i++)
		if (file_same(a->diagnosis_json, a->inputs[i]))
			return option_usage_error(self, "--diagnosis-json %s "
			    "is the input %s; give another --diagnosis-json",
			    a->diagnosis_json, a->inputs[i]);
	if (a->fail_on_worse > 0 && a->ncompare == 0)
		return option_usage_error(self, "--fail-on-worse needs "
		    "--compare OLD: worse than what?");
	if ((rc = one_stdin(self, a)) != NP_EXIT_OK)
		return rc;
	/* a bad output is said before the records are read */
	if ((a->output != NULL && cmd_output_check(a->output, "--output", 0,
	    &a->output_mode) != NP_EXIT_OK) || (a->metrics_file != NULL &&
	    cmd_output_check(a->metrics_file, "--metrics-file", 0, NULL) !=
	    NP_EXIT_OK) || (a->diagnosis_json != NULL &&
	    cmd_output_check(a->diagnosis_json, "--diagnosis-json", 0,
	    &a->diagnosis_mode) != NP_EXIT_OK) || (a->advise_json != NULL &&
	    strcmp(a->advise_json, "-") != 0 && cmd_output_check(
	    a->advise_json, "--advise-json", 0, &a->advise_mode) !=
	    NP_EXIT_OK))
		return NP_EXIT_USAGE;
	if (a->kind != NULL && probe_kind_find(a->kind) == NULL) {
		char names[256];

		probe_kind_names(names, sizeof names,
		    1u << PROBE_VIA_SHELL | 1u << PROBE_VIA_NODE);
		return option_usage_error(self, "--kind: '%s' is not %s",
		    a->kind, names);
	}
	*stop = 0;
	return NP_EXIT_OK;
}

/* The metric names of k for a message, fit for a terminal. */
static void
list_metrics(const struct matrix_kind *k, char *buf, size_t size)
{
	size_t i, len = 0;
	char name[64];

	buf[0] = '\0';
	for (i = 0; i < k->nmetrics && len + 2 < size; i++) {
		snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
		    heatmap_clean_name(k->metrics[i].name, name, sizeof name));
		len = strlen(buf);
	}
}

/* The view rendered first: --kind/--metric, else the first kind's default. */
static int
choose_view(const struct matrix *hm, const struct heatmap_args *a,
    size_t *kind, size_t *metric)
{
	char names[512], kname[64];
	size_t i;
	int m;

	*kind = 0;
	*metric = hm->nkinds > 0 ? hm->kinds[0].default_metric : 0;
	if (a->metric == NULL)
		return 0;
	for (i = 0; i < hm->nkinds; i++)
		if ((m = matrix_find_metric(&hm->kinds[i], a->metric)) >= 0) {
			*kind = i;
			*metric = (size_t)m;
			return 0;
		}
	if (hm->nkinds == 0)
		return 0;
	list_metrics(&hm->kinds[0], names, sizeof names);
	heatmap_clean_name(hm->kinds[0].name, kname, sizeof kname);
	log_error("--metric %s: no %s record has it; %s records have: %s",
	    a->metric, kname, kname, names);
	return NP_ERR_USAGE;
}

static int
write_page(const struct matrix *hm, const struct diagnosis *dx,
    const struct heatmap_args *a, size_t kind, size_t metric,
    const struct heatmap_advice *adv)
{
	struct html_options opt;
	struct file_atomic fa;
	char *cause = NULL;
	int rc;

	opt.title = a->title != NULL ? a->title : "netprof heatmap";
	opt.advice = adv;
	opt.kind = kind;
	opt.metric = metric;
	opt.generated = time_wall();
	if ((rc = file_atomic_open(&fa, a->output, &cause)) != 0) {
		log_error("%s", cause != NULL ? cause : error_string(rc));
		free(cause);
		return rc;
	}
	setvbuf(fa.f, NULL, _IOFBF, 1 << 20);
	if ((rc = heatmap_write_html(hm, dx, &opt, fa.f)) != 0) {
		/* errno only where a system call failed (and set it). */
		log_error("%s: could not write the page: %s", a->output,
		    rc == NP_ERR_IO && errno != 0 ? strerror(errno) :
		    error_string(rc));
		file_atomic_abort(&fa);
		return rc;
	}
	if ((rc = file_atomic_commit(&fa, a->output_mode, &cause)) != 0) {
		log_error("%s", cause != NULL ? cause : error_string(rc));
		free(cause);
	}
	return rc;
}

/* --metrics and --metrics-file: the exposition of the latest records. */
static int
write_metrics(const struct matrix *hm, const struct heatmap_args *a)
{
	struct buf text = { 0 };
	char *cause = NULL;
	int rc;

	if ((rc = metrics_render(hm, NULL, &text)) != 0) {
		log_error("metrics: %s", error_string(rc));
		goto out;
	}
	if (a->metrics && fwrite(text.data, 1, text.len, stdout) != text.len) {
		log_error("standard output: %s", strerror(errno));
		rc = NP_ERR_IO;
		goto out;
	}
	if (a->metrics_file != NULL && (rc = file_write_atomic(
	    a->metrics_file, text.data, text.len, METRICS_FILE_MODE,
	    &cause)) != 0) {
		if (cause != NULL)
			log_error("--metrics-file %s", cause);
		rc = NP_ERR_IO;
	}
out:
	free(cause);
	buf_free(&text);
	return rc;
}

/* A JSON output's writer: 0, or NP_ERR_IO (errno set). */
typedef int (*json_out_fn)(const struct matrix *hm, const void *what,
    FILE *f);

static int
diagnosis_out(const struct matrix *hm, const void *what, FILE *f)
{
	return heatmap_diagnosis_json(hm, what, f);
}

static int
advice_out(const struct matrix *hm, const void *what, FILE *f)
{
	return heatmap_advice_json(hm, what, f);
}

/*
 * A JSON output (--diagnosis-json, --advise-json): to standard output or,
 * as the page, to a new file beside path renamed over it (checked before
 * the records were read: a symlink, a FIFO or a read-only file was
 * refused then).
 */
static int
write_json_out(const char *opt, const char *path, mode_t mode,
    json_out_fn out, const struct matrix *hm, const void *what)
{
	struct file_atomic fa;
	char *cause = NULL;
	int rc;

	if (strcmp(path, "-") == 0) {
		if (out(hm, what, stdout) != 0 || fflush(stdout) != 0) {
			log_error("%s -: could not write: %s", opt,
			    strerror(errno ? errno : EIO));
			return NP_ERR_IO;
		}
		return 0;
	}
	if ((rc = file_atomic_open(&fa, path, &cause)) != 0)
		goto out;
	if (out(hm, what, fa.f) != 0) {
		log_error("%s %s: could not write: %s", opt, path,
		    strerror(errno ? errno : EIO));
		file_atomic_abort(&fa);
		return NP_ERR_IO;
	}
	rc = file_atomic_commit(&fa, mode, &cause);
out:
	if (rc != 0)
		log_error("%s %s", opt, cause != NULL ? cause :
		    error_string(rc));
	free(cause);
	return rc;
}

/*
 * The relay advice from the records and the first run.json read (its
 * reach checks and machines, as the reader took them), for --advise,
 * --advise-json and the page's panel: 1 with *adv made, 0 with none (no
 * libp2p_ping records, and only the page asked), or an error reported.
 */
static int
make_advice(const struct matrix *hm, const struct heatmap_args *a,
    struct heatmap_advice *adv)
{
	int rc;

	if (!a->advise && a->advise_json == NULL && a->output == NULL)
		return 0;
	rc = heatmap_advise(hm, hm->input.nruns > 0 ? hm->input.runs[0] : NULL,
	    &a->relay, adv);
	if (rc == 0)
		return 1;
	if (rc == NP_ERR_NOT_FOUND && !a->advise && a->advise_json == NULL)
		return 0;
	if (rc == NP_ERR_NOT_FOUND)
		log_error("--advise: no libp2p_ping records: give a bench run's "
		    "measurements.jsonl (and its run.json)");
	else
		log_error("%s", error_string(rc));
	return rc;
}

/* --advise, --advise-json: the advice in words, as JSON. */
static int
write_advice(const struct matrix *hm, const struct heatmap_args *a,
    const struct heatmap_advice *adv)
{
	int rc = 0;

	if (a->advise && (rc = heatmap_advice_text(hm, adv, stdout)) != 0)
		log_error("standard output: %s", strerror(errno ? errno :
		    EIO));
	if (rc == 0 && a->advise_json != NULL)
		rc = write_json_out("--advise-json", a->advise_json,
		    a->advise_mode, advice_out, hm, adv);
	return rc;
}

/* The terminal's width for --text: its own, else $COLUMNS; 0 (no
 * limit) for a file or a pipe without COLUMNS. */
static int
text_width(void)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");
	long v;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ,
	    &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (c != NULL && (v = strtol(c, NULL, 10)) > 0 && v < 100000)
		return (int)v;
	return 0;
}

static int
use_color(void)
{
	const char *no_color = getenv("NO_COLOR");

	if (no_color != NULL && *no_color != '\0')
		return 0;
	return isatty(STDOUT_FILENO);
}

static size_t
measured_kinds(const struct matrix *hm)
{
	size_t i, n = 0;

	for (i = 0; i < hm->nkinds; i++)
		n += !hm->kinds[i].derived;
	return n;
}

/* With -v, how long each step of the page took: where a large run's time
 * goes (tests/perf/heatmap.sh prints these). */
static void
step_done(const char *step, uint64_t *t)
{
	uint64_t now = time_mono_ns();

	log_debug(NULL, "heatmap: %s in %.2f s", step, (now - *t) / 1e9);
	*t = now;
}

static int
cmd_heatmap_exec(const struct cmd_entry *self, int argc, char **argv)
{
	struct heatmap_args a;
	struct diagnosis dx;
	struct heatmap_advice adv;
	struct matrix *hm = NULL, *old = NULL;
	size_t i, kind, metric, records, failed;
	uint64_t t = time_mono_ns();
	int rc, stop, exit_code = NP_EXIT_USAGE, advised = 0;

	memset(&a, 0, sizeof a);
	memset(&dx, 0, sizeof dx);
	memset(&adv, 0, sizeof adv);
	a.group_rtt = MATRIX_GROUP_RTT_MS;
	a.relay.within = 10;
	a.relay.seed = 1;
	exit_code = parse_args(self, argc, argv, &a, &stop);
	if (stop)
		goto out;
	exit_code = NP_EXIT_USAGE;
	if ((hm = matrix_new()) == NULL)
		goto nomem;
	/* What the cells keep is decided as the records are read. */
	matrix_set_aggregate(hm, a.metrics || a.metrics_file != NULL ?
	    MATRIX_LATEST : (enum matrix_aggregate)a.aggregate);
	if (a.max_memory > 0)
		matrix_set_budget(hm, (size_t)a.max_memory << 20);
	for (i = 0; i < a.ninputs; i++)
		if ((rc = matrix_read(hm, a.inputs[i], a.strict)) != 0) {
			if (rc == NP_ERR_NOMEM)
				goto nomem;
			goto out;
		}
	a.config = cmd_default_config(a.config);
	if (a.config != NULL && (rc = load_sites(hm, a.config)) != 0) {
		if (rc == NP_ERR_NOMEM)
			goto nomem;
		goto out;
	}
	step_done("records read", &t);
	if (hm->input.malformed > 0)
		log_warn("skipped %zu malformed line%s (--strict makes this "
		    "an error)", hm->input.malformed,
		    hm->input.malformed == 1 ? "" : "s");
	rc = matrix_overlay_build(hm, a.metrics || a.metrics_file != NULL ?
	    MATRIX_LATEST : (enum matrix_aggregate)a.aggregate, a.kind);
	if ((rc == NP_ERR_NOT_FOUND || (rc == 0 && hm->nkinds == 0)) &&
	    a.kind == NULL && hm->input.nruns > 0) {
		/* a run.json alone: its records are beside it */
		const char *f = hm->input.runs[0]->file;
		const char *slash = strrchr(f, '/');
		int dir = slash != NULL ? (int)(slash - f + 1) : 0;

		log_error("no records: %s is a bench run.json (the run's "
		    "phases, for the timeline); the run's records are in "
		    "%.*smeasurements.jsonl: give --input %.*smeasurements.jsonl "
		    "--input %s", f, dir, f, dir, f, f);
		goto out;
	}
	if (rc == NP_ERR_NOT_FOUND || (rc == 0 && hm->nkinds == 0)) {
		log_error("no %s%srecords in the input files; give a collect "
		    "or bench .jsonl with --input", a.kind ? a.kind : "",
		    a.kind ? " " : "");
		goto out;
	}
	if (rc == NP_ERR_BUDGET)	/* reported */
		goto out;
	if (rc != 0)
		goto nomem;
	step_done("cells laid out", &t);
	if (a.ncompare > 0) {
		if ((rc = build_old(&a, &old)) != 0) {
			if (rc == NP_ERR_NOMEM)
				goto nomem;
			goto out;
		}
		if (heatmap_compare(hm, old) != 0)
			goto nomem;
	}
	if (matrix_sites_group(hm, (enum matrix_sites_group_by)a.group_by, a.group_rtt) != 0)
		goto nomem;
	step_done(a.ncompare > 0 ? "compared and grouped" : "grouped", &t);
	if (hm->left_out > 0)
		log_warn("%zu records left out: a page shows at most %d hosts "
		    "(the first met) and %d kinds", hm->left_out,
		    MATRIX_MAX_HOSTS, MATRIX_MAX_KINDS);
	if (hm->machines_left_out > 0)
		log_warn("%zu of run.json's machines left out: a page shows "
		    "at most %d hosts (those of the records first)",
		    hm->machines_left_out, MATRIX_MAX_HOSTS);
	if (a.kind != NULL && a.metric != NULL &&
	    matrix_find_metric(&hm->kinds[0], a.metric) < 0) {
		char names[512];

		list_metrics(&hm->kinds[0], names, sizeof names);
		log_error("--metric %s: %s records have no such metric; they "
		    "have: %s", a.metric, a.kind, names);
		goto out;
	}
	if (choose_view(hm, &a, &kind, &metric) != 0)
		goto out;
	if ((rc = diagnose(hm, old, &dx)) != 0)
		goto nomem;
	step_done("diagnosed", &t);
	if (a.text && heatmap_write_text(hm, &dx, a.kind || a.metric ?
	    (long)kind : -1, (long)metric, use_color(), text_width(),
	    stdout) != 0)
		goto nomem;
	if ((advised = make_advice(hm, &a, &adv)) < 0) {
		exit_code = advised == NP_ERR_NOT_FOUND ? NP_EXIT_USAGE :
		    NP_EXIT_FAILED;
		advised = 0;
		goto out;
	}
	if ((a.metrics || a.metrics_file != NULL) &&
	    write_metrics(hm, &a) != 0) {
		exit_code = NP_EXIT_FAILED;
		goto out;
	}
	if (a.output != NULL && (cmd_make_parent_dirs(a.output, "--output") !=
	    NP_EXIT_OK || write_page(hm, &dx, &a, kind, metric,
	    advised ? &adv : NULL) != 0)) {
		exit_code = NP_EXIT_FAILED;
		goto out;
	}
	if (a.output != NULL)
		step_done("page written", &t);
	if (a.diagnosis_json != NULL &&
	    write_json_out("--diagnosis-json", a.diagnosis_json,
	    a.diagnosis_mode, diagnosis_out, hm, &dx) != 0) {
		exit_code = NP_EXIT_FAILED;
		goto out;
	}
	if ((a.advise || a.advise_json != NULL) &&
	    write_advice(hm, &a, &adv) != 0) {
		exit_code = NP_EXIT_FAILED;
		goto out;
	}
	matrix_totals(hm, &records, &failed);
	if (!log_quiet())	/* netprof -q heatmap */
		fprintf(stderr, "%s %s (%zu host%s, %zu kind%s, %zu record%s, "
		    "%zu failed)\n", a.output != NULL ? "wrote" : "read",
		    a.output != NULL ? a.output : "records", hm->nhosts,
		    PLURAL(hm->nhosts), measured_kinds(hm),
		    PLURAL(measured_kinds(hm)), records, PLURAL(records), failed);
	exit_code = NP_EXIT_OK;
	if ((a.gate.fail_on != DX_SEV_NONE || a.fail_on_worse > 0) &&
	    diagnose_gate_judge(hm, &dx, (enum dx_severity)a.gate.fail_on,
	    a.fail_on_worse, stderr))
		exit_code = NP_EXIT_FINDINGS;
	goto out;
nomem:
	log_error("out of memory");
	exit_code = NP_EXIT_FAILED;
out:
	if (advised)
		heatmap_advice_free(&adv);
	diagnose_free(&dx);
	matrix_free(hm);
	matrix_free(old);
	free(a.inputs);
	free(a.compare);
	return exit_code;
}

const struct cmd_entry cmd_heatmap_entry = {
	.name = "heatmap",
	.summary = "render measurements as a self-contained HTML page",
	.usage = "[--input FILE ...] [--output FILE.html] [--text]\n"
	    "       [--config FILE] [--compare FILE ...] [--group-by HOW] [--kind KIND]\n"
	    "       [--metric METRIC] [--title TEXT] [--aggregate latest|median]\n"
	    "       [--diagnosis-json FILE] [--fail-on SEVERITY] [--fail-on-worse FACTOR]\n"
	    "       [--metrics] [--metrics-file FILE.prom] [--max-memory MIB] [--strict]\n"
	    "       [--advise] [--advise-json FILE] [--relay-cap K]\n"
	    "       [--relay-within PCT] [--seed N]",
	.options = heatmap_options_table,
	.notes = "exit status: 0 written, 1 the page (or JSON) could not be "
	    "written, 2 usage or\ninput error, 3 a finding at or above "
	    "--fail-on (or --fail-on-worse).\n",
	.examples =
	    "# collect's records as the page: results/network-heatmap.html\n"
	    "netprof heatmap\n"
	    "# the diagnosis and the matrices in the terminal\n"
	    "netprof heatmap --text\n"
	    "# a bench run's page: its records and run.json (sites, timeline)\n"
	    "netprof heatmap --input results/RUN_ID/measurements.jsonl \\\n"
	    "    --input results/RUN_ID/run.json --output bench.html\n"
	    "# today against last week: what got worse\n"
	    "netprof heatmap --input today.jsonl --compare last-week.jsonl\n",
	.exec = cmd_heatmap_exec,
};
