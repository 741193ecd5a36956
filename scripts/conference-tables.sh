#!/bin/sh
# Reproduces seed 002's Tables II-IV on the conference sample and prints
# them as Markdown (docs/case-studies/conference.md):
#   Table II: mean steps to detect each mutant over MUTRUNS online runs of
#             1,000 steps with one agent (random and coverage strategies),
#             and what the offline suites (modex gen, both coverages) give;
#   Tables III/IV: mean over RUNS runs of the transitions, states and state
#             coverage after 1,000 and 10,000 steps, for 1-8 agents with
#             predetermined pauses and 1-10 with randomized ones.
#   scripts/conference-tables.sh [RUNS] [MUTRUNS]
set -e
runs=${1:-10}
mutruns=${2:-100}
cd "$(dirname "$0")/.."
go build -o bin/modex ./app
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/impl" ./projects/conference/impl
p=projects/conference/conference.toml

echo "## Table II: steps to detect the mutants (one agent)"
echo
echo "| mutant | setting | strategy | detected | mean steps |"
echo "|---|---|---|---|---|"
for k in 1 2 3; do
	for setting in paper modex; do
		config=agents-1; label="timeout 0 (the paper's)"
		if [ $setting = modex ]; then config=mutant-$k; label="2 ms while there are partners"; fi
		for strategy in random coverage; do
			./bin/modex test $p --config $config --runs "$mutruns" --steps 1000 --seed 1 --strategy $strategy \
				--adapter "$tmp/impl adapter --agents 1 --mutant $k" --save-failures "$tmp/f" >"$tmp/out" 2>&1 || true
			echo "| $k | $label | $strategy | $(grep -c 'FAIL .* at step' "$tmp/out") of $mutruns | $(grep -o 'FAIL .* at step [0-9]*' "$tmp/out" | awk '{s+=$NF; n++} END {if (n) printf "%.1f", s/n; else print "-"}') |"
		done
	done
done
echo
echo "Offline suites (modex gen --config offline), each run $mutruns times against each mutant:"
echo
echo "| suite | mutant | runs with a failing case | mean steps to the failure | runs ending inconclusive |"
echo "|---|---|---|---|---|"
for cov in transitions states; do
	./bin/modex gen $p --config offline --coverage $cov --out "$tmp/suite.json" >/dev/null 2>&1
	for k in 1 2 3; do
		fails=0; incon=0; total=0
		for i in $(seq 1 "$mutruns"); do
			./bin/modex run $p "$tmp/suite.json" --adapter "$tmp/impl adapter --agents 1 --mutant $k" >"$tmp/out" 2>&1 || true
			# Steps to the failure: those of the cases before it, plus its own.
			s=$(awk '/^case .*after/ {for (i=1;i<=NF;i++) if ($i=="after") n=$(i+1); if ($3=="fail") {print t+n+1; exit} t+=n}' "$tmp/out")
			if [ -n "$s" ]; then fails=$((fails+1)); total=$((total+s)); fi
			if grep -q 'inconclusive after' "$tmp/out"; then incon=$((incon+1)); fi
		done
		mean=-; if [ $fails -gt 0 ]; then mean=$(echo "scale=1; $total/$fails" | bc); fi
		echo "| $cov | $k | $fails of $mutruns | $mean | $incon |"
	done
done

for pauses in fixed random; do
	max=8; title="III: predetermined pauses"; suffix=""
	if [ $pauses = random ]; then max=10; title="IV: randomized pauses"; suffix="-random"; fi
	echo
	echo "## Table $title (mean of $runs runs)"
	echo
	echo "| agents | strategy | transitions @1,000 | states @1,000 | coverage @1,000 | transitions @10,000 | states @10,000 | coverage @10,000 |"
	echo "|---|---|---|---|---|---|---|---|"
	for n in $(seq 1 $max); do
		for strategy in random coverage; do
			row="| $n | $strategy"
			for steps in 1000 10000; do
				ts=0; ss=0; of=0
				for seed in $(seq 1 "$runs"); do
					./bin/modex test $p --config agents-$n$suffix --runs 1 --steps $steps --seed $seed --strategy $strategy \
						--adapter "$tmp/impl adapter --agents $n --pauses $pauses" >"$tmp/out" 2>&1 || true
					line=$(grep -o 'covered [0-9]* of [0-9]* states and [0-9]* of [0-9]* transitions' "$tmp/out")
					set -- $line
					ss=$((ss+$2)); of=$4; ts=$((ts+$7))
				done
				row="$row | $(echo "scale=1; $ts/$runs" | bc) | $(echo "scale=1; $ss/$runs" | bc) | $(echo "scale=0; 100*$ss/$runs/$of" | bc) %"
			done
			echo "$row |"
		done
	done
done
