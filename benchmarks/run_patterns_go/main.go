// SPDX-License-Identifier: MIT
// benchmarks/bench_run_patterns.py's Go program, built with CGO_ENABLED=0 (Go's runtime
// calls the vDSO itself): what one time.Now costs outside a hot loop, each call timed alone
// by the TSC (ticks_amd64.s; the cost of an empty pair subtracted), converted to ns by a
// rate taken from raw syscalls (untouched by any patch).  time.Now reads two clocks
// (REALTIME and MONOTONIC): two vDSO calls.
//
//	run_patterns_go first            the first time.Now of main (the runtime read the clock before)
//	run_patterns_go sparse MS N      N calls, each after a pause of MS ms: the median
//	run_patterns_go threads G N [MS] G goroutines, each locked to its own thread, calling N
//	                                 times at once: the median of their ns per call, after a
//	                                 pause of MS ms (default 0: at once)
//
// Prints "ns X".  Go code never runs inside a signal handler (os/signal delivers through a
// channel), so there is no signal case here; the runtime's own handlers' reads are checked
// for correctness in tests/test_run_static.py.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

func ticks() uint64

func rawNs() int64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 4 /* CLOCK_MONOTONIC_RAW */, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// TSC ticks per ns over 20 ms.
func rate() float64 {
	n0, t0 := rawNs(), ticks()
	time.Sleep(20 * time.Millisecond)
	n1, t1 := rawNs(), ticks()
	return float64(t1-t0) / float64(n1-n0)
}

func emptyPair() uint64 {
	best := ^uint64(0)
	for i := 0; i < 1000; i++ {
		a := ticks()
		b := ticks()
		if b-a < best {
			best = b - a
		}
	}
	return best
}

var sink int64

func oneRead() uint64 {
	a := ticks()
	t := time.Now()
	b := ticks()
	sink += int64(t.Nanosecond())
	return b - a
}

func median(v []uint64) uint64 {
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[len(v)/2]
}

func printNs(t, empty uint64) {
	if t < empty {
		t = empty
	}
	fmt.Printf("ns %.1f\n", float64(t-empty)/rate())
}

// printAll: the median as printNs does, then every read ("all X ..."), which the script
// pools over rounds for the tail (p99, max).
func printAll(v []uint64, empty uint64) {
	r := rate()
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	one := func(t uint64) float64 {
		if t < empty {
			return 0
		}
		return float64(t-empty) / r
	}
	fmt.Printf("ns %.1f\nall", one(v[len(v)/2]))
	for _, t := range v {
		fmt.Printf(" %.1f", one(t))
	}
	fmt.Println()
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "run_patterns_go: not a positive number:", s)
		os.Exit(2)
	}
	return n
}

func main() {
	a := os.Args
	switch {
	case len(a) >= 2 && a[1] == "first":
		t := oneRead()
		printNs(t, emptyPair())
	case len(a) >= 4 && a[1] == "sparse":
		ms, n := atoi(a[2]), atoi(a[3])
		v := make([]uint64, n)
		for i := range v {
			time.Sleep(time.Duration(ms) * time.Millisecond)
			v[i] = oneRead()
		}
		printAll(v, emptyPair())
	case len(a) >= 4 && a[1] == "threads":
		g, n := atoi(a[2]), atoi(a[3])
		if len(a) >= 5 {
			time.Sleep(time.Duration(atoi(a[4])) * time.Millisecond)
		}
		per := make([]uint64, g)
		var start, done sync.WaitGroup
		start.Add(1)
		for i := 0; i < g; i++ {
			done.Add(1)
			go func(i int) {
				runtime.LockOSThread()
				defer done.Done()
				start.Wait()
				t0 := ticks()
				for k := 0; k < n; k++ {
					sink += int64(time.Now().Nanosecond())
				}
				per[i] = (ticks() - t0) * 1000 / uint64(n)
			}(i)
		}
		start.Done()
		done.Wait()
		fmt.Printf("ns %.1f\n", float64(median(per))/1000/rate())
	default:
		fmt.Fprintln(os.Stderr, "usage: run_patterns_go first | sparse MS N | threads G N [MS]")
		os.Exit(2)
	}
}
