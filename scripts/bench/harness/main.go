// Command harness times copse against its floors for scripts/bench.sh, in one run, with
// interleaved rounds: each round runs every command of a group once, in a shuffled order,
// so load on the machine hits all of them alike. It reports the median and the spread
// (25th–75th percentile) of the per-round ratio, and judges targets by the median only.
//
// The groups:
//
//	list     copse list --json; git worktree list --porcelain -z; the static floor (floor list)
//	status   copse list --json --status with no status cache (cold), with nothing changed
//	         since the last read (warm), and with one file edited in each of 10 worktrees;
//	         floor status (a Go pool running the same git commands as a cold read)
//	made     the same repository made again with its worktrees made by copse create (so
//	         refreshed, with the untracked cache written): copse list --json --status on it
//	         with no status cache, and floor status on it, each against floor status on the
//	         repository whose worktrees git worktree add made (today's floor)
//	tmux     inside a tmux pane: copse version and copse list with stdout on the pane, with
//	         and without TMUX in the environment, and copse version to /dev/null
//	picker   in a new tmux window: copse (the picker) until its first rows show and until the
//	         rows on screen show their statuses; floor listscreen (git's list, then a static
//	         screen) until it shows, the floor judged against; and apart, floor screen (a
//	         static screen) until it shows and git worktree list
//
// tmux runs on a private socket (-L) that the harness creates and kills; it never touches
// another tmux server. It is a benchmark tool only and never part of the copse binary.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/copse-dev/copse/gitx"
)

type config struct {
	copse, floor, repo, self string
	made                     string // the repository whose worktrees copse create made
	rounds, statusRounds     int
	pickerRounds             int
	files                    int
	groups                   string
	also                     []string // LABEL=BINARY: more copse builds for the list group
}

func (c config) wants(g string) bool {
	return c.groups == "" || slices.Contains(strings.Split(c.groups, ","), g)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "tty-child" {
		ttyChild(os.Args[2:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "check" {
		check(os.Args[2], os.Args[3])
		return
	}
	var c config
	flag.StringVar(&c.copse, "copse", "", "copse binary")
	flag.StringVar(&c.floor, "floor", "", "floor binary")
	flag.StringVar(&c.repo, "repo", "", "repository with many worktrees")
	flag.StringVar(&c.made, "made", "", "the same repository with its worktrees made by copse create (the made group)")
	flag.IntVar(&c.rounds, "rounds", 30, "rounds of the list and tmux groups")
	flag.IntVar(&c.statusRounds, "status-rounds", 8, "rounds of the status group")
	flag.IntVar(&c.pickerRounds, "picker-rounds", 10, "rounds of the picker group")
	flag.IntVar(&c.files, "files", 20, "files in the repository (the status targets depend on it)")
	flag.Func("also", "LABEL=BINARY: another copse build to time in the list group (repeatable)", func(v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("want LABEL=BINARY, got %q", v)
		}
		c.also = append(c.also, v)
		return nil
	})
	flag.StringVar(&c.groups, "groups", "list,made,status,tmux,picker", "groups to run, comma-separated")
	flag.Parse()
	self, err := os.Executable()
	must(err)
	c.self = self
	os.Unsetenv("TMUX")
	os.Unsetenv("TMUX_PANE")

	var rep report
	if c.wants("list") {
		listGroup(c, &rep)
	}
	// Before the status group, whose edits would make the two repositories differ.
	if c.wants("made") && c.made != "" {
		madeGroup(c, &rep)
	}
	if c.wants("status") {
		statusGroup(c, &rep)
	}
	if c.wants("tmux") || c.wants("picker") {
		t := startTmux()
		defer t.kill()
		if c.wants("tmux") {
			tmuxGroup(c, t, &rep)
		}
		if c.wants("picker") {
			pickerGroup(c, t, &rep)
		}
	}
	rep.print()
}

// atExit runs before a failure ends the harness (the private tmux server is killed).
var atExit []func()

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		for _, f := range atExit {
			f()
		}
		os.Exit(1)
	}
}

// run times one command with stdout and stderr on out (nil: /dev/null); env nil inherits.
func run(out *os.File, env []string, argv ...string) time.Duration {
	cmd := exec.Command(argv[0], argv[1:]...)
	if out == nil {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		must(err)
		defer null.Close()
		out = null
	}
	cmd.Stdout, cmd.Stderr, cmd.Env = out, out, env
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		must(fmt.Errorf("%s: %w", strings.Join(argv, " "), err))
	}
	// CPU time of the process and the children it waited for (git): on a machine that
	// other work keeps busy, this moves far less than the wall time.
	lastCPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return d
}

// lastCPU is the CPU time of the last command run.
var lastCPU time.Duration

// rounds runs each named job once per round in a shuffled order and returns every job's
// durations, round by round (and in cpuTimes, the CPU time of each job's last command).
func rounds(n int, jobs map[string]func() time.Duration) map[string][]time.Duration {
	t, _ := roundsCPU(n, jobs)
	return t
}

func roundsCPU(n int, jobs map[string]func() time.Duration) (wall, cpu map[string][]time.Duration) {
	names := make([]string, 0, len(jobs))
	for k := range jobs {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names { // one warm-up each, not recorded
		jobs[k]()
	}
	wall, cpu = map[string][]time.Duration{}, map[string][]time.Duration{}
	for range n {
		rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		for _, k := range names {
			wall[k] = append(wall[k], jobs[k]())
			cpu[k] = append(cpu[k], lastCPU)
		}
	}
	return wall, cpu
}

func listGroup(c config, rep *report) {
	jobs := map[string]func() time.Duration{
		"git": func() time.Duration {
			return run(nil, nil, "git", "-C", c.repo, "worktree", "list", "--porcelain", "-z")
		},
		"copse": func() time.Duration { return run(nil, nil, c.copse, "-C", c.repo, "list", "--json") },
		"floor": func() time.Duration { return run(nil, nil, c.floor, "list", c.repo) },
	}
	for _, a := range c.also {
		label, bin, _ := strings.Cut(a, "=")
		jobs["also:"+label] = func() time.Duration { return run(nil, nil, bin, "-C", c.repo, "list", "--json") }
	}
	t, cpu := roundsCPU(c.rounds, jobs)
	rep.add("list", "copse list --json / git worktree list --porcelain -z", t["copse"], t["git"], 1.25, 0)
	rep.add("list-cpu", "the same in CPU time (user+system, git included)", cpu["copse"], cpu["git"], 1.25, 0)
	rep.add("list-floor", "static Go program running the same git list / git (the floor)", t["floor"], t["git"], 0, 0)
	rep.add("list-vs-floor", "copse list --json / that static floor", t["copse"], t["floor"], 0, 0)
	for _, a := range c.also {
		label, _, _ := strings.Cut(a, "=")
		rep.add("list:"+label, "list --json of the "+label+" build / git", t["also:"+label], t["git"], 0, 0)
		rep.add("list-cpu:"+label, "the same in CPU time", cpu["also:"+label], cpu["git"], 0, 0)
	}
}

func statusGroup(c config, rep *report) {
	cache := filepath.Join(c.repo, ".git", "copse-status")
	trees := benchTrees(c.repo)
	lastEdit := time.Time{}
	edits := 0
	// settle waits (untimed) until the clock has left the second of the last edit, and
	// reads once, so the cache holds every worktree again: the warm run then measures
	// a listing where nothing changed since the last read.
	settle := func() {
		time.Sleep(time.Until(lastEdit.Truncate(time.Second).Add(time.Second + 30*time.Millisecond)))
		run(nil, nil, c.copse, "-C", c.repo, "list", "--json", "--status")
	}
	t, cpu := roundsCPU(c.statusRounds, map[string]func() time.Duration{
		"cold": func() time.Duration {
			must(os.RemoveAll(cache))
			return run(nil, nil, c.copse, "-C", c.repo, "list", "--json", "--status")
		},
		"warm": func() time.Duration {
			settle()
			return run(nil, nil, c.copse, "-C", c.repo, "list", "--json", "--status")
		},
		// One file edited in each of 10 worktrees since the last read: those 10 run git.
		"edited": func() time.Duration {
			settle()
			edits++
			for i := 0; i < 10 && i < len(trees); i++ {
				f := filepath.Join(trees[(i*len(trees)/10+edits)%len(trees)], "f2.txt")
				must(os.WriteFile(f, []byte(fmt.Sprintf("edit %d\n", edits)), 0o644))
			}
			lastEdit = time.Now()
			return run(nil, nil, c.copse, "-C", c.repo, "list", "--json", "--status")
		},
		// The listing after a cold one, with nothing changed between: warm only if the
		// cold listing stored every status (where each branch tracks an upstream, it once
		// stored none, and the second listing was cold again).
		"second": func() time.Duration {
			settle()
			must(os.RemoveAll(cache))
			run(nil, nil, c.copse, "-C", c.repo, "list", "--json", "--status")
			return run(nil, nil, c.copse, "-C", c.repo, "list", "--json", "--status")
		},
		"floor": func() time.Duration { return run(nil, nil, c.floor, "status", c.repo) },
	})
	// The targets: at 20 files a warm listing proves each worktree in a few stat
	// calls; at 20,000 a proof still stats every file the index lists (git status does too,
	// and more), so its target is looser.
	warmTarget, editTarget := 0.15, 0.2
	if c.files >= 20000 {
		warmTarget, editTarget = 0.4, 0
	}
	rep.add("status-cold", "copse list --json --status, no cache / Go pool running the same git commands", t["cold"], t["floor"], 0, 0)
	rep.add("status-cold-cpu", "the same in CPU time (user+system, git included)", cpu["cold"], cpu["floor"], 1.0, 0)
	rep.add("status-warm", "the same, nothing changed since the last read / the pool", t["warm"], t["floor"], 0, 0)
	rep.add("status-warm-cpu", "the same in CPU time", cpu["warm"], cpu["floor"], warmTarget, 0)
	rep.add("status-edit", "the same, one file edited in each of 10 worktrees / the pool", t["edited"], t["floor"], 0, 0)
	rep.add("status-edit-cpu", "the same in CPU time", cpu["edited"], cpu["floor"], editTarget, 0)
	rep.add("status-2nd-cpu", "the listing straight after a cold one / the pool, CPU (warm if the cold one stored all)", cpu["second"], cpu["floor"], warmTarget, 0)
}

// check compares the statuses of a copse list --json --status (file) with git's own in
// each worktree, read as the floor reads them: every status copse shows must be git's.
func check(repo, file string) {
	b, err := os.ReadFile(file)
	must(err)
	var l struct {
		Worktrees []struct {
			Path   string
			Status *struct {
				Staged, Unstaged, Untracked, Conflicted, Ahead, Behind int
				Upstream, Error                                        string
			}
		}
	}
	must(json.Unmarshal(b, &l))
	bad := 0
	for _, w := range l.Worktrees {
		cmd := exec.Command("git", "-C", w.Path, "status", "--porcelain=v2", "--branch", "-z")
		cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
		out, err := cmd.Output()
		must(err)
		g, err := gitx.ParseStatus(out)
		must(err)
		s := w.Status
		if s == nil || s.Error != "" || s.Staged != g.Staged || s.Unstaged != g.Unstaged || s.Untracked != g.Untracked ||
			s.Conflicted != g.Conflicted || s.Upstream != g.Upstream || s.Ahead != g.Ahead || s.Behind != g.Behind {
			bad++
			fmt.Fprintf(os.Stderr, "%s: copse shows %+v, git says %+v\n", w.Path, s, g)
		}
	}
	if bad > 0 || len(l.Worktrees) == 0 {
		must(fmt.Errorf("%d of %d statuses differ from git's", bad, len(l.Worktrees)))
	}
	fmt.Printf("check: all %d statuses copse showed (warm) are git's\n", len(l.Worktrees))
}

// madeGroup compares worktrees as copse create leaves them (their index refreshed once the
// checkout's second passed, and git's untracked cache written where the repository allows
// it) with the same worktrees as git worktree add leaves them (racily clean, no untracked
// cache): today's floor is the parallel pool of git status over the latter.
func madeGroup(c config, rep *report) {
	cache := filepath.Join(c.made, ".git", "copse-status")
	_, cpu := roundsCPU(c.statusRounds, map[string]func() time.Duration{
		"copse": func() time.Duration {
			must(os.RemoveAll(cache))
			return run(nil, nil, c.copse, "-C", c.made, "list", "--json", "--status")
		},
		"floor-made": func() time.Duration { return run(nil, nil, c.floor, "status", c.made) },
		"floor-git":  func() time.Duration { return run(nil, nil, c.floor, "status", c.repo) },
	})
	rep.add("made-cpu", "list --json --status (no cache) on copse-made worktrees / the floor on git-made ones, CPU", cpu["copse"], cpu["floor-git"], 0.5, 0)
	rep.add("made-floor-cpu", "the floor on copse-made worktrees / on git-made ones, CPU (what the refresh buys)", cpu["floor-made"], cpu["floor-git"], 0, 0)
	rep.add("made-own-cpu", "list --json --status (no cache) / the floor, both on copse-made worktrees, CPU", cpu["copse"], cpu["floor-made"], 0, 0)
}

// benchTrees lists the linked worktrees bench.sh made (their directories).
func benchTrees(repo string) []string {
	trees, err := filepath.Glob(repo + ".worktrees/*")
	must(err)
	slices.Sort(trees)
	return trees
}

// tmuxServer is a private tmux server with one session, 100x30.
type tmuxServer struct{ sock string }

func startTmux() *tmuxServer {
	t := &tmuxServer{sock: fmt.Sprintf("copse-bench-%d", os.Getpid())}
	must(t.cmd("-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", "100", "-y", "30", "sleep", "100000").Run())
	atExit = append(atExit, t.kill)
	return t
}

func (t *tmuxServer) cmd(args ...string) *exec.Cmd {
	return exec.Command("tmux", append([]string{"-L", t.sock}, args...)...)
}

func (t *tmuxServer) kill() { t.cmd("kill-server").Run() }

// window starts argv in a new window and returns its pane id.
func (t *tmuxServer) window(argv ...string) string {
	out, err := t.cmd(append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "bench"}, argv...)...).Output()
	must(err)
	return strings.TrimSpace(string(out))
}

func (t *tmuxServer) capture(pane string) string {
	out, _ := t.cmd("capture-pane", "-p", "-t", pane).Output()
	return string(out)
}

func (t *tmuxServer) killPane(pane string) { t.cmd("kill-pane", "-t", pane).Run() }

// waitScreen polls the pane until done(screen) holds, and returns the time since start.
func (t *tmuxServer) waitScreen(pane string, start time.Time, done func(string) bool) (time.Duration, string) {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		// The pause keeps the polling (a tmux client per capture) from taking a CPU away
		// from what is measured; it costs both sides the same ≤2 ms of resolution.
		if s := t.capture(pane); done(s) {
			return time.Since(start), s
		}
	}
	must(fmt.Errorf("pane %s never showed what was expected; screen:\n%s", pane, t.capture(pane)))
	return 0, ""
}

// tmuxGroup runs the tty-child inside a pane and reads its results.
func tmuxGroup(c config, t *tmuxServer, rep *report) {
	out := fmt.Sprintf("%s/tty-child-%d.json", os.TempDir(), os.Getpid())
	defer os.Remove(out)
	pane := t.window(c.self, "tty-child", c.copse, c.repo, fmt.Sprint(c.rounds), out)
	defer t.killPane(pane)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		if b, err := os.ReadFile(out); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			var both struct{ Wall, CPU map[string][]time.Duration }
			must(json.Unmarshal(b, &both))
			got, cpu := both.Wall, both.CPU
			rep.add("tmux-version", "copse version on the pane, inside tmux / TMUX unset", got["version-tmux"], got["version-plain"], 1.05, 0)
			rep.add("tmux-list", "copse list on the pane, inside tmux / TMUX unset", got["list-tmux"], got["list-plain"], 1.05, 0)
			rep.add("tty-version", "copse version on the pane inside tmux / to /dev/null", got["version-tmux"], got["version-null"], 1.05, 0)
			rep.add("tmux-cpu", "copse version in CPU time (its children included), inside tmux / TMUX unset", cpu["version-tmux"], cpu["version-plain"], 0, 0)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	must(fmt.Errorf("the in-tmux timings never arrived; pane:\n%s", t.capture(pane)))
}

// ttyChild runs inside a tmux pane: stdout is the pane, TMUX is set.
func ttyChild(args []string) {
	copse, repo, out := args[0], args[1], args[3]
	var n int
	fmt.Sscan(args[2], &n)
	var plain []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			plain = append(plain, kv)
		}
	}
	tty := os.Stdout
	got, cpu := roundsCPU(n, map[string]func() time.Duration{
		"version-tmux":  func() time.Duration { return run(tty, nil, copse, "version") },
		"version-plain": func() time.Duration { return run(tty, plain, copse, "version") },
		"version-null":  func() time.Duration { return run(nil, nil, copse, "version") },
		"list-tmux":     func() time.Duration { return run(tty, nil, copse, "-C", repo, "list") },
		"list-plain":    func() time.Duration { return run(tty, plain, copse, "-C", repo, "list") },
	})
	b, err := json.Marshal(struct{ Wall, CPU map[string][]time.Duration }{got, cpu})
	must(err)
	must(os.WriteFile(out, append(b, '\n'), 0o600))
}

func pickerGroup(c config, t *tmuxServer, rep *report) {
	// The figures are for a repository whose statuses the cache holds (the picker's rows on
	// screen come from it in one frame): one read once the clock has left the second of
	// whatever changed last stores every worktree's. Without it each round would start
	// cold and be killed before its pool could store anything.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 30*time.Millisecond)))
	run(nil, nil, c.copse, "-C", c.repo, "list", "--json", "--status")
	var first, visible []time.Duration
	var cachedFirst []bool // the first rows came with their statuses
	jobs := map[string]func() time.Duration{
		"git": func() time.Duration {
			return run(nil, nil, "git", "-C", c.repo, "worktree", "list", "--porcelain", "-z")
		},
		"screen": func() time.Duration {
			start := time.Now()
			pane := t.window(c.floor, "screen")
			d, _ := t.waitScreen(pane, start, func(s string) bool { return strings.Contains(s, "FLOOR-SCREEN-READY") })
			t.killPane(pane)
			return d
		},
		// The same floor in one program, timed exactly as the picker is: its git list runs
		// in the pane, under the load the capture-pane polling puts on the machine, as the
		// picker's does.
		"listscreen": func() time.Duration {
			start := time.Now()
			pane := t.window(c.floor, "listscreen", c.repo)
			d, _ := t.waitScreen(pane, start, func(s string) bool { return strings.Contains(s, "FLOOR-SCREEN-READY") })
			t.killPane(pane)
			return d
		},
		"picker": func() time.Duration {
			start := time.Now()
			pane := t.window(c.copse, "-C", c.repo)
			d1, s1 := t.waitScreen(pane, start, func(s string) bool { return strings.Contains(s, "bench/b") })
			d2, _ := t.waitScreen(pane, start, func(s string) bool { return strings.Contains(s, "bench/b") && !pendingOnScreen(s) })
			t.killPane(pane)
			first, visible = append(first, d1), append(visible, d2)
			cachedFirst = append(cachedFirst, !pendingOnScreen(s1))
			return d1
		},
	}
	got := rounds(c.pickerRounds, jobs)
	first, visible, cachedFirst = first[1:], visible[1:], cachedFirst[1:] // drop the warm-up
	floor := make([]time.Duration, len(got["git"]))
	for i := range floor {
		floor[i] = got["git"][i] + got["screen"][i]
	}
	rep.add("picker-first", "picker's first rows / (git worktree list, then a static screen, in one tmux pane)", first, got["listscreen"], 1.2, 0)
	rep.add("picker-parts", "picker's first rows / (git worktree list alone + a static screen in tmux)", first, floor, 0, 0)
	rep.add("picker-status", "picker's statuses on screen / the one-pane floor", visible, got["listscreen"], 0, 0)
	rep.add("picker-rows", "picker's statuses on screen / its first rows", visible, first, 1.5, 0)
	n := 0
	for _, c := range cachedFirst {
		if c {
			n++
		}
	}
	rep.note(fmt.Sprintf("picker-cached  %d of %d starts showed the cached statuses with the first rows (%.0f %%; target ≥ 95 %%: %s)",
		n, len(cachedFirst), 100*float64(n)/float64(len(cachedFirst)), map[bool]string{true: "ok", false: "MISSED"}[n*100 >= 95*len(cachedFirst)]))
}

// pendingOnScreen: a list row still shows "…" (status being computed).
func pendingOnScreen(s string) bool {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := sc.Text(); strings.Contains(l, "bench/") && strings.Contains(l, "…") {
			return true
		}
	}
	return false
}

type line struct {
	key, what       string
	a, b            []time.Duration
	target, stretch float64
	med, p25, p75   float64
	medA, medB      float64
}

type report struct {
	lines []line
	notes []string
}

// note adds a line printed as it is after the ratios.
func (r *report) note(s string) { r.notes = append(r.notes, s) }

func (r *report) add(key, what string, a, b []time.Duration, target, stretch float64) {
	if len(a) != len(b) || len(a) == 0 {
		must(fmt.Errorf("%s: %d and %d timings", key, len(a), len(b)))
	}
	ratios := make([]float64, len(a))
	for i := range a {
		ratios[i] = float64(a[i]) / float64(b[i])
	}
	l := line{key: key, what: what, a: a, b: b, target: target, stretch: stretch}
	l.med, l.p25, l.p75 = quantile(ratios, 0.5), quantile(ratios, 0.25), quantile(ratios, 0.75)
	l.medA, l.medB = ms(a), ms(b)
	r.lines = append(r.lines, l)
}

func ms(ds []time.Duration) float64 {
	f := make([]float64, len(ds))
	for i, d := range ds {
		f[i] = float64(d) / 1e6
	}
	return quantile(f, 0.5)
}

func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

func (r *report) print() {
	fmt.Printf("%-14s %-6s %-13s %-6s %-22s %s\n", "", "ratio", "(p25–p75)", "rounds", "medians (ms)", "")
	for _, l := range r.lines {
		verdict := ""
		if l.target > 0 {
			verdict = fmt.Sprintf("target ≤ %.2f: ok", l.target)
			if l.med > l.target {
				verdict = fmt.Sprintf("target ≤ %.2f: MISSED", l.target)
			}
			if l.stretch > 0 {
				s := "ok"
				if l.med > l.stretch {
					s = "not yet"
				}
				verdict += fmt.Sprintf(" (stretch ≤ %.2f: %s)", l.stretch, s)
			}
		}
		fmt.Printf("%-14s %-6.2f %-13s %-6d %-22s %s\n", l.key, l.med, fmt.Sprintf("(%.2f–%.2f)", l.p25, l.p75), len(l.a),
			fmt.Sprintf("%.1f / %.1f", l.medA, l.medB), verdict)
		fmt.Printf("%-14s %s\n", "", l.what)
	}
	for _, n := range r.notes {
		fmt.Println(n)
	}
}
