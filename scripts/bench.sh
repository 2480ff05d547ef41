#!/usr/bin/env bash
# Benchmark copse's list path against git alone, on a repository with many linked worktrees.
#
#   scripts/bench.sh [WORKTREES] [RUNS]      (defaults: 300 worktrees; 20 runs of the list
#                                             commands, a quarter as many of the status ones)
#
# Needs git, go and bash; uses hyperfine when installed, else a loop timed with date +%s%N.
# Prints two ratios (median times):
#   list    copse list --json           / git worktree list --porcelain -z          target <= 1.5
#   status  copse list --json --status  / git status --porcelain=v2 --branch in
#                                         every worktree, one after another          target <= 0.7
# and how many git processes each copse command ran (from GIT_TRACE).
set -euo pipefail

n=${1:-300}
runs=${2:-20}
status_runs=$(( runs / 4 > 2 ? runs / 4 : 2 ))
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/copse-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "building copse…"
(cd "$top" && go build -o "$work/copse" ./cmd/copse)
copse="$work/copse"

# A clean, fixed environment: no user or system git config, no Herdr.
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@copse.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@copse.invalid
unset HERDR_ENV COPSE_CD_FILE COPSE_PREVIOUS GIT_DIR GIT_WORK_TREE
mkdir -p "$HOME"


echo "making a repository with $n linked worktrees…"
repo="$work/app"
git init -q -b main "$repo"
for i in $(seq 1 20); do printf 'file %d\n' "$i" >"$repo/f$i.txt"; done
git -C "$repo" add .
git -C "$repo" commit -q -m initial
for i in $(seq 1 "$n"); do
	git -C "$repo" worktree add -q -b "bench/b$i" "$work/app.worktrees/bench-b$i"
done
# Some work in progress, so status has something to count.
for i in $(seq 1 7 "$n"); do echo change >>"$work/app.worktrees/bench-b$i/f1.txt"; done

# The sequential status baseline, as one command.
printf '#!/usr/bin/env bash\nwhile IFS= read -r d; do git -C "$d" status --porcelain=v2 --branch >/dev/null; done <%q\n' \
	"$work/dirs" >"$work/status-all.sh"
{ echo "$repo"; for i in $(seq 1 "$n"); do echo "$work/app.worktrees/bench-b$i"; done; } >"$work/dirs"
chmod +x "$work/status-all.sh"

# Check what copse --status reports before timing it: every worktree has a status, none an error.
out=$("$copse" -C "$repo" list --json --status)
rows=$(grep -o '"path":' <<<"$out" | wc -l)
statuses=$(grep -o '"status":{' <<<"$out" | wc -l)
errors=$(grep -o '"error":' <<<"$out" | wc -l || true)
dirty=$(grep -o '"unstaged":1' <<<"$out" | wc -l || true)
if [[ $rows -ne $((n + 1)) || $statuses -ne $((n + 1)) || $errors -ne 0 ]]; then
	echo "FAIL: $rows rows, $statuses statuses, $errors errors (want $((n + 1)), $((n + 1)), 0)" >&2
	exit 1
fi
echo "check: $rows worktrees, every one with a status, no errors ($dirty with an unstaged change)"

# git processes per command, counted from GIT_TRACE (one "built-in: git" line each).
count_git() {
	local trace="$work/trace.$RANDOM"
	GIT_TRACE="$trace" "$@" >/dev/null
	grep -c 'trace: built-in: git ' "$trace" || true
	rm -f "$trace"
}
procs_list=$(count_git "$copse" -C "$repo" list --json)
procs_status=$(count_git "$copse" -C "$repo" list --json --status)

# pair NAME RUNS A B: times commands A and B (names of arrays) RUNS times each, alternating
# so that load on the machine hits both alike, after a warm-up; sets NAME_a and NAME_b to
# the median wall times in milliseconds.
if command -v hyperfine >/dev/null 2>&1; then
	timer="hyperfine, median"
	pair() {
		local -n _a=$3 _b=$4
		local json="$work/hf.json"
		hyperfine -N --style none --warmup 1 --runs "$2" --export-json "$json" \
			-- "$(printf '%q ' "${_a[@]}")" "$(printf '%q ' "${_b[@]}")" >/dev/null
		mapfile -t med < <(grep -o '"median": *[0-9.e+-]*' "$json" | awk -F: '{printf "%.3f\n", $2 * 1000}')
		printf -v "$1_a" '%s' "${med[0]}"
		printf -v "$1_b" '%s' "${med[1]}"
	}
else
	timer="alternating loop, median"
	# now: microseconds, without forking when bash has EPOCHREALTIME.
	now() {
		if [[ -n ${EPOCHREALTIME:-} ]]; then _now=${EPOCHREALTIME/[.,]/}; else _now=$(($(date +%s%N) / 1000)); fi
	}
	median() { sort -n | awk '{v[NR] = $1} END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f", m / 1000 }'; }
	pair() {
		local -n _a=$3 _b=$4
		local k s ta=() tb=()
		"${_a[@]}" >/dev/null
		"${_b[@]}" >/dev/null
		for ((k = 0; k < $2; k++)); do
			now; s=$_now; "${_a[@]}" >/dev/null; now; ta+=($((_now - s)))
			now; s=$_now; "${_b[@]}" >/dev/null; now; tb+=($((_now - s)))
		done
		printf -v "$1_a" '%s' "$(printf '%s\n' "${ta[@]}" | median)"
		printf -v "$1_b" '%s' "$(printf '%s\n' "${tb[@]}" | median)"
	}
fi

echo "timing ($timer; $runs runs of each list, $status_runs of each status; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?))…"
git_list=(git -C "$repo" worktree list --porcelain -z)
copse_list=("$copse" -C "$repo" list --json)
git_status=("$work/status-all.sh")
copse_status=("$copse" -C "$repo" list --json --status)
pair list "$runs" git_list copse_list
pair status "$status_runs" git_status copse_status
t_git_list=$list_a t_copse_list=$list_b t_git_status=$status_a t_copse_status=$status_b

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t ? "ok" : "MISSED") }'; }
r_list=$(ratio "$t_copse_list" "$t_git_list")
r_status=$(ratio "$t_copse_status" "$t_git_status")

echo
printf '%-46s %10s ms\n' "git worktree list --porcelain -z" "$t_git_list"
printf '%-46s %10s ms   (%s git processes)\n' "copse list --json" "$t_copse_list" "$procs_list"
printf '%-46s %10s ms\n' "git status --porcelain=v2 --branch × $((n + 1))" "$t_git_status"
printf '%-46s %10s ms   (%s git processes)\n' "copse list --json --status" "$t_copse_status" "$procs_status"
echo
echo "ratio list:   $r_list (target <= 1.5: $(verdict "$r_list" 1.5))"
echo "ratio status: $r_status (target <= 0.7: $(verdict "$r_status" 0.7))"
