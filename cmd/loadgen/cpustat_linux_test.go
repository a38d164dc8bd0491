package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func TestThreadsCPUCountsWork(t *testing.T) {
	// Spin until the kernel's own account of this process (getrusage)
	// shows 50 ms more CPU, however busy the machine is; the threads'
	// figures must show it too.
	rusage := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before, start := threadsCPU(os.Getpid()), rusage()
	for giveUp := time.Now().Add(30 * time.Second); rusage()-start < 50*time.Millisecond && time.Now().Before(giveUp); {
	}
	spun := rusage() - start
	after := threadsCPU(os.Getpid())
	if before < 0 || spun < 50*time.Millisecond || after-before < spun-20*time.Millisecond {
		t.Fatalf("threadsCPU %v then %v after %v of CPU spinning, want at least %v more", before, after, spun, spun-20*time.Millisecond)
	}
	if got := threadsCPU(-1); got != -1 {
		t.Fatalf("threadsCPU(-1) = %v, want -1", got)
	}
}
