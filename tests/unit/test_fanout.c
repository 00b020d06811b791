/*
 * Fan-out ping: the remote script, run here by /bin/sh with stand-in ping
 * and fping commands on PATH (no network), split per target into the
 * ping parser's results; one target without replies fails only its own
 * pair; output fed in pieces of any size gives the same outcomes; fping's
 * -C report becomes per-packet samples; a host whose shell printed
 * nothing of the script is told apart (so collect can fall back), and an
 * address that is shell syntax stays one word.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error_class.h"
#include "fanout.h"
#include "probe_kind.h"

#define MAX_T 8

struct seen {
	int calls[MAX_T];
	int ok[MAX_T];
	enum error_class cls[MAX_T];
	int received[MAX_T], transmitted[MAX_T], fping[MAX_T];
	double first_ms[MAX_T];
	char error[MAX_T][256];
};

static void
on_outcome(struct fanout_outcome *o, void *arg)
{
	struct seen *s = arg;

	assert_true(o->index < MAX_T);
	s->calls[o->index]++;
	s->ok[o->index] = o->rec.ok;
	s->cls[o->index] = error_class_of_name(o->rec.error_class);
	s->fping[o->index] = o->fping;
	if (o->ping != NULL) {
		s->received[o->index] = o->ping->received;
		s->transmitted[o->index] = o->ping->transmitted;
		s->first_ms[o->index] = o->ping->n_samples > 0 ?
		    o->ping->samples_ms[0] : -1;
	}
	if (o->rec.error != NULL)
		snprintf(s->error[o->index], sizeof s->error[0], "%s",
		    o->rec.error);
}

static char bindir[] = "/tmp/np-fanout-test.XXXXXX";

static void
write_tool(const char *name, const char *body)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", bindir, name);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "#!/bin/sh\n%s", body);
	fclose(f);
	chmod(path, 0755);
}

/*
 * A stand-in ping in iputils' words: 198.18.9.9 never answers (exit 1, no
 * rtt line); any other address answers with time=0.1N ms, N its last
 * digit, after a short sleep so that the targets' lines interleave.
 */
static const char *fake_ping =
    "a=$5\n"
    "echo \"PING $a ($a) 56(84) bytes of data.\"\n"
    "if [ \"$a\" = 198.18.9.9 ]; then\n"
    "  printf '\\n--- %s ping statistics ---\\n3 packets transmitted, 0 received, 100%% packet loss, time 2ms\\n\\n' \"$a\"; exit 1\n"
    "fi\n"
    "d=${a##*.}\n"
    "for s in 1 2 3; do sleep 0.01; echo \"64 bytes from $a: icmp_seq=$s ttl=64 time=0.$d ms\"; done\n"
    "printf '\\n--- %s ping statistics ---\\n3 packets transmitted, 3 received, 0%% packet loss, time 2ms\\nrtt min/avg/max/mdev = 0.$d/0.$d/0.$d/0.000 ms\\n' \"$a\"\n";

/* fping -C 3 ... -q ADDR...: the report on stderr, "-" for no reply. */
static const char *fake_fping =
    "while [ $# -gt 0 ]; do case $1 in -q) shift ;; -*) shift 2 ;; *) break ;; esac; done\n"
    "st=0\n"
    "for a in \"$@\"; do\n"
    "  if [ \"$a\" = 198.18.9.9 ]; then echo \"$a : - - -\" >&2; st=1;\n"
    "  else d=${a##*.}; echo \"$a : 0.$d 0.$d 0.$d\" >&2; fi\n"
    "done\n"
    "exit $st\n";

static int
setup(void **state)
{
	static char path[4096];

	assert_non_null(mkdtemp(bindir));
	write_tool("ping", fake_ping);
	snprintf(path, sizeof path, "%s:/usr/bin:/bin", bindir);
	setenv("PATH", path, 1);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", bindir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Run the script with /bin/sh, feed its stdout in pieces of chunk bytes. */
static void
run_split(char *const *addr, size_t n, enum fanout_tool tool, size_t chunk,
    struct seen *s, int *understood)
{
	struct probe_settings ps = { .ping_count = 3, .ping_interval = 0.01 };
	struct fanout_split *sp;
	char *script, buf[4096];
	FILE *f, *p;
	size_t got, off;
	char tmp[] = "/tmp/np-fanout-script.XXXXXX", cmd[128];
	int fd;

	memset(s, 0, sizeof *s);
	assert_non_null(script = fanout_command(&ps, addr, n, tool));
	assert_true((fd = mkstemp(tmp)) >= 0);
	assert_non_null(f = fdopen(fd, "w"));
	fputs(script, f);
	fclose(f);
	free(script);
	snprintf(cmd, sizeof cmd, "/bin/sh %s", tmp);
	assert_int_equal(fanout_split_new("h1", addr, n, on_outcome, s, &sp),
	    0);
	assert_non_null(p = popen(cmd, "r"));
	while ((got = fread(buf, 1, sizeof buf, p)) > 0) {
		for (off = 0; off < got; off += chunk)
			assert_int_equal(fanout_split_feed(sp, buf + off,
			    got - off < chunk ? got - off : chunk), 0);
	}
	pclose(p);
	unlink(tmp);
	*understood = fanout_split_understood(sp);
	fanout_split_end(sp, ERROR_CLASS_TOOL_FAILED, NULL);
	assert_int_equal(fanout_split_done(sp), n);
	fanout_split_free(sp);
}

static void
ping_each_target_gets_its_own_result(void **state)
{
	char *addr[] = { "198.18.0.2", "198.18.0.3", "198.18.9.9",
	    "198.18.0.5", "198.18.0.3" };
	size_t chunks[] = { 1, 7, 4096 }, c, i;
	struct seen s;
	int understood;

	for (c = 0; c < 3; c++) {
		run_split(addr, 5, FANOUT_TOOL_PING, chunks[c], &s,
		    &understood);
		assert_true(understood);
		for (i = 0; i < 5; i++)
			assert_int_equal(s.calls[i], 1);
		/* the one that never answers fails alone */
		assert_false(s.ok[2]);
		assert_int_equal(s.cls[2], ERROR_CLASS_TOOL_FAILED);
		assert_non_null(strstr(s.error[2], "100% packet loss"));
		for (i = 0; i < 5; i++) {
			if (i == 2)
				continue;
			assert_true(s.ok[i]);
			assert_int_equal(s.received[i], 3);
			assert_int_equal(s.transmitted[i], 3);
			assert_false(s.fping[i]);
		}
		/* each target's samples are its own: 0.2, 0.3, 0.5, 0.3 ms */
		assert_true(s.first_ms[0] > 0.19 && s.first_ms[0] < 0.21);
		assert_true(s.first_ms[3] > 0.49 && s.first_ms[3] < 0.51);
		assert_true(s.first_ms[4] > 0.29 && s.first_ms[4] < 0.31);
	}
}

static void
fping_report_becomes_per_packet_samples(void **state)
{
	char *addr[] = { "198.18.0.2", "198.18.9.9", "198.18.0.4" };
	struct seen s;
	int understood;

	write_tool("fping", fake_fping);
	run_split(addr, 3, FANOUT_TOOL_AUTO, 5, &s, &understood);
	assert_true(understood);
	assert_true(s.ok[0] && s.fping[0]);
	assert_int_equal(s.transmitted[0], 3);
	assert_int_equal(s.received[0], 3);
	assert_true(s.first_ms[2] > 0.39 && s.first_ms[2] < 0.41);
	assert_false(s.ok[1]);
	assert_int_equal(s.cls[1], ERROR_CLASS_TOOL_FAILED);
	assert_int_equal(s.transmitted[1], 3);
	assert_true(s.ok[2]);
	/* fping asked for but missing: every pair says so */
	write_tool("fping", "exit 127\n");
	run_split(addr, 3, FANOUT_TOOL_FPING, 4096, &s, &understood);
	assert_int_equal(s.cls[0], ERROR_CLASS_TOOL_MISSING);
	assert_int_equal(s.cls[2], ERROR_CLASS_TOOL_MISSING);
	/* auto with an fping that refuses (status 4): ping does the work */
	write_tool("fping", "echo 'fping: these options are too risky' >&2; "
	    "exit 4\n");
	run_split(addr, 3, FANOUT_TOOL_AUTO, 4096, &s, &understood);
	assert_true(s.ok[0] && !s.fping[0]);
	assert_false(s.ok[1]);
	char path[300];
	snprintf(path, sizeof path, "%s/fping", bindir);
	unlink(path);
}

static void
hostile_address_stays_one_word(void **state)
{
	struct probe_settings ps = { .ping_count = 3, .ping_interval = 1 };
	char *addr[] = { "198.18.0.2; touch /tmp/np-pwned", "x'y" };
	char *script = fanout_command(&ps, addr, 2, FANOUT_TOOL_AUTO);

	assert_non_null(script);
	assert_non_null(strstr(script, "'198.18.0.2; touch /tmp/np-pwned'"));
	assert_non_null(strstr(script, "'x'\\''y'"));
	assert_null(strstr(script, " 198.18.0.2; touch"));
	free(script);
}

static void
output_without_markers_is_not_understood(void **state)
{
	char *addr[] = { "198.18.0.2", "198.18.0.3" };
	const char *csh = "Unmatched '\"'.\nnp_ping: Command not found.\n";
	struct fanout_split *sp;
	struct seen s;

	memset(&s, 0, sizeof s);
	assert_int_equal(fanout_split_new("h1", addr, 2, on_outcome, &s, &sp),
	    0);
	assert_int_equal(fanout_split_feed(sp, csh, strlen(csh)), 0);
	assert_false(fanout_split_understood(sp));
	assert_int_equal(fanout_split_done(sp), 0);
	fanout_split_end(sp, ERROR_CLASS_TIMEOUT, "h1: timed out");
	assert_int_equal(s.calls[0], 1);
	assert_int_equal(s.cls[1], ERROR_CLASS_TIMEOUT);
	assert_string_equal(s.error[1], "h1: timed out");
	fanout_split_free(sp);
	fanout_split_free(NULL);
}

static void
missing_ping_is_tool_missing_per_pair(void **state)
{
	struct fanout_outcome o = { 0 };

	assert_int_equal(fanout_outcome_from_ping("h3", "sh: 1: ping: not "
	    "found\n", 127, &o), 0);
	assert_false(o.rec.ok);
	assert_int_equal(error_class_of_name(o.rec.error_class),
	    ERROR_CLASS_TOOL_MISSING);
	assert_string_equal(o.rec.error, "h3: ping is not installed or not "
	    "on PATH there (exit 127)");
	record_outcome_clear(&o.rec);
	assert_int_equal(fanout_outcome_from_ping("h3", "PING a (a) 56(84) "
	    "bytes\nping: connect: Network is unreachable\n", 2, &o), 0);
	assert_int_equal(error_class_of_name(o.rec.error_class),
	    ERROR_CLASS_TOOL_FAILED);
	assert_string_equal(o.rec.error, "ping exited 2: ping: connect: "
	    "Network is unreachable");
	record_outcome_clear(&o.rec);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ping_each_target_gets_its_own_result),
		cmocka_unit_test(fping_report_becomes_per_packet_samples),
		cmocka_unit_test(hostile_address_stays_one_word),
		cmocka_unit_test(output_without_markers_is_not_understood),
		cmocka_unit_test(missing_ping_is_tool_missing_per_pair),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
