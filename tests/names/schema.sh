#!/usr/bin/env bash
# schema.sh SRC: the record writers and readers (collect's record.c, the
# heatmap's records_read.c and records_run.c) name a record's fields by record_schema.h's
# RECORD_F_* / RECORD_RUN_F_*, never by a literal, so the schema is the one
# place a field is named. bench_record.c is left for now (its run.json
# fields are written while other work changes that file).
set -u
src=$1
fields=$(sed -n 's/^#define RECORD_\(RUN_\)\{0,1\}F_[A-Z0-9_]*[[:space:]]*"\([a-z_0-9]*\)".*/\2/p' \
    "$src/record/record_schema.h" | sort -u)
[[ -n $fields ]] || { echo "schema.sh: no RECORD_F_ fields in record_schema.h" >&2; exit 2; }
bad=0
for f in record/record.c record/records_read.c record/records_run.c; do
	for name in $fields; do
		# a literal passed as a member name: (obj, "name") or {"name", ...}
		if grep -nE "(\(|, )[a-z_]*,? *\"$name\"[,)]|\{ *\"$name\"," "$src/$f" |
		    grep -v '^\s*[0-9]*:\s*/\?\*' ; then
			echo "src/$f: field \"$name\" as a literal: use its RECORD_F_ name (record_schema.h)"
			bad=1
		fi
	done
done
(( bad )) && exit 1
echo "schema.sh: record.c, records_read.c and records_run.c name every field by record_schema.h"
