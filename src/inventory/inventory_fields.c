/*
 * The checks of machines.json's fields (inventory_fields.h): what a name,
 * a user, an address and an ssh destination may be, since each ends up in
 * a shell command line or in the argv of an ssh-like program; the keys
 * netprof reads at each level, an unknown one named with the key it most
 * likely means, and a missing one with the misspelling of it that is
 * there; the warnings loading collects.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "inventory.h"
#include "inventory_fields.h"
#include "json_get.h"
#include "suggest.h"
#include "util.h"

static int
is_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* Nonzero if every byte of s is a letter, digit, '.', '_' or '-'. */
static int
only_word_bytes(const char *s)
{
	for (; *s != '\0'; s++) {
		if (!is_alnum((unsigned char)*s) && *s != '.' && *s != '_' &&
		    *s != '-')
			return 0;
	}
	return 1;
}

/* [A-Za-z0-9][A-Za-z0-9._-]*, at most 64 bytes. */
int
inventory_name_valid(const char *s)
{
	return is_alnum((unsigned char)*s) && strlen(s) <= INVENTORY_NAME_MAX &&
	    only_word_bytes(s);
}

/* A user name or an ssh config alias: [A-Za-z0-9._-]+, no leading '-'. */
int
inventory_valid_word(const char *s, size_t max)
{
	return *s != '\0' && *s != '-' && strlen(s) <= max &&
	    only_word_bytes(s);
}

/* Only digits and dots: meant as an IPv4 literal, so it must be one. */
static int
looks_ipv4(const char *s)
{
	return *s != '\0' && strspn(s, "0123456789.") == strlen(s);
}

/*
 * Dotted quad, each part 0-255; glibc's inet_pton also refuses leading
 * zeros, so there is no octal doubt.
 */
int
inventory_valid_ipv4(const char *s)
{
	struct in_addr a;

	return inet_pton(AF_INET, s, &a) == 1;
}

int
inventory_valid_ipv6(const char *s)
{
	struct in6_addr a;

	return strchr(s, ':') != NULL && inet_pton(AF_INET6, s, &a) == 1;
}

/* RFC 1123: dot-separated labels of 1-63 letters, digits and '-'. */
static int
valid_hostname(const char *s)
{
	const char *label = s, *last = s;
	size_t len = strlen(s);

	if (len == 0 || len > 253)
		return 0;
	for (;;) {
		size_t n = strcspn(label, ".");
		size_t i;

		if (n == 0 || n > 63 || label[0] == '-' || label[n - 1] == '-')
			return 0;
		for (i = 0; i < n; i++) {
			if (!is_alnum((unsigned char)label[i]) &&
			    label[i] != '-')
				return 0;
		}
		last = label;
		if (label[n] == '\0')
			break;
		label += n + 1;
	}
	/* an all-numeric last label would be read as an IPv4 address */
	return strspn(last, "0123456789") != strlen(last);
}

int
inventory_valid_address(const char *s)
{
	if (strchr(s, ':') != NULL)
		return inventory_valid_ipv6(s);
	if (looks_ipv4(s))
		return inventory_valid_ipv4(s);
	return valid_hostname(s);
}

/* What ssh accepts as a destination: an address or a config alias. */
int
inventory_valid_ssh_host(const char *s)
{
	if (strchr(s, ':') != NULL)
		return inventory_valid_ipv6(s);
	if (looks_ipv4(s))
		return inventory_valid_ipv4(s);
	return inventory_valid_word(s, 255);
}

/* The keys netprof reads, at the top level and in a machine. */
static const char *const top_keys[] = {
	"machines", "remote_command", "ping_count", "ping_interval",
	"iperf_seconds", "iperf_port", "connect_timeout_seconds",
	"known_hosts_file", "ssh_config_file", "user", "port",
	"identity_file", "remote_setup", "transport", NULL
};
static const char *const machine_keys[] = {
	"name", "address", "rcc_host", "site", "ssh_host", "user", "port",
	"identity_file", "remote_setup", "transport", "http_port",
	"libp2p_port", "bootstrap_extra", NULL
};

static int
known(const char *const *keys, const char *key)
{
	for (; *keys != NULL; keys++)
		if (strcmp(*keys, key) == 0)
			return 1;
	return 0;
}

/*
 * The unknown key of obj that is a misspelling of the missing key (the
 * known key nearest to it), or NULL: "adress" for a missing "address".
 */
static const char *
misspelt(const cJSON *obj, const char *const *keys, const char *key)
{
	const char *near;
	const cJSON *c;
	size_t n;

	for (n = 0; keys[n] != NULL; n++)
		;
	cJSON_ArrayForEach(c, obj)
		if (c->string != NULL && !known(keys, c->string) &&
		    (near = suggest_nearest(c->string, keys, n)) != NULL &&
		    strcmp(near, key) == 0)
			return c->string;
	return NULL;
}

/* A key missing from obj: said with the misspelling of it obj has, if
   any, else with help (how to add it). */
int
inventory_missing(struct json_doc *p, const cJSON *obj, int top,
    const char *where, const char *key, const char *help)
{
	const char *typo = misspelt(obj, top ? top_keys : machine_keys, key);

	if (typo != NULL)
		return json_fail(p, where, "missing; \"%s\": unknown key; did "
		    "you mean \"%s\"?", typo, key);
	return json_fail(p, where, "missing; %s", help);
}

/* One more warning, as the text fmt says. */
int
inventory_warn(struct inventory *inv, int unknown_key, const char *fmt, ...)
{
	struct inventory_warning *w;
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = str_vprintf(fmt, ap);
	va_end(ap);
	if (text == NULL || (w = realloc(inv->warnings, (inv->n_warnings +
	    1) * sizeof *w)) == NULL) {
		free(text);
		return NP_ERR_NOMEM;
	}
	inv->warnings = w;
	w[inv->n_warnings].text = text;
	w[inv->n_warnings++].unknown_key = unknown_key;
	return 0;
}

/*
 * Every key of obj that netprof does not read: a typo (the known key
 * nearest to it), or a key of the other level (a machine's at the top,
 * a setting in a machine), which would silently be left at its default.
 */
int
inventory_check_keys(struct inventory *inv, const cJSON *obj,
    const char *where)
{
	const char *const *keys = where == NULL ? top_keys : machine_keys;
	const char *const *other = where == NULL ? machine_keys : top_keys;
	const char *near;
	const cJSON *c;
	char at[64];
	size_t n;
	int r;

	snprintf(at, sizeof at, "%s%s", where != NULL ? where : "",
	    where != NULL ? ": " : "");
	for (n = 0; keys[n] != NULL; n++)
		;
	cJSON_ArrayForEach(c, obj) {
		if (c->string == NULL || known(keys, c->string))
			continue;
		if (known(other, c->string) && where != NULL)
			r = inventory_warn(inv, 1, "%s: %s\"%s\": a top-level setting, not "
			    "a machine's; move it to the top level", inv->path,
			    at, c->string);
		else if (known(other, c->string))
			r = inventory_warn(inv, 1, "%s: \"%s\": a machine's field, not a "
			    "top-level setting; give it in each machine",
			    inv->path, c->string);
		else if ((near = suggest_nearest(c->string, keys, n)) != NULL)
			r = inventory_warn(inv, 1, "%s: %s\"%s\": unknown key; did you "
			    "mean \"%s\"?", inv->path, at, c->string, near);
		else
			r = inventory_warn(inv, 1, "%s: %s\"%s\": unknown key (netprof(1) "
			    "and docs/inventory.md list the keys)", inv->path, at,
			    c->string);
		if (r != 0)
			return r;
	}
	return 0;
}
