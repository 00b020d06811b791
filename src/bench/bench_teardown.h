/*
 * Tearing a bench node down by the PID netprof recorded, never by matching
 * process names: TERM, a grace period, KILL, a check that it is gone, then
 * the host's bench directory removed. Also what `bench --teardown` needs
 * to find a run left behind (by --keep or a killed netprof).
 */
#ifndef NETPROF_BENCH_TEARDOWN_H
#define NETPROF_BENCH_TEARDOWN_H

#include "bench.h"

/*
 * The shell command that stops the node of dir and removes dir: TERM,
 * up to grace_s seconds for the node to end, then KILL. pid <= 0:
 * read dir/pid on the host. The PID is signalled only if its command line
 * names dir, so a recycled PID is never killed. Exit 0 when the node is
 * gone and dir removed; 1 with the reason on stderr otherwise.
 */
char *bench_teardown_command(const char *dir, long pid, double grace_s);

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
