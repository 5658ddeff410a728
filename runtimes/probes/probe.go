// SPDX-License-Identifier: MIT
// clockscope runtimes probe for Go: times each clock API in Go's own loop.
//
//	probe time SAMPLES SAMPLE_US   timed loops: each API, then its harness
//	probe count CALLS              "mark API" lines, each followed by CALLS calls
//
// Built by `clockscope runtimes` with CGO_ENABLED=0: a static binary, so the same probe
// runs inside `clockscope vm` guests (GOARCH=arm64, riscv64 for theirs).  Go reads the
// vDSO itself (runtime·walltime, runtime·nanotime), not through libc: an LD_PRELOAD shim
// cannot serve it, and where the vDSO falls back to a syscall, so does every time.Now.
// The harness is the same loop calling a function that does nothing (not inlined).
package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

var sink int64

//go:noinline
func empty() int64 { return 1 }

type api struct {
	name, clock, path string
	loop              func(n int)
}

var start = time.Now()

var apis = []api{
	{"time.Now", "realtime+monotonic", "vdso-direct", func(n int) {
		var s int64
		for i := 0; i < n; i++ {
			s += int64(time.Now().Nanosecond())
		}
		sink += s
	}},
	{"time.Since", "monotonic", "vdso-direct", func(n int) {
		var s int64
		for i := 0; i < n; i++ {
			s += int64(time.Since(start))
		}
		sink += s
	}},
	{"time.Now().UnixNano", "realtime+monotonic", "vdso-direct", func(n int) {
		var s int64
		for i := 0; i < n; i++ {
			s += time.Now().UnixNano()
		}
		sink += s
	}},
}

func harness(n int) {
	var s int64
	for i := 0; i < n; i++ {
		s += empty()
	}
	sink += s
}

func run(f func(int), n int) int64 {
	t0 := time.Now()
	f(n)
	return int64(time.Since(t0))
}

func calibrate(f func(int), target int64) int {
	n := 64
	for {
		t := run(f, n)
		if t >= target/4 || n >= 1<<28 {
			if t < 1 {
				t = 1
			}
			m := int(int64(n) * target / t)
			if m < 1 {
				m = 1
			}
			return m
		}
		n *= 4
	}
}

func join(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

func main() {
	out := bufio.NewWriter(os.Stdout)
	args := os.Args
	version := strings.TrimPrefix(runtime.Version(), "go")
	switch {
	case len(args) == 4 && args[1] == "time":
		samples, e1 := strconv.Atoi(args[2])
		us, e2 := strconv.Atoi(args[3])
		if e1 != nil || e2 != nil || samples < 1 || us < 1 {
			fmt.Fprintln(os.Stderr, "probe: bad SAMPLES or SAMPLE_US")
			os.Exit(2)
		}
		fmt.Fprintf(out, "clockscope-probe 1 go %s\n", version)
		for _, a := range apis {
			n := calibrate(a.loop, int64(us)*1000)
			run(a.loop, n)
			run(harness, n)
			ts := make([]int64, samples)
			hs := make([]int64, samples)
			for i := 0; i < samples; i++ { // interleaved: a slow spell hits both alike
				ts[i] = run(a.loop, n)
				hs[i] = run(harness, n)
			}
			fmt.Fprintf(out, "row %s %s %s empty() %d %s %s\n", a.name, a.clock, a.path, n,
				join(ts), join(hs))
			out.Flush()
		}
		fmt.Fprintf(out, "end %d\n", len(apis))
	case len(args) == 3 && args[1] == "count":
		calls, err := strconv.Atoi(args[2])
		if err != nil || calls < 1 {
			fmt.Fprintln(os.Stderr, "probe: bad CALLS")
			os.Exit(2)
		}
		fmt.Fprintf(out, "clockscope-probe 1 go %s\n", version)
		for _, a := range apis {
			fmt.Fprintf(out, "mark %s\n", a.name)
			out.Flush() // the mark is written before the calls: the counter attributes by it
			a.loop(calls)
		}
		fmt.Fprintf(out, "end %d\n", len(apis))
	default:
		fmt.Fprintln(os.Stderr, "usage: probe time SAMPLES SAMPLE_US | count CALLS")
		os.Exit(2)
	}
	out.Flush()
}
