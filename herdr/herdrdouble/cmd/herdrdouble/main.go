// Command herdrdouble is a test double of the Herdr CLI (`herdr --version` and
// `herdr worktree list|create|open|remove`, `herdr workspace list`), written from Herdr
// v0.8.2's CLI as package herdr speaks it (herdr/PROTOCOL-workspaces.md for the workspace
// list). It drives real git the way the Herdr server would, keeps the server's workspaces
// in a JSON state file, and has knobs that make it misbehave on purpose. Tests build it
// with herdrdouble.Build; copse itself must never run it or import it.
//
// Environment:
//
//	FAKE_HERDR_STATE          state file (required for worktree and workspace commands)
//	FAKE_HERDR_VERSION        version printed by --version (default 0.8.2)
//	FAKE_HERDR_WORKTREES_DIR  default worktree root (else $HOME/.herdr/worktrees)
//	FAKE_HERDR_DELAY          Go duration slept before acting (nothing changed if killed)
//	FAKE_HERDR_DELAY_AFTER    Go duration slept after acting, before replying (git changed if killed)
//	FAKE_HERDR_ERROR          error code to answer with (exit 1); nothing changes
//	FAKE_HERDR_SERVER_DOWN=1  answer server_not_running (exit 1); nothing changes
//	FAKE_HERDR_IO_ERROR=1     fail like a Rust I/O error: non-JSON stderr, exit 1; nothing changes
//	FAKE_HERDR_LIE            no_git | wrong_type | other_path (see lie.go)
//	FAKE_HERDR_LOG            file that gets one JSON line per invocation: {"argv":[…],"dir":"…"}
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// exitMisconfigured marks a broken test setup, distinct from every exit code Herdr uses.
const exitMisconfigured = 70

type knobs struct {
	version      string
	state        string
	worktreesDir string
	delay        time.Duration
	delayAfter   time.Duration
	forcedError  string
	serverDown   bool
	ioError      bool
	lie          string
	log          string
}

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	k, err := loadKnobs()
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake herdr: %v\n", err)
		return exitMisconfigured
	}
	logInvocation(k.log, args)
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "fake herdr: only --version, -V, worktree and workspace list are simulated")
		return 2
	}
	switch args[0] {
	case "--version", "-V":
		time.Sleep(k.delay)
		fmt.Printf("herdr %s\n", k.version)
		return 0
	case "worktree":
		return worktree(k, args[1:])
	case "workspace":
		return workspace(k, args[1:])
	default:
		fmt.Fprintf(os.Stderr, "unknown command: %s\n", args[0])
		return 2
	}
}

func loadKnobs() (knobs, error) {
	k := knobs{
		version:      os.Getenv("FAKE_HERDR_VERSION"),
		state:        os.Getenv("FAKE_HERDR_STATE"),
		worktreesDir: os.Getenv("FAKE_HERDR_WORKTREES_DIR"),
		forcedError:  os.Getenv("FAKE_HERDR_ERROR"),
		serverDown:   os.Getenv("FAKE_HERDR_SERVER_DOWN") == "1",
		ioError:      os.Getenv("FAKE_HERDR_IO_ERROR") == "1",
		lie:          os.Getenv("FAKE_HERDR_LIE"),
		log:          os.Getenv("FAKE_HERDR_LOG"),
	}
	if k.version == "" {
		k.version = "0.8.2"
	}
	switch k.lie {
	case "", lieNoGit, lieWrongType, lieOtherPath:
	default:
		return k, fmt.Errorf("FAKE_HERDR_LIE=%q: want no_git, wrong_type or other_path", k.lie)
	}
	for name, dst := range map[string]*time.Duration{"FAKE_HERDR_DELAY": &k.delay, "FAKE_HERDR_DELAY_AFTER": &k.delayAfter} {
		if v := os.Getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return k, fmt.Errorf("%s: %v", name, err)
			}
			*dst = d
		}
	}
	return k, nil
}

// logInvocation lets tests see exactly what argv reached "herdr", and count invocations.
func logInvocation(path string, args []string) {
	if path == "" {
		return
	}
	dir, _ := os.Getwd()
	line, _ := json.Marshal(map[string]any{"argv": args, "dir": dir})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}

// worktree runs one `herdr worktree …` invocation: local argument errors first (exit 2,
// before any "socket" use, as upstream), then the server side.
func worktree(k knobs, args []string) int {
	req, code := parseArgs(args)
	if code >= 0 {
		return code
	}
	time.Sleep(k.delay)
	switch {
	case k.serverDown:
		return replyError("cli:worktree:"+req.sub, "server_not_running", fmt.Sprintf(
			"no herdr server is running at %s; run `herdr` to start or attach it", socketPath()))
	case k.ioError:
		// What main() -> io::Result prints for an I/O error mid-request (§2.8).
		fmt.Fprintln(os.Stderr, `Error: Os { code: 104, kind: ConnectionReset, message: "Connection reset by peer" }`)
		return 1
	case k.forcedError != "":
		return replyError("cli:worktree:"+req.sub, k.forcedError, forcedMessage(k.forcedError))
	}
	if k.state == "" {
		fmt.Fprintln(os.Stderr, "fake herdr: FAKE_HERDR_STATE is not set")
		return exitMisconfigured
	}
	result, apiErr, err := serve(k, req)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake herdr: %v\n", err)
		return exitMisconfigured
	}
	if apiErr != nil {
		return replyError("cli:worktree:"+req.sub, apiErr.code, apiErr.msg)
	}
	// The server has finished (git and state are changed); a client killed now loses only
	// the reply.
	time.Sleep(k.delayAfter)
	lie(k.lie, req.sub, result)
	return replyOK("cli:worktree:"+req.sub, result)
}

func socketPath() string {
	if p := os.Getenv("HERDR_SOCKET_PATH"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	return strings.TrimSuffix(home, "/") + "/.config/herdr/herdr.sock"
}
