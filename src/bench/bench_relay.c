/*
 * The --bootstrap peers as relays. Every public OpenTela node runs a
 * relay service, so a --bootstrap peer that every host can reach (the spec's
 * "publicly reachable bootstrap") is where a pair that cannot dial
 * directly is joined; the sweep measures each host's legs to it, so that
 * a relayed pair's round trip can be held against the sum of its two
 * legs. A --bootstrap entry is MULTIADDR, or NAME=MULTIADDR to name it in
 * the records (else it is named by its address); a multiaddr of the form
 * /ip4|ip6|dns|dns4|dns6/ADDR/tcp/PORT/p2p/PEERID is a relay, any other
 * is passed to the nodes as it is. A pair's targets are the hosts, then
 * the relays (bench_target_*()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "error.h"
#include "node_json.h"
#include "util.h"

const char *const bench_reachability_names[] = { "auto", "private",
	"public", NULL };

static const char name_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "abcdefghijklmnopqrstuvwxyz0123456789._-";

/* /PROTO/ADDR/tcp/PORT/p2p/ID and nothing more, into r: 1; else 0. */
static int
relay_of(const char *ma, struct bench_relay *r)
{
	char *copy = strdup(ma), *w[8], *save = NULL, *tok, *end;
	size_t n = 0;
	long port;
	int ok = 0;

	if (copy == NULL)
		return -1;
	for (tok = strtok_r(copy, "/", &save); tok != NULL && n < 8;
	    tok = strtok_r(NULL, "/", &save))
		w[n++] = tok;
	if (ma[0] != '/' || n != 6 || tok != NULL ||
	    strcmp(w[2], "tcp") != 0 || strcmp(w[4], "p2p") != 0 ||
	    (strcmp(w[0], "ip4") != 0 && strcmp(w[0], "ip6") != 0 &&
	    strncmp(w[0], "dns", 3) != 0) || !node_json_peer_id_valid(w[5]))
		goto out;
	port = strtol(w[3], &end, 10);
	if (*end != '\0' || port < 1 || port > 65535)
		goto out;
	if ((r->address = strdup(w[1])) == NULL ||
	    (r->peer_id = strdup(w[5])) == NULL) {
		ok = -1;
		goto out;
	}
	r->port = (int)port;
	r->multiaddr = ma;
	ok = 1;
out:
	free(copy);
	return ok;
}

static int
name_taken(const struct bench *b, const char *name, size_t n_relays)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (strcmp(b->inv->machines[i].name, name) == 0)
			return 1;
	for (i = 0; i < n_relays; i++)
		if (strcmp(b->relays[i].name, name) == 0)
			return 1;
	return 0;
}

int
bench_relays_parse(struct bench *b, char **cause)
{
	size_t i, nb = b->o->n_bootstrap;
	const char *e, *eq;
	struct bench_relay *r;
	int ok;

	*cause = NULL;
	if ((b->bootstrap = calloc(nb + 1, sizeof *b->bootstrap)) == NULL ||
	    (b->relays = calloc(nb + 1, sizeof *b->relays)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < nb; i++) {
		e = b->o->bootstrap[i];
		eq = e[0] != '/' ? strchr(e, '=') : NULL;
		if (e[0] != '/' && (eq == NULL || eq[1] != '/' || eq == e ||
		    strspn(e, name_chars) != (size_t)(eq - e))) {
			*cause = str_printf("--bootstrap %s: not a multiaddr "
			    "(/ip4/ADDR/tcp/PORT/p2p/PEERID), nor NAME=MULTIADDR "
			    "with a NAME of letters, digits, '.', '_' and '-'",
			    e);
			return NP_ERR_USAGE;
		}
		b->bootstrap[i] = eq != NULL ? eq + 1 : e;
		r = &b->relays[b->n_relays];
		if ((ok = relay_of(b->bootstrap[i], r)) < 0)
			return NP_ERR_NOMEM;
		if (ok == 0)
			continue;	/* passed to the nodes, not measured */
		r->name = eq != NULL ? strndup(e, (size_t)(eq - e)) :
		    strdup(r->address);
		if (r->name == NULL)
			return NP_ERR_NOMEM;
		if (name_taken(b, r->name, b->n_relays)) {
			*cause = str_printf("--bootstrap %s: '%s' names a "
			    "machine of the inventory or another relay; give "
			    "it another name (NAME=MULTIADDR)", e, r->name);
			b->n_relays++;	/* freed with the others */
			return NP_ERR_USAGE;
		}
		b->n_relays++;
	}
	return 0;
}

void
bench_relays_free(struct bench *b)
{
	size_t i;

	for (i = 0; b->relays != NULL && i < b->n_relays; i++) {
		free(b->relays[i].name);
		free(b->relays[i].address);
		free(b->relays[i].peer_id);
	}
	free(b->relays);
	free(b->bootstrap);
	b->relays = NULL;
	b->bootstrap = NULL;
	b->n_relays = 0;
}

const char *
bench_target_name(const struct bench *b, size_t i)
{
	return i < b->n ? b->hosts[i].m->name : b->relays[i - b->n].name;
}

const char *
bench_target_peer_id(const struct bench *b, size_t i)
{
	return i < b->n ? b->hosts[i].peer_id : b->relays[i - b->n].peer_id;
}

const char *
bench_target_address(const struct bench *b, size_t i)
{
	return i < b->n ? b->hosts[i].m->address :
	    b->relays[i - b->n].address;
}

int
bench_target_port(const struct bench *b, size_t i)
{
	return i < b->n ? b->hosts[i].libp2p_port : b->relays[i - b->n].port;
}
