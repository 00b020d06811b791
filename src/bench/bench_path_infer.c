/*
 * A record's path concluded from what the path phase gathered
 * (bench_path.c): what the node reported, the reach checks and, where a
 * circuit may carry a pair that could dial direct, its round trip against
 * the direct and the relayed prediction. How sure each conclusion is:
 * docs/otela-node.md, "The path of a connection".
 */
#include <string.h>

#include "bench_path.h"
#include "error.h"
#include "util.h"

/* "h1 → 198.18.0.3:19091: Connection refused" (what a reach check said) */
static void
put_reach(struct buf *e, const char *from, const char *at,
    const struct bench_reach *r)
{
	buf_printf(e, "%s \xe2\x86\x92 %s %s", from, at, r->tcp == 1 ?
	    "connects" : "fails");
	if (r->tcp == 0 && r->why != NULL)
		buf_printf(e, " (%s)", r->why);
}

static void
put_excess(struct buf *e, const struct bench_path_in *in)
{
	if (in->excess_ms > 0)
		buf_printf(e, "the run's inflation %.1f ms", in->excess_ms);
	else
		buf_printf(e, "no inflation known");
}

/* "20.5 ms direct (handshake 0.2 ms, the run's inflation 20.3 ms)" */
static void
put_direct(struct buf *e, const struct bench_path_in *in)
{
	buf_printf(e, "%.1f ms direct (handshake %.1f ms, ", in->handshake_ms +
	    in->excess_ms, in->handshake_ms);
	put_excess(e, in);
	buf_printf(e, ")");
}

int
bench_path_no_circuit(long circuits_s, long circuits_t)
{
	return circuits_s == 0 && circuits_t == 0;
}

/* Did the check say so? (NULL: not checked) */
static int
tcp_is(const struct bench_reach *r, int v)
{
	return r != NULL && r->tcp == v;
}

int
bench_path_infer(const struct bench_path_in *in, struct bench_path_out *out)
{
	struct buf e = { 0 };
	int st_ok = tcp_is(in->st, 1), st_no = tcp_is(in->st, 0);
	int ts_ok = tcp_is(in->ts, 1), ts_no = tcp_is(in->ts, 0);
	int no_circuit = bench_path_no_circuit(in->circuits_s, in->circuits_t);
	int slow = 0;
	int timed;
	enum bench_path_class c = BENCH_PATH_UNKNOWN;
	double direct = in->handshake_ms + in->excess_ms, relayed = 0, far;

	memset(out, 0, sizeof *out);
	if (in->conn == BENCH_CONN_LIMITED) {
		/* what the node says: only a circuit through a limited relay */
		out->path = BENCH_PATH_RELAYED;
		out->reported = 1;
		buf_printf(&e, "%s's connectedness to %s: Limited (only a "
		    "circuit through a relay with limits)", in->source,
		    in->target);
		goto out;
	}
	/* what the reach checks said, as the evidence begins */
	if (in->st != NULL && in->st->tcp >= 0)
		put_reach(&e, in->source, in->target_at, in->st);
	if (in->ts != NULL && in->ts->tcp >= 0) {
		buf_printf(&e, e.len > 0 ? "; " : "");
		put_reach(&e, in->target, in->source_at, in->ts);
	}
	if (!in->ok) {
		/* no path to tell; what is known of the network stays */
		if (st_no && ts_no)
			buf_printf(&e, ": no TCP connection either way, only a "
			    "relay can join them");
		goto out;
	}
	if (in->conn == BENCH_CONN_CONNECTED) {
		/* a connection was there before the probe: which one? */
		if (st_ok)
			c = BENCH_PATH_DIRECT;	/* dialled direct, preferred */
		else if (no_circuit && ts_ok)
			c = BENCH_PATH_DIRECT;	/* the target's own dial */
		else if (no_circuit && st_no && ts_no)
			c = BENCH_PATH_PUNCHED;	/* a punch, or their dials met */
		else if (st_no && ts_no)
			c = BENCH_PATH_RELAYED;
		else if (ts_ok)
			c = BENCH_PATH_DIRECT;	/* likely: see the doc */
	} else if (in->conn == BENCH_CONN_NONE) {
		/* none was: the probe's own dial made the one it ran over */
		if (st_ok)
			c = BENCH_PATH_DIRECT;
		else if (st_no)
			c = BENCH_PATH_RELAYED;
	} else {
		/* no view: the network alone */
		if (st_ok)
			c = BENCH_PATH_DIRECT;
		else if (st_no && ts_no)
			c = BENCH_PATH_RELAYED;
	}
	/*
	 * A pair that could dial direct may still run over a circuit: the
	 * swarm takes an open circuit without limits as it takes a direct
	 * connection and dials no direct address while it has one (with no
	 * circuit open at either end, nothing but a direct connection
	 * was there). Its round trip is held against two predictions: direct,
	 * the handshake plus the run's inflation (the nodes' own time, which
	 * a loaded machine stretches and the kernel's handshake does not),
	 * and relayed, its two legs through its relay; the nearer wins.
	 * Without legs: a round trip far over the direct one did not run
	 * direct.
	 */
	timed = c == BENCH_PATH_DIRECT && !no_circuit && in->rtt_ms > 0 &&
	    in->handshake_ms > 0;
	if (in->legs_ms[0] > 0 && in->legs_ms[1] > 0)
		relayed = in->legs_ms[0] + in->legs_ms[1] +
		    (in->legs_measured ? 0 : in->excess_ms);
	far = in->rtt_ms > relayed ? in->rtt_ms - relayed :
	    relayed - in->rtt_ms;
	if (timed && relayed > 0)
		slow = in->rtt_ms > direct + BENCH_PATH_SLOW_MS &&
		    far < in->rtt_ms - direct;
	else if (timed)
		slow = in->rtt_ms > direct + in->handshake_ms +
		    BENCH_PATH_SLOW_MS;
	if (slow)
		c = BENCH_PATH_RELAYED;
	out->path = c;
	if (e.len > 0)
		buf_printf(&e, "; ");
	switch (c) {
	case BENCH_PATH_DIRECT:
		buf_printf(&e, st_ok ? "direct: %s dials %s's address, which "
		    "the swarm prefers to a circuit" : "direct: opened by %.0s"
		    "%s's own dial (every node dials every other at start)",
		    in->source, in->target);
		break;
	case BENCH_PATH_PUNCHED:
		buf_printf(&e, in->punched ? "hole-punched: the punch step's "
		    "DCUtR joined them, with no TCP connection either way and "
		    "no circuit open at %s or %s" : "hole-punched: no TCP "
		    "connection either way from a new port, yet connected with "
		    "no circuit open at %s or %s: the two nodes' own dials from "
		    "their listen ports met (a simultaneous open, which a "
		    "stateful firewall lets through as it does a punch)",
		    in->source, in->target);
		break;
	case BENCH_PATH_RELAYED:
		if (slow) {
			buf_printf(&e, "relayed: a direct dial was possible, "
			    "but the pair's fastest round trip through the "
			    "nodes, %.1f ms, is ", in->rtt_ms);
			if (relayed > 0) {
				buf_printf(&e, "nearer the %.1f ms through its "
				    "relay (legs %.1f + %.1f ms%s) than ",
				    relayed, in->legs_ms[0], in->legs_ms[1],
				    in->legs_measured ? " through the nodes" :
				    ", TCP handshakes, plus the inflation");
				put_direct(&e, in);
			} else {
				buf_printf(&e, "more than twice the direct TCP "
				    "handshake's %.1f ms plus %.0f ms (",
				    in->handshake_ms, BENCH_PATH_SLOW_MS);
				put_excess(&e, in);
				buf_printf(&e, ")");
			}
			buf_printf(&e, ": it ran over a circuit, which the "
			    "swarm keeps as it would a direct connection");
			break;
		}
		buf_printf(&e, in->conn == BENCH_CONN_NONE ? "relayed: not "
		    "connected before the probe, whose dial could only go "
		    "through a circuit" : "relayed: no direct TCP connection "
		    "either way, so the connection is a circuit");
		break;
	default:
		buf_printf(&e, "unknown: %s", in->conn == BENCH_CONN_UNKNOWN &&
		    in->st == NULL ? "no reach check and no node view" :
		    "the checks do not tell");
		break;
	}
	if (c != BENCH_PATH_UNKNOWN && in->conn != BENCH_CONN_UNKNOWN)
		buf_printf(&e, " (%s: %s before the probe%s)", in->source,
		    in->conn == BENCH_CONN_CONNECTED ? "Connected" :
		    "NotConnected", in->circuits_s >= 0 ? (in->circuits_s == 0 ?
		    ", no circuit open" : ", circuits open") : "");
	if (timed && !slow) {
		buf_printf(&e, "; its fastest round trip, %.1f ms, against ",
		    in->rtt_ms);
		put_direct(&e, in);
		if (relayed > 0)
			buf_printf(&e, " and %.1f ms through its relay",
			    relayed);
	}
out:
	if (e.data == NULL && e.len == 0 && out->path == BENCH_PATH_UNKNOWN)
		return 0;
	if (e.data == NULL)
		return NP_ERR_NOMEM;
	out->evidence = e.data;
	return 0;
}
