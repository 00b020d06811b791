/*
 * Tearing a bench node down by the PID netprof recorded, never by matching
 * process names: TERM, a grace period, KILL, a check that it is gone, then
 * the host's bench directory removed; begun while the run still has phases
 * that need no node, and waited for by the teardown phase. Also what `bench --teardown` needs
 * to find a run left behind (by --keep or a killed netprof).
 */
#ifndef NETPROF_BENCH_TEARDOWN_H
#define NETPROF_BENCH_TEARDOWN_H

#include "bench.h"

/*
 * The shell command that stops the node of dir and removes dir: TERM, up
 * to grace_s seconds for the node to end, then KILL. pid <= 0:
 * read dir/pid on the host (a positive decimal, or the host's teardown
 * fails saying the node may still run). The PID is signalled only if one
 * element of its argv is exactly dir and, when start > 0, its start time
 * (field 22 of /proc/PID/stat) is start, so a recycled PID is never
 * killed; without /proc it is not signalled at all. dir is touched only if
 * it is the user's directory, not a link. Exit 0 when the node is gone and
 * dir removed, printing TERM or KILL (what ended it) when it was running;
 * 1 with the reason on stderr otherwise.
 */
char *bench_teardown_command(const char *dir, long pid, long long start,
    double grace_s);

/*
 * Stop every node the teardown visits (the hosts init reached), all at
 * once, on a job of each host's own: the command above, begun as soon as
 * no phase ahead of the run needs the nodes, while the rest of the run
 * goes on. A failure is the host's teardown's, said and counted in the
 * exit status, not a failure of the host.
 */
void bench_teardown_begin(struct bench *b);

/*
 * The teardown phase's step on h (bench_phases[]'s host_start): its stop
 * begun if it was not, then waited for (1: it had ended already).
 */
int bench_teardown_host(struct bench_host *h);

/*
 * For --teardown ARG: ARG is DIR/run.json (or a directory holding one) or
 * a run id, looked up as OUTDIR/RUN_ID/run.json (OUTDIR: "results", the
 * default output's parent). Fills b->run_id and, for every machine of
 * b->inv that the run had, dir, pid and touched. Without a run.json the
 * directories are derived from the run id and the PIDs read on the hosts.
 */
int bench_teardown_load(struct bench *b, const char *arg,
    const char *outdir, char **cause);

#endif
