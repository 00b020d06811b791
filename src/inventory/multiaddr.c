/*
 * Checking a bootstrap multiaddr (multiaddr.h): its text split at '/'
 * into protocols and their values, each value as its protocol reads it.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multiaddr.h"
#include "util.h"

enum value { NONE, IP4, IP6, NAME, PORT, PEER, TEXT };

static const struct proto {
	const char *name;
	enum value value;
} protos[] = {
	{ "ip4", IP4 }, { "ip6", IP6 }, { "dns", NAME }, { "dns4", NAME },
	{ "dns6", NAME }, { "dnsaddr", NAME }, { "tcp", PORT },
	{ "udp", PORT }, { "quic", NONE }, { "quic-v1", NONE },
	{ "ws", NONE }, { "wss", NONE }, { "tls", NONE }, { "noise", NONE },
	{ "webtransport", NONE }, { "webrtc-direct", NONE },
	{ "p2p-circuit", NONE }, { "certhash", TEXT }, { "sni", NAME },
	{ "p2p", PEER }, { "ipfs", PEER }, { NULL, NONE }
};

/* base58btc (a multihash: Qm..., 12D3KooW...) or a base32 CID (b...) */
static int
peer_id(const char *s, size_t len)
{
	static const char b58[] = "123456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	    "abcdefghijkmnopqrstuvwxyz";
	static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";
	size_t i;

	if (len >= 50 && len <= 128 && s[0] == 'b') {
		for (i = 1; i < len && strchr(b32, s[i]) != NULL; i++)
			;
		if (i == len)
			return 1;
	}
	if (len < 40 || len > 128)
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] == '\0' || strchr(b58, s[i]) == NULL)
			return 0;
	return 1;
}

static int
host_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > 253 || s[0] == '-' || s[0] == '.')
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		    s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

/* Is v (len bytes) a value of kind k? What it should be, else. */
static const char *
value_wrong(enum value k, const char *v, size_t len)
{
	char buf[300];
	unsigned long port;
	struct in6_addr a6;
	struct in_addr a4;
	char *end;

	if (len >= sizeof buf)
		return "too long";
	memcpy(buf, v, len);
	buf[len] = '\0';
	switch (k) {
	case IP4:
		return inet_pton(AF_INET, buf, &a4) == 1 ? NULL :
		    "is not an IPv4 address";
	case IP6:
		return inet_pton(AF_INET6, buf, &a6) == 1 ? NULL :
		    "is not an IPv6 address";
	case NAME:
		return host_name(buf, len) ? NULL : "is not a host name";
	case PORT:
		port = strtoul(buf, &end, 10);
		return len > 0 && len < 6 && *end == '\0' && buf[0] != '+' &&
		    buf[0] != '-' && port <= 65535 ? NULL :
		    "is not a port (0-65535)";
	case PEER:
		return peer_id(buf, len) ? NULL : "is not a peer id (like "
		    "12D3KooW... or Qm..., as `otela peer-id` prints it)";
	case TEXT:
		return len > 0 && strspn(buf, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_-=") == len ? NULL :
		    "is not a value";
	case NONE:
		break;
	}
	return NULL;
}

int
multiaddr_check(const char *s, char **why)
{
	const char *p = s, *name, *val, *wrong;
	const struct proto *pr;
	size_t nlen, vlen;
	int has_addr = 0, ends_peer = 0;

	*why = NULL;
	if (*s != '/') {
		*why = str_printf("\"%s\" is not a multiaddr: it starts with "
		    "'/', e.g. \"%s\"", s, MULTIADDR_EXAMPLE);
		return 0;
	}
	while (*p == '/' && p[1] != '\0') {
		name = p + 1;
		if ((nlen = strcspn(name, "/")) == 0)
			break;		/* "//": said below */
		for (pr = protos; pr->name != NULL; pr++)
			if (strlen(pr->name) == nlen &&
			    strncmp(pr->name, name, nlen) == 0)
				break;
		if (pr->name == NULL) {
			*why = str_printf("\"%s\": /%.*s is not a protocol of a "
			    "bootstrap address (ip4, ip6, dns4, tcp, udp, quic-v1, "
			    "p2p, ...); e.g. \"%s\"", s, (int)nlen, name,
			    MULTIADDR_EXAMPLE);
			return 0;
		}
		p = name + nlen;
		ends_peer = pr->value == PEER;
		if (pr->value == IP4 || pr->value == IP6 ||
		    (pr->value == NAME && strcmp(pr->name, "sni") != 0))
			has_addr = 1;
		if (pr->value == NONE)
			continue;
		if (*p != '/' || p[1] == '/' || p[1] == '\0') {
			*why = str_printf("\"%s\": /%s needs a value after it; "
			    "e.g. \"%s\"", s, pr->name, MULTIADDR_EXAMPLE);
			return 0;
		}
		val = p + 1;
		vlen = strcspn(val, "/");
		if ((wrong = value_wrong(pr->value, val, vlen)) != NULL) {
			*why = str_printf("\"%s\": %.*s (after /%s) %s", s,
			    (int)vlen, val, pr->name, wrong);
			return 0;
		}
		p = val + vlen;
	}
	if (*p != '\0') {
		*why = str_printf("\"%s\": an empty part (\"//\" or a '/' at the "
		    "end); e.g. \"%s\"", s, MULTIADDR_EXAMPLE);
		return 0;
	}
	if (!has_addr || !ends_peer) {
		*why = str_printf("\"%s\" %s; a bootstrap peer is an address "
		    "and its peer id, e.g. \"%s\"", s, !has_addr ? "has no "
		    "address (/ip4/, /ip6/, /dns4/ ...)" : "does not end with "
		    "/p2p/PEER_ID", MULTIADDR_EXAMPLE);
		return 0;
	}
	return 1;
}
