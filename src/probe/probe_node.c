/*
 * The node kinds' call and parser (probe_node.h): what bench asks the
 * source's otela node for, the `otela probe` line that asks the same by
 * hand, and the node's answer read into the record's metrics or error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "node_json.h"
#include "probe_node.h"
#include "record.h"
#include "shell.h"
#include "util.h"

char *
probe_node_request(const struct probe_kind *k, const char *target,
    int count, long bytes, long long timeout_ms)
{
	cJSON *o = cJSON_CreateObject();
	char *body;

	cJSON_AddStringToObject(o, "target", target);
	cJSON_AddStringToObject(o, "kind", k->name);
	cJSON_AddNumberToObject(o, "count", count);
	cJSON_AddNumberToObject(o, "bytes", (double)bytes);
	/* the node decodes it into an integer: 1234.5 would be a 400 */
	cJSON_AddNumberToObject(o, "timeout_ms", (double)timeout_ms);
	body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return body;
}

char *
probe_node_command(const char *otela, const char *target_peer_id,
    const struct probe_kind *k, int count, long bytes, const char *dir,
    double timeout_s)
{
	char n[24], b[24], t[32], *cfg = str_printf("%s/cfg.yaml", dir);
	char *argv[] = { "probe", "--target", (char *)(target_peer_id != NULL ?
	    target_peer_id : "UNKNOWN"), "--kind", (char *)k->name,
	    "--count", n, "--bytes", b, "--config", cfg, "--timeout", t };
	char *words = NULL, *s = NULL;

	snprintf(n, sizeof n, "%d", count);
	snprintf(b, sizeof b, "%ld", bytes);
	snprintf(t, sizeof t, "%gs", timeout_s);
	/* otela is shell text already ("$HOME"/... for a deployed binary) */
	if (cfg != NULL && (words = shell_join(argv, sizeof argv /
	    sizeof *argv)) != NULL)
		s = str_printf("%s %s", otela, words);
	free(words);
	free(cfg);
	return s;
}

/* The answer's metrics and verdict (the node kinds' rows' parser). */
int
probe_node_parse(const struct probe_output *o, struct record *rec)
{
	struct node_probe p;
	char *cause = NULL;
	int rc;

	probe_outcome_start(rec);
	if (node_parse_probe(o->out, o->len, &p, &cause) != 0) {
		rec->error_class = error_class_name(ERROR_CLASS_PARSE);
		rec->error = str_printf("%s: probe: %s", o->host, cause !=
		    NULL ? cause : "unreadable answer");
		free(cause);
		return rec->error != NULL ? 0 : NP_ERR_NOMEM;
	}
	rec->ok = p.ok;
	rc = record_set_metrics(rec, p.metrics);	/* taken */
	p.metrics = NULL;
	if (rc == 0 && !p.ok) {
		rec->error_class = error_class_name(
		    error_class_of_text(p.error));
		rec->error = strdup(p.error != NULL ? p.error :
		    "the node reported ok: false");
	}
	node_probe_free(&p);
	return rc != 0 || rec->ok || rec->error != NULL ? rc : NP_ERR_NOMEM;
}
