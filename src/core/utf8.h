/*
 * UTF-8 as RFC 3629 defines it: what text from elsewhere (a host name in
 * a record, a node's error, a remote command's stderr) must be before it
 * goes where it is read as UTF-8 (Prometheus' exposition) or shown (the
 * terminal).
 */
#ifndef NETPROF_UTF8_H
#define NETPROF_UTF8_H

#include <stddef.h>

/* U+FFFD, what an invalid byte becomes where bytes must be UTF-8. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * The length (1 to 4) of the valid UTF-8 character at s (n bytes left),
 * or 0 when the byte at s starts none: a stray continuation byte, an
 * overlong form, a surrogate, a code point past U+10FFFF, or a character
 * cut by the end.
 */
size_t utf8_char_len(const unsigned char *s, size_t n);

#endif
