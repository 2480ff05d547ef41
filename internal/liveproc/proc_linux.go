//go:build linux

package liveproc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
)

type raw struct {
	pid, ppid int
	cwd       string
	hidden    bool
}

func read(roots []string, envKeys []string) (*Scan, error) {
	if len(roots) == 0 {
		return &Scan{}, nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, errors.Join(ErrUnknown, err)
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return nil, errors.Join(ErrUnknown, err) // not a procfs
	}
	self := os.Getpid()
	set := newRootSet(roots)
	var all []raw
	parent := map[int]int{}
	children := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		r, ok := readRaw(pid)
		if !ok {
			continue // gone while we looked
		}
		parent[pid] = r.ppid
		children[r.ppid]++
		all = append(all, r)
	}
	// copse's ancestors, walked by parent pid from this process.
	anc := map[int]bool{}
	for p := parent[self]; p > 0 && !anc[p]; p = parent[p] {
		anc[p] = true
	}
	sc := &Scan{Roots: make([][]Proc, len(roots)), parent: parent}
	for _, r := range all {
		if r.pid == self || descends(parent, r.pid, self) {
			continue // copse, and what it runs (git status in that worktree)
		}
		if r.hidden {
			sc.Hidden++
			continue
		}
		i, inside, open := -1, "", false
		if r.cwd != "" {
			i, inside = set.deepest(r.cwd), r.cwd
		}
		if i < 0 {
			if anc[r.pid] {
				continue // the shell that ran copse, sitting elsewhere
			}
			if j, f := openInside(r.pid, set); j >= 0 {
				i, inside, open = j, f, true
			}
		}
		if i < 0 {
			continue
		}
		argv := cmdline(r.pid)
		p := Proc{PID: r.pid, Cmdline: argv, Dir: r.cwd, Inside: inside, OpenFile: open,
			Shell: isShell(argv), Children: children[r.pid], Ancestor: anc[r.pid]}
		if len(envKeys) > 0 {
			p.Env = environ(r.pid, envKeys)
		}
		sc.Roots[i] = append(sc.Roots[i], p)
	}
	return sc, nil
}

// descends: pid's chain of parents reaches ancestor.
func descends(parent map[int]int, pid, ancestor int) bool {
	seen := map[int]bool{}
	for p := parent[pid]; p > 0 && !seen[p]; p = parent[p] {
		if p == ancestor {
			return true
		}
		seen[p] = true
	}
	return false
}

// readRaw reads one process's parent and working directory. ok is false when
// the process is gone; hidden is set when it exists but cannot be looked into.
func readRaw(pid int) (raw, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return raw{}, false
	}
	r := raw{pid: pid, ppid: ppidOf(stat)}
	cwd, err := os.Readlink(dir + "/cwd")
	if err != nil {
		// EACCES: another user's process; ENOENT: it exited, or is a zombie (no cwd).
		if errors.Is(err, os.ErrPermission) {
			r.hidden = true
		}
		return r, true
	}
	r.cwd = clean(cwd)
	return r, true
}

// openInside is the first file pid holds open inside one of roots: the root's index and
// the file. Files are read only for processes whose working directory is elsewhere.
func openInside(pid int, roots rootSet) (int, string) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return -1, ""
	}
	for _, fd := range fds {
		t, err := os.Readlink(dir + fd.Name())
		if err != nil || !strings.HasPrefix(t, "/") {
			continue // socket:[…], pipe:[…], anon_inode:…, or closed meanwhile
		}
		if i := roots.deepest(clean(t)); i >= 0 {
			return i, clean(t)
		}
	}
	return -1, ""
}

// clean drops the kernel's " (deleted)" mark: a deleted file still open inside the tree,
// or a deleted working directory, still means a process works there.
func clean(p string) string { return strings.TrimSuffix(p, " (deleted)") }

// ppidOf reads field 4 of /proc/<pid>/stat; the command name (field 2) may hold spaces
// and parentheses, so fields are counted after its last ')'.
func ppidOf(stat []byte) int {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

func environ(pid int, keys []string) map[string]string {
	out := make(map[string]string, len(keys))
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return out
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		for _, k := range keys {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				out[k] = v
			}
		}
	}
	return out
}

func marked(key, value string) ([]Proc, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, errors.Join(ErrUnknown, err)
	}
	mark := []byte(key + "=" + value + "\x00")
	self := os.Getpid()
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		// A zombie has no environment left, and another user's cannot be read: neither is listed.
		if err != nil || !(bytes.HasPrefix(env, mark) || bytes.Contains(env, append([]byte{0}, mark...))) {
			continue
		}
		argv := cmdline(pid)
		out = append(out, Proc{PID: pid, Cmdline: argv, Shell: isShell(argv)})
	}
	return out, nil
}

// readingTerminal: pid, or a process below it (a few levels: a wrapper shell, then the
// agent), is blocked reading a terminal on its standard input — waiting for a person. The
// kernel names that wait "n_tty_read" (older) or "wait_woken" (newer) in wchan; a program
// that waits in poll or epoll is not seen.
func readingTerminal(pid int) bool {
	return readingBelow(pid, 4)
}

func readingBelow(pid, depth int) bool {
	if waitsOnTTY(pid) {
		return true
	}
	if depth == 0 {
		return false
	}
	for _, c := range childrenOf(pid) {
		if readingBelow(c, depth-1) {
			return true
		}
	}
	return false
}

func waitsOnTTY(pid int) bool {
	w, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/wchan")
	if err != nil || (string(w) != "n_tty_read" && string(w) != "wait_woken") {
		return false
	}
	in, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/0")
	return err == nil && (strings.HasPrefix(in, "/dev/pts/") || strings.HasPrefix(in, "/dev/tty"))
}

func childrenOf(pid int) []int {
	var out []int
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	for _, t := range tasks {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

func comm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSuffix(string(b), "\n")
}

func foreground(pid int) Foreground {
	kids := childrenOf(pid)
	f := Foreground{Name: comm(pid), PID: pid, Children: len(kids), Reading: readingTerminal(pid)}
	// Below a wrapper shell (sh -c 'agent …'), the agent is the first program that is
	// not a shell.
	for depth, cur := 0, kids; depth < 3 && isShell([]string{f.Name}) && len(cur) > 0; depth++ {
		f.Name, f.PID = comm(cur[0]), cur[0]
		cur = childrenOf(cur[0])
	}
	return f
}

// stopped reads field 3 (the state) of /proc/<pid>/stat, after the command name's last ')'.
func stopped(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(stat[i+1:]))
	return len(f) > 0 && (f[0] == "T" || f[0] == "t")
}

func ancestors() []int {
	var out []int
	seen := map[int]bool{}
	for pid := os.Getppid(); pid > 1 && !seen[pid]; {
		seen[pid] = true
		out = append(out, pid)
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		pid = ppidOf(stat)
	}
	return out
}
