/*
 * Reading the otela node's JSON answers. The DNT table's shape differs
 * between node versions, so it is read as the upstream tool reads it: every
 * string that looks like a PeerID, wherever it is. Probe and hole-punch
 * answers have a fixed shape in the contract; a field that is there with
 * the wrong type is reported by name rather than taken as absent, so that
 * an incompatible node shows as such and not as a failed probe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "node_json.h"
#include "util.h"

static const char base58_alphabet[] =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/* Decode base58btc s into buf (big-endian); the byte count, or -1. */
static int
base58_decode(const char *s, unsigned char *buf, int size)
{
	int len = 0, i;

	for (; *s != '\0'; s++) {
		const char *p = strchr(base58_alphabet, *s);
		unsigned carry;

		if (p == NULL)
			return -1;
		carry = (unsigned)(p - base58_alphabet);
		for (i = 0; i < len; i++) {
			carry += 58u * buf[size - 1 - i];
			buf[size - 1 - i] = carry & 0xff;
			carry >>= 8;
		}
		while (carry > 0) {
			if (len == size)
				return -1;
			buf[size - 1 - len++] = carry & 0xff;
			carry >>= 8;
		}
	}
	/* no leading '1' (zero byte) in the forms accepted here */
	memmove(buf, buf + size - len, (size_t)len);
	return len;
}

int
node_json_peer_id_valid(const char *s)
{
	/* identity multihash of a protobuf Ed25519 key; sha2-256 multihash */
	static const unsigned char ed25519[] = { 0x00, 0x24, 0x08, 0x01,
	    0x12, 0x20 };
	static const unsigned char sha256[] = { 0x12, 0x20 };
	unsigned char buf[64];
	size_t slen;
	int n;

	if (s == NULL)
		return 0;
	slen = strlen(s);
	if (slen == 52 && strncmp(s, "12D3KooW", 8) == 0) {
		/* the leading 0x00 is written as '1' in base58 */
		n = base58_decode(s + 1, buf + 1, (int)sizeof buf - 1);
		buf[0] = 0x00;
		return n == 37 && memcmp(buf, ed25519, sizeof ed25519) == 0;
	}
	if (slen == 46 && strncmp(s, "Qm", 2) == 0) {
		n = base58_decode(s, buf, (int)sizeof buf);
		return n == 34 && memcmp(buf, sha256, sizeof sha256) == 0;
	}
	return 0;
}

/* The start of body, printable, for a message. */
static void
body_snippet(const char *body, size_t len, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size; i++)
		buf[i] = (body[i] >= 0x20 && body[i] < 0x7f) ? body[i] : '?';
	buf[i] = '\0';
}

/* JSON, and nothing after it but white space. */
static cJSON *
parse_body(const char *body, size_t len, const char *what, char **cause)
{
	const char *end = NULL;
	char snippet[61];
	cJSON *root;

	if (body == NULL || len == 0) {
		*cause = str_printf("node answered %s with an empty body",
		    what);
		return NULL;
	}
	root = cJSON_ParseWithLengthOpts(body, len, &end, 0);
	while (root != NULL && end < body + len &&
	    strchr(" \t\r\n", *end) != NULL && *end != '\0')
		end++;
	if (root != NULL && end < body + len) {
		cJSON_Delete(root);
		root = NULL;
	}
	if (root == NULL) {
		body_snippet(body, len, snippet, sizeof snippet);
		*cause = str_printf("node's %s answer is not JSON: %s",
		    what, snippet);
	}
	return root;
}

static int
looks_like_peer_id(const char *s)
{
	return s != NULL && (strncmp(s, "12D3", 4) == 0 ||
	    strncmp(s, "Qm", 2) == 0);
}

/*
 * The PeerIDs found so far: in order, and in an open-addressing hash set
 * (indexes into ids), so that each is looked up in constant time and a
 * table of any size is read in time linear in it; a node answering a big
 * table stalls nothing else on the loop.
 */
struct id_set {
	char **ids;		/* NULL-terminated */
	size_t n, cap;
	size_t *slot;		/* index + 1; 0: empty */
	size_t n_slots;		/* a power of two, > 2 n */
};

static size_t
id_hash(const char *s)
{
	size_t h = 1469598103934665603u;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

static int
set_grow(struct id_set *set)
{
	size_t n = set->n_slots ? set->n_slots * 2 : 64, i, k;
	size_t *slot = calloc(n, sizeof *slot);

	if (slot == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < set->n; i++) {
		for (k = id_hash(set->ids[i]) & (n - 1); slot[k] != 0;
		    k = (k + 1) & (n - 1))
			;
		slot[k] = i + 1;
	}
	free(set->slot);
	set->slot = slot;
	set->n_slots = n;
	return 0;
}

static int
peer_ids_add(struct id_set *set, const char *s)
{
	size_t k;

	if ((set->n + 1) * 2 >= set->n_slots && set_grow(set) != 0)
		return NP_ERR_NOMEM;
	for (k = id_hash(s) & (set->n_slots - 1); set->slot[k] != 0;
	    k = (k + 1) & (set->n_slots - 1))
		if (strcmp(set->ids[set->slot[k] - 1], s) == 0)
			return 0;
	if (set->n + 1 >= set->cap) {
		size_t ncap = set->cap ? set->cap * 2 : 8;
		char **p = realloc(set->ids, ncap * sizeof *p);

		if (p == NULL)
			return NP_ERR_NOMEM;
		set->ids = p;
		set->cap = ncap;
	}
	if ((set->ids[set->n] = strdup(s)) == NULL)
		return NP_ERR_NOMEM;
	set->slot[k] = set->n + 1;
	set->ids[++set->n] = NULL;
	return 0;
}

static int
table_walk(const cJSON *item, struct id_set *set)
{
	const cJSON *child;
	int r;

	if (item->string != NULL && looks_like_peer_id(item->string) &&
	    (r = peer_ids_add(set, item->string)) != 0)
		return r;
	if (cJSON_IsString(item) && looks_like_peer_id(item->valuestring))
		return peer_ids_add(set, item->valuestring);
	cJSON_ArrayForEach(child, item)
		if ((r = table_walk(child, set)) != 0)
			return r;
	return 0;
}

/* Is s in the set? */
static int
set_has(const struct id_set *set, const char *s)
{
	size_t k;

	if (set->n_slots == 0)
		return 0;
	for (k = id_hash(s) & (set->n_slots - 1); set->slot[k] != 0;
	    k = (k + 1) & (set->n_slots - 1))
		if (strcmp(set->ids[set->slot[k] - 1], s) == 0)
			return 1;
	return 0;
}

/* The table's PeerIDs into set (empty on entry). */
static int
table_set(const char *body, size_t len, struct id_set *set, char **cause)
{
	cJSON *root;
	int r = NP_ERR_PARSE;

	*cause = NULL;
	if ((root = parse_body(body, len, "/v1/dnt/table", cause)) == NULL)
		goto out;
	if (!cJSON_IsObject(root) && !cJSON_IsArray(root)) {
		*cause = str_printf("node's %s answer is not a JSON "
		    "object or array", "/v1/dnt/table");
		goto out;
	}
	r = table_walk(root, set);
out:
	cJSON_Delete(root);
	return r;
}

int
node_parse_table(const char *body, size_t len, char ***peer_ids, size_t *n,
    char **cause)
{
	struct id_set set = { 0 };
	int r;

	*peer_ids = NULL;
	*n = 0;
	if ((r = table_set(body, len, &set, cause)) != 0)
		goto out;
	if (set.ids == NULL && (set.ids = calloc(1, sizeof *set.ids)) == NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	*peer_ids = set.ids;
	set.ids = NULL;	/* transferred */
	*n = set.n;
out:
	node_peer_ids_free(set.ids);
	free(set.slot);
	return r;
}

int
node_table_find(const char *body, size_t len, const char *const *want,
    size_t n_want, unsigned char *found, size_t *n_missing, char **cause)
{
	struct id_set set = { 0 };
	size_t i;
	int r;

	*n_missing = 0;
	if ((r = table_set(body, len, &set, cause)) != 0)
		goto out;
	for (i = 0; i < n_want; i++) {
		found[i] = want[i] != NULL && set_has(&set, want[i]);
		*n_missing += !found[i];
	}
out:
	node_peer_ids_free(set.ids);
	free(set.slot);
	return r;
}

void
node_peer_ids_free(char **peer_ids)
{
	size_t i;

	if (peer_ids == NULL)
		return;
	for (i = 0; peer_ids[i] != NULL; i++)
		free(peer_ids[i]);
	free(peer_ids);
}

/*
 * The string field key of o into *out (a new string): absent or null gives
 * NULL; any other type is an error naming what.key.
 */
static int
string_field(const cJSON *o, const char *key, const char *what, char **out,
    char **cause)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v)) {
		*cause = str_printf("node's %s answer: \"%s\" is not a "
		    "string", what, key);
		return NP_ERR_PARSE;
	}
	if ((*out = strdup(v->valuestring)) == NULL)
		return NP_ERR_NOMEM;
	return node_text_cut(out, NODE_TEXT_MAX);
}

int
node_text_cut(char **s, size_t max)
{
	size_t len = *s != NULL ? strlen(*s) : 0, keep = max;
	char *cut;

	if (len <= max)
		return 0;
	while (keep > 0 && ((unsigned char)(*s)[keep] & 0xc0) == 0x80)
		keep--;	/* not inside a character */
	if ((cut = str_printf("%.*s [%zu bytes more, not kept by netprof]",
	    (int)keep, *s, len - keep)) == NULL)
		return NP_ERR_NOMEM;
	free(*s);
	*s = cut;
	return 0;
}

/* The length of o as compact JSON; 0 without memory. */
static size_t
json_length(const cJSON *o)
{
	char *text = cJSON_PrintUnformatted(o);
	size_t n = text != NULL ? strlen(text) : 0;

	cJSON_free(text);
	return n;
}

/* Metrics past NODE_METRICS_MAX: without their arrays, objects and long
 * strings (named in NODE_METRICS_CUT), or refused. */
static int
metrics_bound(cJSON *m, const char *what, char **cause)
{
	size_t len = json_length(m), after;
	cJSON *c, *next, *cut;

	if (len <= NODE_METRICS_MAX)
		return 0;
	if ((cut = cJSON_CreateArray()) == NULL)
		return NP_ERR_NOMEM;
	for (c = m->child; c != NULL; c = next) {
		next = c->next;
		if (!cJSON_IsArray(c) && !cJSON_IsObject(c) &&
		    !(cJSON_IsString(c) && strlen(c->valuestring) >
		    NODE_WORD_MAX))
			continue;
		if (c->string != NULL && strlen(c->string) <= NODE_WORD_MAX)
			cJSON_AddItemToArray(cut, cJSON_CreateString(c->string));
		cJSON_Delete(cJSON_DetachItemViaPointer(m, c));
	}
	cJSON_DeleteItemFromObjectCaseSensitive(m, NODE_METRICS_CUT);
	cJSON_AddItemToObject(m, NODE_METRICS_CUT, cut);
	if ((after = json_length(m)) > NODE_METRICS_MAX || after == 0) {
		*cause = str_printf("node's %s answer: \"metrics\" of %zu "
		    "bytes, more than the %u netprof keeps even without its "
		    "arrays", what, len, NODE_METRICS_MAX);
		return NP_ERR_PARSE;
	}
	return 0;
}

/*
 * ok: a boolean; absent only in an error answer ({"error": "..."}), which
 * means not ok.
 */
static int
ok_field(const cJSON *o, const char *what, int *ok, char **cause)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "ok");

	*ok = 0;
	if (cJSON_IsBool(v)) {
		*ok = cJSON_IsTrue(v);
		return 0;
	}
	if (v == NULL &&
	    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "error")))
		return 0;
	*cause = str_printf(v == NULL ? "node's %s answer has no \"ok\"" :
	    "node's %s answer: \"ok\" is not a boolean", what);
	return NP_ERR_PARSE;
}

static cJSON *
parse_object(const char *body, size_t len, const char *what, char **cause)
{
	cJSON *root = parse_body(body, len, what, cause);

	if (root != NULL && !cJSON_IsObject(root)) {
		*cause = str_printf("node's %s answer is not a JSON "
		    "object", what);
		cJSON_Delete(root);
		root = NULL;
	}
	return root;
}

static int
probe_metrics(cJSON *root, struct node_probe *out, char **cause)
{
	cJSON *m = cJSON_DetachItemFromObjectCaseSensitive(root, "metrics");

	if (m == NULL || cJSON_IsNull(m)) {
		cJSON_Delete(m);
		out->metrics = cJSON_CreateObject();
		return out->metrics == NULL ? NP_ERR_NOMEM : 0;
	}
	if (!cJSON_IsObject(m)) {
		cJSON_Delete(m);
		*cause = str_printf("node's %s answer: \"metrics\" is not "
		    "an object", "/v1/probe/run");
		return NP_ERR_PARSE;
	}
	out->metrics = m;
	return 0;
}

int
node_parse_probe(const char *body, size_t len, struct node_probe *out,
    char **cause)
{
	static const char what[] = "/v1/probe/run";
	const cJSON *config;
	cJSON *root;
	int r = NP_ERR_PARSE;

	memset(out, 0, sizeof *out);
	*cause = NULL;
	if ((root = parse_object(body, len, what, cause)) == NULL)
		goto out;
	if ((r = ok_field(root, what, &out->ok, cause)) != 0 ||
	    (r = string_field(root, "kind", what, &out->kind, cause)) != 0 ||
	    (r = string_field(root, "target", what, &out->target,
	    cause)) != 0 ||
	    (r = string_field(root, "error", what, &out->error, cause)) != 0 ||
	    (r = probe_metrics(root, out, cause)) != 0 ||
	    (r = metrics_bound(out->metrics, what, cause)) != 0)
		goto out;
	config = cJSON_GetObjectItemCaseSensitive(root, "config");
	if (config != NULL && !cJSON_IsObject(config) && !cJSON_IsNull(config)) {
		*cause = str_printf("node's %s answer: \"config\" is not "
		    "an object", what);
		r = NP_ERR_PARSE;
	}
out:
	if (r != 0)
		node_probe_free(out);
	cJSON_Delete(root);
	return r;
}

void
node_probe_free(struct node_probe *p)
{
	if (p == NULL)
		return;
	free(p->kind);
	free(p->target);
	free(p->error);
	cJSON_Delete(p->metrics);
	memset(p, 0, sizeof *p);
}

static int
attempts_field(const cJSON *o, int *attempts, char **cause)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "attempts");

	*attempts = -1;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
	    v->valuedouble > 1e6 || v->valuedouble != (int)v->valuedouble) {
		*cause = str_printf("node's %s answer: \"attempts\" is not "
		    "a count", "/v1/probe/holepunch");
		return NP_ERR_PARSE;
	}
	*attempts = (int)v->valuedouble;
	return 0;
}

int
node_parse_holepunch(const char *body, size_t len,
    struct node_holepunch *out, char **cause)
{
	static const char what[] = "/v1/probe/holepunch";
	cJSON *root;
	char *error = NULL;
	int r = NP_ERR_PARSE;

	memset(out, 0, sizeof *out);
	*cause = NULL;
	if ((root = parse_object(body, len, what, cause)) == NULL)
		goto out;
	if ((r = ok_field(root, what, &out->ok, cause)) != 0 ||
	    (r = string_field(root, "connectedness", what,
	    &out->connectedness, cause)) != 0 ||
	    (r = attempts_field(root, &out->attempts, cause)) != 0 ||
	    (r = string_field(root, "last_error", what, &out->last_error,
	    cause)) != 0 ||
	    (r = string_field(root, "error", what, &error, cause)) != 0 ||
	    (r = node_text_cut(&out->connectedness, NODE_WORD_MAX)) != 0)
		goto out;
	/* a 400 says "error"; keep it where a reader of failures looks */
	if (out->last_error == NULL && error != NULL) {
		out->last_error = error;
		error = NULL;	/* transferred */
	}
out:
	if (r != 0)
		node_holepunch_free(out);
	free(error);
	cJSON_Delete(root);
	return r;
}

void
node_holepunch_free(struct node_holepunch *h)
{
	if (h == NULL)
		return;
	free(h->connectedness);
	free(h->last_error);
	memset(h, 0, sizeof *h);
}

/* A new array of the peers arr's objects give (get: id and the rest). */
static int
peers_of(const cJSON *arr, int (*get)(const cJSON *, struct node_peer *),
    struct node_peer **peers, size_t *n)
{
	const cJSON *e;
	size_t cap = (size_t)cJSON_GetArraySize(arr) + 1;
	struct node_peer *out = calloc(cap, sizeof *out);
	int r;

	if (out == NULL)
		return NP_ERR_NOMEM;
	*n = 0;
	cJSON_ArrayForEach(e, arr) {
		if (*n == cap)
			break;
		if ((r = get(e, &out[*n])) < 0) {
			node_peers_free(out, *n + 1);
			return r;
		}
		*n += (size_t)r;
	}
	*peers = out;
	return 0;
}

static int
string_dup(const cJSON *o, const char *name, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	*out = NULL;
	if (!cJSON_IsString(v))
		return 0;
	return (*out = strdup(v->valuestring)) != NULL ? 1 : NP_ERR_NOMEM;
}

/* 1: a peer, 0: left out, or NP_ERR_NOMEM (what it took freed by the
   caller). */
static int
status_of(const cJSON *e, struct node_peer *p)
{
	int r;

	if (!cJSON_IsObject(e))
		return 0;
	if ((r = string_dup(e, "id", &p->id)) <= 0 ||
	    (r = string_dup(e, "connectedness", &p->connectedness)) <= 0) {
		free(p->id);
		free(p->connectedness);
		memset(p, 0, sizeof *p);
		return r;
	}
	return 1;
}

static int
relay_of(const cJSON *e, struct node_peer *p)
{
	int r;

	if (!cJSON_IsObject(e))
		return 0;
	if ((r = string_dup(e, "id", &p->id)) <= 0 ||
	    (r = string_dup(e, "relay_peer", &p->relay_peer)) <= 0 ||
	    !node_json_peer_id_valid(p->id) ||
	    !node_json_peer_id_valid(p->relay_peer)) {
		free(p->id);
		free(p->relay_peer);
		memset(p, 0, sizeof *p);
		return r < 0 ? r : 0;
	}
	return 1;
}

/* The relay of a circuit address ".../p2p/RELAY/p2p-circuit[/...]", a
   PeerID, into *out; 1 found, 0 not, NP_ERR_NOMEM. */
static int
circuit_relay(const char *ma, char **out)
{
	const char *c = strstr(ma, "/p2p-circuit"), *p;
	char id[128];
	size_t len;

	if (c == NULL || (c[12] != '\0' && c[12] != '/'))
		return 0;
	for (p = c; p > ma && p[-1] != '/'; p--)
		;
	len = (size_t)(c - p);
	if (p - ma < 5 || strncmp(p - 5, "/p2p/", 5) != 0 || len == 0 ||
	    len >= sizeof id)
		return 0;
	memcpy(id, p, len);
	id[len] = '\0';
	if (!node_json_peer_id_valid(id))
		return 0;
	return (*out = strdup(id)) != NULL ? 1 : NP_ERR_NOMEM;
}

static int
circuit_of(const cJSON *e, struct node_peer *p)
{
	const cJSON *a;
	int r;

	if (!cJSON_IsObject(e))
		return 0;
	if ((r = string_dup(e, "ID", &p->id)) <= 0 ||
	    !node_json_peer_id_valid(p->id)) {
		free(p->id);
		p->id = NULL;
		return r < 0 ? r : 0;
	}
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(e, "Addrs"))
		if (cJSON_IsString(a) &&
		    (r = circuit_relay(a->valuestring, &p->relay_peer)) != 0)
			break;
	if (r <= 0 || p->relay_peer == NULL) {
		free(p->id);
		memset(p, 0, sizeof *p);
		return r < 0 ? r : 0;
	}
	p->circuit = 1;
	return 1;
}

/* A "peers" list answer of what: each entry read by get. */
static int
peers_answer(const char *body, size_t len, const char *what,
    int (*get)(const cJSON *, struct node_peer *), struct node_peer **peers,
    size_t *n, char **cause)
{
	cJSON *root;
	const cJSON *arr;
	int r = NP_ERR_PARSE;

	*peers = NULL;
	*n = 0;
	*cause = NULL;
	if ((root = parse_object(body, len, what, cause)) == NULL)
		return NP_ERR_PARSE;
	arr = cJSON_GetObjectItemCaseSensitive(root, "peers");
	if (!cJSON_IsArray(arr))
		*cause = str_printf("node's %s answer has no \"peers\" list",
		    what);
	else
		r = peers_of(arr, get, peers, n);
	cJSON_Delete(root);
	return r;
}

int
node_parse_peers_circuits(const char *body, size_t len,
    struct node_peer **peers, size_t *n, char **cause)
{
	return peers_answer(body, len, "/v1/dnt/peers", circuit_of, peers, n,
	    cause);
}

int
node_parse_peers_status(const char *body, size_t len,
    struct node_peer **peers, size_t *n, char **cause)
{
	return peers_answer(body, len, "/v1/dnt/peers_status", status_of, peers,
	    n, cause);
}

int
node_parse_table_relays(const char *body, size_t len,
    struct node_peer **peers, size_t *n, char **cause)
{
	cJSON *root;
	int r;

	*peers = NULL;
	*n = 0;
	*cause = NULL;
	if ((root = parse_object(body, len, "/v1/dnt/table", cause)) == NULL)
		return NP_ERR_PARSE;
	/* the table is an object of records, keyed "/<id>" */
	r = peers_of(root, relay_of, peers, n);
	cJSON_Delete(root);
	return r;
}

void
node_peers_free(struct node_peer *peers, size_t n)
{
	size_t i;

	for (i = 0; peers != NULL && i < n; i++) {
		free(peers[i].id);
		free(peers[i].connectedness);
		free(peers[i].relay_peer);
	}
	free(peers);
}

/* Does the label set "a="x",b="y"" (between the braces) have label=value? */
static int
has_label(const char *p, const char *end, const char *label,
    const char *value)
{
	size_t ll = strlen(label), vl = strlen(value);

	while (p < end) {
		const char *eq = memchr(p, '=', (size_t)(end - p)), *q;

		if (eq == NULL || eq + 1 >= end || eq[1] != '"')
			return 0;
		/* the value's closing quote, past escaped ones */
		for (q = eq + 2; q < end && *q != '"'; q++)
			if (*q == '\\' && q + 1 < end)
				q++;
		if (q >= end)
			return 0;
		if ((size_t)(eq - p) == ll && memcmp(p, label, ll) == 0 &&
		    (size_t)(q - eq - 2) == vl && memcmp(eq + 2, value, vl) == 0)
			return 1;
		p = q + 1;
		if (p < end && *p == ',')
			p++;
	}
	return 0;
}

int
node_metric_sum(const char *text, size_t len, const char *name,
    const char *label, const char *value, double *sum)
{
	const char *p = text, *end = text + len, *eol, *v, *lb;
	size_t nl = strlen(name);
	int found = 0;
	char num[64];
	double d;

	*sum = 0;
	for (; p < end; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		if ((size_t)(eol - p) <= nl || memcmp(p, name, nl) != 0 ||
		    (p[nl] != '{' && p[nl] != ' '))
			continue;
		v = p + nl;
		if (*v == '{') {
			lb = v + 1;
			if ((v = memchr(lb, '}', (size_t)(eol - lb))) == NULL)
				continue;
			if (label != NULL && !has_label(lb, v, label, value))
				continue;
			v++;
		} else if (label != NULL)
			continue;
		while (v < eol && *v == ' ')
			v++;
		snprintf(num, sizeof num, "%.*s", (int)(eol - v < 63 ?
		    eol - v : 63), v);
		num[strcspn(num, " \r")] = '\0';
		if (sscanf(num, "%lf", &d) != 1)
			continue;
		*sum += d;
		found = 1;
	}
	return found;
}

char *
node_error_text(const char *body, size_t len)
{
	const cJSON *v;
	cJSON *root;
	char *text = NULL;

	if (body == NULL || len == 0 ||
	    (root = cJSON_ParseWithLength(body, len)) == NULL)
		return NULL;
	v = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (cJSON_IsString(v) && (text = strdup(v->valuestring)) != NULL &&
	    node_text_cut(&text, NODE_TEXT_MAX) != 0) {
		free(text);
		text = NULL;
	}
	cJSON_Delete(root);
	return text;
}
