// SPDX-License-Identifier: MIT
// A Go program for `clockscope run` on Go programs (tests/test_run_static.py), built with
// CGO_ENABLED=0 (static: Go's runtime calls the vDSO itself).
//
//	go_clock bounds N            time.Now() between two raw clock_gettime syscalls, N times
//	go_clock goroutines G SECS   G goroutines read time.Now() with the CPU profiler at 1 kHz
//	                             (SIGPROF) and a GC every 10 ms (preemption: SIGURG): no value
//	                             below one any goroutine published before; for SECS seconds,
//	                             or (GO_CLOCK_STDIN_ENDS=1) until its stdin ends
//
// Prints "ok ..." or "FAIL ..." lines.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

var _ = unsafe.Sizeof(0) // go:linkname needs the unsafe import

// The runtime's CLOCK_MONOTONIC read (what time.Now's monotonic part and timers use).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

func raw(clock uintptr) int64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clock, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

func bounds(n int) {
	bad := 0
	for i := 0; i < n; i++ {
		a := raw(0) // CLOCK_REALTIME
		v := time.Now().UnixNano()
		b := raw(0)
		if v < a || v > b {
			if bad < 5 {
				fmt.Printf("FAIL realtime %d not in [%d, %d]\n", v, a, b)
			}
			bad++
		}
		ma := raw(1) // CLOCK_MONOTONIC, against the runtime's own reading of it
		m := nanotime()
		mb := raw(1)
		if m < ma || m > mb {
			if bad < 5 {
				fmt.Printf("FAIL monotonic %d not in [%d, %d]\n", m, ma, mb)
			}
			bad++
		}
	}
	status := "ok"
	if bad > 0 {
		status = "FAIL"
	}
	fmt.Printf("%s bounds %d bad %d\n", status, n, bad)
}

func goroutines(g int, secs float64) {
	runtime.SetCPUProfileRate(1000)
	pprof.StartCPUProfile(io.Discard)
	var latest, backwards, reads int64
	base := time.Now()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < g; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(0)
			for !stop.Load() {
				before := atomic.LoadInt64(&latest)
				v := int64(time.Since(base))
				if v < before {
					atomic.AddInt64(&backwards, 1)
				}
				for {
					cur := atomic.LoadInt64(&latest)
					if v <= cur || atomic.CompareAndSwapInt64(&latest, cur, v) {
						break
					}
				}
				n++
			}
			atomic.AddInt64(&reads, n)
		}()
	}
	deadline := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var stdinClosed atomic.Bool
	if os.Getenv("GO_CLOCK_STDIN_ENDS") == "1" {
		go func() { // the end of stdin ends the run early (a test that has seen enough)
			io.Copy(io.Discard, os.Stdin)
			stdinClosed.Store(true)
		}()
	}
	for time.Now().Before(deadline) && !stdinClosed.Load() {
		time.Sleep(10 * time.Millisecond)
		runtime.GC()
	}
	stop.Store(true)
	wg.Wait()
	pprof.StopCPUProfile()
	status := "ok"
	if backwards > 0 {
		status = "FAIL"
	}
	fmt.Printf("%s goroutines %d reads %d backwards %d\n", status, g, reads, backwards)
}

func main() {
	// GO_CLOCK_SETTLE_MS: sleep first (as static_clock.c's STATIC_CLOCK_SETTLE_MS).
	if ms, err := strconv.Atoi(os.Getenv("GO_CLOCK_SETTLE_MS")); err == nil && ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	if len(os.Args) >= 3 && os.Args[1] == "bounds" {
		n, _ := strconv.Atoi(os.Args[2])
		bounds(n)
		return
	}
	if len(os.Args) >= 4 && os.Args[1] == "goroutines" {
		g, _ := strconv.Atoi(os.Args[2])
		s, _ := strconv.ParseFloat(os.Args[3], 64)
		goroutines(g, s)
		return
	}
	fmt.Fprintln(os.Stderr, "usage: go_clock bounds N | goroutines G SECS")
	os.Exit(2)
}
