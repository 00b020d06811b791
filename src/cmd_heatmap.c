/*
 * netprof heatmap: read collect and bench records (and bench run.json
 * files), and render the N x N matrix of every kind and metric as one
 * self-contained HTML page, or as text on the terminal, with the failures
 * and a diagnosis of the known failure patterns. Command-line compatible
 * with the tool netprof replaces: --input, --output, --kind, --metric.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "error.h"
#include "heatmap.h"
#include "record_schema.h"
#include "heatmap_diagnose.h"
#include "heatmap_html.h"
#include "heatmap_text.h"
#include "log.h"
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
	enum heatmap_aggregate aggregate;
	int text;
	int strict;
	int metrics;		/* --metrics: the exposition on stdout */
	const char *metrics_file;
};

/* No --input: collect's default output, as upstream. */
static int
default_input(const struct cmd_entry *self, struct heatmap_args *a)
{
	if (access(CMD_DEFAULT_RECORDS, F_OK) != 0)
		return cmd_usage_error(self, "no --input FILE, and no %s here "
		    "(collect's default output): give a collect or bench "
		    ".jsonl, or a bench run.json", CMD_DEFAULT_RECORDS);
	if ((a->inputs = malloc(sizeof *a->inputs)) == NULL)
		return NP_EXIT_FAILED;
	a->inputs[a->ninputs++] = CMD_DEFAULT_RECORDS;
	return NP_EXIT_OK;
}

static int
parse_args(const struct cmd_entry *self, int argc, char **argv,
    struct heatmap_args *a, int *done)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "kind", required_argument, NULL, 'k' },
		{ "metric", required_argument, NULL, 'm' },
		{ "title", required_argument, NULL, 't' },
		{ "aggregate", required_argument, NULL, 'a' },
		{ "text", no_argument, NULL, 'T' },
		{ "strict", no_argument, NULL, 'S' },
		{ "metrics", no_argument, NULL, 'M' },
		{ "metrics-file", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char **p;
	size_t i;
	int c, rc;

	*done = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:k:m:t:h", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'i':
			p = realloc(a->inputs, (a->ninputs + 1) * sizeof *p);
			if (p == NULL)
				return NP_EXIT_FAILED;
			a->inputs = p;
			a->inputs[a->ninputs++] = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'k':
			a->kind = optarg;
			break;
		case 'm':
			a->metric = optarg;
			break;
		case 't':
			a->title = optarg;
			break;
		case 'a':
			if (strcmp(optarg, "median") == 0)
				a->aggregate = HEATMAP_MEDIAN;
			else if (strcmp(optarg, "latest") == 0)
				a->aggregate = HEATMAP_LATEST;
			else
				return cmd_usage_error(self, "--aggregate %s: "
				    "expected latest or median", optarg);
			break;
		case 'T':
			a->text = 1;
			break;
		case 'S':
			a->strict = 1;
			break;
		case 'M':
			a->metrics = 1;
			break;
		case 'F':
			a->metrics_file = optarg;
			break;
		case 'h':
			cmd_print_usage(self, stdout, 1);
			*done = 1;
			return NP_EXIT_OK;
		default:
			return cmd_option_error(self, c, argv);
		}
	}
	if (optind < argc)
		return cmd_usage_error(self, "unexpected argument '%s'",
		    argv[optind]);
	if (a->ninputs == 0 && (rc = default_input(self, a)) != NP_EXIT_OK)
		return rc;
	if (a->output == NULL && !a->text && !a->metrics &&
	    a->metrics_file == NULL)
		a->output = CMD_DEFAULT_PAGE;
	for (i = 0; a->metrics_file != NULL && i < a->ninputs; i++)
		if (file_same(a->metrics_file, a->inputs[i]))
			return cmd_usage_error(self, "--metrics-file %s is the "
			    "input %s; give another --metrics-file",
			    a->metrics_file, a->inputs[i]);
	for (i = 0; a->output != NULL && i < a->ninputs; i++) {
		if (file_same(a->output, a->inputs[i]))
			return cmd_usage_error(self, "--output %s is the input "
			    "%s: writing the page would replace the records; "
			    "give another --output", a->output, a->inputs[i]);
	}
	if (a->kind != NULL && !record_kind_known(a->kind))
		return cmd_usage_error(self, "--kind %s: expected ping, "
		    "iperf3, libp2p_ping, latency or throughput", a->kind);
	return NP_EXIT_OK;
}

/* The metric names of k for a message, fit for a terminal. */
static void
list_metrics(const struct hm_kind *k, char *buf, size_t size)
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
choose_view(const struct heatmap *hm, const struct heatmap_args *a,
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
		if ((m = heatmap_find_metric(&hm->kinds[i], a->metric)) >= 0) {
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

/*
 * Whether the output may be replaced, and the mode the page gets: a new
 * file gets 0666 less the umask, a replaced one keeps its mode. Anything
 * but a writable regular file is refused: renaming over a symlink, device
 * node, FIFO or read-only file would silently replace it.
 */
static int
output_check(const char *path, mode_t *mode)
{
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	*mode = 0666 & ~mask;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		log_error("%s: %s; check the --output path", path,
		    strerror(errno));
		return NP_ERR_IO;
	}
	if (S_ISLNK(st.st_mode))
		log_error("%s is a symbolic link; give the path of a regular "
		    "file (or of a new one) with --output", path);
	else if (!S_ISREG(st.st_mode))
		log_error("%s is not a regular file (a %s); give the path of "
		    "a regular file (or of a new one) with --output", path,
		    S_ISDIR(st.st_mode) ? "directory" : S_ISFIFO(st.st_mode) ?
		    "FIFO" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ?
		    "device" : "socket");
	else if ((st.st_mode & 0222) == 0 || access(path, W_OK) != 0)
		log_error("%s is read-only; make it writable or choose another "
		    "--output", path);
	else {
		*mode = st.st_mode & 07777;
		return 0;
	}
	return NP_ERR_USAGE;
}

/* A new temporary file beside path (O_CREAT|O_EXCL, never a planted link). */
static int
temp_beside(const char *path, char **tmp, FILE **f)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash != NULL ? (size_t)(slash - path) + 1 : 0;
	size_t len = strlen(path) + 16;
	int fd;

	if ((*tmp = malloc(len)) == NULL)
		return NP_ERR_NOMEM;
	snprintf(*tmp, len, "%.*s.%s.XXXXXX", (int)dirlen, path,
	    path + dirlen);
	if ((fd = mkstemp(*tmp)) < 0) {
		log_error("%s: cannot create a file in its directory: %s; "
		    "check that the directory exists and is writable", path,
		    strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return NP_ERR_IO;
	}
	if ((*f = fdopen(fd, "w")) == NULL) {
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		return NP_ERR_NOMEM;
	}
	return 0;
}

static int
write_page(const struct heatmap *hm, const struct diagnosis *dx,
    const struct heatmap_args *a, size_t kind, size_t metric)
{
	struct html_options opt;
	char *tmp = NULL;
	FILE *f = NULL;
	mode_t mode;
	int rc, err = 0;

	opt.title = a->title != NULL ? a->title : "netprof heatmap";
	opt.kind = kind;
	opt.metric = metric;
	opt.generated = time_wall();
	if ((rc = output_check(a->output, &mode)) != 0 ||
	    (rc = temp_beside(a->output, &tmp, &f)) != 0)
		return rc;
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	rc = heatmap_write_html(hm, dx, &opt, f);
	if (rc == NP_ERR_IO)
		err = errno;
	if (rc == 0 && fchmod(fileno(f), mode) != 0) {
		err = errno;
		rc = NP_ERR_IO;
	}
	if (fclose(f) != 0 && rc == 0) {
		err = errno;
		rc = NP_ERR_IO;
	}
	if (rc == 0 && rename(tmp, a->output) != 0) {
		err = errno;
		rc = NP_ERR_IO;
	}
	if (rc != 0) {
		/* errno only where a system call failed (and set it). */
		log_error("%s: could not write the page: %s", a->output,
		    rc == NP_ERR_IO && err != 0 ? strerror(err) :
		    error_string(rc));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

/* --metrics and --metrics-file: the exposition of the latest records. */
static int
write_metrics(const struct heatmap *hm, const struct heatmap_args *a)
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
	if (a->metrics_file != NULL && ((rc = cmd_make_parent_dirs(
	    a->metrics_file, "--metrics-file")) != NP_EXIT_OK ||
	    (rc = metrics_write_file(a->metrics_file, text.data, text.len,
	    &cause)) != 0)) {
		if (cause != NULL)
			log_error("--metrics-file %s", cause);
		rc = NP_ERR_IO;
	}
out:
	free(cause);
	buf_free(&text);
	return rc;
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
measured_kinds(const struct heatmap *hm)
{
	size_t i, n = 0;

	for (i = 0; i < hm->nkinds; i++)
		n += !hm->kinds[i].derived;
	return n;
}

static int
cmd_heatmap_exec(const struct cmd_entry *self, int argc, char **argv)
{
	struct heatmap_args a;
	struct diagnosis dx;
	struct heatmap *hm = NULL;
	size_t i, kind, metric, records, failed;
	int rc, done, exit_code = NP_EXIT_USAGE;

	memset(&a, 0, sizeof a);
	memset(&dx, 0, sizeof dx);
	if ((rc = parse_args(self, argc, argv, &a, &done)) != NP_EXIT_OK ||
	    done) {
		exit_code = rc;
		goto out;
	}
	if ((hm = heatmap_new()) == NULL)
		goto nomem;
	for (i = 0; i < a.ninputs; i++)
		if ((rc = heatmap_read(hm, a.inputs[i], a.strict)) != 0) {
			if (rc == NP_ERR_NOMEM)
				goto nomem;
			goto out;
		}
	if (hm->input.malformed > 0)
		log_warn("skipped %zu malformed line%s (--strict makes this "
		    "an error)", hm->input.malformed,
		    hm->input.malformed == 1 ? "" : "s");
	rc = heatmap_build(hm, a.metrics || a.metrics_file != NULL ?
	    HEATMAP_LATEST : a.aggregate, a.kind);
	if (rc == NP_ERR_NOT_FOUND || (rc == 0 && hm->nkinds == 0)) {
		log_error("no %s%srecords in the input files; give a collect "
		    "or bench .jsonl with --input", a.kind ? a.kind : "",
		    a.kind ? " " : "");
		goto out;
	}
	if (rc != 0)
		goto nomem;
	if (hm->left_out + hm->input.left_out > 0)
		log_warn("%zu records left out: a page shows at most %d hosts "
		    "(the first met), %d kinds and %d records",
		    hm->left_out + hm->input.left_out, HEATMAP_MAX_HOSTS,
		    HEATMAP_MAX_KINDS, RECORDS_MAX);
	if (a.kind != NULL && a.metric != NULL &&
	    heatmap_find_metric(&hm->kinds[0], a.metric) < 0) {
		char names[512];

		list_metrics(&hm->kinds[0], names, sizeof names);
		log_error("--metric %s: %s records have no such metric; they "
		    "have: %s", a.metric, a.kind, names);
		goto out;
	}
	if (choose_view(hm, &a, &kind, &metric) != 0)
		goto out;
	if ((rc = heatmap_diagnose(hm, &dx)) != 0)
		goto nomem;
	if (a.text && heatmap_write_text(hm, &dx, a.kind || a.metric ?
	    (long)kind : -1, (long)metric, use_color(), stdout) != 0)
		goto nomem;
	if ((a.metrics || a.metrics_file != NULL) &&
	    write_metrics(hm, &a) != 0) {
		exit_code = NP_EXIT_FAILED;
		goto out;
	}
	if (a.output != NULL && (cmd_make_parent_dirs(a.output, "--output") !=
	    NP_EXIT_OK || write_page(hm, &dx, &a, kind, metric) != 0)) {
		exit_code = NP_EXIT_FAILED;
		goto out;
	}
	heatmap_totals(hm, &records, &failed);
	fprintf(stderr, "%s %s (%zu host%s, %zu kind%s, %zu record%s, %zu "
	    "failed)\n", a.output != NULL ? "wrote" : "read",
	    a.output != NULL ? a.output : "records", hm->nhosts,
	    PLURAL(hm->nhosts), measured_kinds(hm),
	    PLURAL(measured_kinds(hm)), records, PLURAL(records), failed);
	exit_code = NP_EXIT_OK;
	goto out;
nomem:
	log_error("out of memory");
	exit_code = NP_EXIT_FAILED;
out:
	diagnosis_free(&dx);
	heatmap_free(hm);
	free(a.inputs);
	return exit_code;
}

const struct cmd_entry cmd_heatmap_entry = {
	.name = "heatmap",
	.summary = "render measurements as a self-contained HTML page",
	.usage = "[--input FILE ...] [--output FILE.html] [--text]\n"
	    "       [--kind KIND] [--metric METRIC] [--title TEXT] "
	    "[--aggregate latest|median] [--strict]\n"
	    "       [--metrics] [--metrics-file FILE.prom]",
	.help =
	    "options:\n"
	    "  -i, --input FILE     collect or bench records (.jsonl), or a bench run.json;\n"
	    "                       repeat to combine collect and bench runs (default:\n"
	    "                       " CMD_DEFAULT_RECORDS ")\n"
	    "  -o, --output FILE    the page to write, one self-contained HTML file\n"
	    "                       (default: " CMD_DEFAULT_PAGE " unless --text;\n"
	    "                       directories created)\n"
	    "  -k, --kind KIND      only ping, iperf3, libp2p_ping, latency or throughput;\n"
	    "                       default: every kind found, switchable on the page\n"
	    "  -m, --metric METRIC  metric shown first (default: avg for ping, mbps for\n"
	    "                       iperf3 and throughput, p50_ms for libp2p_ping and latency)\n"
	    "  -t, --title TEXT     page title\n"
	    "      --aggregate HOW  several records for a pair: latest (default) or\n"
	    "                       median (of each metric over the ok records)\n"
	    "      --text           print the matrix, diagnosis and failures to stdout\n"
	    "                       (ANSI colours on a terminal unless NO_COLOR is set)\n"
	    "      --strict         a malformed input line is an error (exit 2)\n"
	    "      --metrics        print the latest record of every pair as Prometheus\n"
	    "                       metrics (text format) to stdout; no page unless\n"
	    "                       --output (docs/metrics.md)\n"
	    "      --metrics-file F write the same to F atomically (node_exporter's\n"
	    "                       textfile collector reads *.prom)\n"
	    "  -h, --help           show this help\n",
	.exec = cmd_heatmap_exec,
};
