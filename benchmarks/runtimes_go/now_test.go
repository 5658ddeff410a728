// SPDX-License-Identifier: MIT
// The peer check of `clockscope runtimes`' Go figures (benchmarks/runtimes_peer.py):
// `go test -bench` of the same calls in the same loop shape as runtimes/probes/probe.go.
package runtimesgo

import (
	"testing"
	"time"
)

var sink int64

//go:noinline
func empty() int64 { return 1 }

func BenchmarkTimeNow(b *testing.B) {
	var s int64
	for i := 0; i < b.N; i++ {
		s += int64(time.Now().Nanosecond())
	}
	sink += s
}

func BenchmarkEmpty(b *testing.B) {
	var s int64
	for i := 0; i < b.N; i++ {
		s += empty()
	}
	sink += s
}
