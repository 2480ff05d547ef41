#!/usr/bin/env bash
# Benchmark copse against git alone and against the least a program could do, in one run.
#
#   scripts/bench.sh [WORKTREES] [ROUNDS] [FILES]
#                                             (defaults: 300 linked worktrees; 30 rounds of
#                                              the quick groups, a quarter as many of the
#                                              status group, a third of the picker group;
#                                              20 files in the repository)
#   scripts/bench.sh sizes                    every size the figures in docs/dev/performance.md
#                                             quote, one after another: all groups at 300;
#                                             list and status at 30, 1000 and 3000; made and
#                                             status at 51 worktrees of 20,000 files
#
# Needs git, go and bash; tmux for the in-tmux and picker groups (skipped without it).
# BENCH_GROUPS=made,status (say) runs only those groups; BENCH_COPSE=BINARY times that
# build of copse (no cgo build beside it); BENCH_UPSTREAM=0 gives the branches no upstream.
# copse is built as the README installs it (CGO_ENABLED=0); the default cgo build is timed
# beside it. Every group interleaves its commands: each round runs each command once, in a
# shuffled order, so load on the machine hits all of them alike. For each pair it prints
# the median of the per-round ratios and their spread (25th–75th percentile), the median
# times, and, where there is a target, ok or MISSED judged by the median only. The list and
# status groups also give the ratio of CPU time (user+system, git included), which moves
# far less when other work shares the machine.
#
#   list     copse list --json            / git worktree list --porcelain -z   target ≤ 1.25
#            (copse reads git's files where it proves it reads them as git does: no git)
#            floor list (a static Go program that runs the same git list, the least copse
#            could cost)                  / git                                  (the floor)
#   status   copse list --json --status   / floor status: a Go pool running the same
#                                           git commands (same workers, same env):
#            with no status cache (cold)                               CPU target ≤ 1.0
#            with nothing changed since the last read (warm)           CPU target ≤ 0.15
#                                               (≤ 0.4 on worktrees of 20,000 files or more)
#            with one file edited in each of 10 worktrees              CPU target ≤ 0.2
#            and the same warm listing straight after a cold one (the cold one stored
#            every status, upstreams included)
#   made     the same repository made again, its worktrees made by copse create (which
#            refreshes each index and writes git's untracked cache), CPU time:
#            copse list --json --status, no cache, on those / floor status on the
#                                           git worktree add ones (today's floor)  target ≤ 0.5
#            floor status on the copse-made ones / on the git-made ones  (what the refresh buys)
#   tmux     copse version and copse list on a tmux pane, TMUX set / unset    target ≤ 1.05
#            copse version on the pane    / to /dev/null                       target ≤ 1.05
#   picker   copse (the picker) in a new tmux window until its first rows show
#                                         / the one-pane floor: a static program that runs
#                                           git's list, then draws a static screen, in a
#                                           tmux window of its own, read the same way
#                                                                                target ≤ 1.2
#            the same / (git's list alone + a static screen in tmux)  (the parts, apart)
#            ... until the rows on screen show their statuses / the one-pane floor
#            and in how many starts the first rows came with their cached statuses
#                                                                       target ≥ 95 %
#
# The repository's branches each track origin/<branch> (a bare clone next to it), as a
# clone's do; BENCH_UPSTREAM=0 makes them track nothing. Before timing, the statuses copse
# shows are compared with git's own, worktree by worktree (floor check).
#
# Before timing it checks what copse reports (every worktree has a status, none an error)
# and counts the git processes each copse command runs (GIT_TRACE).
set -euo pipefail

if [[ ${1:-} == sizes ]]; then
	self=$0
	"$self" 300 10
	for size in 30 1000 3000; do
		BENCH_GROUPS=list,status "$self" "$size" "$((size >= 1000 ? 4 : 10))"
	done
	BENCH_GROUPS=made,status "$self" 51 4 20000
	exit
fi

n=${1:-300}
rounds=${2:-30}
files=${3:-20}
status_rounds=$((rounds / 4 > 3 ? rounds / 4 : 3))
picker_rounds=$((rounds / 3 > 3 ? rounds / 3 : 3))
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/copse-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

also=()
if [[ -n ${BENCH_COPSE:-} ]]; then
	# BENCH_COPSE=BINARY times that build of copse instead (an older one, say, for a
	# before-and-after pair of runs), with this tree's floor and harness.
	echo "using $BENCH_COPSE; building the floor and the harness…"
	cp "$BENCH_COPSE" "$work/copse"
	(cd "$top" && CGO_ENABLED=0 go build -o "$work/floor" ./scripts/bench/floor &&
		go build -o "$work/harness" ./scripts/bench/harness)
else
	echo "building copse (CGO_ENABLED=0, as installed; and the default cgo build), the floor and the harness…"
	(cd "$top" && CGO_ENABLED=0 go build -o "$work/copse" ./cmd/copse &&
		go build -o "$work/copse-cgo" ./cmd/copse &&
		CGO_ENABLED=0 go build -o "$work/floor" ./scripts/bench/floor &&
		go build -o "$work/harness" ./scripts/bench/harness)
	also=(-also "cgo=$work/copse-cgo")
fi
copse="$work/copse"

# A clean, fixed environment: no user or system git config, no Herdr, not inside tmux.
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@copse.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@copse.invalid
unset HERDR_ENV COPSE_CD_FILE COPSE_PREVIOUS GIT_DIR GIT_WORK_TREE TMUX TMUX_PANE NO_COLOR
mkdir -p "$HOME"

echo "making a repository of $files files with $n linked worktrees…"
repo="$work/app"
git init -q -b main "$repo"
for i in $(seq 1 "$files"); do printf 'file %d\n' "$i" >"$repo/f$i.txt"; done
git -C "$repo" add .
git -C "$repo" commit -q -m initial
for i in $(seq 1 "$n"); do
	git -C "$repo" worktree add -q -b "bench/b$i" "$work/app.worktrees/bench-b$i"
done
# An upstream per branch, as a clone's branches have them (BENCH_UPSTREAM=0: none): a bare
# origin holding every branch, its remote-tracking refs fetched, and each branch's
# branch.<name>.remote and .merge (written straight into the config: 300 `git config`
# processes would take longer than the rest of the set-up).
if [[ ${BENCH_UPSTREAM:-1} != 0 ]]; then
	git clone -q --bare "$repo" "$work/origin.git"
	git -C "$repo" remote add origin "$work/origin.git"
	git -C "$repo" fetch -q origin
	{
		printf '[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n'
		for i in $(seq 1 "$n"); do
			printf '[branch "bench/b%d"]\n\tremote = origin\n\tmerge = refs/heads/bench/b%d\n' "$i" "$i"
		done
	} >>"$repo/.git/config"
	upstreams="an upstream per branch (origin/<branch>)"
else
	upstreams="no upstreams"
fi
# Some work in progress, so status has something to count.
for i in $(seq 1 7 "$n"); do echo change >>"$work/app.worktrees/bench-b$i/f1.txt"; done


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
echo "check: $rows worktrees, every one with a status, no errors ($dirty with an unstaged change; $upstreams)"
# The statuses copse shows must be git's: compare copse's warm listing (read twice, so the
# cache serves it) with git status in each worktree, as the floor runs it.
sleep 1.1
"$copse" -C "$repo" list --json --status >/dev/null
"$copse" -C "$repo" list --json --status >"$work/warm.json"
"$work/harness" check "$repo" "$work/warm.json"

# git processes per command, counted from GIT_TRACE (one "built-in: git" line each).
count_git() {
	local trace="$work/trace.$RANDOM"
	GIT_TRACE="$trace" "$@" >/dev/null
	if [[ -f $trace ]]; then grep -c 'trace: built-in: git ' "$trace" || true; else echo 0; fi
	rm -f "$trace"
}
echo "git processes: copse list --json $(count_git "$copse" -C "$repo" list --json)," \
	"copse list --json --status $(count_git "$copse" -C "$repo" list --json --status)," \
	"floor status $(count_git "$work/floor" status "$repo")"

groups=list,made,status
if command -v tmux >/dev/null 2>&1; then
	groups=$groups,tmux,picker
else
	echo "tmux not found: skipping the in-tmux and picker groups"
fi
groups=${BENCH_GROUPS:-$groups} # e.g. BENCH_GROUPS=made: one group alone
made=""
if [[ ,$groups, == *,made,* ]]; then
	# The made group: the same repository, its worktrees made by copse create (four at a time;
	# each waits for its own index refresh, as the CLI does), with the same work in progress.
	echo "making the same repository again, its $n linked worktrees made by copse create…"
	made="$work/made"
	git init -q -b main "$made"
	for i in $(seq 1 "$files"); do printf 'file %d\n' "$i" >"$made/f$i.txt"; done
	git -C "$made" add .
	git -C "$made" commit -q -m initial
	# (Their waits for the repository lock are said on stderr: kept, and shown on a failure.)
	if ! seq 1 "$n" | xargs -P 4 -I{} "$copse" -C "$made" create "bench/b{}" >/dev/null 2>>"$work/create.log"; then
		cat "$work/create.log" >&2
		exit 1
	fi
	for i in $(seq 1 7 "$n"); do echo change >>"$work/made.worktrees/bench-b$i/f1.txt"; done
	untr=0
	for d in "$made"/.git/worktrees/*; do
		if grep -qa UNTR "$d/index"; then untr=$((untr + 1)); fi
	done
	echo "check: $(ls "$work/made.worktrees" | wc -l) copse-made worktrees, $untr of them with git's untracked cache in their index"
fi
echo "timing ($rounds rounds of list and tmux, $status_rounds of made and of status, $picker_rounds of picker;" \
	"$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))…"
echo
"$work/harness" -copse "$copse" -floor "$work/floor" -repo "$repo" -groups "$groups" -files "$files" \
	-made "$made" -rounds "$rounds" -status-rounds "$status_rounds" -picker-rounds "$picker_rounds" \
	"${also[@]}"
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs); $(git --version), $(go version | cut -d' ' -f3), tmux $(tmux -V 2>/dev/null | cut -d' ' -f2 || echo none)"
