/*
 * Bootstrap multiaddrs (multiaddr.h): the forms libp2p dials a bootstrap
 * peer by are taken, and each mistake is said with what is wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "multiaddr.h"

#define P "12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz13"

static void
bootstrap_forms_taken(void **state)
{
	static const char *const ok[] = {
		"/ip4/198.18.0.9/tcp/43905/p2p/" P,
		"/ip6/fd00::2/tcp/4001/p2p/" P,
		"/dns4/relay.example.org/tcp/4001/p2p/" P,
		"/dnsaddr/bootstrap.libp2p.io/p2p/QmNnooDu7bfjPFoTZYxMNLWUQJyrVwtbZg5gBMjTezGAJN",
		"/ip4/1.2.3.4/udp/4001/quic-v1/p2p/" P,
		"/ip4/1.2.3.4/tcp/443/wss/p2p/" P,
		"/ip4/1.2.3.4/tcp/4001/ipfs/" P,
	};
	char *why = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ok / sizeof *ok; i++) {
		if (!multiaddr_check(ok[i], &why))
			fail_msg("%s refused: %s", ok[i], why);
		assert_null(why);
	}
}

static void
mistakes_named(void **state)
{
	static const char *const bad[][2] = {
		{ "notamultiaddr", "\"notamultiaddr\" is not a multiaddr: it "
		    "starts with '/', e.g. \"/ip4/203.0.113.7/tcp/4001/p2p/"
		    "12D3KooW...\"" },
		{ "/ip4/1.2.3/tcp/1/p2p/" P, "1.2.3 (after /ip4) is not an "
		    "IPv4 address" },
		{ "/ip4/1.2.3.4/tcp/70000/p2p/" P, "70000 (after /tcp) is not a "
		    "port (0-65535)" },
		{ "/ip4/1.2.3.4/tcp/4001", "does not end with /p2p/PEER_ID" },
		{ "/ip4/1.2.3.4/tcp/4001/p2p/12D3KooWExample", "12D3KooWExample "
		    "(after /p2p) is not a peer id" },
		{ "/ip4/1.2.3.4/tpc/4001/p2p/" P, "/tpc is not a protocol" },
		{ "/ip4//tcp/4001/p2p/" P, "/ip4 needs a value" },
		{ "/ip4/1.2.3.4//tcp/4001/p2p/" P, "an empty part" },
		{ "/p2p/" P, "has no address" },
		{ "/ip4/1.2.3.4/tcp/4001/p2p/" P "/", "an empty part" },
	};
	char *why = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(multiaddr_check(bad[i][0], &why), 0);
		assert_non_null(why);
		if (strstr(why, bad[i][1]) == NULL)
			fail_msg("%s: \"%s\" does not say \"%s\"", bad[i][0], why,
			    bad[i][1]);
		free(why);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bootstrap_forms_taken),
		cmocka_unit_test(mistakes_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
