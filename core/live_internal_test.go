//go:build linux

package core

func pidsOf(l LiveSet) (procs, idle []int) {
	for _, p := range l.Procs {
		procs = append(procs, p.PID)
	}
	for _, p := range l.Idle {
		idle = append(idle, p.PID)
	}
	return procs, idle
}
