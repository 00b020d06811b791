/*
 * ping's classifier, for each way collect and bench run ping (a channel of
 * its own, the fan-out's tagged pings and fping -C, bench --baseline):
 * one set of figures and one set of error texts. The kind's row
 * (probe_kind.c) holds its command and parser; the fan-out (fanout.c)
 * reads a target's part of its output with these.
 */
#ifndef NETPROF_PROBE_PING_H
#define NETPROF_PROBE_PING_H

#include "ping_parse.h"
#include "probe_kind.h"

/*
 * What ping's output o says: rec's outcome filled (ok, or
 * why not: the tool missing, ping's own complaint, output that is no
 * ping's, 100% loss), its metrics whenever the output had figures, and
 * *figures (if not NULL) those figures, the caller's to free. 0, or
 * NP_ERR_NOMEM.
 */
int probe_ping_classify(const struct probe_output *o,
    struct ping_result **figures, struct record *rec);

/* The same from figures got another way (fping -C's samples). */
int probe_ping_judge(const struct ping_result *p, struct record *rec);

/* The line of text that says why a tool failed (not ping's "PING ..."
   header), at most 200 bytes (new string), or NULL. */
char *probe_ping_reason(const char *text);

#endif
