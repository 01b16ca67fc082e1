#!/usr/bin/env bash
# Compare `flowreader mcf` with LEMON 1.3.1's network simplex (Debian
# liblemon-utils, `dimacs-solver`) on the same DIMACS files, alternating the
# two solvers run by run. Prints one Markdown table per instance family with
# median times and the ratios ours/LEMON:
#   solve   = our "c solve-seconds" vs LEMON's "Setup NetworkSimplex" + "Run
#             NetworkSimplex" real times (reading and output excluded on both);
#   process = wall time of the whole process (ours writes every nonzero arc
#             flow to a file; dimacs-solver writes no flows).
# Exits non-zero if an optimal cost differs. Not run by CI.
#
# Usage: bench/mcf/compare.sh            (REPS=5 ASPECTS="1000 10000 100000"
#                                         NETGEN="1000 10000" SEED=1 by default)
# Needs: go, python3, dimacs-solver (apt-get install -y liblemon-utils).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=${BENCH:-$ROOT/../shared/bench}
REPS=${REPS:-5}
SEED=${SEED:-1}
ASPECTS=${ASPECTS:-"1000 10000 100000"}
NETGEN=${NETGEN:-"1000 10000"}
WORK=${WORK:-$(mktemp -d)}

command -v dimacs-solver >/dev/null || { echo "dimacs-solver not found: apt-get install -y liblemon-utils" >&2; exit 1; }
(cd "$ROOT" && go build -o "$WORK/flowreader" ./cmd/flowreader)

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# bench FILE LABEL: prints one table row.
bench() {
	local f=$1 label=$2 r t0 t1 ours_cost lemon_cost
	: >"$WORK/os" >"$WORK/op" >"$WORK/ls" >"$WORK/lp"
	for ((r = 0; r < REPS; r++)); do
		t0=$(now)
		"$WORK/flowreader" mcf "$f" >"$WORK/ours.out"
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN {print b-a}' >>"$WORK/op"
		awk '$1=="c" && $2=="solve-seconds" {print $3}' "$WORK/ours.out" >>"$WORK/os"
		ours_cost=$(awk '$1=="s" {print $2}' "$WORK/ours.out")

		t0=$(now)
		dimacs-solver "$f" /dev/null >"$WORK/lemon.out" 2>&1
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN {print b-a}' >>"$WORK/lp"
		awk -F'real: ' '/^Setup NetworkSimplex/ {s=$2} /^Run NetworkSimplex/ {r=$2} END {sub("s","",s); sub("s","",r); print s+r}' "$WORK/lemon.out" >>"$WORK/ls"
		lemon_cost=$(awk -F': ' '/^Min flow cost/ {print $2}' "$WORK/lemon.out")
		if ! awk -v a="$ours_cost" -v b="$lemon_cost" 'BEGIN {d=a-b; if (d<0) d=-d; m=(a<0?-a:a); if (m<1) m=1; exit !(d <= 1e-9*m)}'; then
			echo "COST MISMATCH on $f: ours $ours_cost, LEMON $lemon_cost" >&2
			exit 2
		fi
	done
	local os op ls lp nodes arcs
	os=$(median <"$WORK/os")
	op=$(median <"$WORK/op")
	ls=$(median <"$WORK/ls")
	lp=$(median <"$WORK/lp")
	read -r nodes arcs < <(awk '$1=="p" {print $3, $4; exit}' "$f")
	awk -v l="$label" -v n="$nodes" -v m="$arcs" -v c="$ours_cost" -v os="$os" -v ls="$ls" -v op="$op" -v lp="$lp" 'BEGIN {
		printf "| %s | %d | %d | %s | %.4f | %.4f | %.2f | %.3f | %.3f | %.2f |\n", l, n, m, c, os, ls, os/ls, op, lp, op/lp }'
}

header() {
	echo
	echo "### $1 (median of $REPS alternating runs; times in seconds)"
	echo
	echo "| instance | nodes | arcs | optimal cost (both) | ours solve | LEMON set-up+run | ratio | ours process | LEMON process | ratio |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
}

header "FlowReader-shaped networks: gen_aspects.py N $SEED"
for N in $ASPECTS; do
	f="$WORK/aspects-$N-$SEED.min"
	[ -s "$f" ] || python3 "$BENCH/gen_aspects.py" "$N" "$SEED" >"$f"
	bench "$f" "aspects N=$N"
done

header "NETGEN-style networks: gen.py netgen --nodes N --seed $SEED"
for N in $NETGEN; do
	f="$WORK/netgen-$N-$SEED.min"
	[ -s "$f" ] || python3 "$BENCH/gen.py" netgen --nodes "$N" --seed "$SEED" -o "$f"
	bench "$f" "netgen N=$N"
done
echo
echo "instances and outputs in $WORK"
