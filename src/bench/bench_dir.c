/*
 * The host's bench directory, made and checked by shell text put before
 * each remote step (see bench_dir.h for why). /tmp is sticky, so once the
 * directory is the user's, 0700, nobody else can rename it or put a link
 * inside; the checks before each step catch a directory that was swapped
 * anyway (by root, or before the sticky bit mattered).
 */
/*
 * bench_dir_create, bench_dir_guard and bench_plan.c's bench_otela_env
 * share a shape (quote the directory, format the shell text, free the
 * quoted copy) but not their text: a helper taking the format would still
 * need the quoted word once per %s, and would hide what each is about, its
 * shell text.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_dir.h"
#include "shell.h"
#include "util.h"

char *
bench_dir_create(const char *dir)
{
	char *q = shell_quote(dir), *s;

	if (q == NULL)
		return NULL;
	s = str_printf("umask 077; if [ -e %s ] || [ -L %s ]; then echo "
	    "%s' exists already (someone else made it, or a run of this id "
	    "left it): refusing to use it; choose another --run-id, or if it "
	    "is yours, remove it (bench --teardown RUN_ID)' >&2; exit %d; fi; "
	    "mkdir -m 700 -- %s || exit 1; ", q, q, q, BENCH_DIR_REFUSED, q);
	free(q);
	return s;
}

int
bench_dir_refusal(const char *dir, const char *err)
{
	static const char said[] = " exists already (";
	size_t n = strlen(dir);
	const char *line;

	/* a line of its own: remote_setup may have printed before it */
	for (line = err; line != NULL; line = strchr(line, '\n'),
	    line = line != NULL ? line + 1 : NULL)
		if (strncmp(line, dir, n) == 0 &&
		    strncmp(line + n, said, sizeof said - 1) == 0)
			return 1;
	return 0;
}

char *
bench_dir_guard(const char *dir)
{
	char *q = shell_quote(dir), *s;

	if (q == NULL)
		return NULL;
	s = str_printf("umask 077; if [ -L %s ] || [ ! -d %s ] || [ ! -O %s ]"
	    "; then echo %s' is not a directory of this user (a link, or "
	    "made by someone else): left alone' >&2; exit %d; fi; ", q, q, q,
	    q, BENCH_DIR_REFUSED);
	free(q);
	return s;
}
