package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// cpuTicks is each CPU's busy and total time from /proc/stat, in ticks,
// or the difference of two readings, or a sum of differences. spoiled
// marks a sum with a part that could not be read.
type cpuTicks struct {
	busy, total []int64
	spoiled     bool
}

// readCPUTicks reads /proc/stat; on a system without it the result is
// empty, and String reports nothing.
func readCPUTicks() cpuTicks {
	var t cpuTicks
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return t
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		// "cpuN user nice system idle iowait irq softirq ..."; "cpu" alone
		// is the sum.
		if len(f) < 8 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		var total, idle int64
		for i, s := range f[1:] {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return cpuTicks{}
			}
			total += v
			if i == 3 || i == 4 { // idle, iowait
				idle += v
			}
		}
		t.busy = append(t.busy, total-idle)
		t.total = append(t.total, total)
	}
	return t
}

// minus is the time between reading b and reading t; empty if either is
// empty or they differ in shape (a CPU came or went).
func (t cpuTicks) minus(b cpuTicks) cpuTicks {
	if len(t.busy) == 0 || len(t.busy) != len(b.busy) {
		return cpuTicks{}
	}
	d := cpuTicks{busy: make([]int64, len(t.busy)), total: make([]int64, len(t.total))}
	for i := range t.busy {
		d.busy[i], d.total[i] = t.busy[i]-b.busy[i], t.total[i]-b.total[i]
	}
	return d
}

// plus adds a difference to a sum (the zero cpuTicks is the empty sum);
// an empty difference, or one of another shape, spoils the sum.
func (t cpuTicks) plus(d cpuTicks) cpuTicks {
	switch {
	case t.spoiled || len(d.busy) == 0:
		return cpuTicks{spoiled: true}
	case t.total == nil:
		return d
	case len(d.busy) != len(t.busy):
		return cpuTicks{spoiled: true}
	}
	s := cpuTicks{busy: make([]int64, len(t.busy)), total: make([]int64, len(t.total))}
	for i := range t.busy {
		s.busy[i], s.total[i] = t.busy[i]+d.busy[i], t.total[i]+d.total[i]
	}
	return s
}

// String formats how busy each CPU was over a difference, as
// "cpu0 100% cpu1 71%"; "" when it cannot tell.
func (t cpuTicks) String() string {
	if t.spoiled || len(t.busy) == 0 {
		return ""
	}
	var s []string
	for i := range t.busy {
		if t.total[i] <= 0 {
			return ""
		}
		s = append(s, fmt.Sprintf("cpu%d %.0f%%", i, 100*float64(t.busy[i])/float64(t.total[i])))
	}
	return strings.Join(s, " ")
}

// threadsCPU is the CPU time the live threads of process pid have run,
// summed from /proc/<pid>/task/*/schedstat (nanoseconds, unlike the
// 10 ms ticks of /proc/<pid>/stat), or -1 if it cannot be read. A thread
// that ended takes its time with it; Go's runtime keeps its threads.
// cpu (whole phases, seconds long) reads the ticks instead, which keep
// an ended thread's time; one unpaced stream lasts too few ticks.
func threadsCPU(pid int) time.Duration {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil || len(tasks) == 0 {
		return -1
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			return -1
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return -1
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return -1
		}
		sum += time.Duration(ns)
	}
	return sum
}

// eventCPU is what each process of a one-stream measurement spent on its
// events: the CPU time of the upstream, the relay (none when direct) and
// the client, summed over streams, and the events they carried. With every
// process on the same cores, it is the budget a ratio is made of: once
// the cores are busy both ways, a relay that takes r per event from cores
// that upstream and client fill with u+c per event reaches at most
// (u+c)/(u+c+r) of direct.
type eventCPU struct {
	upstream, relay, client time.Duration
	events                  int64
	hasRelay, spoiled       bool
}

// cpuReading is the three processes' CPU time at one moment.
type cpuReading [3]time.Duration

// readEventCPU reads the upstream's, the relay's (relay 0: none) and
// this process's CPU time.
func readEventCPU(upstream, relay int) cpuReading {
	r := cpuReading{threadsCPU(upstream), 0, threadsCPU(os.Getpid())}
	if relay != 0 {
		r[1] = threadsCPU(relay)
	}
	return r
}

// add counts one stream of events between readings before and after; a
// reading that failed, or time that went backwards (a thread ended),
// spoils the sum for good.
func (e eventCPU) add(before, after cpuReading, events int64) eventCPU {
	for i := range before {
		if before[i] < 0 || after[i] < 0 || after[i] < before[i] {
			e.spoiled = true
		}
	}
	e.upstream += after[0] - before[0]
	e.relay += after[1] - before[1]
	e.client += after[2] - before[2]
	e.events += events
	return e
}

// String formats the CPU time per event, as "upstream 180 ns, relay 460
// ns, client 250 ns per event"; "" when nothing was measured.
func (e eventCPU) String() string {
	if e.spoiled || e.events <= 0 {
		return ""
	}
	per := func(d time.Duration) string {
		return fmt.Sprintf("%.0f ns", float64(d.Nanoseconds())/float64(e.events))
	}
	s := "upstream " + per(e.upstream)
	if e.hasRelay {
		s += ", relay " + per(e.relay)
	}
	return s + ", client " + per(e.client) + " per event"
}
