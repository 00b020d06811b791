/*
 * A JSON syntax checker used only to explain a file cJSON refused: it walks
 * the text once (RFC 8259 grammar) and stops at the first byte that cannot
 * continue a valid document, saying what was expected there. It builds no
 * values, so it is small and cannot disagree with the parser about anything
 * but the wording.
 */
#include <string.h>

#include "error.h"
#include "json_pos.h"

#define JSON_MAX_DEPTH 512

struct scan {
	const char *text;
	size_t len;
	size_t pos;
	const char *what;
	int depth;
};

static int scan_value(struct scan *s);

static int
fail(struct scan *s, const char *what)
{
	if (s->pos < s->len && (unsigned char)s->text[s->pos] < 0x20 &&
	    strcmp(what, "unterminated string") != 0)
		what = "unexpected control character";
	s->what = what;
	return NP_ERR_PARSE;
}

static int
at_end(const struct scan *s)
{
	return s->pos >= s->len;
}

static char
peek(const struct scan *s)
{
	return at_end(s) ? '\0' : s->text[s->pos];
}

static void
skip_space(struct scan *s)
{
	while (!at_end(s) && strchr(" \t\r\n", s->text[s->pos]) != NULL &&
	    s->text[s->pos] != '\0')
		s->pos++;
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int
is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int
scan_string(struct scan *s)
{
	int i;

	s->pos++;	/* the opening quote */
	for (;;) {
		unsigned char c;

		if (at_end(s))
			return fail(s, "unterminated string");
		c = (unsigned char)s->text[s->pos];
		if (c == '"') {
			s->pos++;
			return 0;
		}
		if (c < 0x20) {
			s->what = c == '\n' ?
			    "unterminated string (a newline must be written \\n)" :
			    "control character in a string (write it as \\uXXXX)";
			return NP_ERR_PARSE;
		}
		if (c != '\\') {
			s->pos++;
			continue;
		}
		s->pos++;
		if (at_end(s))
			return fail(s, "unterminated string");
		c = (unsigned char)s->text[s->pos];
		if (c == 'u') {
			s->pos++;
			for (i = 0; i < 4; i++, s->pos++) {
				if (at_end(s) || !is_hex(s->text[s->pos]))
					return fail(s, "expected 4 hex digits "
					    "after \\u");
			}
			continue;
		}
		if (c == '\0' || strchr("\"\\/bfnrt", c) == NULL)
			return fail(s, "invalid escape in a string");
		s->pos++;
	}
}

static int
scan_digits(struct scan *s)
{
	if (!is_digit(peek(s)))
		return fail(s, "expected a digit");
	while (is_digit(peek(s)))
		s->pos++;
	return 0;
}

static int
scan_number(struct scan *s)
{
	if (peek(s) == '-')
		s->pos++;
	if (peek(s) == '0')
		s->pos++;
	else if (scan_digits(s) != 0)
		return NP_ERR_PARSE;
	if (peek(s) == '.') {
		s->pos++;
		if (scan_digits(s) != 0)
			return NP_ERR_PARSE;
	}
	if (peek(s) == 'e' || peek(s) == 'E') {
		s->pos++;
		if (peek(s) == '+' || peek(s) == '-')
			s->pos++;
		if (scan_digits(s) != 0)
			return NP_ERR_PARSE;
	}
	return 0;
}

static int
scan_word(struct scan *s, const char *word)
{
	size_t n = strlen(word), i;

	for (i = 0; i < n; i++, s->pos++) {
		if (peek(s) != word[i])
			return fail(s, "expected a value (a string, number, "
			    "object, array, true, false or null)");
	}
	return 0;
}

static int
scan_members(struct scan *s, char close, int object)
{
	s->pos++;	/* the opening bracket */
	if (++s->depth > JSON_MAX_DEPTH)
		return fail(s, "nested too deeply");
	skip_space(s);
	if (peek(s) == close) {
		s->pos++;
		s->depth--;
		return 0;
	}
	for (;;) {
		if (object) {
			if (peek(s) != '"')
				return fail(s, "expected a member name in "
				    "double quotes");
			if (scan_string(s) != 0)
				return NP_ERR_PARSE;
			skip_space(s);
			if (peek(s) != ':')
				return fail(s, "expected ':'");
			s->pos++;
			skip_space(s);
		}
		if (scan_value(s) != 0)
			return NP_ERR_PARSE;
		skip_space(s);
		if (peek(s) == close) {
			s->pos++;
			s->depth--;
			return 0;
		}
		if (peek(s) != ',')
			return fail(s, object ? "expected ',' or '}'" :
			    "expected ',' or ']'");
		s->pos++;
		skip_space(s);
		if (peek(s) == close)
			return fail(s, object ? "expected a member name "
			    "(JSON allows no ',' before '}')" :
			    "expected a value (JSON allows no ',' before ']')");
	}
}

static int
scan_value(struct scan *s)
{
	char c = peek(s);

	if (at_end(s))
		return fail(s, "unexpected end of file");
	if (c == '{')
		return scan_members(s, '}', 1);
	if (c == '[')
		return scan_members(s, ']', 0);
	if (c == '"')
		return scan_string(s);
	if (c == '-' || is_digit(c))
		return scan_number(s);
	if (c == 't')
		return scan_word(s, "true");
	if (c == 'f')
		return scan_word(s, "false");
	if (c == 'n')
		return scan_word(s, "null");
	return fail(s, "expected a value (a string, number, object, array, "
	    "true, false or null)");
}

int
json_find_error(const char *text, size_t len, size_t *offset,
    const char **what)
{
	struct scan s = { .text = text, .len = len };

	/* cJSON skips a UTF-8 byte order mark; so must the explanation. */
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		s.pos = 3;
	skip_space(&s);
	if (at_end(&s)) {
		s.what = "empty file; expected a JSON object";
		goto error;
	}
	if (scan_value(&s) != 0)
		goto error;
	skip_space(&s);
	if (!at_end(&s)) {
		s.what = "unexpected text after the end of the JSON value";
		goto error;
	}
	return 0;
error:
	*offset = s.pos > len ? len : s.pos;
	*what = s.what;
	return NP_ERR_PARSE;
}

void
json_line_column(const char *text, size_t offset, int *line, int *column)
{
	size_t i, start = 0;

	*line = 1;
	for (i = 0; i < offset; i++) {
		if (text[i] == '\n') {
			(*line)++;
			start = i + 1;
		}
	}
	*column = (int)(offset - start) + 1;
}
