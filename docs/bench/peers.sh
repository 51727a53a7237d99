#!/bin/sh
# peers.sh runs slosh's side of issue 30's table (docs/BENCHMARKS.md, "Against the C++ codes"): each row's exact
# command, RUNS times (default 3), printing every run's mean step time and the row's best and spread, with the
# accuracy figures beside the times. Run it on a machine with nothing else running, from the repository root:
#
#	make build && sh docs/bench/peers.sh            # or SLOSH=path/to/slosh RUNS=5 sh docs/bench/peers.sh
#
# The C++ peers (SPlisHSPlasH 2.16 and GridFluidSim3D) are not built here: BENCHMARKS.md names their versions and
# settings, and their figures measured on the same kind of machine.
set -eu
SLOSH=${SLOSH:-./slosh}
RUNS=${RUNS:-3}
OUT=${OUT:-$(mktemp -d)}

# row RUNS NAME ARGS...: RUNS runs of `slosh bench ARGS`, each run's step time and figures, then the best and spread.
row() {
	runs=$1
	name=$2
	shift 2
	echo "== $name"
	echo "   slosh bench $*"
	times=""
	k=1
	while [ "$k" -le "$runs" ]; do
		"$SLOSH" bench "$@" >"$OUT/run.txt" 2>&1 || { cat "$OUT/run.txt"; exit 1; }
		t=$(awk '/step \(solver\)/ {print $3}' "$OUT/run.txt")
		us=$(awk '/particle-steps\/s/ {printf "%.2f", 1e6 / $(NF-1)}' "$OUT/run.txt")
		figs=$(awk '/^  figure/ {f=1; next} f && NF >= 3 {printf "%s; ", $0}' "$OUT/run.txt" | tr -s ' ')
		echo "   run $k: $t ms a step, $us µs a particle-step; $figs"
		times="$times $t"
		k=$((k + 1))
	done
	echo "$times" | awk '{b=$1; w=$1; for (i=2; i<=NF; i++) {if ($i<b) b=$i; if ($i>w) w=$i}; printf "   best %.1f ms, spread %.1f–%.1f ms\n", b, b, w}'
}

PBF="--scene bench-dambreak --mode pbf-cpu --warmup 0 --frames 30 --set pbf.substeps=17 --set pbf.substeps_max=17"
SPH="--scene bench-dambreak --warmup 0 --frames 30"

# shellcheck disable=SC2086 # the settings are words
row "$RUNS" "PBF, 2 iterations (SPlisHSPlasH PBF: 198.6 ms)" $PBF --set pbf.iterations=2
row "$RUNS" "PCISPH, 3 iterations each (SPlisHSPlasH PCISPH: 257.7-267.6 ms)" $SPH --set sph.min_iterations=3 --set sph.max_iterations=3
row "$RUNS" "PCISPH at the scene's rule, mean density error <= 0.1 % (SPlisHSPlasH's default rule: 257.7-267.6 ms)" $SPH
row 1 "PCISPH, largest density error <= 0.1 % (slosh's stricter rule; once: 5 minutes a run)" $SPH --set sph.stop=max
row "$RUNS" "FLIP 128x64x64, unilateral (GridFluidSim3D: 5.52 s one thread, 2.72 s OpenCL)" --scene docs/bench/flip-dambreak-128.json --frames 3 --warmup 2 --set flip.substeps=2 --set flip.substeps_max=2
row "$RUNS" "FLIP 128x64x64, classic" --scene docs/bench/flip-dambreak-128.json --frames 3 --warmup 2 --set flip.substeps=2 --set flip.substeps_max=2 --set flip.pressure=incompressible
row "$RUNS" "voronoi splash (10k particles), frames 16-25, after the impact" --scene splash --warmup 15 --frames 10
row "$RUNS" "voronoi dam break (30k), frames 11-15: the splash's per-particle reference" --scene dambreak --mode voronoi --warmup 10 --frames 5
