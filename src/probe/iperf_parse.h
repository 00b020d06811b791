/*
 * Parsing iperf3's JSON report (-J) from the client side: throughput as
 * seen by the sender and by the receiver, retransmits, or the "error" that
 * iperf3 reports in place of results (server busy, connection refused).
 */
#ifndef NETPROF_IPERF_PARSE_H
#define NETPROF_IPERF_PARSE_H

#include <stdint.h>

struct iperf_result {
	double sender_mbps;	/* end.sum_sent, bits/1e6 per second */
	double receiver_mbps;	/* end.sum_received */
	double seconds;		/* end.sum_received.seconds */
	uint64_t bytes;		/* end.sum_received.bytes */
	int retransmits;	/* end.sum_sent.retransmits; -1 if absent
				   (UDP, or a kernel without TCP_INFO) */
};

/*
 * Parse iperf3 -J output into *out. Returns 0; NP_ERR_PROTOCOL when iperf3
 * reported an error (*cause is its text, e.g. "the server is busy running
 * a test. try again later"); NP_ERR_PARSE when the text is not a complete
 * report (truncated, empty), with *cause saying so.
 */
int iperf_parse(const char *text, struct iperf_result *out, char **cause);

#endif
