/*
 * inventory_slurm_load(): the errors that need no cluster (no job, a job
 * id that is not one, Slurm's commands missing), and, with a stand-in
 * scontrol on PATH that answers as Slurm 22.05 does, the job's state check
 * and the merge of its nodes with a machines.json of defaults; the line
 * that reproduces a step. The real Slurm is test_slurm.sh's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "command_line.h"
#include "error.h"
#include "inventory.h"
#include "inventory_slurm.h"

static char dir[256];
static char *saved_path;

/* A stand-in scontrol: job 42 runs on h[1-2], job 43 is pending. */
static const char scontrol_script[] =
    "#!/bin/sh\n"
    "case \"$1 $2\" in\n"
    "'show job')\n"
    "  case $4 in\n"
    "  42) echo 'JobId=42 JobName=x JobState=RUNNING Reason=None "
    "ReqNodeList=(null) NodeList=h[1-2] BatchHost=h1' ;;\n"
    "  43) echo 'JobId=43 JobName=x JobState=PENDING Reason=Resources "
    "NodeList=(null)' ;;\n"
    "  *) echo 'slurm_load_jobs error: Invalid job id specified' >&2; "
    "exit 1 ;;\n"
    "  esac ;;\n"
    "'show hostnames') echo h1; echo h2 ;;\n"
    "'show node')\n"
    "  case $4 in\n"
    "  h1) echo 'NodeName=h1 Arch=x86_64 NodeAddr=198.18.9.2 "
    "NodeHostName=h1 State=IDLE' ;;\n"
    "  h2) echo 'NodeName=h2 Arch=x86_64 NodeAddr=10.1.0.2 "
    "NodeHostName=h2 State=IDLE' ;;\n"
    "  esac ;;\n"
    "esac\n";

static int
setup(void **state)
{
	FILE *f;
	char path[300];

	(void)state;
	snprintf(dir, sizeof dir, "%s/inventory_slurm.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof path, "%s/scontrol", dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs(scontrol_script, f);
	fclose(f);
	chmod(path, 0755);
	saved_path = strdup(getenv("PATH") != NULL ? getenv("PATH") : "/bin");
	return 0;
}

static int
teardown(void **state)
{
	char cmd[300];

	(void)state;
	setenv("PATH", saved_path, 1);
	free(saved_path);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* PATH: the stand-in first, then /bin for its sh and echo. */
static void
use_stand_in(void)
{
	char path[300];

	snprintf(path, sizeof path, "%s:/bin:/usr/bin", dir);
	setenv("PATH", path, 1);
}

static void
no_job_says_how_to_get_one(void **state)
{
	struct inventory *inv = NULL;
	char *cause = NULL;

	(void)state;
	unsetenv("SLURM_JOB_ID");
	assert_int_equal(inventory_slurm_load("", NULL, TRANSPORT_SLURM, &inv,
	    &cause), NP_ERR_USAGE);
	assert_null(inv);
	assert_non_null(strstr(cause, "--slurm: no job: $SLURM_JOB_ID is not "
	    "set; run netprof inside an allocation"));
	free(cause);
	assert_int_equal(inventory_slurm_load("4x", NULL, TRANSPORT_SLURM,
	    &inv, &cause), NP_ERR_USAGE);
	assert_string_equal(cause, "--slurm: '4x' is not a job id (like 42 or "
	    "42_3)");
	free(cause);
}

static void
missing_scontrol_is_named(void **state)
{
	struct inventory *inv = NULL;
	char *cause = NULL;

	(void)state;
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(inventory_slurm_load("42", NULL, TRANSPORT_SLURM,
	    &inv, &cause), NP_ERR_TOOL_MISSING);
	assert_non_null(strstr(cause, "Slurm's scontrol is not on PATH"));
	free(cause);
}

static void
pending_and_unknown_jobs_are_refused(void **state)
{
	struct inventory *inv = NULL;
	char *cause = NULL;

	(void)state;
	use_stand_in();
	assert_int_equal(inventory_slurm_load("43", NULL, TRANSPORT_SLURM,
	    &inv, &cause), NP_ERR_NOT_FOUND);
	assert_non_null(strstr(cause, "job 43 is PENDING, not RUNNING "
	    "(reason: Resources)"));
	free(cause);
	assert_int_equal(inventory_slurm_load("44", NULL, TRANSPORT_SLURM,
	    &inv, &cause), NP_ERR_NOT_FOUND);
	assert_string_equal(cause, "--slurm: job 44: scontrol show job failed: "
	    "slurm_load_jobs error: Invalid job id specified");
	free(cause);
}

static void
nodes_merge_with_defaults(void **state)
{
	struct inventory *inv = NULL;
	char *cause = NULL, path[300], *line = NULL;
	FILE *f;

	(void)state;
	use_stand_in();
	setenv("HOME", "/home/u", 1);
	snprintf(path, sizeof path, "%s/machines.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"user\": \"bench\", \"ping_count\": 3, \"transport\": "
	    "\"local\", \"machines\": [{\"name\": \"h2\", \"port\": 2222, "
	    "\"address\": \"10.2.0.2\"}, {\"name\": \"zz\", \"address\": "
	    "\"10.9.9.9\"}]}", f);
	fclose(f);
	if (inventory_slurm_load("42", path, TRANSPORT_SLURM, &inv,
	    &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(inv->n_machines, 2);
	assert_string_equal(inv->slurm_job, "42");
	assert_int_equal(inv->ping_count, 3);
	assert_string_equal(inv->machines[0].name, "h1");
	assert_string_equal(inv->machines[0].address, "198.18.9.2");
	assert_string_equal(inv->machines[0].ssh_host, "198.18.9.2");
	assert_string_equal(inv->machines[0].user, "bench");
	assert_int_equal(inv->machines[0].transport, TRANSPORT_SLURM);
	/* the file's own address for h2 wins; ssh_host is the NodeAddr */
	assert_string_equal(inv->machines[1].name, "h2");
	assert_string_equal(inv->machines[1].address, "10.2.0.2");
	assert_string_equal(inv->machines[1].ssh_host, "10.1.0.2");
	assert_int_equal(inv->machines[1].port, 2222);
	assert_int_equal(inv->machines[1].transport, TRANSPORT_SLURM);
	assert_int_equal(command_line_reproduce(inv, &inv->machines[1],
	    "LC_ALL=C ping -c 3 198.18.9.2", &line), 0);
	assert_string_equal(line, "srun --jobid=42 --overlap --quiet -N1 -n1 "
	    "--nodelist=h2 --chdir=/home/u /bin/sh -c 'LC_ALL=C ping -c 3 "
	    "198.18.9.2'");
	free(line);
	inventory_free(inv);
	inv = NULL;
	if (inventory_slurm_load("42", NULL, TRANSPORT_SSH, &inv, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(inv->machines[1].transport, TRANSPORT_SSH);
	assert_string_equal(inv->machines[1].address, "10.1.0.2");
	inventory_free(inv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_job_says_how_to_get_one),
		cmocka_unit_test(missing_scontrol_is_named),
		cmocka_unit_test(pending_and_unknown_jobs_are_refused),
		cmocka_unit_test(nodes_merge_with_defaults),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
