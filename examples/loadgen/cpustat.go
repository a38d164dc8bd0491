package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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
