// SPDX-License-Identifier: MIT
// clockscope runtimes probe for Java: times each clock API in Java's own loop, after JIT
// warm-up.
//
//     java -cp DIR Probe time SAMPLES SAMPLE_US   timed loops: each API, then its harness
//     java -cp DIR Probe count CALLS              "mark API" lines, each followed by CALLS calls
//
// HotSpot on Linux: System.nanoTime reads clock_gettime(CLOCK_MONOTONIC), and
// System.currentTimeMillis and Instant.now clock_gettime(CLOCK_REALTIME), through libc
// (os_linux.cpp / os_posix.cpp): an LD_PRELOAD shim can serve them.  Each loop is run
// until C2 has compiled it before it is timed.  The harness is the same loop summing the
// counter.
import java.time.Instant;

public final class Probe {
    static long sink;

    interface Loop { void run(int n); }

    static final String[][] NAMES = {
        {"System.nanoTime", "monotonic", "libc"},
        {"System.currentTimeMillis", "realtime", "libc"},
        {"Instant.now", "realtime", "libc"},
    };
    static final Loop[] LOOPS = {
        n -> { long s = 0; for (int i = 0; i < n; i++) s += System.nanoTime(); sink += s; },
        n -> { long s = 0; for (int i = 0; i < n; i++) s += System.currentTimeMillis(); sink += s; },
        n -> { long s = 0; for (int i = 0; i < n; i++) s += Instant.now().getNano(); sink += s; },
    };
    static final Loop HARNESS = n -> { long s = 0; for (int i = 0; i < n; i++) s += i; sink += s; };

    static long run(Loop f, int n) {
        long t0 = System.nanoTime();
        f.run(n);
        return System.nanoTime() - t0;
    }

    static int calibrate(Loop f, long target) {
        int n = 64;
        for (;;) {
            long t = Math.max(1, run(f, n));
            if (t >= target / 4 || n >= (1 << 28))
                return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (long) n * target / t));
            n *= 4;
        }
    }

    static String join(long[] v) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < v.length; i++) {
            if (i > 0) b.append(',');
            b.append(v[i]);
        }
        return b.toString();
    }

    public static void main(String[] args) {
        String version = System.getProperty("java.version").replace(' ', '_');
        if (args.length == 3 && args[0].equals("time")) {
            int samples = Integer.parseInt(args[1]), us = Integer.parseInt(args[2]);
            System.out.println("clockscope-probe 1 java " + version);
            for (int a = 0; a < LOOPS.length; a++) {
                // JIT warm-up: well past C2's compile threshold, before the calibration
                for (int w = 0; w < 20; w++) { LOOPS[a].run(20000); HARNESS.run(20000); }
                int n = calibrate(LOOPS[a], us * 1000L);
                long[] ts = new long[samples], hs = new long[samples];
                for (int i = 0; i < samples; i++) { ts[i] = run(LOOPS[a], n); hs[i] = run(HARNESS, n); }
                System.out.println("row " + NAMES[a][0] + " " + NAMES[a][1] + " " + NAMES[a][2]
                                   + " sum(i) " + n + " " + join(ts) + " " + join(hs));
                System.out.flush();
            }
            System.out.println("end " + LOOPS.length);
        } else if (args.length == 2 && args[0].equals("count")) {
            int calls = Integer.parseInt(args[1]);
            System.out.println("clockscope-probe 1 java " + version);
            for (int a = 0; a < LOOPS.length; a++) {
                System.out.println("mark " + NAMES[a][0]);
                System.out.flush();
                LOOPS[a].run(calls);
            }
            System.out.println("end " + LOOPS.length);
        } else {
            System.err.println("usage: java Probe time SAMPLES SAMPLE_US | count CALLS");
            System.exit(2);
        }
        System.out.flush();
    }
}
