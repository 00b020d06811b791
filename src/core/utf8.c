/*
 * UTF-8 checking: one character at a time, so a caller decides what an
 * invalid byte becomes (U+FFFD in the metrics, \xNN on the terminal);
 * and what of it may reach a terminal.
 */
#include "utf8.h"

size_t
utf8_char_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned long cp;

	if (n == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return 0;	/* a continuation byte, C0/C1, F5..FF */
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

int
utf8_shown(const unsigned char *s, size_t n, size_t *len)
{
	size_t c = utf8_char_len(s, n);

	*len = c == 0 ? 1 : c;
	if (c == 0 || (c == 1 && ((*s < 0x20 && *s != '\t') || *s == 0x7f)))
		return 0;
	return !(c == 2 && s[0] == 0xc2 && s[1] < 0xa0);
}
