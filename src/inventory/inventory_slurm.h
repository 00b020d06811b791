/*
 * The inventory of a Slurm allocation (--slurm): the nodes of a running
 * job, each with its NodeAddr, as machines, merged with a machines.json
 * that gives defaults (user, ports, remote_setup, per-node fields).
 */
#ifndef NETPROF_INVENTORY_SLURM_H
#define NETPROF_INVENTORY_SLURM_H

#include "inventory.h"

/*
 * The machines of job (a job id; "" for $SLURM_JOB_ID): `scontrol show
 * job` for its state and NodeList, expanded by hostlist.h into the
 * names (as --hosts is), `scontrol show node` for each NodeAddr. defaults_path, if not
 * NULL, is a machines.json whose top-level fields apply and whose machines
 * of the same name give per-node fields (others are left out); address
 * and ssh_host default to the NodeAddr. Every machine gets transport
 * (TRANSPORT_SLURM or TRANSPORT_SSH) and inv->slurm_job is the job id.
 * Errors name the job and the fix: no job, a job not running, Slurm's
 * commands missing (NP_ERR_TOOL_MISSING), or machines.json's own errors.
 */
int inventory_slurm_load(const char *job, const char *defaults_path,
    enum transport_kind transport, struct inventory **out, char **cause);

/* Nonzero if s is a job id: 42, or an array job's task 42_3. */
int inventory_slurm_job_id_valid(const char *s);

/*
 * The argv of a job step running command on node: srun --jobid=JOB
 * --overlap -N1 -n1 -w NODE [--job-name=STEP] --chdir=HOME /bin/sh -c
 * COMMAND. step_name may be NULL (the line that reproduces a probe); with
 * it, srun runs behind a check of the node's state: a node drained, down,
 * failed or in maintenance exits INVENTORY_SLURM_NODE_EXIT with
 * INVENTORY_SLURM_NODE_MARK, its state and Slurm's reason on stderr.
 * NULL-terminated; free with template_argv_free().
 */
#define INVENTORY_SLURM_NODE_EXIT 75
#define INVENTORY_SLURM_NODE_MARK "netprof: slurm node state "

char **inventory_slurm_step_argv(const char *job, const char *node,
    const char *step_name, const char *command);

/*
 * The argv of one step running commands[i] on nodes[i] (n >= 1), a task
 * per node: srun --jobid=JOB --overlap -N K --ntasks-per-node=1
 * --nodelist=NODES --label --job-name=STEP ..., each task a wrapper that
 * runs its own node's command (the nodes and commands are its words) in
 * a session of its own, with stdin from /dev/null. Before srun, the
 * nodes' states (one scontrol call): a node drained, down, failed or in
 * maintenance is left out, with a line INVENTORY_SLURM_BATCH_MARK "NODE
 * STATE (reason: R)" on stderr; none left: exit INVENTORY_SLURM_NODE_EXIT.
 *
 * What srun prints, every line "TASK: " and the task's line (--label;
 * srun cuts a line at 1024 bytes, so the wrapper does first):
 *   INVENTORY_SLURM_TASK_START NODE   on stdout, first: the task's node
 *   '|' TEXT    a line of the command's output (stdout on stdout, stderr
 *               on stderr); '+' TEXT: the start of a longer line, which
 *               goes on in the next. When the command has ended, each
 *               stream gets a newline and a line '|' INVENTORY_SLURM_
 *               TASK_EOF: its output ended where that newline begins
 *               (a command killed has none, its last newline its own)
 *   INVENTORY_SLURM_TASK_END STATUS   on both streams, last: the
 *               command's exit status (128 + N: killed by signal N)
 * Any other line of a task (a shell's "Terminated") means nothing. A line
 * INVENTORY_SLURM_TASK_KILL NODE on srun's stdin (sent to every task)
 * has that node's task kill its command's session: SIGTERM, SIGKILL 2 s
 * later. NULL-terminated; free with template_argv_free().
 */
#define INVENTORY_SLURM_BATCH_MARK "netprof: slurm batch node "
#define INVENTORY_SLURM_TASK_START "!s "
#define INVENTORY_SLURM_TASK_END "!e "
#define INVENTORY_SLURM_TASK_KILL "k "
#define INVENTORY_SLURM_TASK_EOF "\001"

char **inventory_slurm_batch_argv(const char *job, const char *step_name,
    char *const *nodes, char *const *commands, size_t n);

#endif
