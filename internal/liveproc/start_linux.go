package liveproc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

func startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// Fields are counted after the command name's last ')': the name may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// After ')' come field 3 (state) onwards: field 22 is f[19].
	if len(f) < 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}

// procReadable: /proc answers (a missing pid there means the process is gone).
func procReadable() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}
