// SPDX-License-Identifier: MIT
// clockscope runtimes probe for Rust: times each clock API in Rust's own loop.
//
//     probe time SAMPLES SAMPLE_US   timed loops: each API, then its harness
//     probe count CALLS              "mark API" lines, each followed by CALLS calls
//
// Built by `clockscope runtimes` with `rustc -O`.  std's Instant::now and SystemTime::now
// call libc's clock_gettime (MONOTONIC, REALTIME): an LD_PRELOAD shim can serve them.
// The harness is the same loop around black_box of the counter.  (std::hint::black_box is
// Rust 1.66; Debian 12's rustc is 1.63: a volatile read is the old black box.)
use std::io::Write;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

fn black_box<T>(x: T) -> T {
    // A volatile read the optimiser cannot see through: the value must exist.
    unsafe {
        let y = std::ptr::read_volatile(&x);
        std::mem::forget(x);
        y
    }
}

fn instant_now(n: u64) {
    for _ in 0..n {
        black_box(Instant::now());
    }
}

fn system_time_now(n: u64) {
    for _ in 0..n {
        black_box(SystemTime::now());
    }
}

fn harness(n: u64) {
    for i in 0..n {
        black_box(i);
    }
}

const APIS: [(&str, &str, &str, fn(u64)); 2] = [
    ("Instant::now", "monotonic", "libc", instant_now),
    ("SystemTime::now", "realtime", "libc", system_time_now),
];

fn run(f: fn(u64), n: u64) -> u64 {
    let t0 = Instant::now();
    f(n);
    t0.elapsed().as_nanos() as u64
}

fn calibrate(f: fn(u64), target: u64) -> u64 {
    let mut n: u64 = 64;
    loop {
        let t = run(f, n).max(1);
        if t >= target / 4 || n >= 1 << 28 {
            return (n * target / t).max(1);
        }
        n *= 4;
    }
}

fn join(v: &[u64]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = std::io::stdout();
    let mut out = out.lock();
    // rustc's version is not known at run time: the build passes it in CLOCKSCOPE_RUSTC.
    let version = option_env!("CLOCKSCOPE_RUSTC").unwrap_or("unknown");
    let _ = black_box(SystemTime::now().duration_since(UNIX_EPOCH));
    if args.len() == 4 && args[1] == "time" {
        let samples: usize = args[2].parse().unwrap_or(0);
        let us: u64 = args[3].parse().unwrap_or(0);
        if samples < 1 || us < 1 {
            eprintln!("probe: bad SAMPLES or SAMPLE_US");
            std::process::exit(2);
        }
        writeln!(out, "clockscope-probe 1 rust {}", version).unwrap();
        for (name, clock, path, f) in APIS.iter() {
            let n = calibrate(*f, us * 1000);
            run(*f, n);
            run(harness, n);
            let mut ts = Vec::new();
            let mut hs = Vec::new();
            for _ in 0..samples {
                ts.push(run(*f, n));
                hs.push(run(harness, n));
            }
            writeln!(out, "row {} {} {} black_box(i) {} {} {}", name, clock, path, n, join(&ts), join(&hs)).unwrap();
            out.flush().unwrap();
        }
        writeln!(out, "end {}", APIS.len()).unwrap();
    } else if args.len() == 3 && args[1] == "count" {
        let calls: u64 = args[2].parse().unwrap_or(0);
        if calls < 1 {
            eprintln!("probe: bad CALLS");
            std::process::exit(2);
        }
        writeln!(out, "clockscope-probe 1 rust {}", version).unwrap();
        for (name, _, _, f) in APIS.iter() {
            writeln!(out, "mark {}", name).unwrap();
            out.flush().unwrap();
            f(calls);
        }
        writeln!(out, "end {}", APIS.len()).unwrap();
    } else {
        eprintln!("usage: probe time SAMPLES SAMPLE_US | count CALLS");
        std::process::exit(2);
    }
    out.flush().unwrap();
}
