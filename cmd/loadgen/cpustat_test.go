package main

import (
	"runtime"
	"testing"
	"time"
)

func TestCPUTicksSumAndFormat(t *testing.T) {
	r0 := cpuTicks{busy: []int64{10, 10}, total: []int64{100, 100}}
	r1 := cpuTicks{busy: []int64{60, 20}, total: []int64{200, 200}}  // cpu0 50%, cpu1 10%
	r2 := cpuTicks{busy: []int64{160, 30}, total: []int64{300, 300}} // cpu0 100%, cpu1 10%
	var sum cpuTicks
	sum = sum.plus(r1.minus(r0)).plus(r2.minus(r1))
	if got, want := sum.String(), "cpu0 75% cpu1 10%"; got != want {
		t.Fatalf("sum = %q, want %q", got, want)
	}
	// A reading that failed (no /proc/stat) spoils the sum for good: no
	// figure is printed that was not measured.
	bad := sum.plus(cpuTicks{}.minus(r2)).plus(r2.minus(r1))
	if got := bad.String(); got != "" {
		t.Fatalf("spoiled sum = %q, want nothing", got)
	}
	// A CPU that came or went between readings.
	if got := (cpuTicks{busy: []int64{1}, total: []int64{2}}).minus(r0).String(); got != "" {
		t.Fatalf("difference of two shapes = %q, want nothing", got)
	}
}

func TestReadCPUTicksOnLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc/stat")
	}
	r := readCPUTicks()
	if len(r.busy) < 1 || len(r.busy) != len(r.total) || r.busy[0] > r.total[0] {
		t.Fatalf("readCPUTicks = %+v, want one busy <= total per CPU", r)
	}
}

func TestEventCPUSumAndFormat(t *testing.T) {
	ms := time.Millisecond
	e := eventCPU{hasRelay: true}
	e = e.add(cpuReading{0, 0, 0}, cpuReading{20 * ms, 50 * ms, 30 * ms}, 100000)
	e = e.add(cpuReading{100 * ms, 100 * ms, 100 * ms}, cpuReading{120 * ms, 140 * ms, 130 * ms}, 100000)
	if got, want := e.String(), "upstream 200 ns, relay 450 ns, client 300 ns per event"; got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	direct := eventCPU{}.add(cpuReading{0, 0, 0}, cpuReading{20 * ms, 0, 30 * ms}, 100000)
	if got, want := direct.String(), "upstream 200 ns, client 300 ns per event"; got != want {
		t.Fatalf("direct String = %q, want %q", got, want)
	}
	// A reading that failed, or a thread whose time left with it: no
	// figure is printed that was not measured.
	if got := e.add(cpuReading{-1, 0, 0}, cpuReading{ms, ms, ms}, 1).String(); got != "" {
		t.Fatalf("failed reading = %q, want nothing", got)
	}
	if got := e.add(cpuReading{ms, 2 * ms, ms}, cpuReading{ms, ms, ms}, 1).String(); got != "" {
		t.Fatalf("time going back = %q, want nothing", got)
	}
	if got := (eventCPU{}).String(); got != "" {
		t.Fatalf("no events = %q, want nothing", got)
	}
}
