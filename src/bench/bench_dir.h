/*
 * The host's bench directory (/tmp/otela-bench-RUN-NAME) on a shared host:
 * netprof creates it itself, private (umask 077, mode 0700), and refuses a
 * directory that exists already, since anyone can make one in /tmp and fill
 * it with links to the user's files. Every later step first checks that it
 * is still a directory, not a link, and owned by the user.
 */
#ifndef NETPROF_BENCH_DIR_H
#define NETPROF_BENCH_DIR_H

/* Exit status of the shell text below when dir is not ours. */
#define BENCH_DIR_REFUSED 75

/*
 * Shell text (a new string, to put before a command) that sets umask 077
 * and creates dir with mode 0700, or exits BENCH_DIR_REFUSED saying dir
 * exists already (made by someone else, or left by a run of this id).
 */
char *bench_dir_create(const char *dir);

/*
 * Nonzero if err (a step's stderr) has a line that is bench_dir_create()'s
 * refusal for dir: the exit status alone is no proof (a command run after
 * it, or remote_setup before it, may exit BENCH_DIR_REFUSED too).
 */
int bench_dir_refusal(const char *dir, const char *err);

/*
 * Shell text (a new string, to put before a command) that sets umask 077
 * and exits BENCH_DIR_REFUSED unless dir is a directory, not a link, owned
 * by the user running it.
 */
char *bench_dir_guard(const char *dir);

#endif
