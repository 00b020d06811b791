/*
 * Parsing iperf3 -J output. iperf3 prints one JSON document at exit; when a
 * test could not run it still prints the document, with empty "end" and an
 * "error" string, so the error is checked before the sums. A document cut
 * short (the client was killed) does not parse and is reported as such.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "iperf_parse.h"

static const cJSON *
path_get(const cJSON *root, const char *a, const char *b)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, a);

	return o == NULL ? NULL : cJSON_GetObjectItemCaseSensitive(o, b);
}

static double
number_of(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/*
 * The report's numbers become integers and record fields: one that is not
 * finite, negative or too large for its field (a hostile or broken report)
 * makes the whole report unusable rather than undefined behaviour.
 */
static int
check_range(double v, double max, const char *field, char **cause)
{
	char buf[160];

	if (isfinite(v) && v >= 0 && v <= max)
		return 0;
	snprintf(buf, sizeof buf, "iperf3 report has an impossible %s (%g)",
	    field, v);
	*cause = strdup(buf);
	return NP_ERR_PARSE;
}

int
iperf_parse(const char *text, struct iperf_result *out, char **cause)
{
	const cJSON *err, *sent, *received;
	cJSON *root = NULL;
	double bytes, retransmits;
	int r = NP_ERR_PARSE;

	*cause = NULL;
	memset(out, 0, sizeof *out);
	if (text == NULL || *text == '\0') {
		*cause = strdup("iperf3 printed nothing");
		goto out;
	}
	if ((root = cJSON_Parse(text)) == NULL) {
		*cause = strdup("iperf3 output is not a complete JSON report "
		    "(truncated: the client was stopped early?)");
		goto out;
	}
	err = cJSON_GetObjectItemCaseSensitive(root, "error");
	if (cJSON_IsString(err) && err->valuestring != NULL) {
		size_t len = strlen(err->valuestring) + 16;

		if ((*cause = malloc(len)) != NULL)
			snprintf(*cause, len, "iperf3: %s", err->valuestring);
		r = NP_ERR_PROTOCOL;
		goto out;
	}
	sent = path_get(root, "end", "sum_sent");
	received = path_get(root, "end", "sum_received");
	if (!cJSON_IsObject(sent) || !cJSON_IsObject(received)) {
		*cause = strdup("iperf3 report has no end.sum_sent and "
		    "end.sum_received (not a TCP test?)");
		goto out;
	}
	out->sender_mbps = number_of(sent, "bits_per_second", 0) / 1e6;
	out->receiver_mbps = number_of(received, "bits_per_second", 0) / 1e6;
	out->seconds = number_of(received, "seconds", 0);
	bytes = number_of(received, "bytes", 0);
	retransmits = number_of(sent, "retransmits", -1);
	if (check_range(out->sender_mbps, DBL_MAX, "sender rate", cause) != 0 ||
	    check_range(out->receiver_mbps, DBL_MAX, "receiver rate",
	    cause) != 0 ||
	    check_range(out->seconds, DBL_MAX, "duration", cause) != 0 ||
	    check_range(bytes, 0x1p63, "byte count", cause) != 0 ||
	    (retransmits != -1 && check_range(retransmits, INT_MAX,
	    "retransmit count", cause) != 0))
		goto out;
	out->bytes = (uint64_t)bytes;
	out->retransmits = (int)retransmits;
	r = 0;
out:
	cJSON_Delete(root);
	return r;
}
