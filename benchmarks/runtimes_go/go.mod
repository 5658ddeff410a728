// SPDX-License-Identifier: MIT
// The Go module of the runtimes benchmark: time.Now() and its peers timed with go test
// -bench (docs/benchmarks/runtimes.md), no dependencies beyond the standard library.
module clockscope/benchmarks/runtimes_go

go 1.19
