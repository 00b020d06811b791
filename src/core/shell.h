/*
 * Building shell command lines safely: every value netprof puts into a
 * remote shell command goes through shell_quote().
 */
#ifndef NETPROF_SHELL_H
#define NETPROF_SHELL_H

#include <stddef.h>

/* A new string: s as one POSIX shell word ('…' with ' as '\''). */
char *shell_quote(const char *s);

/*
 * A new string: argv as a shell command line, each word quoted only when it
 * needs to be (so "ping -c 5 198.18.0.2" stays readable).
 */
char *shell_join(char *const *argv, size_t argc);

/* Nonzero if s is a safe shell word as it is: [A-Za-z0-9_@%+=:,./-]+ */
int shell_is_plain_word(const char *s);

#endif
