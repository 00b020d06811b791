/*
 * --otela-bin DIR: deploy otela to every host before init, over the host's
 * existing SSH session. Per host: `uname -m` picks the binary
 * (DIR/otela-amd64 or otela-arm64, else DIR/otela-<uname -m>); if
 * ~/.cache/netprof/otela-<sha256> is already there it is reused, else the
 * binary goes through the stdin of one exec channel into a temporary name,
 * is checked against its SHA-256 (when sha256sum is there) and renamed
 * into place, so a half-written binary is never run and a running one is
 * never overwritten (no "text file busy"). The host then runs otela by
 * that path. Binaries are read and hashed once, when a host first needs
 * them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "bench.h"
#include "engine.h"
#include "error.h"
#include "file.h"
#include "log.h"
#include "util.h"

struct bench_binary {
	char *name;		/* otela-amd64 */
	char *data;
	size_t len;
	char sha256[65];
	int failed;		/* could not be read */
};

struct bench_deploy {
	struct bench_binary bins[8];
	size_t n;
};

/* The file for `uname -m`'s answer: amd64/arm64 names first. */
static const char *
file_for_machine(const char *uname_m, char *buf, size_t size)
{
	if (strcmp(uname_m, "x86_64") == 0 || strcmp(uname_m, "amd64") == 0)
		return "otela-amd64";
	if (strcmp(uname_m, "aarch64") == 0 || strcmp(uname_m, "arm64") == 0)
		return "otela-arm64";
	snprintf(buf, size, "otela-%s", uname_m);
	return buf;
}

static int
sha256_hex(const char *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;

	if (EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) != 1 || n != 32)
		return NP_ERR_SYSTEM;
	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/* The binary called name, read and hashed on first use; NULL if absent. */
static struct bench_binary *
binary_get(struct bench *b, const char *name, char **why)
{
	struct bench_deploy *d = b->deploy;
	struct bench_binary *bin;
	char *path;
	size_t i;
	int r;

	for (i = 0; i < d->n; i++)
		if (strcmp(d->bins[i].name, name) == 0)
			return d->bins[i].failed ? NULL : &d->bins[i];
	if (d->n == sizeof d->bins / sizeof *d->bins) {
		*why = strdup("too many architectures");
		return NULL;
	}
	bin = &d->bins[d->n++];
	if ((bin->name = strdup(name)) == NULL ||
	    (path = str_printf("%s/%s", b->o->otela_bin, name)) == NULL) {
		bin->failed = 1;
		return NULL;
	}
	r = file_read(path, &bin->data, &bin->len, why);
	if (r == 0 && (r = sha256_hex(bin->data, bin->len, bin->sha256)) != 0)
		*why = str_printf("%s: %s", path, error_string(r));
	if (r != 0)
		bin->failed = 1;
	else
		log_debug(NULL, "%s: %zu bytes, sha256 %s", path, bin->len,
		    bin->sha256);
	free(path);
	return bin->failed ? NULL : bin;
}

int
bench_deploy_load(struct bench *b, char **cause)
{
	if (b->o->otela_bin == NULL)
		return 0;
	if ((b->deploy = calloc(1, sizeof *b->deploy)) == NULL)
		return NP_ERR_NOMEM;
	(void)cause;
	return 0;
}

void
bench_deploy_free(struct bench *b)
{
	size_t i;

	if (b->deploy == NULL)
		return;
	for (i = 0; i < b->deploy->n; i++) {
		free(b->deploy->bins[i].name);
		free(b->deploy->bins[i].data);
	}
	free(b->deploy);
	b->deploy = NULL;
}

static int step(struct bench_host *h, const char *command,
    const char *input, size_t input_len, engine_done_cb cb);

/* A deploy step that did not run cleanly: fail the host. */
static int
deploy_failed(struct bench_host *h, const struct engine_result *res,
    const char *what)
{
	if (res->error == NP_OK && res->exit_status == 0)
		return 0;
	if (res->error == NP_ERR_CANCELLED && h->b->interrupted) {
		bench_host_step_done(h);
		return 1;
	}
	bench_host_step_fail(h, res->error != NP_OK ?
	    error_class_of_code(res->error) : ERROR_CLASS_TOOL_FAILED,
	    str_printf("%s: deploying otela: %s: %s", h->m->name, what,
	    res->error != NP_OK ? (res->error_text != NULL ? res->error_text :
	    error_string(res->error)) : res->err[0] != '\0' ? res->err :
	    "failed"));
	return 1;
}

static void
upload_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;

	(void)m;
	h->job = NULL;
	if (deploy_failed(h, res, "upload"))
		return;
	log_debug(h->m->name, "otela uploaded to %s", h->otela);
	bench_host_step_done(h);
}

/*
 * Shell text before every cache command: d, the cache directory, made
 * 0700 and checked to be the user's (not a link), and np_sha, a SHA-256
 * of stdin with sha256sum, shasum -a 256 or openssl, whichever is there.
 */
static const char *
cache_prefix(void)
{
	return "umask 077; d=\"$HOME/.cache/netprof\"; mkdir -p \"$d\" && "
	    "chmod 700 \"$d\" || exit 1; if [ -L \"$d\" ] || [ ! -O \"$d\" ]; "
	    "then echo \"$d is not a directory of this user\" >&2; exit 1; "
	    "fi; np_sha() { if command -v sha256sum >/dev/null 2>&1; then "
	    "sha256sum; elif command -v shasum >/dev/null 2>&1; then shasum "
	    "-a 256; elif command -v openssl >/dev/null 2>&1; then openssl "
	    "dgst -sha256 -r; else echo 'no sha256sum, shasum or openssl "
	    "there: the binary cannot be checked' >&2; echo none; fi | cut "
	    "-c1-64; }; ";
}

static void
present_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;
	struct bench_binary *bin = h->deploy_bin;
	char *cmd;
	int r;

	(void)m;
	h->job = NULL;
	if (deploy_failed(h, res, "looking for the cached binary"))
		return;
	if (strncmp(res->out, "present", 7) == 0) {
		log_debug(h->m->name, "otela-%s already there: reused",
		    bin->sha256);
		bench_host_step_done(h);
		return;
	}
	/*
	 * A temp from mktemp (hosts sharing a home never collide), the byte
	 * count and hash checked, then renamed: never a half binary. Temps
	 * left by an upload that died an hour ago are removed.
	 */
	cmd = str_printf("%sfind \"$d\" -maxdepth 1 -name '.otela-*' -mmin "
	    "+60 -exec rm -f {} + 2>/dev/null; t=$(mktemp \"$d/.otela-%s."
	    "XXXXXX\") || exit 1; cat >\"$t\" && if [ \"$(wc -c <\"$t\" | "
	    "tr -d ' ')\" != %zu ] || [ \"$(np_sha <\"$t\")\" != %s ]; then "
	    "rm -f \"$t\"; echo \"size or checksum mismatch after upload "
	    "(cut short?)\" >&2; exit 1; fi && chmod 755 \"$t\" && mv -f "
	    "\"$t\" \"$d/otela-%s\"", cache_prefix(), bin->sha256, bin->len,
	    bin->sha256, bin->sha256);
	r = cmd != NULL ? step(h, cmd, bin->data, bin->len, upload_done_cb) :
	    NP_ERR_NOMEM;
	free(cmd);
	if (r != 0)
		bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: "
		    "deploying otela: %s", h->m->name, error_string(r)));
}

static void
uname_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct bench_host *h = arg;
	char arch[64], buf[96], *why = NULL, *cmd;
	const char *file;
	int r;

	(void)m;
	h->job = NULL;
	if (deploy_failed(h, res, "uname -m"))
		return;
	snprintf(arch, sizeof arch, "%.*s", (int)strcspn(res->out, "\r\n"),
	    res->out);
	/* it names a local file: a word, not a path */
	if (arch[0] == '\0' || strspn(arch, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(arch) ||
	    strlen(arch) > 32) {
		bench_host_step_fail(h, ERROR_CLASS_PARSE, str_printf("%s: uname "
		    "-m printed no architecture name (letters, digits, _ and "
		    "-)", h->m->name));
		return;
	}
	file = file_for_machine(arch, buf, sizeof buf);
	if ((h->deploy_bin = binary_get(h->b, file, &why)) == NULL) {
		bench_host_step_fail(h, ERROR_CLASS_TOOL_MISSING, str_printf("%s: "
		    "no otela for its architecture (uname -m: %s): %s",
		    h->m->name, arch, why != NULL ? why : "cannot read it"));
		free(why);
		return;
	}
	free(h->otela);
	h->otela = str_printf("\"$HOME\"/.cache/netprof/otela-%s",
	    h->deploy_bin->sha256);
	/* reused only if it is the user's, the right size and hash */
	cmd = str_printf("%sf=\"$d/otela-%s\"; if [ -f \"$f\" ] && "
	    "[ ! -L \"$f\" ] && [ -O \"$f\" ] && [ -x \"$f\" ] && "
	    "[ \"$(wc -c <\"$f\" | tr -d ' ')\" = %zu ] && "
	    "[ \"$(np_sha <\"$f\")\" = %s ]; then echo present; else "
	    "echo absent; fi", cache_prefix(), h->deploy_bin->sha256,
	    h->deploy_bin->len, h->deploy_bin->sha256);
	r = cmd != NULL && h->otela != NULL ? step(h, cmd, NULL, 0,
	    present_done_cb) : NP_ERR_NOMEM;
	free(cmd);
	if (r != 0)
		bench_host_step_fail(h, ERROR_CLASS_TOOL_FAILED, str_printf("%s: "
		    "deploying otela: %s", h->m->name, error_string(r)));
}

static int
step(struct bench_host *h, const char *command, const char *input,
    size_t input_len, engine_done_cb cb)
{
	struct engine_request req = {
		.command = command,
		.input = input,
		.input_len = input_len,
		.timeout_s = 600,
		.on_done = cb,
		.arg = h,
	};

	return engine_submit(h->b->engine, h->m, &req, &h->job);
}

int
bench_deploy_host(struct bench_host *h)
{
	return step(h, "uname -m", NULL, 0, uname_done_cb);
}
