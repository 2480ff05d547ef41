package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/copse-dev/copse/core/coretest"
	"golang.org/x/sys/unix"
)

// The picker end to end: copse runs with a pseudo-terminal as its controlling terminal
// (what /dev/tty opens) while stdout is a pipe, as when a host runs `copse pick`.

type ptyRun struct {
	master *os.File
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	mu     sync.Mutex
	screen bytes.Buffer
	done   chan error
	read   chan struct{} // closed when the terminal has nothing more to read
}

func startInPTY(t *testing.T, r *coretest.Repo, env []string, args ...string) *ptyRun {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Skipf("cannot unlock a pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Skipf("cannot name a pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 100}); err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("cannot open the pseudo-terminal's other end: %v", err)
	}
	defer slave.Close()
	p := &ptyRun{master: master, done: make(chan error, 1), read: make(chan struct{})}
	p.cmd = exec.Command(copseBin, args...)
	p.cmd.Dir = r.Root
	p.cmd.Env = cleanEnv(r.Home, append([]string{"TERM=xterm-256color"}, env...)...)
	p.cmd.Stdin = slave
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.screen.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		master.Close()
	})
	return p
}

// waitScreen waits until the terminal shows s.
func (p *ptyRun) waitScreen(t *testing.T, s string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		p.mu.Lock()
		ok := strings.Contains(p.screen.String(), s)
		p.mu.Unlock()
		if ok {
			return
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t.Fatalf("the picker never showed %q; screen: %q\nstderr: %s", s, p.screen.String(), p.stderr.String())
}

// waitRaw waits until copse has put the terminal in raw mode, that is until Bubble Tea
// reads the keys. copse draws its first frame before that (so waitScreen can see rows
// while the terminal is still cooked), and a key written then meets the cooked mode,
// whose ICRNL turns enter into a newline (ctrl+j: down): the pick never comes. The
// master shares the terminal's settings, so this asks the terminal itself.
func (p *ptyRun) waitRaw(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		tio, err := unix.IoctlGetTermios(int(p.master.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatalf("reading the terminal's mode: %v", err)
		}
		if tio.Lflag&unix.ICANON == 0 {
			return
		}
	}
	t.Fatalf("copse never put the terminal in raw mode; stderr: %s", p.stderr.String())
}

// keys types s on the terminal once copse reads keys (waitRaw).
func (p *ptyRun) keys(t *testing.T, s string) {
	t.Helper()
	p.waitRaw(t)
	if _, err := p.master.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

func (p *ptyRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		// What copse wrote last may still be in the terminal's buffer: read it all (the
		// reader ends when no process holds the terminal any more) before the caller looks.
		select {
		case <-p.read:
		case <-time.After(5 * time.Second):
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		t.Fatalf("copse did not exit; stderr: %s", p.stderr.String())
		return -1
	}
}

func TestPickPrintsTheChosenPath(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/pick", "pick")
	p := startInPTY(t, r, nil, "pick")
	p.waitScreen(t, "feat/pick")
	p.keys(t, "\r")
	if code := p.wait(t); code != 0 || p.stdout.String() != r.Root+"\n" {
		t.Fatalf("pick: exit %d, stdout %q, stderr %s", code, p.stdout.String(), p.stderr.String())
	}
}

func TestPickJSONAndCancel(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	p := startInPTY(t, r, nil, "pick", "--json")
	p.waitScreen(t, "main")
	p.keys(t, "\r")
	if code := p.wait(t); code != 0 || !strings.Contains(p.stdout.String(), `"path":"`+r.Root+`"`) || !strings.Contains(p.stdout.String(), `"main":true`) {
		t.Fatalf("pick --json: exit %d, stdout %q, stderr %s", code, p.stdout.String(), p.stderr.String())
	}

	p = startInPTY(t, r, nil, "pick")
	p.waitScreen(t, "main")
	p.keys(t, "\x1b") // pick mode types q into the filter; esc with nothing typed quits
	if code := p.wait(t); code != 1 || p.stdout.String() != "" || !strings.Contains(p.stderr.String(), "nothing picked") {
		t.Fatalf("cancelled pick: exit %d, stdout %q, stderr %s", code, p.stdout.String(), p.stderr.String())
	}
}

// Plain `copse`: switching in the picker hands the path to the shell integration.
func TestPickerSwitchWritesCDFile(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	feat := r.AddWorktree("feat/go", "go")
	cdFile := filepath.Join(r.Home, "cd")
	os.WriteFile(cdFile, nil, 0o600)
	p := startInPTY(t, r, []string{"COPSE_CD_FILE=" + cdFile})
	p.waitScreen(t, "feat/go")
	// One write: the picker reads keys in order, so enter acts on the filtered list.
	p.keys(t, "/feat/go\r")
	code := p.wait(t)
	b, _ := os.ReadFile(cdFile)
	if code != 0 || string(b) != feat || p.stdout.String() != "" {
		t.Fatalf("picker switch: exit %d, cd file %q, stdout %q, stderr %s", code, b, p.stdout.String(), p.stderr.String())
	}
}

// The first thing on the terminal is the whole first frame with the rows: copse draws it
// the moment git's list is in, before Bubble Tea (which draws on its frame ticker and then
// asks the terminal about itself) takes over and redraws it in place. Quitting leaves the
// alternate screen as Bubble Tea does. NO_COLOR keeps colour out of that first frame too.
func TestPickerDrawsTheRowsFirst(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	r.AddWorktree("feat/first", "first")
	for _, env := range [][]string{nil, {"NO_COLOR=1"}} {
		p := startInPTY(t, r, env, "pick")
		p.waitScreen(t, "feat/first")
		p.keys(t, "\x1b")
		if code := p.wait(t); code != 1 {
			t.Fatalf("%v: exit %d, stderr %s", env, code, p.stderr.String())
		}
		select { // copse has exited; its last frame may still be on its way through the terminal
		case <-p.read:
		case <-time.After(10 * time.Second):
			t.Fatal("the terminal was never drained")
		}
		p.mu.Lock()
		out := p.screen.String()
		p.mu.Unlock()
		const enter = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"
		if !strings.HasPrefix(out, enter) {
			t.Fatalf("%v: the terminal got %q first, want the first frame", env, out[:min(len(out), 80)])
		}
		// The frame runs up to Bubble Tea's first output, an escape sequence that is not
		// a colour (SGR ends in m).
		frame := out[len(enter):]
		if i := firstNonSGR(frame); i >= 0 {
			frame = frame[:i]
		}
		for _, want := range []string{"copse", "main", "feat/first", r.Root} {
			if !strings.Contains(frame, want) {
				t.Errorf("%v: the first frame lacks %q: %q", env, want, frame)
			}
		}
		if env != nil && strings.Contains(frame, "\x1b[3") {
			t.Errorf("NO_COLOR: the first frame has colour: %q", frame)
		}
		if !strings.Contains(out[len(enter):], "\x1b[?1049l") {
			t.Errorf("%v: the alternate screen was never left: %q", env, out[max(0, len(out)-200):])
		}
	}
}

// firstNonSGR is the index of the first escape sequence in s that is not a colour or style
// (CSI … m), or -1.
func firstNonSGR(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '\x1b' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
				j++
			}
			if j < len(s) && s[j] == 'm' {
				i = j
				continue
			}
		}
		return i
	}
	return -1
}

// Outside a repository the picker says so on stderr and never touches the terminal.
func TestPickerOutsideARepositoryDrawsNothing(t *testing.T) {
	t.Parallel()
	r := coretest.New(t)
	outside := filepath.Join(r.Base, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	p := startInPTY(t, r, nil, "-C", outside, "pick")
	code := p.wait(t)
	select { // copse has exited: the terminal's last reader gets EIO once it is drained
	case <-p.read:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal was never drained")
	}
	p.mu.Lock()
	screen := p.screen.String()
	p.mu.Unlock()
	if code != 1 || !strings.Contains(p.stderr.String(), "not inside a git repository") || screen != "" {
		t.Fatalf("exit %d, stderr %q, terminal got %q", code, p.stderr.String(), screen)
	}
}
