package core

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The approvals file says which project commands may run; anyone who can write it, or
// replace it (write a directory above it), could approve a command for this person. So, as
// ssh's StrictModes treats ~/.ssh, it is trusted only when it and every directory above it
// up to the user's config directory (that one included) are owned by the user (or root)
// and writable by neither group nor others. Else copse refuses, naming the unsafe path.

// approvalsConfigDir is the directory the approvals file's trust is checked up to: the
// user's config directory ($XDG_CONFIG_HOME, else ~/.config; "" when neither is usable).
func approvalsConfigDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".config")
	}
	return ""
}

// checkApprovalsTrust refuses (approvals_unsafe) an approvals file at file that is not
// safe to trust, or one of its directories up to top; a path that does not exist yet is
// not checked (nothing there approves anything; Approve makes the directories 0700).
func checkApprovalsTrust(file, top string) error {
	if file == "" {
		return nil
	}
	fi, err := os.Lstat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Failed(CodeApprovalsUnreadable, err, "check the file", "cannot check %s: %s", Escape(file), Escape(err.Error()))
	case !fi.Mode().IsRegular():
		return approvalsUnsafe(file, "is not a regular file (a symbolic link, a directory, …)", "remove it, then approve again: `copse approve`")
	default:
		if e := unsafeOwnerOrMode(file, fi); e != nil {
			return e
		}
	}
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		// A directory is checked where it leads (a config directory kept elsewhere by a
		// dotfiles manager is what holds the file).
		st, err := os.Stat(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Failed(CodeApprovalsUnreadable, err, "check the directory", "cannot check %s: %s", Escape(dir), Escape(err.Error()))
		}
		if err == nil {
			if e := unsafeOwnerOrMode(dir, st); e != nil {
				return e
			}
		}
		if dir == top || dir == filepath.Dir(dir) || top == "" {
			return nil
		}
	}
}

// unsafeOwnerOrMode is the refusal for path (with fi) when someone other than the user
// (or root) owns it or group or others may write it; nil when it is safe.
func unsafeOwnerOrMode(path string, fi fs.FileInfo) *Error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := int(st.Uid); uid != os.Getuid() && uid != 0 {
			return approvalsUnsafe(path, fmt.Sprintf("is owned by uid %d, not by you (uid %d)", uid, os.Getuid()),
				"make it yours (chown), or remove the approvals file, then approve again")
		}
	}
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		who := "group and others"
		switch {
		case m&0o020 == 0:
			who = "others"
		case m&0o002 == 0:
			who = "its group"
		}
		return approvalsUnsafe(path, fmt.Sprintf("is writable by %s (mode %04o)", who, m),
			"chmod go-w "+QuoteDisplay(path)+", then check what the approvals file holds (`copse approve` asks again for what is not in it)")
	}
	return nil
}

func approvalsUnsafe(path, why, hint string) *Error {
	return Refused(CodeApprovalsUnsafe, hint,
		"the approved project commands are not trusted: %s %s, so anyone who can write there could approve a command for you; nothing ran",
		Escape(path), why)
}
