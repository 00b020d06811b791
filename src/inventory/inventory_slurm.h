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
 * job` for its state and NodeList, `scontrol show hostnames` for the
 * names, `scontrol show node` for each NodeAddr. defaults_path, if not
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

#endif
