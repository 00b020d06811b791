/*
 * Where a machine's commands go, in words, for check and the messages
 * that name a host: the login the ssh transport makes once the ssh config
 * has been applied (user@host:port, and the jump host a ProxyJump or a
 * ProxyCommand goes through), the program the command transport runs
 * (rcc, srun, an ssh with a ControlMaster), this machine, or a Slurm job
 * step. Nothing is contacted: the ssh config is read as the session
 * would read it.
 */
#ifndef NETPROF_ENGINE_ROUTE_H
#define NETPROF_ENGINE_ROUTE_H

struct inventory;
struct machine;

/*
 * A new string (NULL: out of memory):
 *   ssh      "nplab@198.18.0.4:22", "nplab@198.18.0.4:22 via
 *            nplab@198.18.0.2" (ProxyJump, or a ProxyCommand of ssh -W),
 *            "... via ProxyCommand 'CMD'"
 *   command  "rcc run --profile h1 -- ..." (remote_command's words, the
 *            command as ...)
 *   local    "this machine (sh -c)"
 *   slurm    "job step on h1 (job 42)"
 */
char *engine_route(const struct inventory *inv, const struct machine *m);

/*
 * Why a transport cannot answer whether the host key is known and the
 * login worked, or NULL when it can (ssh): the command transport's
 * program logs in itself, a local command logs in nowhere, a job step is
 * Slurm's.
 */
const char *engine_route_no_login(const struct machine *m);

#endif
