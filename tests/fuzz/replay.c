/*
 * Replays fuzz inputs without libFuzzer: runs a target's entry point once on
 * every file named (directories are read one level deep), so any build,
 * gcc's and the ASan+UBSan one included, checks the corpora in seconds.
 * libFuzzer itself (tests/fuzz/run.sh) is what finds new inputs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int
replay_file(const char *path)
{
	FILE *f;
	uint8_t *buf = NULL, *p;
	size_t len = 0, alloc = 0, n;

	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (alloc - len < 4096) {
			alloc = alloc ? alloc * 2 : 65536;
			if ((p = realloc(buf, alloc)) == NULL) {
				fprintf(stderr, "replay: out of memory\n");
				free(buf);
				fclose(f);
				return -1;
			}
			buf = p;
		}
		n = fread(buf + len, 1, alloc - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	/* An empty buffer is still a valid (non-NULL) input. */
	LLVMFuzzerTestOneInput(buf != NULL ? buf : (const uint8_t *)"", len);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	int i, count = 0, errors = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;
		char path[4096];

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
			    strerror(errno));
			errors++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			errors += replay_file(argv[i]) != 0;
			count++;
			continue;
		}
		if ((d = opendir(argv[i])) == NULL) {
			errors++;
			continue;
		}
		while ((e = readdir(d)) != NULL) {
			snprintf(path, sizeof path, "%s/%s", argv[i],
			    e->d_name);
			if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			errors += replay_file(path) != 0;
			count++;
		}
		closedir(d);
	}
	printf("replayed %d inputs, %d unreadable\n", count, errors);
	return errors != 0 || count == 0;
}
