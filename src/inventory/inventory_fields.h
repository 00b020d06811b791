/*
 * What inventory.c checks a field with (inventory_fields.c), private to
 * src/inventory/.
 */
#ifndef NETPROF_INVENTORY_FIELDS_H
#define NETPROF_INVENTORY_FIELDS_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct inventory;
struct json_doc;

/* The name rule, inventory_name_valid(), is inventory.h's. */
/* A user name or an ssh config alias: [A-Za-z0-9._-]+, no leading '-',
   at most max bytes. */
int inventory_valid_word(const char *s, size_t max);
int inventory_valid_ipv4(const char *s);
int inventory_valid_ipv6(const char *s);
/* An IP address or an RFC 1123 host name. */
int inventory_valid_address(const char *s);
/* What ssh accepts as a destination: an address or a config alias. */
int inventory_valid_ssh_host(const char *s);

/* One more warning of inv, as the text fmt says (unknown_key: one
   --strict-config makes an error). 0 or NP_ERR_NOMEM. */
int inventory_warn(struct inventory *inv, int unknown_key, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

/*
 * A warning for every key of obj that netprof does not read (where: NULL
 * for the top level, else the machine's path): a typo (the known key
 * nearest to it), or a key of the other level.
 */
int inventory_check_keys(struct inventory *inv, const cJSON *obj,
    const char *where);

/*
 * The error of key missing from obj (the top level's keys if top, else a
 * machine's) at where: with the misspelling of it obj has, if any
 * ("adress": did you mean "address"?), else with help. json_fail()'s
 * result.
 */
int inventory_missing(struct json_doc *p, const cJSON *obj, int top,
    const char *where, const char *key, const char *help);

#endif
