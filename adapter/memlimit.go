package adapter

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// The default soft memory limit follows the container, as GOMAXPROCS
// follows its CPU quota: 7/8 of the cgroup's memory limit (448 MiB in a
// 512 MiB container, the size the stores' default budgets are sized for),
// leaving the rest for what the runtime does not count. With no cgroup
// limit (a bare host, a container without one) it is hostMemoryLimit: a
// fixed soft limit close under a working set, as 448 MiB is for 10,000
// open streams (about 420 MiB), makes the GC run back to back and costs
// every stream latency for memory nothing else asked for.
const (
	// hostMemoryLimit is the default with no cgroup memory limit: the
	// stores' default budgets (288 MiB together) plus 10,000 open streams
	// (about 45 KiB each) with the GC's headroom.
	hostMemoryLimit = 1 << 30
	// unlimited: cgroup v1 writes "no limit" as a huge page-rounded
	// number, v2 as "max".
	unlimited = 1 << 62
)

// DefaultMemoryLimit is the soft memory limit used when memoryLimit is not
// set: 7/8 of this process's cgroup memory limit, or hostMemoryLimit.
func DefaultMemoryLimit() int64 {
	self, _ := os.ReadFile("/proc/self/cgroup")
	return memoryLimitUnder(cgroupMemory("/sys/fs/cgroup", self))
}

// memoryLimitUnder is the default soft limit under a cgroup memory limit
// (0: none).
func memoryLimitUnder(cgroup int64) int64 {
	if cgroup > 0 {
		return cgroup / 8 * 7
	}
	return hostMemoryLimit
}

// cgroupMemory is the memory limit that binds a process whose
// /proc/self/cgroup reads self, with cgroupfs mounted at root: the
// smallest limit on its cgroup's path (cgroup v2, or v1's memory
// controller), or 0 for none.
func cgroupMemory(root string, self []byte) int64 {
	var best int64
	consider := func(file string) {
		b, err := os.ReadFile(file)
		if err != nil {
			return
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
		if err != nil || n <= 0 || n >= unlimited { // "max", or no limit
			return
		}
		if best == 0 || n < best {
			best = n
		}
	}
	// walk reads name in dir/p and every ancestor of p up to dir.
	walk := func(dir, p, name string) {
		for p = path.Clean("/" + p); ; p = path.Dir(p) {
			consider(filepath.Join(dir, filepath.FromSlash(p), name))
			if p == "/" {
				return
			}
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(self))
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[0] == "0" && f[1] == "":
			// v2: mounted at root, or at root/unified beside v1.
			walk(root, f[2], "memory.max")
			walk(filepath.Join(root, "unified"), f[2], "memory.max")
		case strings.Contains(","+f[1]+",", ",memory,"):
			walk(filepath.Join(root, "memory"), f[2], "memory.limit_in_bytes")
		}
	}
	return best
}
