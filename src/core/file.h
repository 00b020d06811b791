/*
 * Files, each way written once: a whole file read into memory, whether two
 * paths are one file, a file replaced whole or not at all (a temporary
 * beside it of a name nobody can guess, synced, renamed over it), and the
 * directories a path goes into (mkdir -p).
 */
#ifndef NETPROF_FILE_H
#define NETPROF_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * The whole file at path ("-": standard input), NUL-terminated, in *text
 * (length *len if not NULL). Errors: NP_ERR_IO with *cause naming the file
 * and why.
 */
int file_read(const char *path, char **text, size_t *len, char **cause);

/*
 * 1 if paths a and b name the same existing file (device and inode: a
 * link or another spelling counts), so an output never replaces an input.
 */
int file_same(const char *a, const char *b);

/*
 * A file written whole or not at all. file_atomic_open() creates a
 * temporary file beside path (mkstemp: a new file nobody could guess the
 * name of or plant a link at), written through fa->f; file_atomic_commit()
 * flushes it, gives it mode, syncs it and renames it over path, so a
 * reader (node_exporter, --teardown after a crash) sees the old file or
 * the whole new one; file_atomic_abort() removes it. Errors: NP_ERR_IO
 * (or NP_ERR_NOMEM) with *cause naming the file and why; the temporary is
 * gone then.
 */
struct file_atomic {
	const char *path;	/* not owned */
	char *tmp;
	FILE *f;
};
int file_atomic_open(struct file_atomic *fa, const char *path,
    char **cause);
int file_atomic_commit(struct file_atomic *fa, mode_t mode, char **cause);
void file_atomic_abort(struct file_atomic *fa);

/* The same for len bytes at once. */
int file_write_atomic(const char *path, const void *data, size_t len,
    mode_t mode, char **cause);

/* The mode a new file gets: 0666 less the umask. */
mode_t file_new_mode(void);

/*
 * Create dir and the directories above it that are missing (mkdir -p),
 * each with mode (less the umask). *cause names the directory and why.
 */
int file_make_dirs(const char *dir, mode_t mode, char **cause);

/*
 * The directories the file at path goes into ("-" and a bare file name
 * need none), as file_make_dirs() with mode 0777.
 */
int file_make_parent_dirs(const char *path, char **cause);

#endif
