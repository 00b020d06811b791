/*
 * The record schema, in one place: the field names (the classes of error a
 * failed record carries are core's, error_class.h).
 * The kinds of record are the kinds of probe (probe_kind.h's table). The writers (record.c for collect, bench_record.c
 * for bench) and the readers (record.c's --resume, records_read.c for
 * the heatmap) take every field name from here, none as a literal. The two time forms
 * (timestamp: upstream's seconds; started_at/ended_at: milliseconds) are
 * made by timeutil.h's time_record_timestamp() and time_record_precise().
 */
#ifndef NETPROF_RECORD_SCHEMA_H
#define NETPROF_RECORD_SCHEMA_H

#include "error_class.h"

/* Field names of a record line. */
#define RECORD_F_TIMESTAMP	"timestamp"	/* upstream's: probe end, s */
#define RECORD_F_KIND		"kind"
#define RECORD_F_SOURCE		"source"
#define RECORD_F_TARGET		"target"
#define RECORD_F_TARGET_ADDRESS	"target_address"
#define RECORD_F_OK		"ok"
#define RECORD_F_METRICS	"metrics"
#define RECORD_F_ERROR		"error"
#define RECORD_F_ERROR_CLASS	"error_class"
#define RECORD_F_COMMAND	"command"	/* the line that reproduces it */
#define RECORD_F_SERVER_COMMAND	"server_command"	/* iperf3's server line */
#define RECORD_F_STARTED_AT	"started_at"	/* ms precision */
#define RECORD_F_ENDED_AT	"ended_at"
#define RECORD_F_ROUND		"round"
#define RECORD_F_MODE		"mode"		/* how collect measured it */
#define RECORD_F_SWEEP		"sweep"		/* collect --every: from 1 */
#define RECORD_F_SAMPLE		"sample"	/* collect --sample: K */
/* bench's records also have these */
#define RECORD_F_RUN_ID		"run_id"
#define RECORD_F_SOURCE_PEER_ID	"source_peer_id"
#define RECORD_F_TARGET_PEER_ID	"target_peer_id"
#define RECORD_F_CONFIG		"config"	/* bench: {count, bytes};
						   collect: a kind's own
						   settings */
#define RECORD_F_CONFIG_COUNT	"count"
#define RECORD_F_CONFIG_BYTES	"bytes"		/* null unless it moved bytes */
/* the path a bench probe ran over (netprof's, beside upstream's) */
#define RECORD_F_PATH		"path"		/* direct, hole-punched, relayed */
#define RECORD_F_PATH_KNOWN	"path_known"	/* reported, inferred */
#define RECORD_F_PATH_EVIDENCE	"path_evidence"	/* how it was known */
#define RECORD_F_RELAY		"relay"		/* the relay's name */
#define RECORD_F_RELAY_PEER_ID	"relay_peer_id"
/* their values */
#define RECORD_PATH_DIRECT	"direct"
#define RECORD_PATH_PUNCHED	"hole-punched"	/* direct after DCUtR */
#define RECORD_PATH_RELAYED	"relayed"
#define RECORD_PATH_REPORTED	"reported"	/* the node said so */
#define RECORD_PATH_INFERRED	"inferred"	/* netprof concluded it */

/* A failed record's error when it gives none (its writer's, its readers') */
#define RECORD_NO_ERROR_TEXT	"failed (the record gives no error text)"

/* Field names of bench's run.json that the heatmap reads (its writer is
   bench_record.c) */
#define RECORD_RUN_F_RUN_ID	"run_id"
#define RECORD_RUN_F_MACHINES	"machines"	/* [{name, libp2p_port}] */
#define RECORD_RUN_F_NAME	"name"
#define RECORD_RUN_F_LIBP2P_PORT "libp2p_port"
#define RECORD_RUN_F_CONVERGENCE "convergence"	/* {host: {complete, ...}} */
#define RECORD_RUN_F_COMPLETE	"complete"
#define RECORD_RUN_F_ELAPSED_S	"elapsed_s"
#define RECORD_RUN_F_PHASES	"phases"
#define RECORD_RUN_F_STARTED_AT "started_at"
#define RECORD_RUN_F_ENDED_AT	"ended_at"
#define RECORD_RUN_F_PHASE_TIMES "phase_times"	/* {phase: [start, end]} */
#define RECORD_RUN_F_SITE	"site"		/* machines[].site */
#define RECORD_RUN_F_ADDRESS	"address"	/* machines[].address */
#define RECORD_RUN_F_PEER_ID	"peer_id"	/* machines[].peer_id */
#define RECORD_RUN_F_REACH	"reach"		/* {"A->B": {tcp, ...}} */
#define RECORD_RUN_F_TCP	"tcp"
#define RECORD_RUN_F_RELAYS	"relays"	/* {name: multiaddr} */

#endif
