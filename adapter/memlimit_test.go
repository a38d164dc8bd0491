package adapter

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCgroupMemory(t *testing.T) {
	const mib = 1 << 20
	cases := []struct {
		name  string
		files map[string]string // under the cgroupfs root
		self  string            // /proc/self/cgroup
		want  int64
	}{
		{"v1, the limit on the process's own cgroup",
			map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n", "memory/process_api/x/memory.limit_in_bytes": "536870912\n"},
			"5:devices:/\n4:memory:/process_api/x\n0::/\n", 512 * mib},
		{"v1, no limit anywhere (this kind of machine)",
			map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n", "memory/process_api/x/memory.limit_in_bytes": "9223372036854771712\n"},
			"4:memory:/process_api/x\n0::/\n", 0},
		{"v1, memory sharing a hierarchy with other controllers",
			map[string]string{"memory/a/memory.limit_in_bytes": "1073741824"},
			"3:cpuacct,memory:/a\n", 1024 * mib},
		{"v2, a pod's limit binds its container's unlimited cgroup",
			map[string]string{"kubepods/pod1/memory.max": "268435456\n", "kubepods/pod1/c1/memory.max": "max\n"},
			"0::/kubepods/pod1/c1\n", 256 * mib},
		{"v2, the smaller of two limits on the path",
			map[string]string{"a/memory.max": "268435456\n", "a/b/memory.max": "536870912\n"},
			"0::/a/b\n", 256 * mib},
		{"v2 in a cgroup namespace (a container's view)",
			map[string]string{"memory.max": "536870912\n"},
			"0::/\n", 512 * mib},
		{"v2 mounted at unified beside v1",
			map[string]string{"unified/s/memory.max": "805306368"},
			"1:name=systemd:/s\n0::/s\n", 768 * mib},
		{"no files", nil, "0::/x\n4:memory:/y\n", 0},
		{"unreadable self", map[string]string{"memory.max": "536870912"}, "garbage\n::\n", 0},
		{"a path that climbs out stays under the root",
			map[string]string{"memory.max": "536870912"},
			"0::/../../etc\n", 512 * mib},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for name, body := range c.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := cgroupMemory(root, []byte(c.self)); got != c.want {
				t.Errorf("cgroupMemory = %d MiB, want %d MiB", got/mib, c.want/mib)
			}
		})
	}
}

func TestDefaultMemoryLimitFollowsTheContainer(t *testing.T) {
	const mib = 1 << 20
	if got := memoryLimitUnder(512 * mib); got != 448*mib {
		t.Errorf("in a 512 MiB container: %d MiB, want 448", got/mib)
	}
	if got := memoryLimitUnder(0); got != 1024*mib {
		t.Errorf("with no container limit: %d MiB, want 1024", got/mib)
	}
	var c Config
	if got := c.MemoryLimitBytes(); got != DefaultMemoryLimit() {
		t.Errorf("unset memoryLimit: %d, want the default %d", got, DefaultMemoryLimit())
	}
	zero := int64(0)
	c.MemoryLimit = &zero
	if got := c.MemoryLimitBytes(); got != 0 {
		t.Errorf("memoryLimit 0: %d, want 0 (the runtime's default)", got)
	}
}

func TestGOGCFollowsTheMemoryLimit(t *testing.T) {
	limit, none, off, fifty := int64(448<<20), int64(0), -1, 50
	for _, c := range []struct {
		name string
		cfg  Config
		want int
	}{
		{"unset, default memory limit", Config{}, DefaultGCPercent},
		{"unset, a memory limit", Config{MemoryLimit: &limit}, DefaultGCPercent},
		{"unset, no memory limit", Config{MemoryLimit: &none}, 100},
		{"set", Config{MemoryLimit: &none, GCPercent: &fifty}, 50},
		{"off under a limit", Config{MemoryLimit: &limit, GCPercent: &off}, -1},
	} {
		if got := c.cfg.GOGC(); got != c.want {
			t.Errorf("%s: GOGC() = %d, want %d", c.name, got, c.want)
		}
	}
	if _, err := ParseConfig([]byte("gcPercent: -1\nmemoryLimit: 1073741824\nagents: {demo: {type: demo}}\n"), func(string) string { return "" }); err != nil {
		t.Errorf("gcPercent -1 under a memoryLimit: %v, want it accepted", err)
	}
}
