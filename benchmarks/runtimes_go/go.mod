module clockscope/benchmarks/runtimes_go

go 1.19
