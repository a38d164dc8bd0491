package main

import (
	"errors"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// pinSelf moves every thread of this process onto cpu and runs it with
// GOMAXPROCS 1 (the clients then share that core with the upstream, as
// they would on a machine of their own); restore undoes both.
func pinSelf(cpu int) (restore func(), err error) {
	var all, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		return nil, err
	}
	if !all.IsSet(cpu) {
		return nil, errors.New("CPU " + strconv.Itoa(cpu) + " is not available to this process")
	}
	one.Set(cpu)
	if err := setThreads(&one); err != nil {
		setThreads(&all)
		return nil, err
	}
	prev := runtime.GOMAXPROCS(1)
	return func() {
		setThreads(&all)
		runtime.GOMAXPROCS(prev)
	}, nil
}

// setThreads sets the affinity of every thread of this process. A thread
// made meanwhile inherits its maker's mask, so a second pass catches the
// threads the first pass raced with.
func setThreads(set *unix.CPUSet) error {
	for range 2 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, set); err != nil && !errors.Is(err, unix.ESRCH) {
				return err
			}
		}
	}
	return nil
}

// startOn starts a role process whose threads may run only on cpu: the
// child inherits the mask of the thread that forks it, and its runtime
// sizes GOMAXPROCS from that mask.
func startOn(cpu int, name string, args ...string) (*proc, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, err
	}
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		return nil, err
	}
	defer unix.SchedSetaffinity(0, &old)
	return start(name, args...)
}
