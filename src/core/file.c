/*
 * The file helpers of file.h: reading a whole file, comparing two paths,
 * replacing a file atomically, creating directories.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "file.h"
#include "util.h"

int
file_read(const char *path, char **text, size_t *len, char **cause)
{
	struct buf b = { 0 };
	char chunk[65536];
	size_t n;
	FILE *f;
	int r = 0;

	*text = NULL;
	if (strcmp(path, "-") == 0)
		f = stdin;
	else if ((f = fopen(path, "rb")) == NULL) {
		*cause = str_printf("%s: cannot read: %s", path,
		    strerror(errno));
		return NP_ERR_IO;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		if ((r = buf_append(&b, chunk, n)) != 0)
			goto out;
	if (ferror(f)) {
		*cause = str_printf("%s: cannot read: %s", path,
		    strerror(errno));
		r = NP_ERR_IO;
		goto out;
	}
	if ((r = buf_append(&b, "", 0)) != 0)
		goto out;
	*text = b.data;
	if (len != NULL)
		*len = b.len;
	b.data = NULL;
out:
	if (f != stdin)
		fclose(f);
	buf_free(&b);
	return r;
}

int
file_same(const char *a, const char *b)
{
	struct stat sa, sb;

	if (a == NULL || b == NULL || stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

mode_t
file_new_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

int
file_atomic_open(struct file_atomic *fa, const char *path, char **cause)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash != NULL ? (size_t)(slash - path) + 1 : 0;
	int fd;

	*cause = NULL;
	memset(fa, 0, sizeof *fa);
	fa->path = path;
	/* DIR/.NAME.XXXXXX: hidden, and never read as a NAME (*.prom) */
	if ((fa->tmp = str_printf("%.*s.%s.XXXXXX", (int)dirlen, path,
	    path + dirlen)) == NULL)
		return NP_ERR_NOMEM;
	if ((fd = mkstemp(fa->tmp)) < 0) {
		*cause = str_printf("%s: cannot create a file in its "
		    "directory: %s; check that the directory exists and is "
		    "writable", path, strerror(errno));
		free(fa->tmp);
		fa->tmp = NULL;
		return NP_ERR_IO;
	}
	if ((fa->f = fdopen(fd, "w")) == NULL) {
		close(fd);
		file_atomic_abort(fa);
		return NP_ERR_NOMEM;
	}
	return 0;
}

void
file_atomic_abort(struct file_atomic *fa)
{
	if (fa->f != NULL)
		fclose(fa->f);
	fa->f = NULL;
	if (fa->tmp != NULL)
		unlink(fa->tmp);
	free(fa->tmp);
	fa->tmp = NULL;
}

int
file_atomic_commit(struct file_atomic *fa, mode_t mode, char **cause)
{
	FILE *f = fa->f;
	int err = 0;

	*cause = NULL;
	fa->f = NULL;
	if (fflush(f) != 0 || ferror(f) || fchmod(fileno(f), mode) != 0 ||
	    fsync(fileno(f)) != 0)
		err = errno != 0 ? errno : EIO;
	if (fclose(f) != 0 && err == 0)
		err = errno;
	if (err == 0 && rename(fa->tmp, fa->path) != 0)
		err = errno;
	if (err != 0) {
		*cause = str_printf("%s: cannot write it: %s", fa->path,
		    strerror(err));
		file_atomic_abort(fa);
		return NP_ERR_IO;
	}
	free(fa->tmp);
	fa->tmp = NULL;
	return 0;
}

int
file_write_atomic(const char *path, const void *data, size_t len,
    mode_t mode, char **cause)
{
	struct file_atomic fa;
	int r;

	if ((r = file_atomic_open(&fa, path, cause)) != 0)
		return r;
	if (len > 0 && fwrite(data, 1, len, fa.f) != len) {
		*cause = str_printf("%s: cannot write it: %s", path,
		    strerror(errno));
		file_atomic_abort(&fa);
		return NP_ERR_IO;
	}
	return file_atomic_commit(&fa, mode, cause);
}

int
file_make_dirs(const char *dir, mode_t mode, char **cause)
{
	char *p, *s;
	int r = 0;

	*cause = NULL;
	if (*dir == '\0')
		return 0;
	if ((p = strdup(dir)) == NULL)
		return NP_ERR_NOMEM;
	/* each prefix in turn, the whole directory last ("/x": / exists) */
	for (s = p + 1; r == 0; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST) {
			*cause = str_printf("cannot create the directory %s: %s",
			    p, strerror(errno));
			r = NP_ERR_IO;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return r;
}

int
file_make_parent_dirs(const char *path, char **cause)
{
	char *dir;
	int r;

	*cause = NULL;
	if (strcmp(path, "-") == 0 || strchr(path, '/') == NULL)
		return 0;
	if ((dir = strdup(path)) == NULL)
		return NP_ERR_NOMEM;
	*strrchr(dir, '/') = '\0';
	r = *dir == '\0' ? 0 : file_make_dirs(dir, 0777, cause);
	free(dir);
	return r;
}
