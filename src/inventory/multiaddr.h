/*
 * libp2p multiaddrs as a bootstrap list takes them (--bootstrap,
 * machines.json's bootstrap_extra): checked up front, so that a typo is
 * refused with the fix rather than failing on every host after the mesh
 * started. The check is libp2p's grammar for the protocols a bootstrap
 * address uses: /ip4/ADDR, /ip6/ADDR, /dns/NAME (dns4, dns6, dnsaddr),
 * /tcp/PORT, /udp/PORT, /quic, /quic-v1, /ws, /wss, /tls, /noise,
 * /webtransport, /p2p-circuit, /certhash/HASH, /sni/NAME, and /p2p/ID (or
 * /ipfs/ID), which a bootstrap peer must end with.
 */
#ifndef NETPROF_MULTIADDR_H
#define NETPROF_MULTIADDR_H

/* An example for messages. */
#define MULTIADDR_EXAMPLE "/ip4/203.0.113.7/tcp/4001/p2p/12D3KooW..."

/*
 * 1 if s is a bootstrap peer's multiaddr. Otherwise 0 and *why (a new
 * string, or NULL when out of memory) says what is wrong: "\"/ip4/1.2.3\":
 * 1.2.3 is not an IPv4 address", "... has no /p2p/PEER_ID at its end (a
 * bootstrap peer is dialled by its id)".
 */
int multiaddr_check(const char *s, char **why);

#endif
