/*
 * Small helpers every module uses, so each is written once: formatting
 * into a new string (vasprintf), one growable byte buffer, large blocks of
 * memory. Files are file.h's.
 */
#ifndef NETPROF_UTIL_H
#define NETPROF_UTIL_H

#include <stdarg.h>
#include <stddef.h>

/* A growable byte buffer, always NUL-terminated once it has data. */
struct buf {
	char *data;
	size_t len, size;
};

/* Append len bytes; 0 or NP_ERR_NOMEM (b unchanged then). */
int buf_append(struct buf *b, const void *data, size_t len);
/* Append formatted text. */
int buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void buf_free(struct buf *b);

/* A new string, as asprintf(3); NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *str_vprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

/* The first line of text that has any (leading newlines skipped), at
   most max bytes (new string; NULL: out of memory), for a message. */
char *str_first_line(const char *text, size_t max);

/* 1 if s ends with suffix. */
int str_ends_with(const char *s, const char *suffix);

/* FNV-1a of s, for the hash tables of names and keys. */
size_t str_hash(const char *s);

/*
 * Ask for huge pages for a large block just allocated (a heatmap's grids
 * of a thousand hosts: a quarter GB faulted in 4 KiB pages costs more
 * than filling it). Advice only; nothing if it is small or refused.
 */
void mem_advise_huge(void *p, size_t len);

/*
 * A block of len bytes mapped on its own, zeroed, with huge pages advised:
 * for an array that grows to hundreds of MB. mem_map_grow() makes the
 * block p of old bytes len bytes long, moved by the kernel (no copy, no
 * fault again) when it must move; NULL when out of memory (p stays).
 * mem_map_free() takes the length it was mapped with.
 */
void *mem_map(size_t len);
void *mem_map_grow(void *p, size_t old, size_t len);
void mem_map_free(void *p, size_t len);

#endif
