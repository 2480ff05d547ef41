package remotequeue_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/copse-dev/copse/core/coretest"
	"github.com/copse-dev/copse/core/remotequeue"
	"github.com/copse-dev/copse/gitx"
)

func TestMain(m *testing.M) { os.Exit(coretest.Main(m)) }

// world is a git server (a bare repository reached by a file:// URL, so git's real
// receive-pack applies leases, atomic pushes and hooks) and machines that share nothing
// but it: each a clone with its own HOME.
type world struct {
	t    testing.TB
	base string
	bare string
	url  string
	m    []*machine
}

type machine struct {
	t    testing.TB
	name string
	dir  string
	env  []string
	hook *pushHook
	git  *gitx.Runner
}

// pushHook lets a test act (a foreign push, a rival's enqueue) just before a push of this
// machine runs, or bound the push's time, and counts pushes. Real git runs every command.
type pushHook struct {
	mu     sync.Mutex
	pushes int
	before func(n int)                                     // called with the push's number (1-based)
	wrap   func(context.Context) (context.Context, func()) // the push's context
}

func (h *pushHook) Exec(ctx context.Context, argv []string, real func(context.Context) ([]byte, error)) ([]byte, error) {
	if !slices.Contains(argv, "push") {
		return real(ctx)
	}
	h.mu.Lock()
	h.pushes++
	n, before, wrap := h.pushes, h.before, h.wrap
	h.mu.Unlock()
	if before != nil {
		before(n)
	}
	if wrap != nil {
		c, cancel := wrap(ctx)
		defer cancel()
		return real(c)
	}
	return real(ctx)
}

func (h *pushHook) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pushes
}

func newWorld(t testing.TB, machines int) *world {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, base: base, bare: filepath.Join(base, "server.git")}
	w.url = "file://" + w.bare
	w.run(base, coretest.Env(filepath.Join(base, "home-server")), "init", "-q", "--bare", "-b", "main", w.bare)
	for i := range machines {
		name := string(rune('a' + i))
		home := filepath.Join(base, "home-"+name)
		if err := os.MkdirAll(home, 0o755); err != nil {
			t.Fatal(err)
		}
		m := &machine{t: t, name: name, dir: filepath.Join(base, "clone-"+name), env: coretest.Env(home), hook: &pushHook{}}
		m.git = &gitx.Runner{Env: m.env, Exec: m.hook}
		w.m = append(w.m, m)
	}
	seed := w.m[0]
	w.run(base, seed.env, "init", "-q", "-b", "main", seed.dir)
	seed.write("README.md", "hello\n")
	seed.run("add", "README.md")
	seed.run("commit", "-q", "-m", "initial")
	seed.run("remote", "add", "origin", w.url)
	seed.run("push", "-q", "origin", "main")
	for _, m := range w.m[1:] {
		w.run(base, m.env, "clone", "-q", w.url, m.dir)
	}
	return w
}

func (w *world) run(dir string, env []string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// server runs git in the bare repository.
func (w *world) server(args ...string) string {
	w.t.Helper()
	return w.run(w.bare, coretest.Env(filepath.Join(w.base, "home-server")), args...)
}

// serverRef is a ref's value on the server, "" when absent.
func (w *world) serverRef(ref string) string {
	w.t.Helper()
	cmd := exec.Command("git", "-C", w.bare, "rev-parse", "-q", "--verify", ref)
	cmd.Env = append(os.Environ(), coretest.Env(filepath.Join(w.base, "home-server"))...)
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// hook installs a server hook script.
func (w *world) hook(name, script string) {
	w.t.Helper()
	coretest.WriteFile(w.t, filepath.Join(w.bare, "hooks", name), "#!/bin/sh\n"+script)
	if err := os.Chmod(filepath.Join(w.bare, "hooks", name), 0o755); err != nil {
		w.t.Fatal(err)
	}
}

func (m *machine) run(args ...string) string {
	m.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", m.dir}, args...)...)
	cmd.Env = append(os.Environ(), m.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		m.t.Fatalf("machine %s: git %s: %v\n%s", m.name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (m *machine) write(rel, content string) {
	m.t.Helper()
	coretest.WriteFile(m.t, filepath.Join(m.dir, rel), content)
}

// branch makes a branch of one commit adding file on top of start and returns its tip.
// It uses plumbing only, so machines' goroutines never share an index.
func (m *machine) branch(name, start, file, content string) string {
	m.t.Helper()
	blob := m.pipe(content, "hash-object", "-w", "--stdin")
	base := m.run("rev-parse", start+"^{tree}")
	entries := m.run("ls-tree", base)
	tree := m.pipe(entries+"\n100644 blob "+blob+"\t"+file+"\n", "mktree")
	tip := m.run("commit-tree", "-p", start, "-m", "add "+file, tree)
	m.run("update-ref", "refs/heads/"+name, tip)
	return tip
}

func (m *machine) pipe(in string, args ...string) string {
	m.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", m.dir}, args...)...)
	cmd.Env = append(os.Environ(), m.env...)
	cmd.Stdin = strings.NewReader(in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		m.t.Fatalf("machine %s: git %s: %v\n%s", m.name, strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// origin is the server's main as this machine fetched it now.
func (m *machine) origin() string {
	m.t.Helper()
	m.run("fetch", "-q", "origin")
	return m.run("rev-parse", "refs/remotes/origin/main")
}

func (m *machine) queue(target string) *remotequeue.Remote {
	return &remotequeue.Remote{Git: m.git, Dir: m.dir, Remote: "origin", Target: target}
}

func (m *machine) job(branch, tip string) remotequeue.Job {
	return remotequeue.Job{Branch: branch, Tip: tip, Machine: "machine-" + m.name, Session: "s-" + m.name, Test: "go test ./..."}
}

func ctx(t testing.TB) context.Context { return t.Context() }
