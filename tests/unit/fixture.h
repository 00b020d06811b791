/*
 * Fixture files for the unit tests, under $NETPROF_FIXTURES (set by ctest)
 * or, when a test is run by hand, tests/fixtures next to this directory;
 * and reading a time as a script written for upstream's files does.
 * Include after <cmocka.h>.
 */
#ifndef NETPROF_TEST_FIXTURE_H
#define NETPROF_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Path of fixture DIR/NAME; the last four results stay valid. */
static inline const char *
fixture_path(const char *dir, const char *name)
{
	static char paths[4][4096];
	static int next;
	char *path = paths[next++ % 4];
	const char *root = getenv("NETPROF_FIXTURES");
	const char *slash = strrchr(__FILE__, '/');

	if (root != NULL)
		snprintf(path, sizeof paths[0], "%s/%s/%s", root, dir, name);
	else
		snprintf(path, sizeof paths[0], "%.*s/../fixtures/%s/%s",
		    slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".",
		    dir, name);
	return path;
}

/* The whole of fixture DIR/NAME, NUL-terminated; the caller frees it. */
static inline char *
fixture_read(const char *dir, const char *name)
{
	const char *path = fixture_path(dir, name);
	char *text;
	long len;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL)
		fail_msg("cannot open fixture %s", path);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return text;
}

/*
 * ts read strictly with upstream's format, strptime "%Y-%m-%dT%H:%M:%S%z"
 * (the whole string), as Unix seconds.
 */
static inline double
fixture_upstream_time(const char *ts)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof tm);
	end = strptime(ts, "%Y-%m-%dT%H:%M:%S%z", &tm);
	if (end == NULL || *end != '\0')
		fail_msg("\"%s\" does not match %%Y-%%m-%%dT%%H:%%M:%%S%%z", ts);
	return (double)timegm(&tm) - (double)tm.tm_gmtoff;
}

#endif
