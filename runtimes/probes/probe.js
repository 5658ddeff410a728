// SPDX-License-Identifier: MIT
// clockscope runtimes probe for Node.js: times each clock API in JavaScript's own loop.
//
//     node probe.js time SAMPLES SAMPLE_US   timed loops: each API, then its harness
//     node probe.js count CALLS              "mark API" lines, each followed by CALLS calls
//
// process.hrtime and performance.now read libuv's uv_hrtime (clock_gettime MONOTONIC
// through libc); Date.now reads V8's wall clock (clock_gettime REALTIME through libc).
// Each loop runs until V8 has optimised it before it is timed.  The harness is the same
// loop calling a function that returns a constant.  stdout writes to a pipe are
// synchronous on Linux, so a "mark" line is out before the calls that follow it.
'use strict';
const { performance } = require('perf_hooks');

let sink = 0;
function empty() { return 1; }

const APIS = [
  ['process.hrtime.bigint', 'monotonic', 'libc', (n) => { let s = 0n; for (let i = 0; i < n; i++) s += process.hrtime.bigint(); sink += Number(s & 1n); }],
  ['process.hrtime', 'monotonic', 'libc', (n) => { let s = 0; for (let i = 0; i < n; i++) s += process.hrtime()[1]; sink += s; }],
  ['performance.now', 'monotonic', 'libc', (n) => { let s = 0; for (let i = 0; i < n; i++) s += performance.now(); sink += s; }],
  ['Date.now', 'realtime', 'libc', (n) => { let s = 0; for (let i = 0; i < n; i++) s += Date.now(); sink += s; }],
];
function harness(n) { let s = 0; for (let i = 0; i < n; i++) s += empty(); sink += s; }

function run(f, n) {
  const t0 = process.hrtime.bigint();
  f(n);
  return process.hrtime.bigint() - t0;
}

function calibrate(f, target) {
  let n = 64;
  for (;;) {
    const t = Number(run(f, n)) || 1;
    if (t >= target / 4 || n >= 2 ** 28) return Math.max(1, Math.floor(n * target / t));
    n *= 4;
  }
}

function main(argv) {
  const out = (s) => process.stdout.write(s + '\n');
  if (argv.length === 3 && argv[0] === 'time') {
    const samples = parseInt(argv[1], 10), us = parseInt(argv[2], 10);
    if (!(samples >= 1 && us >= 1)) { process.stderr.write('probe: bad SAMPLES or SAMPLE_US\n'); return 2; }
    out(`clockscope-probe 1 node ${process.versions.node}`);
    for (const [name, clock, path, f] of APIS) {
      for (let w = 0; w < 20; w++) { run(f, 20000); run(harness, 20000); }   // V8 optimises both
      const n = calibrate(f, us * 1000);
      const ts = [], hs = [];
      for (let i = 0; i < samples; i++) { ts.push(run(f, n)); hs.push(run(harness, n)); }
      out(`row ${name} ${clock} ${path} empty() ${n} ${ts.join(',')} ${hs.join(',')}`);
    }
    out(`end ${APIS.length}`);
    return 0;
  }
  if (argv.length === 2 && argv[0] === 'count') {
    const calls = parseInt(argv[1], 10);
    if (!(calls >= 1)) { process.stderr.write('probe: bad CALLS\n'); return 2; }
    out(`clockscope-probe 1 node ${process.versions.node}`);
    for (const [name, , , f] of APIS) { out(`mark ${name}`); f(calls); }
    out(`end ${APIS.length}`);
    return 0;
  }
  process.stderr.write('usage: node probe.js time SAMPLES SAMPLE_US | count CALLS\n');
  return 2;
}
process.exitCode = main(process.argv.slice(2));
