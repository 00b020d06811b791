#!/usr/bin/env bash
# hooks.sh SRC: a run's parts never call into its run file. For collect and
# bench, no function that the run file defines (collect_run.c, bench_run.c)
# is named as a call in another file of its folder: the parts reach the run
# through its hooks, and a hook's member does not bear the name of the
# function the run sets in it (a call through c->hooks.task_ended reads as
# a call to task_ended). The ssh transport's files reach the file that
# steps a host (transport_ssh_ops.c) the same way, through st->step, and
# engine_hosts.c reaches engine.c through e->host_release and
# e->host_admitted (RUN=PARTS: only those files are read for calls). The
# same rule keeps a lower file from calling back into the file above it:
# the nodes' counters into the path phase, the throughput rounds into the
# sweep, the diagnosis's model and its parts into diagnose.c, the page's
# data into the page, the matrix's model into the fold; and the records'
# writer and reader call no function of the kinds' table
# (probe_kind.c): the probes are above the records, and a record's form is
# its own (its run id); the records' readers call down: a file's reading
# (records_file.c), its threads (records_pipe.c), what a reading keeps
# (records_input.c), then the run.json reader and one record's parse.
set -u
src=$1
bad=0

for entry in collect/collect_run.c bench/bench_run.c \
    engine/ssh/transport_ssh_ops.c \
    engine/engine.c=engine/engine_hosts.c,engine/engine_state.h \
    bench/bench_path.c=bench/bench_counters.c \
    bench/bench_sweep.c=bench/bench_throughput.c \
    diagnose/diagnose.c=diagnose/diagnose_cover.c,diagnose/diagnose_pair.c,diagnose/diagnose_model.c \
    heatmap/heatmap_html.c=heatmap/heatmap_html_data.c \
    matrix/matrix_fold.c=matrix/matrix_model.c \
    probe/probe_kind.c=record/record.c,record/records_read.c \
    record/records_file.c=record/records_input.c,record/records_pipe.c,record/records_run.c,record/records_read.c,record/record_scan.c \
    record/records_pipe.c=record/records_input.c,record/records_run.c,record/records_read.c,record/record_scan.c \
    record/records_input.c=record/records_run.c,record/records_read.c,record/record_scan.c; do
	run=${entry%%=*}
	dir=$(dirname "$run")
	if [[ $entry == *=* ]]; then
		IFS=, read -ra parts <<<"${entry#*=}"
		parts=("${parts[@]/#/$src/}")
	else
		parts=("$src/$dir"/*.c "$src/$dir"/*.h)
	fi
	# the functions the run file defines: a name at a line's start
	funcs=$(grep -oE '^[a-z_][a-z0-9_]*\(' "$src/$run" | tr -d '(' | sort -u)
	[[ -n $funcs ]] || { echo "hooks.sh: no function in $src/$run" >&2; exit 2; }
	alt=$(paste -sd '|' <<<"$funcs")
	for f in "${parts[@]}"; do
		[[ $f == "$src/$run" || $f == "$src/${run%.c}.h" ]] && continue
		# calls outside comments: NAME( with no name character before it
		hits=$(grep -vE '^[[:space:]]*(/?\*|//)' "$f" |
		    grep -oE "(^|[^A-Za-z0-9_])($alt)[[:space:]]*\(" |
		    grep -oE "($alt)" | sort -u)
		for fn in $hits; do
			echo "${f#"$src"/} calls $fn() of $run" >&2
			bad=1
		done
	done
done
exit $bad
