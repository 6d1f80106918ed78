package dev.warden.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time spent by this JVM (Warden, the broker and the load, all in-process in the benches) and by the
 * machine's PostgreSQL processes. On a shared machine, decisions per second swing with what the neighbours do;
 * CPU time per decision does much less, as time the machine gave to others is not counted.
 */
final class CpuMeter {
    /** Linux's USER_HZ: /proc reports CPU times in hundredths of a second. */
    private static final long TICK_NANOS = 10_000_000L;

    private CpuMeter() {}

    /** CPU time used so far, in nanoseconds: this JVM's. */
    static long jvm() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * utime + stime + cutime + cstime of every process named {@code postgres}: a backend that exits moves its
     * time to the postmaster's cutime/cstime, so the sum only grows. In nanoseconds; 0 where /proc cannot be read.
     */
    static long postgres() {
        long ticks = 0;
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(
                Path.of("/proc"), p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path proc : procs) {
                String stat;
                try {
                    stat = Files.readString(proc.resolve("stat"));
                } catch (IOException e) {
                    continue; // exited meanwhile
                }
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                if (open < 0 || close < open || !stat.substring(open + 1, close).equals("postgres")) {
                    continue;
                }
                // After the ")": state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17), 1-based fields.
                String[] f = stat.substring(close + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
            }
        } catch (IOException e) {
            return 0;
        }
        return ticks * TICK_NANOS;
    }
}
