package core

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A repository can commit what its worktrees need, in two files at the main checkout's root:
//
//	.worktreeinclude  gitignore syntax: the files git does not track (.env, editor settings)
//	                  copied from the main checkout into a new worktree; the convention
//	                  worktrunk, Conductor and Claude Code read
//	.copse.conf       git-config syntax (read with git config --file, no includes):
//	                  copse.copy and copse.setup as in git config
//
// Copying is as safe as copse.copy (inside both checkouts, never through a link), so both
// apply at once. A copse.setup command in .copse.conf is code a cloned repository brings
// along: it runs only after a person approved that exact text on this machine, never
// because the repository was listed, opened or set up by an agent. Approvals live outside
// every repository, in $XDG_CONFIG_HOME/copse/approved (else ~/.config/copse/approved),
// mode 0600: one sha256 a line, of the main checkout's path and the command text, so a
// changed command, or the same command in another clone, asks again.

// ProjectConfigFile is the committed project config, at the main checkout's root.
const ProjectConfigFile = ".copse.conf"

// IncludeFile is the committed list of untracked files to copy, at the main checkout's root.
const IncludeFile = ".worktreeinclude"

// readInclude reads the .worktreeinclude patterns of the main checkout at root: its lines
// without comments, blank lines and unescaped trailing spaces (as git reads .gitignore). The
// file is opened inside the main checkout, so a link leading out of it is not followed.
func readInclude(root string) ([]string, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := r.ReadFile(IncludeFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := strings.TrimSuffix(sc.Text(), "\r")
		for strings.HasSuffix(l, " ") && !strings.HasSuffix(l, "\\ ") {
			l = l[:len(l)-1]
		}
		if l == "" || l[0] == '#' || strings.IndexByte(l, 0) >= 0 {
			continue
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// approvalsFile is where a person's approvals of project commands are kept, from the
// environment copse runs in ("" when neither XDG_CONFIG_HOME nor HOME is usable).
func approvalsFile(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "copse", "approved")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".config", "copse", "approved")
	}
	return ""
}

// approvalKey binds a command's text to the repository it may run in.
func approvalKey(root, command string) string {
	sum := sha256.Sum256([]byte(root + "\x00" + command))
	return hex.EncodeToString(sum[:])
}

// readApprovals reads the approval keys. A file others can write is not trusted: anyone
// who can add a line could approve a command for this person.
func readApprovals(file string) (map[string]bool, error) {
	keys := map[string]bool{}
	if file == "" {
		return keys, nil
	}
	fi, err := os.Lstat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return keys, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("%s is not a regular file only its owner can write", file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keys[l] = true
		}
	}
	return keys, nil
}

// Unapproved returns the commands among cmds (a .copse.conf's) no person has approved yet
// for this repository on this machine, in order.
func (s *Service) Unapproved(cmds []string) ([]string, error) {
	return s.impl.Unapproved(cmds)
}

func (si *Env) Unapproved(cmds []string) ([]string, error) {
	file := approvalsFile(si.Opts.Getenv)
	if _, err := os.Lstat(file); err == nil {
		if err := checkApprovalsTrust(file, approvalsConfigDir(si.Opts.Getenv)); err != nil {
			return nil, err
		}
	}
	keys, err := readApprovals(file)
	if err != nil {
		return nil, Failed(CodeApprovalsUnreadable, err, "fix or remove the file, then approve again: `copse approve`",
			"cannot read the approved project commands: %s", Escape(err.Error()))
	}
	root := si.Root()
	var out []string
	for _, c := range cmds {
		if !keys[approvalKey(root, c)] && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Approve records that a person approved these exact project commands for this
// repository. Only the command line calls it, after asking at a terminal; no agent request
// (copse tool, MCP, pi) reaches it.
func (s *Service) Approve(commands []string) error {
	si := s.impl
	file := approvalsFile(si.Opts.Getenv)
	if file == "" {
		return Failed(CodeApprovalsUnreadable, nil, "set HOME or XDG_CONFIG_HOME to an absolute path",
			"nowhere to keep approvals: neither XDG_CONFIG_HOME nor HOME is an absolute path")
	}
	if err := checkApprovalsTrust(file, approvalsConfigDir(si.Opts.Getenv)); err != nil {
		return err
	}
	if _, err := readApprovals(file); err != nil {
		return Failed(CodeApprovalsUnreadable, err, "fix or remove the file, then approve again: `copse approve`",
			"cannot read the approved project commands: %s", Escape(err.Error()))
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return Failed(CodeApprovalsUnreadable, err, "check the directory", "cannot make %s: %s", Escape(filepath.Dir(file)), Escape(err.Error()))
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return Failed(CodeApprovalsUnreadable, err, "check the file", "cannot write %s: %s", Escape(file), Escape(err.Error()))
	}
	root := si.Root()
	var b strings.Builder
	for _, c := range commands {
		b.WriteString(approvalKey(root, c) + "\n")
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return Failed(CodeApprovalsUnreadable, err, "check the file", "cannot write %s: %s", Escape(file), Escape(err.Error()))
	}
	return f.Close()
}

// UnapprovedError refuses to run project commands no person approved; then says what to
// run once they are approved.
func UnapprovedError(cmds []string, then string) *Error {
	return Refused(CodeProjectCommandUnapproved,
		"a person approves them at a terminal with `copse approve` (agents cannot), then "+then,
		"%s asks to run %s no one approved on this machine: %s; nothing was copied or run",
		ProjectConfigFile, Plural(len(cmds), "setup command"), Escape(strings.Join(cmds, "; ")))
}
