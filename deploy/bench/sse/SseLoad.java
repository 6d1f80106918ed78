// SSE fan-out load client (single-file program: `java SseLoad.java ...`, JDK 21+; no build, no dependency).
//
// Opens N server-sent-event connections to one URL (raw java.nio, a few selector threads), waits until they
// are all answered `200`, then publishes events at a fixed rate for a fixed time through an HTTP POST whose
// body carries the send time, and measures for every event every client receives:
//     latency = receive time - send time
// The send time travels inside the event as the marker `bench_<epoch micros>` (Warden: in the `tool` field
// of `POST /agents/:id/costs`, which comes back in the `cost.recorded` event; a baseline: in the published
// message body). Both times come from the same clock of this one process.
//
// Also reads the resident memory (VmRSS) of the server process(es) before and after connecting, and their
// CPU time during the measurement, from /proc.
//
//   java SseLoad.java --url http://127.0.0.1:8080/events/stream?types=cost.recorded \
//        --header 'Authorization: Bearer wdn_adm_x' --clients 10000 --rate 1000 --duration 30 \
//        --publish-url http://127.0.0.1:8080/agents/agt_x/costs --publish-header 'Authorization: Bearer wdn_adm_x' \
//        --publish-body-file body.json --rss-pid 1234 --cpu-tree 1234 --out result.properties
//
// Options (repeatable: --header, --publish-url, --publish-header, --rss-pid, --rss-tree, --cpu-tree):
//   --url URL                  SSE endpoint (http://127.0.0.1 only)
//   --header 'Name: value'     request header for the SSE GET (Accept: text/event-stream is always sent)
//   --clients N                connections to open (default 1000)
//   --threads N                selector threads reading the streams (default 2)
//   --connect-parallel N       connections in flight at once (default 200); a 5xx answer is retried (3 attempts)
//   --source-addresses N       spread the connections over the source addresses 127.0.0.1 .. 127.0.0.N, client i
//                              bound to 127.0.0.(1 + i mod N) before it connects (default: one per 20,000 clients).
//                              Loopback gives each (source address, destination) pair only the ephemeral port
//                              range (net.ipv4.ip_local_port_range, about 28,000 ports), so 50,000 clients need
//                              at least two source addresses; all of 127.0.0.0/8 is loopback on Linux
//   --connect-timeout S        bound of the whole connect phase in seconds (default 180)
//   --settle S                 seconds between the last connection and the "after" RSS reading (default 5)
//   --rate R                   events per second published, in total (default 100)
//   --duration S               seconds of publishing (default 30)
//   --drain S                  at most this many seconds after the last publish to wait for deliveries (default 20)
//   --publish-url URL          POST target; several are used round-robin
//   --publish-header 'N: v'    header for the POSTs
//   --publish-body-file F      body template; {TS} is replaced by the send time (epoch micros), {ISO} by the same
//                              instant in ISO-8601 (ms), {SEQ} by a sequence number
//   --publish-kafka HOST:PORT  publish by producing the body to Kafka instead of POSTing it (kafka-clients must be
//                              on the class path: java -cp 'api/target/libs/*' SseLoad.java ...); acks=all
//   --publish-topic T          the topic (default warden.events)
//   --publish-key K            the record key (default none)
//   --publish-parallel N       POSTs in flight at most (default 256)
//   --warmup S                 before measuring, publish min(rate, 50) events/s for S seconds with send time 0
//                              (never measured): JIT and caches warm (default 0)
//   --release-on-write B       true (default): a connect slot is freed once the request is written (needed when
//                              the server holds its headers); false: only at the response status
//   --prime-interval S         while connections wait for their `200`, publish one event every S seconds with send
//                              time 0 (counted as stale, never measured): a server that holds its response headers
//                              until the first event (Warden's does) answers then (default 1; 0: never)
//   --rss-pid PID              add VmRSS of PID to the server's memory
//   --rss-tree PID             add VmRSS of PID and all its descendants
//   --jcmd-pid PID             also report the live Java heap of that JVM (after a full GC, via jcmd) before and
//                              after connecting
//   --histogram FILE           with --jcmd-pid: also take that JVM's class histogram (jcmd GC.class_histogram,
//                              live objects after a full GC) before and after connecting, and write the classes
//                              whose bytes grew most (bytes and instances per connection) to FILE
//   --cpu-tree PID             add CPU time of PID and all its descendants to the server's CPU figure
//   --partition-file F         partitioned load instead of broadcast: one line per partition, `VALUE<TAB>HEADER`
//                              (HEADER optional). Client i belongs to partition i mod P: its request sends HEADER
//                              and has {P} in --url replaced by VALUE; event number s goes to partition s mod P:
//                              {P} in the body template and in --publish-key is replaced by VALUE. Each event is
//                              then expected by the clients of one partition only (clients a multiple of P)
//   --label TEXT               name printed in the results
//   --out FILE                 also write the results as a properties file
// Every phase is bounded in time; the program always stops by itself.

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

public class SseLoad {
    static final long BASE_NANO = System.nanoTime();
    static final long BASE_MICROS;

    static {
        Instant now = Instant.now();
        BASE_MICROS = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    /** Epoch microseconds from one monotonic clock (publisher and readers share it). */
    static long nowMicros() {
        return BASE_MICROS + (System.nanoTime() - BASE_NANO) / 1000;
    }

    // ------------------------------------------------------------------ options

    static final Map<String, List<String>> OPTS = new LinkedHashMap<>();

    static String opt(String name, String dflt) {
        List<String> v = OPTS.get(name);
        return v == null || v.isEmpty() ? dflt : v.getLast();
    }

    static List<String> opts(String name) {
        return OPTS.getOrDefault(name, List.of());
    }

    static int intOpt(String name, int dflt) {
        return Integer.parseInt(opt(name, Integer.toString(dflt)));
    }

    static double dblOpt(String name, double dflt) {
        return Double.parseDouble(opt(name, Double.toString(dflt)));
    }

    // ------------------------------------------------------------------ shared counters

    static final AtomicInteger connected = new AtomicInteger();
    static final AtomicInteger requested = new AtomicInteger(); // requests written, not yet failed
    static final AtomicInteger connectFailures = new AtomicInteger();
    static final AtomicInteger settled = new AtomicInteger(); // connected or failed for good
    static final AtomicInteger dropped = new AtomicInteger(); // closed by the server after connecting
    static final Map<String, AtomicInteger> errorKinds = new java.util.concurrent.ConcurrentHashMap<>();
    static volatile long measureFromMicros = Long.MAX_VALUE; // events sent before this are stale
    static volatile boolean stopping;
    /** Free a connect slot once the request is written (true) or only at the response status (false). */
    static boolean RELEASE_ON_WRITE = true;

    static void error(String kind) {
        errorKinds.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
    }

    // ------------------------------------------------------------------ latency histogram

    /** 10 µs buckets below 100 ms, then 1 ms buckets up to 600 s. One per reader thread. */
    static final class Histogram {
        static final int FINE = 10_000;
        static final int COARSE = 600_000;
        final long[] counts = new long[FINE + COARSE + 1];
        long total;
        long max;
        long negative;

        void record(long micros) {
            if (micros < 0) {
                negative++;
                micros = 0;
            }
            int b;
            if (micros < 100_000) {
                b = (int) (micros / 10);
            } else {
                long c = (micros - 100_000) / 1000;
                b = FINE + (int) Math.min(c, COARSE);
            }
            counts[b]++;
            total++;
            if (micros > max) {
                max = micros;
            }
        }

        void add(Histogram o) {
            for (int i = 0; i < counts.length; i++) {
                counts[i] += o.counts[i];
            }
            total += o.total;
            max = Math.max(max, o.max);
            negative += o.negative;
        }

        /** Upper bound of the bucket holding quantile q, in microseconds. */
        long quantile(double q) {
            if (total == 0) {
                return -1;
            }
            long rank = (long) Math.ceil(q * total);
            long seen = 0;
            for (int i = 0; i < counts.length; i++) {
                seen += counts[i];
                if (seen >= rank) {
                    long upper = i < FINE ? (i + 1) * 10L : 100_000L + (i - FINE + 1) * 1000L;
                    return Math.min(upper, max);
                }
            }
            return max;
        }
    }

    // ------------------------------------------------------------------ one SSE connection

    static final byte[] MARKER = "bench_".getBytes(StandardCharsets.US_ASCII);

    static final class Conn {
        final int index;
        int attempts;
        boolean slotHeld;
        SocketChannel ch;
        ByteBuffer request;
        // response header
        StringBuilder head = new StringBuilder(256);
        boolean inBody;
        boolean chunked;
        // chunked decoding: 0 size digits, 1 size extension until LF, 2 data, 3 CR/LF after data
        int chunkState;
        long chunkLeft;
        // marker scanning
        int matched;
        boolean inDigits;
        long ts;
        int digits;

        Conn(int index) {
            this.index = index;
        }
    }

    // ------------------------------------------------------------------ reader threads

    static final class Reader implements Runnable {
        final Selector selector;
        final ConcurrentLinkedQueue<Conn> pending = new ConcurrentLinkedQueue<>();
        final Histogram hist = new Histogram();
        final Semaphore inFlight;
        final Runnable onRetry;
        final ByteBuffer buf = ByteBuffer.allocateDirect(256 * 1024);
        final byte[] arr = new byte[256 * 1024];
        long events;
        long stale;
        volatile long eventsPublished; // copy for the main thread
        final List<Conn> open = new ArrayList<>();

        Reader(Semaphore inFlight, Runnable onRetry) throws IOException {
            this.selector = Selector.open();
            this.inFlight = inFlight;
            this.onRetry = onRetry;
        }

        void add(Conn c) {
            pending.add(c);
            selector.wakeup();
        }

        @Override
        public void run() {
            try {
                while (!stopping) {
                    selector.select(200);
                    Conn c;
                    while ((c = pending.poll()) != null) {
                        try {
                            c.ch.register(selector, SelectionKey.OP_CONNECT, c);
                        } catch (IOException e) {
                            fail(c, "register: " + e.getClass().getSimpleName(), true);
                        }
                    }
                    var keys = selector.selectedKeys();
                    for (SelectionKey key : keys) {
                        Conn conn = (Conn) key.attachment();
                        try {
                            if (!key.isValid()) {
                                continue;
                            }
                            if (key.isConnectable()) {
                                conn.ch.finishConnect();
                                key.interestOps(SelectionKey.OP_WRITE);
                            } else if (key.isWritable()) {
                                conn.ch.write(conn.request);
                                if (!conn.request.hasRemaining()) {
                                    conn.request = null;
                                    key.interestOps(SelectionKey.OP_READ);
                                    // The request is on the wire. The slot is freed now, not at the 200: a server
                                    // may hold its response headers until the first event (see --prime-interval).
                                    requested.incrementAndGet();
                                    if (RELEASE_ON_WRITE) {
                                        release(conn);
                                    }
                                }
                            } else if (key.isReadable()) {
                                read(key, conn);
                            }
                        } catch (IOException e) {
                            key.cancel();
                            fail(conn, "io: " + e.getClass().getSimpleName() + ": " + e.getMessage(), !conn.inBody);
                        }
                    }
                    keys.clear();
                    eventsPublished = events;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                for (SelectionKey key : selector.keys()) {
                    closeHard(((Conn) key.attachment()).ch);
                }
                try {
                    selector.close();
                } catch (IOException ignored) {
                }
            }
        }

        void release(Conn c) {
            if (c.slotHeld) {
                c.slotHeld = false;
                inFlight.release();
            }
        }

        void fail(Conn c, String why, boolean beforeConnected) {
            closeHard(c.ch);
            if (beforeConnected) {
                if (c.slotHeld) {
                    release(c);
                } else if (c.request == null) {
                    requested.decrementAndGet();
                }
                if (!stopping && c.attempts < 3 && (why.contains("Connect") || why.contains("reset"))) {
                    error("connect retried: " + why);
                    onRetry.run();
                    retry(c);
                    return;
                }
                error("connect failed: " + why);
                connectFailures.incrementAndGet();
                settled.incrementAndGet();
            } else if (!stopping) {
                dropped.incrementAndGet();
                error("dropped after connect: " + why);
            }
        }

        final ConcurrentLinkedQueue<Conn> retries = new ConcurrentLinkedQueue<>();

        void retry(Conn c) {
            retries.add(c);
        }

        void read(SelectionKey key, Conn c) throws IOException {
            for (int round = 0; round < 16; round++) {
                buf.clear();
                int n = c.ch.read(buf);
                if (n < 0) {
                    key.cancel();
                    fail(c, "closed by server", !c.inBody);
                    return;
                }
                if (n == 0) {
                    return;
                }
                long now = nowMicros();
                buf.flip();
                buf.get(arr, 0, n);
                int i = 0;
                if (!c.inBody) {
                    i = header(key, c, n);
                    if (i < 0) {
                        return;
                    }
                }
                body(c, i, n, now);
                if (n < buf.capacity()) {
                    return;
                }
            }
        }

        /** Consumes header bytes; returns where the body starts, or -1 (still in the header, or failed). */
        int header(SelectionKey key, Conn c, int n) {
            for (int i = 0; i < n; i++) {
                c.head.append((char) (arr[i] & 0xff));
                int len = c.head.length();
                if (len >= 4 && c.head.charAt(len - 1) == '\n' && c.head.charAt(len - 2) == '\r'
                        && c.head.charAt(len - 3) == '\n' && c.head.charAt(len - 4) == '\r') {
                    String h = c.head.toString();
                    c.head = null;
                    String status = h.length() >= 12 ? h.substring(9, 12) : "???";
                    if (!status.equals("200")) {
                        key.cancel();
                        closeHard(c.ch);
                        release(c);
                        requested.decrementAndGet();
                        if (!stopping && c.attempts < 3 && status.startsWith("5")) {
                            error("retried after status " + status);
                            onRetry.run();
                            retry(c);
                            return -1;
                        }
                        error("status " + status + ": " + h.lines().findFirst().orElse(""));
                        connectFailures.incrementAndGet();
                        settled.incrementAndGet();
                        return -1;
                    }
                    c.chunked = h.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked");
                    c.inBody = true;
                    release(c);
                    connected.incrementAndGet();
                    settled.incrementAndGet();
                    return i + 1;
                }
                if (len > 16_384) {
                    key.cancel();
                    closeHard(c.ch);
                    release(c);
                    requested.decrementAndGet();
                    error("header too long");
                    connectFailures.incrementAndGet();
                    settled.incrementAndGet();
                    return -1;
                }
            }
            return -1;
        }

        void body(Conn c, int from, int n, long now) {
            int i = from;
            if (!c.chunked) {
                scan(c, i, n, now);
                return;
            }
            while (i < n) {
                switch (c.chunkState) {
                    case 0 -> { // hex size
                        byte b = arr[i++];
                        int d = Character.digit(b, 16);
                        if (d >= 0) {
                            c.chunkLeft = c.chunkLeft * 16 + d;
                        } else if (b == '\n') {
                            c.chunkState = c.chunkLeft == 0 ? 4 : 2;
                        } else {
                            c.chunkState = 1;
                        }
                    }
                    case 1 -> { // extension, until LF
                        if (arr[i++] == '\n') {
                            c.chunkState = c.chunkLeft == 0 ? 4 : 2;
                        }
                    }
                    case 2 -> { // data
                        int take = (int) Math.min(c.chunkLeft, n - i);
                        scan(c, i, i + take, now);
                        i += take;
                        c.chunkLeft -= take;
                        if (c.chunkLeft == 0) {
                            c.chunkState = 3;
                        }
                    }
                    case 3 -> { // CRLF after data
                        if (arr[i++] == '\n') {
                            c.chunkState = 0;
                        }
                    }
                    default -> i = n; // last chunk: ignore trailers; the server closes
                }
            }
        }

        /** Finds `bench_<digits>` in the event bytes; one marker is one delivered event. */
        void scan(Conn c, int from, int to, long now) {
            byte[] a = arr;
            for (int i = from; i < to; i++) {
                byte b = a[i];
                if (c.inDigits) {
                    if (b >= '0' && b <= '9' && c.digits < 18) {
                        c.ts = c.ts * 10 + (b - '0');
                        c.digits++;
                        continue;
                    }
                    c.inDigits = false;
                    if (c.digits > 0) {
                        if (c.ts >= measureFromMicros) {
                            hist.record(now - c.ts);
                            events++;
                        } else {
                            stale++;
                        }
                    }
                }
                if (b == MARKER[c.matched]) {
                    if (++c.matched == MARKER.length) {
                        c.matched = 0;
                        c.inDigits = true;
                        c.ts = 0;
                        c.digits = 0;
                    }
                } else {
                    c.matched = b == MARKER[0] ? 1 : 0;
                }
            }
        }
    }

    static void closeHard(SocketChannel ch) {
        if (ch == null) {
            return;
        }
        try {
            if (ch.isOpen()) {
                try {
                    ch.setOption(StandardSocketOptions.SO_LINGER, 0); // RST: no TIME_WAIT on our ports
                } catch (IOException | UnsupportedOperationException ignored) {
                }
                ch.close();
            }
        } catch (IOException ignored) {
        }
    }

    // ------------------------------------------------------------------ /proc

    static List<Long> tree(long pid) {
        List<Long> pids = new ArrayList<>();
        ProcessHandle.of(pid).ifPresent(p -> {
            pids.add(p.pid());
            p.descendants().forEach(d -> pids.add(d.pid()));
        });
        return pids;
    }

    static List<Long> rssPids() {
        List<Long> pids = new ArrayList<>();
        for (String p : opts("--rss-pid")) {
            pids.add(Long.parseLong(p));
        }
        for (String p : opts("--rss-tree")) {
            pids.addAll(tree(Long.parseLong(p)));
        }
        return pids;
    }

    static long rssKb(List<Long> pids) {
        long sum = 0;
        for (long pid : pids) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                    if (line.startsWith("VmRSS:")) {
                        sum += Long.parseLong(line.replaceAll("[^0-9]", ""));
                    }
                }
            } catch (IOException | RuntimeException ignored) {
                // process gone
            }
        }
        return sum;
    }

    /** utime + stime in clock ticks (100 per second on Linux). */
    static long cpuTicks(List<Long> pids) {
        long sum = 0;
        for (long pid : pids) {
            try {
                String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
                sum += Long.parseLong(f[11]) + Long.parseLong(f[12]);
            } catch (IOException | RuntimeException ignored) {
            }
        }
        return sum;
    }

    /** Live Java heap of a JVM after a full GC (jcmd GC.run, then GC.heap_info "used"), -1 when unknown. */
    static long liveHeapKb(String pid) {
        try {
            String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            new ProcessBuilder(jcmd, pid, "GC.run").redirectErrorStream(true).redirectOutput(
                    ProcessBuilder.Redirect.DISCARD).start().waitFor(60, TimeUnit.SECONDS);
            Process p = new ProcessBuilder(jcmd, pid, "GC.heap_info").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
            var m = java.util.regex.Pattern.compile("heap\\s+total[^\\n]*?used (\\d+)K").matcher(out);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Class name -> {instances, bytes} of the live objects (jcmd GC.class_histogram: a full GC first). */
    static Map<String, long[]> classHistogram(String pid) {
        Map<String, long[]> classes = new LinkedHashMap<>();
        try {
            String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            Process p = new ProcessBuilder(jcmd, pid, "GC.class_histogram").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(60, TimeUnit.SECONDS);
            var row = java.util.regex.Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
            for (String line : out.split("\n")) {
                var m = row.matcher(line);
                if (m.find()) {
                    classes.merge(m.group(3), new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))},
                            (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
                }
            }
        } catch (IOException | RuntimeException e) {
            error("histogram: " + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return classes;
    }

    /** The classes whose live bytes grew most between two histograms, per connection, as a table. */
    static String histogramGrowth(Map<String, long[]> before, Map<String, long[]> after, int conns, int top) {
        record Growth(String name, long instances, long bytes) {}
        List<Growth> rows = new ArrayList<>();
        long total = 0;
        for (var e : after.entrySet()) {
            long[] b = before.getOrDefault(e.getKey(), new long[2]);
            Growth g = new Growth(e.getKey(), e.getValue()[0] - b[0], e.getValue()[1] - b[1]);
            total += g.bytes();
            rows.add(g);
        }
        for (var e : before.entrySet()) {
            if (!after.containsKey(e.getKey())) {
                total -= e.getValue()[1];
            }
        }
        rows.sort((x, y) -> Long.compare(y.bytes(), x.bytes()));
        double n = Math.max(1, conns);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "live heap growth over %d connections: %d bytes, %.0f bytes/connection%n%n",
                conns, total, total / n));
        sb.append(String.format(Locale.ROOT, "%12s %10s %14s %12s  %s%n", "bytes/conn", "inst/conn", "bytes", "instances",
                "class"));
        for (Growth g : rows.subList(0, Math.min(top, rows.size()))) {
            sb.append(String.format(Locale.ROOT, "%12.1f %10.2f %14d %12d  %s%n", g.bytes() / n, g.instances() / n,
                    g.bytes(), g.instances(), g.name()));
        }
        return sb.toString();
    }

    static List<Long> cpuPids() {
        List<Long> pids = new ArrayList<>();
        for (String p : opts("--cpu-tree")) {
            pids.addAll(tree(Long.parseLong(p)));
        }
        return pids;
    }

    // ------------------------------------------------------------------ main

    static final Map<String, String> RESULTS = new LinkedHashMap<>();

    static void result(String key, Object value) {
        RESULTS.put(key, String.valueOf(value));
        System.out.println("RESULT " + key + "=" + value);
    }

    static void log(String msg) {
        System.out.printf("[sseload %s] %s%n", java.time.LocalTime.now().withNano(0), msg);
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            OPTS.computeIfAbsent(args[i], k -> new ArrayList<>()).add(args[++i]);
        }
        URI url = URI.create(opt("--url", "http://127.0.0.1:8080/events/stream").replace("{P}", "%7BP%7D"));
        if (!"127.0.0.1".equals(url.getHost()) && !"localhost".equals(url.getHost())) {
            throw new IllegalArgumentException("only 127.0.0.1 targets");
        }
        int clients = intOpt("--clients", 1000);
        RELEASE_ON_WRITE = Boolean.parseBoolean(opt("--release-on-write", "true"));
        double warmup = dblOpt("--warmup", 0);
        int threads = intOpt("--threads", 2);
        int parallel = intOpt("--connect-parallel", 200);
        double connectTimeout = dblOpt("--connect-timeout", 180);
        double settleS = dblOpt("--settle", 5);
        double rate = dblOpt("--rate", 100);
        double duration = dblOpt("--duration", 30);
        double drain = dblOpt("--drain", 20);
        String label = opt("--label", url.getAuthority());
        result("label", label);
        result("clients_requested", clients);
        result("rate_requested", rate);
        result("duration_s", duration);

        String path = url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
        String partitionFile = opt("--partition-file", null);
        List<String> partitionHeaders = new ArrayList<>();
        if (partitionFile != null) {
            for (String line : Files.readAllLines(Path.of(partitionFile))) {
                if (!line.isBlank()) {
                    int tab = line.indexOf('\t');
                    PARTITION_VALUES.add(tab < 0 ? line.strip() : line.substring(0, tab));
                    partitionHeaders.add(tab < 0 ? "" : line.substring(tab + 1));
                }
            }
            if (PARTITION_VALUES.isEmpty() || clients % PARTITION_VALUES.size() != 0) {
                throw new IllegalArgumentException("--clients must be a multiple of the partitions");
            }
        }
        int partitions = Math.max(1, PARTITION_VALUES.size());
        result("partitions", PARTITION_VALUES.isEmpty() ? "broadcast" : Integer.toString(partitions));
        byte[][] requests = new byte[partitions][];
        for (int p = 0; p < partitions; p++) {
            String value = PARTITION_VALUES.isEmpty() ? "" : PARTITION_VALUES.get(p);
            StringBuilder req = new StringBuilder("GET ").append(path.replace("%7BP%7D", value)).append(" HTTP/1.1\r\nHost: ")
                    .append(url.getHost()).append(':').append(url.getPort()).append("\r\nAccept: text/event-stream\r\n")
                    .append("Cache-Control: no-cache\r\n");
            for (String h : opts("--header")) {
                req.append(h).append("\r\n");
            }
            if (!PARTITION_VALUES.isEmpty() && !partitionHeaders.get(p).isEmpty()) {
                req.append(partitionHeaders.get(p)).append("\r\n");
            }
            requests[p] = req.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
        }
        InetSocketAddress target = new InetSocketAddress("127.0.0.1", url.getPort());
        int sourceCount = intOpt("--source-addresses", Math.max(1, (clients + 19_999) / 20_000));
        if (sourceCount < 1 || sourceCount > 250) {
            throw new IllegalArgumentException("--source-addresses must be 1-250");
        }
        InetSocketAddress[] sources = new InetSocketAddress[sourceCount];
        for (int s = 0; s < sourceCount; s++) {
            sources[s] = new InetSocketAddress(java.net.InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (1 + s)}), 0);
        }
        result("source_addresses", sourceCount);

        List<Long> rss = rssPids();
        List<Long> cpu = cpuPids();
        long rssBefore = rssKb(rss);
        result("rss_pids", rss.toString().replace(" ", ""));
        result("rss_before_kb", rssBefore);
        String jcmdPid = opt("--jcmd-pid", null);
        long heapBefore = jcmdPid == null ? -1 : liveHeapKb(jcmdPid);
        if (jcmdPid != null) {
            result("live_heap_before_kb", heapBefore);
        }
        String histogramFile = jcmdPid == null ? null : opt("--histogram", null);
        Map<String, long[]> histogramBefore = histogramFile == null ? Map.of() : classHistogram(jcmdPid);

        // ---- publisher (also primes connections whose server holds the headers until the first event)
        List<String> publishUrls = opts("--publish-url");
        String template = Files.readString(Path.of(opt("--publish-body-file", "/dev/null")));
        List<String[]> pubHeaders = new ArrayList<>();
        for (String h : opts("--publish-header")) {
            int colon = h.indexOf(':');
            pubHeaders.add(new String[] {h.substring(0, colon).strip(), h.substring(colon + 1).strip()});
        }
        for (String u : publishUrls) {
            String host = URI.create(u).getHost();
            if (!"127.0.0.1".equals(host) && !"localhost".equals(host)) {
                throw new IllegalArgumentException("only 127.0.0.1 targets");
            }
        }
        List<URI> pubUris = publishUrls.stream().map(URI::create).toList();
        ExecutorService vexec = Executors.newVirtualThreadPerTaskExecutor();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(vexec)
                .connectTimeout(Duration.ofSeconds(5)).build();
        String kafka = opt("--publish-kafka", null);
        Sender sender;
        if (kafka != null) {
            if (!kafka.startsWith("127.0.0.1:") && !kafka.startsWith("localhost:")) {
                throw new IllegalArgumentException("only 127.0.0.1 targets");
            }
            sender = new KafkaSender(kafka, opt("--publish-topic", "warden.events"), opt("--publish-key", null));
        } else if (!pubUris.isEmpty()) {
            sender = (seq, body) -> {
                HttpRequest.Builder rb = HttpRequest.newBuilder(pubUris.get((int) (Math.max(seq, 0) % pubUris.size())))
                        .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString(body));
                for (String[] h : pubHeaders) {
                    rb.header(h[0], h[1]);
                }
                HttpResponse<Void> r = http.send(rb.build(), HttpResponse.BodyHandlers.discarding());
                return r.statusCode();
            };
        } else {
            sender = null;
        }
        int pubParallel = intOpt("--publish-parallel", 256);
        Semaphore pubSlots = new Semaphore(pubParallel);
        LongAdder pubOk = new LongAdder();
        LongAdder pubFail = new LongAdder();
        Histogram pubLatency = new Histogram();
        Object pubLock = new Object();
        AtomicLong pubLate = new AtomicLong();

        double primeInterval = dblOpt("--prime-interval", 1);
        AtomicInteger primes = new AtomicInteger();
        Runnable prime = () -> {
            if (sender == null) {
                return;
            }
            primes.incrementAndGet();
            vexec.execute(() -> {
                // send time 0: every client counts this event as stale, not in the latency figures
                try {
                    int status = sender.send(-1, body(template, 0, -1));
                    if (status / 100 != 2) {
                        error("prime status " + status);
                    }
                } catch (Exception e) {
                    error("prime: " + e.getClass().getSimpleName());
                }
            });
        };

        // ---- connect
        Semaphore inFlight = new Semaphore(parallel);
        AtomicInteger retried = new AtomicInteger();
        List<Reader> readers = new ArrayList<>();
        List<Thread> readerThreads = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Reader r = new Reader(inFlight, retried::incrementAndGet);
            readers.add(r);
            Thread th = Thread.ofPlatform().name("sse-reader-" + t).daemon().start(r);
            readerThreads.add(th);
        }
        long connectStart = System.nanoTime();
        long connectDeadline = connectStart + (long) (connectTimeout * 1e9);
        log("connecting " + clients + " clients to " + url);
        int next = 0;
        long lastLog = System.nanoTime();
        long lastPrime = System.nanoTime();
        while (System.nanoTime() < connectDeadline) {
            if (primeInterval > 0 && requested.get() > connected.get() && System.nanoTime() - lastPrime > primeInterval * 1e9) {
                lastPrime = System.nanoTime();
                prime.run();
            }
            Conn c = null;
            Reader owner = null;
            for (Reader r : readers) {
                Conn rc = r.retries.poll();
                if (rc != null) {
                    c = rc;
                    owner = r;
                    break;
                }
            }
            if (c == null && next < clients) {
                c = new Conn(next);
                owner = readers.get(next % threads);
                next++;
            }
            if (c == null) {
                if (settled.get() >= clients) {
                    break;
                }
                Thread.sleep(20);
            } else {
                while (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    if (System.nanoTime() > connectDeadline) {
                        break;
                    }
                }
                if (System.nanoTime() > connectDeadline) {
                    break;
                }
                c.attempts++;
                c.slotHeld = true;
                c.request = ByteBuffer.wrap(requests[c.index % partitions]);
                c.head = new StringBuilder(256);
                c.inBody = false;
                try {
                    SocketChannel ch = SocketChannel.open();
                    ch.configureBlocking(false);
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    c.ch = ch;
                    if (sourceCount > 1) {
                        ch.bind(sources[c.index % sourceCount]); // an ephemeral port of that source address
                    }
                    ch.connect(target);
                    owner.add(c);
                } catch (IOException e) {
                    c.slotHeld = false;
                    inFlight.release();
                    error("open: " + e.getClass().getSimpleName() + ": " + e.getMessage());
                    connectFailures.incrementAndGet();
                    settled.incrementAndGet();
                    closeHard(c.ch);
                }
            }
            if (System.nanoTime() - lastLog > 5e9) {
                lastLog = System.nanoTime();
                log("requested " + requested.get() + ", connected (200) " + connected.get() + ", failed "
                        + connectFailures.get() + ", retried " + retried.get() + ", primes " + primes.get());
            }
        }
        double connectSeconds = (System.nanoTime() - connectStart) / 1e9;
        int conns = connected.get();
        log(String.format("connected %d of %d in %.1f s (failed %d, retried %d)", conns, clients, connectSeconds,
                connectFailures.get(), retried.get()));
        result("connected", conns);
        result("connect_failed", connectFailures.get());
        result("connect_retried", retried.get());
        result("connect_s", String.format(Locale.ROOT, "%.1f", connectSeconds));
        result("connect_primes", primes.get());
        Thread.sleep((long) (settleS * 1000));
        long rssAfter = rssKb(rss);
        result("rss_after_kb", rssAfter);
        result("rss_per_conn_kb", conns == 0 ? "n/a"
                : String.format(Locale.ROOT, "%.1f", (rssAfter - rssBefore) / (double) conns));
        if (jcmdPid != null) {
            long heapAfter = liveHeapKb(jcmdPid);
            result("live_heap_after_kb", heapAfter);
            result("live_heap_per_conn_kb", conns == 0 || heapBefore < 0 || heapAfter < 0 ? "n/a"
                    : String.format(Locale.ROOT, "%.1f", (heapAfter - heapBefore) / (double) conns));
            if (histogramFile != null) {
                Files.writeString(Path.of(histogramFile),
                        histogramGrowth(histogramBefore, classHistogram(jcmdPid), conns, 60));
                log("class histogram growth per connection: " + histogramFile);
            }
        }
        int connectedAtStart = connected.get() - dropped.get();
        result("connected_at_publish_start", connectedAtStart);
        if (sender == null || conns == 0) {
            log(conns == 0 ? "no connection: nothing to measure" : "no --publish-url: nothing to measure");
            stopping = true;
            finish(readers, readerThreads, conns, 0, 0, 0, 0, cpu, 0, 0);
            vexec.shutdownNow();
            return;
        }

        if (warmup > 0) {
            double warmRate = Math.min(rate, 50);
            log(String.format("warm-up: %.0f events/s for %.0f s (not measured)", warmRate, warmup));
            long w0 = System.nanoTime();
            for (long i = 0; i < (long) (warmRate * warmup); i++) {
                long due = w0 + (long) (i * 1e9 / warmRate);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                prime.run();
            }
            Thread.sleep(2000);
        }
        measureFromMicros = nowMicros();
        long cpuBefore = cpuTicks(cpu);
        long selfCpuBefore = cpuTicks(List.of(ProcessHandle.current().pid()));
        long pubStart = System.nanoTime();
        long pubEnd = pubStart + (long) (duration * 1e9);
        double intervalNs = 1e9 / rate;
        log(String.format("publishing %.0f events/s for %.0f s to %d connections", rate, duration, connectedAtStart));
        long seq = 0;
        lastLog = System.nanoTime();
        while (true) {
            long due = pubStart + (long) (seq * intervalNs);
            if (due >= pubEnd) {
                break;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            if (!pubSlots.tryAcquire()) {
                pubLate.incrementAndGet();
                // all slots busy: wait (bounded by the end of the phase); the achieved rate is reported
                if (!pubSlots.tryAcquire(Math.max(1, pubEnd - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    break;
                }
            }
            final long s = seq++;
            vexec.execute(() -> {
                long sent = nowMicros();
                try {
                    int status = sender.send(s, body(template, sent, s));
                    if (status / 100 == 2) {
                        pubOk.increment();
                    } else {
                        pubFail.increment();
                        error("publish status " + status);
                    }
                } catch (Exception e) {
                    pubFail.increment();
                    error("publish: " + e.getClass().getSimpleName());
                } finally {
                    long took = nowMicros() - sent;
                    synchronized (pubLock) {
                        pubLatency.record(took);
                    }
                    pubSlots.release();
                }
            });
            if (System.nanoTime() - lastLog > 5e9) {
                lastLog = System.nanoTime();
                log(String.format("published %d (ok %d, failed %d), received %d, dropped %d", s + 1, pubOk.sum(),
                        pubFail.sum(), received(readers), dropped.get()));
            }
        }
        // wait (bounded) for the POSTs in flight
        pubSlots.tryAcquire(pubParallel, 15, TimeUnit.SECONDS);
        double pubSeconds = (System.nanoTime() - pubStart) / 1e9;
        long published = pubOk.sum();
        log(String.format("published %d ok, %d failed in %.1f s", published, pubFail.sum(), pubSeconds));

        // ---- drain
        // Broadcast: every event to every client; partitioned: to the clients of its partition only.
        long expected = (published + pubFail.sum()) * (long) connectedAtStart / partitions;
        long drainDeadline = System.nanoTime() + (long) (drain * 1e9);
        long lastReceived = -1;
        long lastChange = System.nanoTime();
        while (System.nanoTime() < drainDeadline) {
            long got = received(readers);
            if (got >= expected) {
                break;
            }
            if (got != lastReceived) {
                lastReceived = got;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > 5e9) {
                break; // nothing more for 5 s
            }
            Thread.sleep(100);
        }
        double measureSeconds = (System.nanoTime() - pubStart) / 1e9;
        long cpuAfter = cpuTicks(cpu);
        long selfCpuAfter = cpuTicks(List.of(ProcessHandle.current().pid()));
        result("published_ok", published);
        result("published_failed", pubFail.sum());
        result("publish_rate_achieved", String.format(Locale.ROOT, "%.0f", published / Math.min(pubSeconds, duration)));
        result("publish_waited_for_slot", pubLate.get());
        synchronized (pubLock) {
            result("publish_post_p50_ms", ms(pubLatency.quantile(0.50)));
            result("publish_post_p99_ms", ms(pubLatency.quantile(0.99)));
        }
        stopping = true;
        finish(readers, readerThreads, conns, expected, measureSeconds, duration, cpuAfter - cpuBefore, cpu,
                selfCpuAfter - selfCpuBefore, pubSeconds);
        // One more (stale) event after every connection is closed: a server that notices a dead client only
        // when it writes to it (Warden) frees those connections now, before the next run connects.
        prime.run();
        Thread.sleep(2000);
        vexec.shutdownNow();
    }

    /** One publish; answers an HTTP-like status (2xx: accepted). */
    interface Sender {
        int send(long seq, String body) throws Exception;
    }

    static final List<String> PARTITION_VALUES = new ArrayList<>();

    /** The partition value of event {@code seq} (a prime, seq < 0, goes to partition 0); "" when broadcasting. */
    static String partitionValue(long seq) {
        return PARTITION_VALUES.isEmpty() ? "" : PARTITION_VALUES.get((int) (Math.max(seq, 0) % PARTITION_VALUES.size()));
    }

    /** {P}: the partition value of the event (--partition-file); {TS}: send time in epoch micros; {ISO}: the same as an ISO-8601 instant (ms); {SEQ}: sequence number. */
    static String body(String template, long sentMicros, long seq) {
        template = template.replace("{P}", partitionValue(seq));
        String iso = java.time.format.DateTimeFormatter.ISO_INSTANT.format(
                Instant.ofEpochMilli((sentMicros > 0 ? sentMicros : nowMicros()) / 1000));
        return template.replace("{TS}", Long.toString(sentMicros)).replace("{ISO}", iso)
                .replace("{SEQ}", Long.toString(seq));
    }

    /**
     * Produces the body to a Kafka topic with the kafka-clients jar found on the class path (reflection keeps
     * this file free of compile-time dependencies). acks=all, linger.ms=0.
     */
    static final class KafkaSender implements Sender {
        final Object producer;
        final java.lang.reflect.Method send;
        final java.lang.reflect.Constructor<?> record;
        final String topic;
        final String key;

        KafkaSender(String bootstrap, String topic, String key) throws Exception {
            java.util.Properties props = new java.util.Properties();
            props.put("bootstrap.servers", bootstrap);
            props.put("acks", "all");
            props.put("linger.ms", "0");
            props.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
            props.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
            props.put("client.id", "sseload");
            Class<?> producerClass = Class.forName("org.apache.kafka.clients.producer.KafkaProducer");
            Class<?> recordClass = Class.forName("org.apache.kafka.clients.producer.ProducerRecord");
            producer = producerClass.getConstructor(java.util.Properties.class).newInstance(props);
            send = producerClass.getMethod("send", recordClass);
            record = recordClass.getConstructor(String.class, Object.class, Object.class);
            this.topic = topic;
            this.key = key;
        }

        @Override
        public int send(long seq, String body) throws Exception {
            java.util.concurrent.Future<?> f = (java.util.concurrent.Future<?>) send.invoke(producer,
                    record.newInstance(topic, key == null ? null : key.replace("{P}", partitionValue(seq)), body));
            f.get(15, TimeUnit.SECONDS);
            return 200;
        }
    }

    static long received(List<Reader> readers) {
        long sum = 0;
        for (Reader r : readers) {
            sum += r.eventsPublished;
        }
        return sum;
    }

    static String ms(long micros) {
        return micros < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", micros / 1000.0);
    }

    static void finish(List<Reader> readers, List<Thread> threads, int conns, long expected, double measureSeconds,
                       double duration, long cpuTicks, List<Long> cpuPids, long selfTicks, double pubSeconds)
            throws Exception {
        for (Thread t : threads) {
            t.join(10_000);
        }
        Histogram all = new Histogram();
        long stale = 0;
        for (Reader r : readers) {
            all.add(r.hist);
            stale += r.stale;
        }
        result("deliveries_expected", expected);
        result("deliveries_received", all.total);
        result("deliveries_missing", Math.max(0, expected - all.total));
        result("deliveries_stale_ignored", stale);
        result("deliveries_per_s", measureSeconds == 0 ? "0"
                : String.format(Locale.ROOT, "%.0f", all.total / measureSeconds));
        result("latency_p50_ms", ms(all.quantile(0.50)));
        result("latency_p90_ms", ms(all.quantile(0.90)));
        result("latency_p99_ms", ms(all.quantile(0.99)));
        result("latency_max_ms", ms(all.total == 0 ? -1 : all.max));
        result("latency_negative", all.negative);
        result("dropped_after_connect", dropped.get());
        result("server_cpu_pct", measureSeconds == 0 ? "n/a"
                : String.format(Locale.ROOT, "%.0f", cpuTicks / measureSeconds));
        result("client_cpu_pct", measureSeconds == 0 ? "n/a"
                : String.format(Locale.ROOT, "%.0f", selfTicks / measureSeconds));
        result("measure_s", String.format(Locale.ROOT, "%.1f", measureSeconds));
        StringBuilder errs = new StringBuilder();
        errorKinds.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> errs.append(e.getKey().replace('|', '/')).append(" x").append(e.getValue()).append(" | "));
        result("errors", errs.isEmpty() ? "none" : errs.toString());
        String out = opt("--out", null);
        if (out != null) {
            StringBuilder sb = new StringBuilder();
            RESULTS.forEach((k, v) -> sb.append(k).append('=').append(v.replace("\n", " ")).append('\n'));
            Files.writeString(Path.of(out), sb.toString());
        }
    }
}
