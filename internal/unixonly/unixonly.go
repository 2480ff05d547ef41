// Package unixonly makes a build for a system copse does not support fail at once, with a
// message that says so, instead of with a list of missing syscalls. copse runs git, Herdr
// and users' commands in their own process groups (Setpgid, kill(-pgid)), asks Linux to
// kill them if copse dies (Pdeathsig) and serialises repositories with flock(2): Linux and
// macOS (and other Unix systems) have all of these, Windows has none. Every package that
// uses them imports this one for its side effect; it holds nothing and must never gain code.
package unixonly
