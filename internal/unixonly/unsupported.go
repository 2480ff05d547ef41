//go:build !unix

package unixonly

// This file is compiled only on systems that are not Unix. The undefined name below is the
// error message: copse needs process groups, flock(2) and kill(2).
const _ = copse_runs_on_Linux_and_macOS_only__it_needs_process_groups_flock_and_kill
