// Package tmux is the only code in copse that runs `tmux`. It builds every command through
// one checked argument builder (targets only by tmux's own ids — $N sessions, @N windows,
// %N panes — never by a name a branch could forge; every value a separate argument, and
// escaped where tmux would expand it as a format), runs it as a bounded child process on
// the server of one socket, and parses `-F` output framed by a separator made fresh for
// each run, so no window name, path or command can forge a field or a row.
//
// It decides no policy: which window belongs to which worktree, and whether one may be
// closed, is core's business. It imports only the standard library and internal/textsafe.
package tmux
