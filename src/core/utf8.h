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

/*
 * The one rule of what text from elsewhere (a record's names, a node's
 * error, a command's stderr) may reach a terminal as it is: 1 if the
 * character at s (n > 0 bytes left) may, 0 if it must be shown otherwise:
 * a C0 control but tab (a newline too), DEL, a C1 control (U+0080 to
 * U+009F: U+009B is CSI on many terminals) or a byte that starts no UTF-8
 * character (0x9B alone is CSI to a terminal in another charset). *len is
 * the character's length either way (1 for a byte that starts none).
 */
int utf8_shown(const unsigned char *s, size_t n, size_t *len);

#endif
