// SPDX-License-Identifier: MIT
// clockscope runtimes probe for Go: times each clock API in Go's own loop.
//
//	probe time SAMPLES SAMPLE_US   timed loops: each API, then its harness
//	probe count CALLS              "mark API" lines, each followed by CALLS calls
//
// Two hooks that `runtimes` does not use, for the served comparison in the x86_64-hpet guest
// (tests/progs/serve_compare.c), which runs the probe under `clockscope run`:
// CLOCKSCOPE_PROBE_SETTLE_MS=N sleeps N ms first (until run's refresher has its line live);
// CLOCKSCOPE_PROBE_COUNT_FD=N (count mode) installs runtimes' counting filter on the probe
// itself (its time syscalls answered by seccomp user notification, every thread) and sends
// the listener over the Unix socket N: a filter installed before `run` would also hold run's
// refresher, forked before the exec, whose clock reads would each wait for the counter.
//
// Built by `clockscope runtimes` with CGO_ENABLED=0: a static binary, so the same probe
// runs inside `clockscope vm` guests (GOARCH=arm64, riscv64 for theirs).  Go reads the
// vDSO itself (runtime·walltime, runtime·nanotime), not through libc: an LD_PRELOAD shim
// cannot serve it, and where the vDSO falls back to a syscall, so does every time.Now.
// The harness is the same loop calling a function that does nothing (not inlined).
package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
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

// filterNumbers: this GOARCH's seccomp syscall, audit arch and the time syscalls counted
// (clock_gettime, gettimeofday, and time where it exists), as the doctor's proof filter has
// them (src/doctor/proof.c).
func filterNumbers() (seccomp uintptr, audit uint32, nrs []uint32, ok bool) {
	switch runtime.GOARCH {
	case "amd64":
		return 317, 0xc000003e, []uint32{228, 96, 201}, true
	case "arm64":
		return 277, 0xc00000b7, []uint32{113, 169}, true
	case "riscv64":
		return 277, 0xc00000f3, []uint32{113, 169}, true
	}
	return 0, 0, nil, false
}

// countMe installs the counting filter on every thread of this process and sends its
// listener over the socket fd.
func countMe(fd int) error {
	sc, audit, nrs, ok := filterNumbers()
	if !ok {
		return errors.New("no counting filter for " + runtime.GOARCH)
	}
	const ld, jeq, ret = 0x20, 0x15, 0x06 // BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K
	const allow, notify = 0x7fff0000, 0x7fc00000
	f := []syscall.SockFilter{{Code: ld, K: 4}, {Code: jeq, Jt: 1, K: audit}, {Code: ret, K: allow},
		{Code: ld, K: 0}}
	for i, nr := range nrs {
		f = append(f, syscall.SockFilter{Code: jeq, Jt: uint8(len(nrs) - i), K: nr})
	}
	f = append(f, syscall.SockFilter{Code: ret, K: allow}, syscall.SockFilter{Code: ret, K: notify})
	prog := syscall.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	// The message that carries the listener, built before the filter exists: from the filter
	// on until the listener is out, a time syscall on any thread waits for a counter that
	// does not have it yet, so nothing in between may enter Go's scheduler (syscall.Sendmsg
	// does, and the scheduler reads the clock): raw syscalls only.
	one := []byte{1}
	oob := syscall.UnixRights(0)
	iov := syscall.Iovec{Base: &one[0]}
	iov.SetLen(1)
	msg := syscall.Msghdr{Iov: &iov, Control: &oob[0]}
	msg.Iovlen = 1
	msg.SetControllen(len(oob))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 38 /* PR_SET_NO_NEW_PRIVS */, 1, 0); e != 0 {
		return e
	}
	// SECCOMP_SET_MODE_FILTER; TSYNC | NEW_LISTENER | TSYNC_ESRCH: every thread, one listener
	l, _, e := syscall.RawSyscall(sc, 1, 1|8|16, uintptr(unsafe.Pointer(&prog)))
	if e != 0 {
		return e
	}
	// the listener into the SCM_RIGHTS message's data, after its header
	*(*int32)(unsafe.Pointer(&oob[syscall.CmsgLen(0)])) = int32(l)
	_, _, e = syscall.RawSyscall(syscall.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), 0)
	syscall.RawSyscall(syscall.SYS_CLOSE, l, 0, 0)
	syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
	if e != 0 {
		return e
	}
	return nil
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
	if ms, err := strconv.Atoi(os.Getenv("CLOCKSCOPE_PROBE_SETTLE_MS")); err == nil && ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
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
		if fd, err := strconv.Atoi(os.Getenv("CLOCKSCOPE_PROBE_COUNT_FD")); err == nil {
			if err := countMe(fd); err != nil {
				fmt.Fprintln(os.Stderr, "probe: cannot count:", err)
				os.Exit(1)
			}
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
