// OAuth token endpoint load client (single-file program: `java TokenLoad.java ...`, JDK 21+; no build, no
// dependency). One run per target: it sets the target up, then measures each grant in turn and writes one line
// per measured run to a TSV file.
//
//   java TokenLoad.java --target warden --base http://127.0.0.1:8080 --admin-token wdn_adm_x \
//        --registration-token reg_x --workers 16,64 --duration 20 --warmup 30 --out-dir DIR
//   java TokenLoad.java --target keycloak --base http://127.0.0.1:8081 --kc-admin admin:secret ...
//
// Setup. Warden: registers a confidential client (POST /oauth/register with the initial access token,
// client_secret_basic), signs a user up (POST /auth/sign-up: a session cookie), then runs the authorization
// code flow (PKCE S256) once per refresh slot through the built-in consent page over plain HTTP (a cookie jar,
// the page's hidden fields and CSRF token; the consent is remembered after the first time) and exchanges
// each code: one grant, hence one refresh-token family, per load worker. Creates a `service` agent bound to an
// OAuth client (POST /agents/{id}/oauth-client) for client_credentials, and an agent owned by the user as the
// token-exchange actor. Keycloak: through the admin REST API a realm (refresh-token rotation on, 1 h access
// tokens, session lifetimes like Warden's grant lifetimes), one confidential client with direct access grants
// (used for the setup's password grants only), service accounts and standard token exchange, an audience
// mapper putting the client in its own access tokens (standard token exchange requires the requester in the
// subject token's audience), and a user; one password grant per refresh slot.
// Grants that the target does not support (Warden: an unknown route or `unsupported_grant_type`) are reported
// as unavailable and skipped.
//
// Load. Closed loop: W workers, each on its own keep-alive HTTP/1.1 connection (plain blocking sockets), sends
// its next request as soon as the previous answer is read. Refresh workers each own one refresh token and
// continue with the one each answer returns (rotation). A request counts when its answer is complete before
// the end of the run; the latency is from writing the request to reading the whole answer. Only answers that
// pass the check (200 and an access_token, or "active":true for introspection) go into the latency histogram
// and the throughput; every other answer or I/O failure is an error (kinds and a sample body are kept).
// During each measured run the CPU time of the server's processes (--cpu-pid with all its descendants, and
// every process whose command line holds --cpu-match), of this process, and of the whole machine is read from
// /proc.
//
// Options:
//   --target warden|keycloak
//   --base URL                   http://127.0.0.1:PORT (loopback only)
//   --admin-token T              Warden: the bootstrap administrator token
//   --registration-token T       Warden: an initial access token of POST /oauth/register
//   --kc-admin USER:PASSWORD     Keycloak: the bootstrap administrator of the master realm
//   --kc-realm NAME              Keycloak realm to create (default bench)
//   --kc-alg ES256|RS256         Keycloak realm's access token signature algorithm (default ES256: Warden's)
//   --kc-norotate true|false     Keycloak: also measure refresh with rotation off (default true)
//   --grants LIST                comma-separated, in order: refresh,client_credentials,token_exchange,introspection
//   --workers LIST               comma-separated worker counts (default 16,64)
//   --duration S                 seconds per measured run (default 20)
//   --warmup S                   unmeasured seconds per grant before its runs, at the largest worker count
//                                (default 30)
//   --first-warmup S             the same for the first grant measured (JIT of the shared HTTP, JSON and
//                                database paths; default: --warmup)
//   --warm-all S                 before any grant is measured, S unmeasured seconds of each grant in turn, at the
//                                largest worker count, so that no grant is measured on a server that has not yet run
//                                the grants after it (a server's JIT warms on every grant; default 0: none)
//   --timeout S                  socket timeout per request (default 10)
//   --cpu-pid PID, --cpu-match S the server's processes (see above)
//   --out-dir DIR                appends to DIR/results.tsv, DIR/status.tsv; error samples in DIR/errors-*.txt
// Exit status: 0 setup done and no errors; 2 some run had errors; 1 setup failed.

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class TokenLoad {
    static final Map<String, String> OPTS = new LinkedHashMap<>();
    static final SecureRandom RANDOM = new SecureRandom();
    static final String FORM = "application/x-www-form-urlencoded";
    static final String JSON = "application/json";
    static final String TX_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
    static final String AT_TYPE = "urn:ietf:params:oauth:token-type:access_token";

    static String opt(String name, String dflt) {
        return OPTS.getOrDefault(name, dflt);
    }

    static String need(String name) {
        String v = OPTS.get(name);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException(name + " is required");
        }
        return v;
    }

    static void log(String msg) {
        System.err.printf("[token-load %tT] %s%n", System.currentTimeMillis(), msg);
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String basic(String id, String secret) {
        return "Basic " + Base64.getEncoder().encodeToString((enc(id) + ":" + enc(secret)).getBytes(StandardCharsets.UTF_8));
    }

    static String form(String... kv) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < kv.length; i += 2) {
            if (kv[i + 1] == null) {
                continue;
            }
            if (!b.isEmpty()) {
                b.append('&');
            }
            b.append(enc(kv[i])).append('=').append(enc(kv[i + 1]));
        }
        return b.toString();
    }

    static String jsonEsc(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** The string value of the first member "key" (no unescaping beyond \/ and \"; enough for tokens and ids). */
    static String jstr(String body, String key) {
        String k = "\"" + key + "\"";
        int i = 0;
        while ((i = body.indexOf(k, i)) >= 0) {
            int j = i + k.length();
            while (j < body.length() && Character.isWhitespace(body.charAt(j))) {
                j++;
            }
            if (j < body.length() && body.charAt(j) == ':') {
                j++;
                while (j < body.length() && Character.isWhitespace(body.charAt(j))) {
                    j++;
                }
                if (j < body.length() && body.charAt(j) == '"') {
                    StringBuilder out = new StringBuilder();
                    for (int p = j + 1; p < body.length(); p++) {
                        char c = body.charAt(p);
                        if (c == '\\' && p + 1 < body.length()) {
                            out.append(body.charAt(++p));
                        } else if (c == '"') {
                            return out.toString();
                        } else {
                            out.append(c);
                        }
                    }
                }
                return null;
            }
            i = j;
        }
        return null;
    }

    static String snippet(String s) {
        s = s.replaceAll("\\s+", " ");
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    // ------------------------------------------------------------------ a minimal HTTP/1.1 client

    record Resp(int status, List<String[]> headers, String body) {
        String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        List<String> all(String name) {
            List<String> out = new ArrayList<>();
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    out.add(h[1]);
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return status + " " + snippet(body);
        }
    }

    /** One keep-alive connection. Not thread-safe. */
    static final class Http implements AutoCloseable {
        final String host;
        final int port;
        final int timeoutMs;
        final String hostHeader;
        Socket socket;
        InputStream in;
        OutputStream out;
        final byte[] buf = new byte[64 * 1024];
        int pos;
        int lim;

        Http(URI base, int timeoutMs) {
            this.host = base.getHost();
            this.port = base.getPort();
            this.timeoutMs = timeoutMs;
            this.hostHeader = host + ":" + port;
        }

        void connect() throws IOException {
            close();
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), timeoutMs);
            s.setSoTimeout(timeoutMs);
            socket = s;
            in = s.getInputStream();
            out = s.getOutputStream();
            pos = lim = 0;
        }

        byte[] request(String method, String target, List<String> headers, String contentType, String body) {
            StringBuilder b = new StringBuilder(256 + (body == null ? 0 : body.length()));
            b.append(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: ").append(hostHeader).append("\r\n");
            for (String h : headers) {
                b.append(h).append("\r\n");
            }
            byte[] payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            if (body != null) {
                b.append("Content-Type: ").append(contentType).append("\r\nContent-Length: ").append(payload.length).append("\r\n");
            } else if (!method.equals("GET")) {
                b.append("Content-Length: 0\r\n");
            }
            b.append("\r\n");
            byte[] head = b.toString().getBytes(StandardCharsets.UTF_8);
            byte[] all = new byte[head.length + payload.length];
            System.arraycopy(head, 0, all, 0, head.length);
            System.arraycopy(payload, 0, all, head.length, payload.length);
            return all;
        }

        Resp send(byte[] request) throws IOException {
            if (socket == null) {
                connect();
            }
            try {
                out.write(request);
                out.flush();
                return read();
            } catch (IOException e) {
                close();
                throw e;
            }
        }

        Resp send(String method, String target, List<String> headers, String contentType, String body) throws IOException {
            return send(request(method, target, headers, contentType, body));
        }

        private int fill() throws IOException {
            if (pos > 0 && pos == lim) {
                pos = lim = 0;
            }
            if (lim == buf.length) {
                if (pos == 0) {
                    throw new IOException("header line too long");
                }
                System.arraycopy(buf, pos, buf, 0, lim - pos);
                lim -= pos;
                pos = 0;
            }
            int n = in.read(buf, lim, buf.length - lim);
            if (n > 0) {
                lim += n;
            }
            return n;
        }

        private String line() throws IOException {
            while (true) {
                for (int i = pos; i < lim; i++) {
                    if (buf[i] == '\n') {
                        int end = i > pos && buf[i - 1] == '\r' ? i - 1 : i;
                        String s = new String(buf, pos, end - pos, StandardCharsets.ISO_8859_1);
                        pos = i + 1;
                        return s;
                    }
                }
                if (fill() < 0) {
                    throw new IOException("connection closed by the server");
                }
            }
        }

        private void readExactly(ByteArrayOutputStream sink, long n) throws IOException {
            while (n > 0) {
                if (pos == lim && fill() < 0) {
                    throw new IOException("connection closed in the body");
                }
                int take = (int) Math.min(n, lim - pos);
                sink.write(buf, pos, take);
                pos += take;
                n -= take;
            }
        }

        private Resp read() throws IOException {
            String status = line();
            if (!status.startsWith("HTTP/1.")) {
                throw new IOException("bad status line: " + snippet(status));
            }
            int code = Integer.parseInt(status.substring(9, 12));
            List<String[]> headers = new ArrayList<>();
            long length = -1;
            boolean chunked = false;
            boolean close = status.startsWith("HTTP/1.0");
            for (String h; !(h = line()).isEmpty(); ) {
                int c = h.indexOf(':');
                if (c <= 0) {
                    continue;
                }
                String name = h.substring(0, c).trim();
                String value = h.substring(c + 1).trim();
                headers.add(new String[] {name, value});
                if (name.equalsIgnoreCase("Content-Length")) {
                    length = Long.parseLong(value);
                } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.toLowerCase(Locale.ROOT).contains("chunked")) {
                    chunked = true;
                } else if (name.equalsIgnoreCase("Connection")) {
                    close = value.equalsIgnoreCase("close") || (close && !value.equalsIgnoreCase("keep-alive"));
                }
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream(length > 0 ? (int) Math.min(length, 1 << 20) : 256);
            if (chunked) {
                while (true) {
                    String size = line();
                    int semi = size.indexOf(';');
                    long n = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                    if (n == 0) {
                        while (!line().isEmpty()) {
                            // trailers
                        }
                        break;
                    }
                    readExactly(body, n);
                    line();
                }
            } else if (length >= 0) {
                readExactly(body, length);
            } else if (code != 204 && code != 304 && code / 100 != 1) {
                body.write(buf, pos, lim - pos);
                pos = lim;
                byte[] chunk = new byte[8192];
                for (int n; (n = in.read(chunk)) > 0; ) {
                    body.write(chunk, 0, n);
                }
                close = true;
            }
            Resp r = new Resp(code, headers, body.toString(StandardCharsets.UTF_8));
            if (close) {
                close();
            }
            return r;
        }

        @Override
        public void close() {
            if (socket != null) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                }
                socket = null;
            }
        }
    }

    // ------------------------------------------------------------------ a browser for the consent pages

    /** Cookie jar + redirect/form following, as deploy/interop/browser.mjs does it. */
    static final class Browser {
        final Http http;
        final URI base;
        final Map<String, String> cookies = new LinkedHashMap<>();
        final String username;
        final String password;
        final List<String> trail = new ArrayList<>();

        Browser(Http http, URI base, String username, String password) {
            this.http = http;
            this.base = base;
            this.username = username;
            this.password = password;
        }

        void store(Resp r) {
            for (String line : r.all("Set-Cookie")) {
                String[] parts = line.split(";");
                int eq = parts[0].indexOf('=');
                if (eq <= 0) {
                    continue;
                }
                String name = parts[0].substring(0, eq).trim();
                String value = parts[0].substring(eq + 1).trim();
                boolean expired = false;
                for (int i = 1; i < parts.length; i++) {
                    String a = parts[i].trim().toLowerCase(Locale.ROOT);
                    if (a.startsWith("max-age=") && a.substring(8).trim().startsWith("0")) {
                        expired = true;
                    }
                    if (a.startsWith("max-age=-")) {
                        expired = true;
                    }
                }
                if (expired || value.isEmpty()) {
                    cookies.remove(name);
                } else {
                    cookies.put(name, value);
                }
            }
        }

        Resp send(String method, URI url, String contentType, String body) throws IOException {
            List<String> headers = new ArrayList<>();
            headers.add("Accept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8");
            if (!cookies.isEmpty()) {
                StringBuilder c = new StringBuilder("Cookie: ");
                cookies.forEach((k, v) -> c.append(k).append('=').append(v).append("; "));
                headers.add(c.substring(0, c.length() - 2));
            }
            String target = url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
            Resp r = http.send(method, target, headers, contentType, body);
            trail.add(method + " " + target + " -> " + r.status() + (r.header("Location") == null ? "" : " Location: " + r.header("Location")));
            store(r);
            return r;
        }

        /** Follows the authorization URL until a redirect to redirectUri; returns that URL. */
        URI authorize(URI url, String redirectUri) throws IOException {
            trail.clear();
            String method = "GET";
            String contentType = null;
            String body = null;
            boolean signedIn = false;
            for (int step = 0; step < 12; step++) {
                Resp r = send(method, url, contentType, body);
                int s = r.status();
                if (s == 301 || s == 302 || s == 303 || s == 307 || s == 308) {
                    String loc = r.header("Location");
                    if (loc == null) {
                        throw fail(s + " without a Location");
                    }
                    URI next = url.resolve(loc);
                    if (next.toString().startsWith(redirectUri)) {
                        return next;
                    }
                    if (s != 307 && s != 308) {
                        method = "GET";
                        contentType = null;
                        body = null;
                    }
                    url = next;
                    continue;
                }
                String ct = r.header("Content-Type");
                if (s != 200 || ct == null || !ct.toLowerCase(Locale.ROOT).startsWith("text/html")) {
                    throw fail("unexpected answer " + r);
                }
                Form f = Form.parse(r.body(), url);
                if (f == null) {
                    throw fail("a 200 page without a form: " + snippet(r.body()));
                }
                boolean isSignIn = f.fields.stream().anyMatch(x -> x[1].equals("password"));
                if (isSignIn && signedIn) {
                    throw fail("the sign-in page came back (wrong credentials?)");
                }
                signedIn |= isSignIn;
                String values = f.fill(username, password);
                if (f.method.equals("GET")) {
                    url = URI.create(f.action.split("\\?")[0] + "?" + values);
                    method = "GET";
                    contentType = null;
                    body = null;
                } else {
                    url = URI.create(f.action);
                    method = "POST";
                    contentType = FORM;
                    body = values;
                }
            }
            throw fail("no redirect to " + redirectUri + " after 12 requests");
        }

        IOException fail(String msg) {
            return new IOException("browser: " + msg + "\n  requests so far:\n    " + String.join("\n    ", trail));
        }
    }

    /** The first form of a page: method, absolute action, fields {name, type, value, checked}, buttons {name, value}. */
    static final class Form {
        String method;
        String action;
        final List<String[]> fields = new ArrayList<>();
        final List<String[]> buttons = new ArrayList<>();

        static final Pattern OPEN = Pattern.compile("<form\\b([^>]*)>", Pattern.CASE_INSENSITIVE);
        static final Pattern CLOSE = Pattern.compile("</form\\s*>", Pattern.CASE_INSENSITIVE);
        static final Pattern TAG = Pattern.compile("<(input|button)\\b([^>]*)>", Pattern.CASE_INSENSITIVE);
        static final Pattern ATTR = Pattern.compile("([^\\s\"'<>/=]+)(?:\\s*=\\s*(?:\"([^\"]*)\"|'([^']*)'|([^\\s\"'=<>`]+)))?");
        static final Pattern ENTITY = Pattern.compile("&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);");

        static Form parse(String html, URI page) {
            html = html.replaceAll("(?s)<!--.*?-->", "");
            Matcher open = OPEN.matcher(html);
            if (!open.find()) {
                return null;
            }
            String rest = html.substring(open.end());
            Matcher close = CLOSE.matcher(rest);
            String inner = close.find() ? rest.substring(0, close.start()) : rest;
            Map<String, String> fa = attributes(open.group(1));
            Form f = new Form();
            f.method = fa.getOrDefault("method", "GET").isEmpty() ? "GET" : fa.getOrDefault("method", "GET").toUpperCase(Locale.ROOT);
            String action = fa.getOrDefault("action", "").trim();
            f.action = (action.isEmpty() ? page : page.resolve(action)).toString();
            Matcher m = TAG.matcher(inner);
            while (m.find()) {
                Map<String, String> a = attributes(m.group(2));
                String tag = m.group(1).toLowerCase(Locale.ROOT);
                String type = a.getOrDefault("type", tag.equals("button") ? "submit" : "text").toLowerCase(Locale.ROOT);
                if (tag.equals("button") || type.equals("submit") || type.equals("image")) {
                    if (type.equals("submit") || type.equals("image")) {
                        f.buttons.add(new String[] {a.getOrDefault("name", ""), a.getOrDefault("value", "")});
                    }
                    continue;
                }
                String name = a.get("name");
                if (name == null || name.isEmpty() || a.containsKey("disabled")) {
                    continue;
                }
                f.fields.add(new String[] {name, type, a.getOrDefault("value", ""), a.containsKey("checked") ? "1" : ""});
            }
            return f;
        }

        String fill(String username, String password) {
            List<String> kv = new ArrayList<>();
            for (String[] x : fields) {
                String name = x[0];
                String type = x[1];
                if (Set.of("submit", "button", "image", "reset", "file").contains(type)) {
                    continue;
                }
                if ((type.equals("checkbox") || type.equals("radio")) && x[3].isEmpty()) {
                    continue;
                }
                String value = x[2];
                if (type.equals("password") || name.equals("password")) {
                    value = password;
                } else if (name.equals("username") || (name.matches("(?i)^(user(name)?|login|email)$") && !type.equals("hidden"))) {
                    value = username;
                }
                kv.add(name);
                kv.add(value);
            }
            String[] chosen = null;
            for (String[] b : buttons) {
                if (b[0].equals("decision") && b[1].equals("allow")) {
                    chosen = b;
                }
            }
            if (chosen == null) {
                for (String[] b : buttons) {
                    if (!b[0].isEmpty() && b[1].matches("(?i)^(allow|approve|accept|authori[sz]e|consent|yes)$")) {
                        chosen = b;
                        break;
                    }
                }
            }
            if (chosen == null) {
                List<String[]> named = buttons.stream().filter(b -> !b[0].isEmpty()).toList();
                if (named.size() == 1) {
                    chosen = named.getFirst();
                }
            }
            if (chosen != null) {
                kv.add(chosen[0]);
                kv.add(chosen[1]);
            }
            return form(kv.toArray(new String[0]));
        }

        static Map<String, String> attributes(String text) {
            Map<String, String> out = new LinkedHashMap<>();
            Matcher m = ATTR.matcher(text);
            while (m.find()) {
                String name = m.group(1).toLowerCase(Locale.ROOT);
                String v = m.group(2) != null ? m.group(2) : m.group(3) != null ? m.group(3) : m.group(4) != null ? m.group(4) : "";
                out.putIfAbsent(name, decode(v));
            }
            return out;
        }

        static String decode(String s) {
            Matcher m = ENTITY.matcher(s);
            StringBuilder b = new StringBuilder();
            while (m.find()) {
                String ref = m.group(1);
                String rep;
                if (ref.startsWith("#x") || ref.startsWith("#X")) {
                    rep = new String(Character.toChars(Integer.parseInt(ref.substring(2), 16)));
                } else if (ref.startsWith("#")) {
                    rep = new String(Character.toChars(Integer.parseInt(ref.substring(1))));
                } else {
                    rep = switch (ref.toLowerCase(Locale.ROOT)) {
                        case "amp" -> "&";
                        case "quot" -> "\"";
                        case "apos" -> "'";
                        case "lt" -> "<";
                        case "gt" -> ">";
                        case "sol" -> "/";
                        case "equals" -> "=";
                        case "colon" -> ":";
                        default -> m.group();
                    };
                }
                m.appendReplacement(b, Matcher.quoteReplacement(rep));
            }
            m.appendTail(b);
            return b.toString();
        }
    }

    // ------------------------------------------------------------------ latency histogram

    /** 10 µs buckets below 100 ms, then 1 ms buckets up to 60 s (requests time out long before). One per worker. */
    static final class Histogram {
        static final int FINE = 10_000;
        static final int COARSE = 60_000;
        final long[] counts = new long[FINE + COARSE + 1];
        long total;
        long max;

        void record(long micros) {
            int b = micros < 100_000 ? (int) (micros / 10) : FINE + (int) Math.min((micros - 100_000) / 1000, COARSE);
            counts[b]++;
            total++;
            max = Math.max(max, micros);
        }

        void add(Histogram o) {
            for (int i = 0; i < counts.length; i++) {
                counts[i] += o.counts[i];
            }
            total += o.total;
            max = Math.max(max, o.max);
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

    // ------------------------------------------------------------------ CPU accounting from /proc

    static long ticksOf(long pid) {
        try {
            String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static long[] machineTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            return new long[] {total, idle};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
    }

    /** The server's pids: the tree under --cpu-pid and processes whose command line holds --cpu-match. */
    static Set<Long> serverPids() {
        String root = opt("--cpu-pid", "");
        String match = opt("--cpu-match", "");
        Set<Long> pids = new HashSet<>();
        if (root.isEmpty() && match.isEmpty()) {
            return pids;
        }
        Map<Long, Long> parent = new LinkedHashMap<>();
        try (var dir = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) dir::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long pid = Long.parseLong(name);
                try {
                    String st = Files.readString(p.resolve("stat"));
                    String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
                    parent.put(pid, Long.parseLong(f[1]));
                    if (!match.isEmpty()) {
                        String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                        if (cmd.contains(match)) {
                            pids.add(pid);
                        }
                    }
                } catch (IOException | RuntimeException ignored) {
                    // gone
                }
            }
        } catch (IOException e) {
            return pids;
        }
        if (!root.isEmpty()) {
            pids.add(Long.parseLong(root));
        }
        boolean grew = true;
        while (grew) {
            grew = false;
            for (var e : parent.entrySet()) {
                if (!pids.contains(e.getKey()) && pids.contains(e.getValue())) {
                    pids.add(e.getKey());
                    grew = true;
                }
            }
        }
        return pids;
    }

    static final class CpuSample {
        final Map<Long, Long> server = new LinkedHashMap<>();
        final long self;
        final long[] machine;

        CpuSample() {
            for (long pid : serverPids()) {
                server.put(pid, ticksOf(pid));
            }
            self = ticksOf(ProcessHandle.current().pid());
            machine = machineTicks();
        }

        /** {server, loader, other, idle} in % of one core, over the interval since `start`. */
        static double[] between(CpuSample start, CpuSample end, double seconds) {
            long srv = 0;
            for (var e : end.server.entrySet()) {
                srv += e.getValue() - start.server.getOrDefault(e.getKey(), 0L);
            }
            long self = end.self - start.self;
            long total = end.machine[0] - start.machine[0];
            long idle = end.machine[1] - start.machine[1];
            long busy = total - idle;
            double hz = 100.0; // USER_HZ
            double f = 100.0 / (hz * seconds);
            return new double[] {srv * f, self * f, Math.max(0, busy - srv - self) * f, idle * f};
        }
    }

    // ------------------------------------------------------------------ load

    /** One kind of request. request() and accept() are called by worker `w` only for its own slot. */
    interface Op {
        byte[] request(Http http, int w);

        /** True when the answer is a success; may update the worker's state. */
        boolean accept(int w, Resp r);

        /** True when worker w can go on after a failed answer. */
        default boolean alive(int w) {
            return true;
        }
    }

    static final class RunStats {
        final Histogram hist = new Histogram();
        long ok;
        long errors;
        long status429;
        final Map<String, AtomicLong> kinds = new ConcurrentHashMap<>();
        final Map<String, String> samples = new ConcurrentHashMap<>();
        int deadWorkers;
        double seconds;
        double[] cpu = {-1, -1, -1, -1};
        /** The fewest and the most requests one worker completed: how evenly the server served the connections. */
        long fewestPerWorker;
        long mostPerWorker;
    }

    static RunStats runLoad(URI base, Op op, int workers, double seconds, int timeoutMs) throws InterruptedException {
        RunStats total = new RunStats();
        Histogram[] hists = new Histogram[workers];
        long[] oks = new long[workers];
        long[] errs = new long[workers];
        long[] tooMany = new long[workers];
        boolean[] dead = new boolean[workers];
        CountDownLatch ready = new CountDownLatch(workers);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2];
        Thread[] threads = new Thread[workers];
        for (int i = 0; i < workers; i++) {
            final int w = i;
            hists[w] = new Histogram();
            threads[w] = Thread.ofPlatform().name("worker-" + w).start(() -> {
                Http http = new Http(base, timeoutMs);
                try {
                    try {
                        http.connect();
                    } catch (IOException e) {
                        // retried by the first send
                    }
                    ready.countDown();
                    go.await();
                    long end = window[1];
                    while (true) {
                        long t0 = System.nanoTime();
                        if (t0 >= end) {
                            break;
                        }
                        boolean good;
                        String kind = null;
                        Resp r = null;
                        try {
                            r = http.send(op.request(http, w));
                            good = op.accept(w, r);
                            if (!good) {
                                String err = jstr(r.body(), "error");
                                kind = "status " + r.status() + (err == null ? "" : " " + err);
                            }
                        } catch (IOException e) {
                            good = false;
                            kind = "io " + e.getClass().getSimpleName() + ": " + e.getMessage();
                        }
                        long t1 = System.nanoTime();
                        if (t1 <= end) {
                            if (good) {
                                hists[w].record((t1 - t0) / 1000);
                                oks[w]++;
                            } else {
                                errs[w]++;
                                if (r != null && r.status() == 429) {
                                    tooMany[w]++;
                                }
                                total.kinds.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
                                final Resp rr = r;
                                total.samples.computeIfAbsent(kind, k -> rr == null ? k : rr.toString());
                            }
                        }
                        if (!good && !op.alive(w)) {
                            dead[w] = true;
                            break;
                        }
                        if (!good && r == null) {
                            Thread.sleep(10); // I/O failure: do not spin on a refused connection
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    http.close();
                    ready.countDown();
                }
            });
        }
        if (!ready.await(60, TimeUnit.SECONDS)) {
            log("WARNING: not every worker connected within 60 s");
        }
        CpuSample c0 = new CpuSample();
        window[0] = System.nanoTime();
        window[1] = window[0] + (long) (seconds * 1e9);
        go.countDown();
        long joinBy = window[1] + (long) ((timeoutMs / 1000.0 + 15) * 1e9);
        Thread.sleep(Math.max(0, (window[1] - System.nanoTime()) / 1_000_000));
        CpuSample c1 = new CpuSample();
        for (Thread t : threads) {
            t.join(Math.max(1, (joinBy - System.nanoTime()) / 1_000_000));
        }
        total.seconds = (window[1] - window[0]) / 1e9;
        total.cpu = CpuSample.between(c0, c1, total.seconds);
        total.fewestPerWorker = Long.MAX_VALUE;
        for (int i = 0; i < workers; i++) {
            total.fewestPerWorker = Math.min(total.fewestPerWorker, oks[i]);
            total.mostPerWorker = Math.max(total.mostPerWorker, oks[i]);
            total.hist.add(hists[i]);
            total.ok += oks[i];
            total.errors += errs[i];
            total.status429 += tooMany[i];
            if (dead[i]) {
                total.deadWorkers++;
            }
        }
        return total;
    }

    // ------------------------------------------------------------------ grants

    static final class Grant {
        final String name;
        String unavailable; // null: available
        Op op;
        int warmupFactor = 1; // warm-up seconds = warmup / factor

        Grant(String name) {
            this.name = name;
        }
    }

    /** refresh_token: each worker's slot holds its current refresh token; the answer's replaces it. */
    static final class RefreshOp implements Op {
        final String path;
        final String auth;
        final String[] tokens;
        final boolean[] spent;

        RefreshOp(String path, String auth, String[] tokens) {
            this.path = path;
            this.auth = auth;
            this.tokens = tokens;
            this.spent = new boolean[tokens.length];
        }

        @Override
        public byte[] request(Http http, int w) {
            return http.request("POST", path, List.of("Authorization: " + auth), FORM,
                    "grant_type=refresh_token&refresh_token=" + enc(tokens[w]));
        }

        @Override
        public boolean accept(int w, Resp r) {
            if (r.status() == 200) {
                String next = jstr(r.body(), "refresh_token");
                if (next != null && r.body().contains("\"access_token\"")) {
                    tokens[w] = next;
                    return true;
                }
                return false;
            }
            if (r.status() == 400 && "invalid_grant".equals(jstr(r.body(), "error"))) {
                spent[w] = true; // the family is gone: this worker stops
            }
            return false;
        }

        @Override
        public boolean alive(int w) {
            return !spent[w];
        }
    }

    /** A fixed request whose success is a 200 containing `marker`. */
    static Op fixed(String path, String auth, String body, String marker) {
        return new Op() {
            byte[] cached;

            @Override
            public byte[] request(Http http, int w) {
                byte[] c = cached;
                if (c == null) {
                    c = cached = http.request("POST", path, List.of("Authorization: " + auth), FORM, body);
                }
                return c;
            }

            @Override
            public boolean accept(int w, Resp r) {
                return r.status() == 200 && r.body().contains(marker);
            }
        };
    }

    static Resp post(Http http, String path, String auth, String contentType, String body) throws IOException {
        List<String> h = new ArrayList<>();
        if (auth != null) {
            h.add("Authorization: " + auth);
        }
        h.add("Accept: application/json");
        return http.send("POST", path, h, contentType, body);
    }

    static String pkceVerifier() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    static String pkceChallenge(String verifier) throws Exception {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
    }

    static String queryParam(URI u, String name) {
        String q = u.getRawQuery();
        if (q == null) {
            return null;
        }
        for (String p : q.split("&")) {
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).equals(name)) {
                return URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ Warden setup

    static List<Grant> setupWarden(URI base, int slots, List<String> wanted, int timeoutMs) throws Exception {
        String admin = "Bearer " + need("--admin-token");
        String reg = "Bearer " + need("--registration-token");
        Http http = new Http(base, Math.max(timeoutMs, 30_000));
        String redirect = "http://127.0.0.1:9/bench/callback";
        String scope = "agents:read";

        // The token-exchange grant type must be registered to be used; a build without it refuses the member
        // (invalid_client_metadata), and then the client registers without it (token exchange is unavailable).
        String registration = "{\"client_name\":\"token bench\",\"redirect_uris\":[\"" + redirect + "\"],"
                + "\"token_endpoint_auth_method\":\"client_secret_basic\",\"grant_types\":[\"authorization_code\",\"refresh_token\"";
        Resp r = post(http, "/oauth/register", reg, JSON, registration + ",\"" + TX_GRANT + "\"]}");
        if (r.status() == 400 && "invalid_client_metadata".equals(jstr(r.body(), "error"))) {
            log("warden: registration with the token-exchange grant type refused (" + r + "); registering without it");
            r = post(http, "/oauth/register", reg, JSON, registration + "]}");
        }
        if (r.status() != 201) {
            throw new IOException("POST /oauth/register: " + r);
        }
        String clientId = jstr(r.body(), "client_id");
        String clientSecret = jstr(r.body(), "client_secret");
        String clientAuth = basic(clientId, clientSecret);
        log("warden: confidential client " + clientId + " (client_secret_basic)");

        String username = "bench_" + Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36);
        String password = "bench-" + pkceVerifier();
        Browser browser = new Browser(http, base, username, password);
        r = post(http, "/auth/sign-up", null, JSON,
                "{\"username\":\"" + username + "\",\"password\":\"" + jsonEsc(password) + "\"}");
        if (r.status() != 201) {
            throw new IOException("POST /auth/sign-up: " + r);
        }
        browser.store(r);
        String userId = jstr(r.body(), "id");
        log("warden: user " + username + " (" + userId + "), session cookie " + (browser.cookies.containsKey("warden_session") ? "set" : "MISSING"));

        // One grant per refresh slot, and one more whose access token is the introspection/exchange subject
        // (its refresh token is never used, so the load never rotates or revokes it).
        String[] refresh = new String[slots];
        String subjectAccess = null;
        long t0 = System.nanoTime();
        for (int i = 0; i <= slots; i++) {
            String verifier = pkceVerifier();
            URI auth = base.resolve("/oauth/authorize?" + form("response_type", "code", "client_id", clientId,
                    "redirect_uri", redirect, "code_challenge", pkceChallenge(verifier), "code_challenge_method", "S256",
                    "scope", scope, "state", "s" + i));
            URI back = browser.authorize(auth, redirect);
            String code = queryParam(back, "code");
            if (code == null) {
                throw new IOException("authorization answered without a code: " + back);
            }
            r = post(http, "/oauth/token", clientAuth, FORM, form("grant_type", "authorization_code", "code", code,
                    "redirect_uri", redirect, "code_verifier", verifier));
            String rt = jstr(r.body(), "refresh_token");
            String at = jstr(r.body(), "access_token");
            if (r.status() != 200 || rt == null || at == null) {
                throw new IOException("code exchange: " + r);
            }
            if (i < slots) {
                refresh[i] = rt;
            } else {
                subjectAccess = at;
            }
        }
        log(String.format("warden: %d authorization code grants (PKCE, consent page once, then remembered) in %.1f s",
                slots + 1, (System.nanoTime() - t0) / 1e9));

        List<Grant> grants = new ArrayList<>();
        for (String name : wanted) {
            Grant g = new Grant(name);
            grants.add(g);
            switch (name) {
                case "refresh" -> g.op = new RefreshOp("/oauth/token", clientAuth, refresh);
                case "introspection" -> {
                    g.op = fixed("/oauth/introspect", clientAuth, form("token", subjectAccess), "\"active\":true");
                    r = post(http, "/oauth/introspect", clientAuth, FORM, form("token", subjectAccess));
                    log("warden: introspection check -> " + r);
                    if (!(r.status() == 200 && r.body().contains("\"active\":true"))) {
                        throw new IOException("introspection of a fresh access token is not active: " + r);
                    }
                }
                case "client_credentials" -> {
                    r = post(http, "/agents", admin, JSON, "{\"ownerId\":\"bench\",\"name\":\"bench-svc\",\"type\":\"service\","
                            + "\"permissions\":[{\"resource\":\"agents\",\"actions\":[\"read\"]}]}");
                    if (r.status() != 201) {
                        g.unavailable = "POST /agents (service agent) answered " + r;
                        continue;
                    }
                    String agentId = jstr(r.body(), "id");
                    String agentToken = jstr(r.body(), "token");
                    r = post(http, "/agents/" + agentId + "/oauth-client", admin, null, null);
                    if (r.status() == 404 || r.status() == 405) {
                        g.unavailable = "not available in this build (POST /agents/{id}/oauth-client answered " + r.status() + ")";
                        continue;
                    }
                    if (r.status() / 100 != 2) {
                        g.unavailable = "binding the agent to an OAuth client failed: " + r;
                        continue;
                    }
                    String ccId = jstr(r.body(), "client_id");
                    if (ccId == null) {
                        ccId = agentId;
                    }
                    String ccAuth = basic(ccId, agentToken);
                    String body = form("grant_type", "client_credentials", "scope", scope);
                    r = post(http, "/oauth/token", ccAuth, FORM, body);
                    log("warden: client_credentials check -> " + r);
                    if (r.status() == 400 && "unsupported_grant_type".equals(jstr(r.body(), "error"))) {
                        g.unavailable = "not available in this build (unsupported_grant_type)";
                        continue;
                    }
                    if (r.status() != 200 || !r.body().contains("\"access_token\"")) {
                        g.unavailable = "FAILED: client_credentials check answered " + r;
                        continue;
                    }
                    g.op = fixed("/oauth/token", ccAuth, body, "\"access_token\"");
                }
                case "token_exchange" -> {
                    r = post(http, "/agents", admin, JSON, "{\"ownerId\":\"" + jsonEsc(userId) + "\",\"name\":\"bench-actor\","
                            + "\"type\":\"autonomous\",\"permissions\":[{\"resource\":\"agents\",\"actions\":[\"read\"]}]}");
                    if (r.status() != 201) {
                        g.unavailable = "FAILED: POST /agents (actor agent owned by the user) answered " + r;
                        continue;
                    }
                    String actorToken = jstr(r.body(), "token");
                    String body = form("grant_type", TX_GRANT, "subject_token", subjectAccess, "subject_token_type", AT_TYPE,
                            "actor_token", actorToken, "actor_token_type", AT_TYPE, "scope", scope);
                    r = post(http, "/oauth/token", clientAuth, FORM, body);
                    log("warden: token exchange check -> " + r);
                    if (r.status() == 400 && "unsupported_grant_type".equals(jstr(r.body(), "error"))) {
                        g.unavailable = "not available in this build (unsupported_grant_type)";
                        continue;
                    }
                    if (r.status() != 200 || !r.body().contains("\"access_token\"")) {
                        g.unavailable = "FAILED: token exchange check answered " + r;
                        continue;
                    }
                    g.op = fixed("/oauth/token", clientAuth, body, "\"access_token\"");
                }
                default -> throw new IllegalArgumentException("unknown grant " + name);
            }
        }
        http.close();
        return grants;
    }

    // ------------------------------------------------------------------ Keycloak setup

    static String kcAdminToken(Http http, String user, String password) throws IOException {
        Resp r = post(http, "/realms/master/protocol/openid-connect/token", null, FORM,
                form("grant_type", "password", "client_id", "admin-cli", "username", user, "password", password));
        String t = jstr(r.body(), "access_token");
        if (r.status() != 200 || t == null) {
            throw new IOException("Keycloak admin token: " + r);
        }
        return "Bearer " + t;
    }

    static Resp kcAdmin(Http http, String method, String path, String bearer, String json) throws IOException {
        return http.send(method, path, List.of("Authorization: " + bearer, "Accept: application/json"), json == null ? null : JSON, json);
    }

    static String[] kcAdminCredentials() {
        String s = need("--kc-admin");
        int c = s.indexOf(':');
        return new String[] {s.substring(0, c), s.substring(c + 1)};
    }

    static void kcSetRotation(URI base, String realm, boolean rotate) throws IOException {
        try (Http http = new Http(base, 30_000)) {
            String[] cred = kcAdminCredentials();
            String bearer = kcAdminToken(http, cred[0], cred[1]);
            Resp r = kcAdmin(http, "PUT", "/admin/realms/" + realm, bearer,
                    "{\"revokeRefreshToken\":" + rotate + ",\"refreshTokenMaxReuse\":0}");
            if (r.status() / 100 != 2) {
                throw new IOException("PUT realm revokeRefreshToken=" + rotate + ": " + r);
            }
        }
    }

    static List<Grant> setupKeycloak(URI base, int slots, List<String> wanted, int timeoutMs) throws Exception {
        String realm = opt("--kc-realm", "bench");
        String alg = opt("--kc-alg", "ES256");
        String[] cred = kcAdminCredentials();
        Http http = new Http(base, Math.max(timeoutMs, 30_000));
        String bearer = kcAdminToken(http, cred[0], cred[1]);
        // Equivalent settings: rotation with reuse detection (Warden rotates and revokes the family on reuse),
        // access tokens for 1 h (Warden: 3600 s), sessions as long as Warden's refresh token (30 days idle) and
        // grant (90 days), the signature algorithm of Warden's access tokens (ES256) unless told otherwise.
        Resp r = kcAdmin(http, "POST", "/admin/realms", bearer, "{\"realm\":\"" + realm + "\",\"enabled\":true,"
                + "\"revokeRefreshToken\":true,\"refreshTokenMaxReuse\":0,\"accessTokenLifespan\":3600,"
                + "\"ssoSessionIdleTimeout\":2592000,\"ssoSessionMaxLifespan\":7776000,"
                + "\"defaultSignatureAlgorithm\":\"" + alg + "\"}");
        if (r.status() != 201) {
            throw new IOException("create realm: " + r);
        }
        String secret = "bench-" + pkceVerifier();
        r = kcAdmin(http, "POST", "/admin/realms/" + realm + "/clients", bearer, "{\"clientId\":\"bench\",\"enabled\":true,"
                + "\"publicClient\":false,\"clientAuthenticatorType\":\"client-secret\",\"secret\":\"" + secret + "\","
                + "\"standardFlowEnabled\":false,\"directAccessGrantsEnabled\":true,\"serviceAccountsEnabled\":true,"
                + "\"attributes\":{\"standard.token.exchange.enabled\":\"true\"},"
                + "\"protocolMappers\":[{\"name\":\"audience-self\",\"protocol\":\"openid-connect\","
                + "\"protocolMapper\":\"oidc-audience-mapper\",\"config\":{\"included.client.audience\":\"bench\","
                + "\"access.token.claim\":\"true\",\"id.token.claim\":\"false\",\"introspection.token.claim\":\"true\"}}]}");
        if (r.status() != 201) {
            throw new IOException("create client: " + r);
        }
        String password = "bench-" + pkceVerifier();
        r = kcAdmin(http, "POST", "/admin/realms/" + realm + "/users", bearer, "{\"username\":\"bench_user\",\"enabled\":true,"
                + "\"emailVerified\":true,\"firstName\":\"Bench\",\"lastName\":\"User\",\"email\":\"bench@example.org\","
                + "\"credentials\":[{\"type\":\"password\",\"value\":\"" + password + "\",\"temporary\":false}]}");
        if (r.status() != 201) {
            throw new IOException("create user: " + r);
        }
        String clientAuth = basic("bench", secret);
        String tokenPath = "/realms/" + realm + "/protocol/openid-connect/token";
        log("keycloak: realm " + realm + " (revokeRefreshToken=true, reuse 0, access tokens 3600 s, " + alg
                + "), confidential client bench, user bench_user");
        String[] refresh = new String[slots];
        String subjectAccess = null;
        long t0 = System.nanoTime();
        for (int i = 0; i <= slots; i++) {
            r = post(http, tokenPath, clientAuth, FORM, form("grant_type", "password", "username", "bench_user", "password", password));
            String rt = jstr(r.body(), "refresh_token");
            String at = jstr(r.body(), "access_token");
            if (r.status() != 200 || rt == null || at == null) {
                throw new IOException("password grant: " + r);
            }
            if (i < slots) {
                refresh[i] = rt;
            } else {
                subjectAccess = at;
            }
        }
        log(String.format("keycloak: %d password grants (one user session each) in %.1f s", slots + 1, (System.nanoTime() - t0) / 1e9));

        List<Grant> grants = new ArrayList<>();
        for (String name : wanted) {
            Grant g = new Grant(name);
            grants.add(g);
            String body;
            String marker = "\"access_token\"";
            String path = tokenPath;
            switch (name) {
                case "refresh" -> {
                    g.op = new RefreshOp(tokenPath, clientAuth, refresh);
                    if (Boolean.parseBoolean(opt("--kc-norotate", "true"))) {
                        Grant n = new Grant("refresh_norotate");
                        n.op = new RefreshOp(tokenPath, clientAuth, refresh);
                        n.warmupFactor = 3;
                        grants.add(n);
                    }
                    continue;
                }
                case "client_credentials" -> body = form("grant_type", "client_credentials");
                case "token_exchange" -> body = form("grant_type", TX_GRANT, "subject_token", subjectAccess,
                        "subject_token_type", AT_TYPE);
                case "introspection" -> {
                    path = tokenPath + "/introspect";
                    body = form("token", subjectAccess);
                    marker = "\"active\":true";
                }
                default -> throw new IllegalArgumentException("unknown grant " + name);
            }
            r = post(http, path, clientAuth, FORM, body);
            log("keycloak: " + name + " check -> " + r);
            if (r.status() != 200 || !r.body().contains(marker)) {
                g.unavailable = "FAILED: " + name + " check answered " + r;
                continue;
            }
            g.op = fixed(path, clientAuth, body, marker);
        }
        http.close();
        return grants;
    }

    // ------------------------------------------------------------------ main

    static void append(Path file, String header, String line) throws IOException {
        if (!Files.exists(file)) {
            Files.writeString(file, header + "\n");
        }
        Files.writeString(file, line + "\n", StandardOpenOption.APPEND);
    }

    static String ms(long micros) {
        return micros < 0 ? "-" : String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }

    static final String RESULTS_HEADER = "target\tgrant\tworkers\treq_s\tp50_ms\tp90_ms\tp99_ms\tp999_ms\tmax_ms\tok\terrors\t"
            + "status_429\tdead_workers\tseconds\tcpu_server\tcpu_loader\tcpu_other\tcpu_idle";

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            OPTS.put(args[i], args[++i]);
        }
        String target = need("--target");
        URI base = URI.create(need("--base"));
        if (!"127.0.0.1".equals(base.getHost()) && !"localhost".equals(base.getHost())) {
            throw new IllegalArgumentException("only loopback targets");
        }
        List<String> wanted = List.of(opt("--grants", "refresh,client_credentials,token_exchange,introspection").split(","));
        List<Integer> workers = new ArrayList<>();
        for (String w : opt("--workers", "16,64").split("[, ]+")) {
            if (!w.isBlank()) {
                workers.add(Integer.parseInt(w.trim()));
            }
        }
        int maxWorkers = workers.stream().mapToInt(Integer::intValue).max().orElse(16);
        double duration = Double.parseDouble(opt("--duration", "20"));
        double warmup = Double.parseDouble(opt("--warmup", "30"));
        double firstWarmup = Double.parseDouble(opt("--first-warmup", Double.toString(warmup)));
        double warmAll = Double.parseDouble(opt("--warm-all", "0"));
        int timeoutMs = (int) (Double.parseDouble(opt("--timeout", "10")) * 1000);
        Path out = Path.of(opt("--out-dir", "."));
        Files.createDirectories(out);
        Path results = out.resolve("results.tsv");
        Path status = out.resolve("status.tsv");

        List<Grant> grants;
        try {
            grants = switch (target) {
                case "warden" -> setupWarden(base, maxWorkers, wanted, timeoutMs);
                case "keycloak" -> setupKeycloak(base, maxWorkers, wanted, timeoutMs);
                default -> throw new IllegalArgumentException("--target warden|keycloak");
            };
        } catch (Exception e) {
            log(target + ": SETUP FAILED: " + e.getMessage());
            append(status, "target\tgrant\tstatus\tdetail", target + "\tsetup\tfailed\t" + snippet(String.valueOf(e.getMessage())));
            System.exit(1);
            return;
        }

        boolean anyErrors = false;
        if (warmAll > 0) {
            for (Grant g : grants) {
                if (g.unavailable != null || g.name.equals("refresh_norotate")) {
                    continue;
                }
                anyErrors |= warm(base, target, g, "every grant's warm-up", "warm-all", warmAll / g.warmupFactor,
                        maxWorkers, timeoutMs, status, out);
            }
        }
        boolean first = true;
        for (Grant g : grants) {
            if (g.unavailable != null) {
                log(target + " " + g.name + ": " + g.unavailable);
                append(status, "target\tgrant\tstatus\tdetail", target + "\t" + g.name + "\t"
                        + (g.unavailable.startsWith("FAILED") ? "failed" : "unavailable") + "\t" + snippet(g.unavailable));
                anyErrors |= g.unavailable.startsWith("FAILED");
                continue;
            }
            if (g.name.equals("refresh_norotate")) {
                kcSetRotation(base, opt("--kc-realm", "bench"), false);
                log("keycloak: realm revokeRefreshToken=false (no rotation: a refresh token may be used again)");
            }
            double warm = (first ? firstWarmup : warmup) / g.warmupFactor;
            first = false;
            if (warm > 0) {
                anyErrors |= warm(base, target, g, "warm-up", "warmup", warm, maxWorkers, timeoutMs, status, out);
            }
            for (int w : workers) {
                RunStats s = runLoad(base, g.op, w, duration, timeoutMs);
                double rps = s.ok / s.seconds;
                String line = String.join("\t", target, g.name, Integer.toString(w), String.format(Locale.ROOT, "%.0f", rps),
                        ms(s.hist.quantile(0.50)), ms(s.hist.quantile(0.90)), ms(s.hist.quantile(0.99)),
                        ms(s.hist.quantile(0.999)), ms(s.hist.max), Long.toString(s.ok), Long.toString(s.errors),
                        Long.toString(s.status429), Integer.toString(s.deadWorkers), String.format(Locale.ROOT, "%.1f", s.seconds),
                        String.format(Locale.ROOT, "%.0f", s.cpu[0]), String.format(Locale.ROOT, "%.0f", s.cpu[1]),
                        String.format(Locale.ROOT, "%.0f", s.cpu[2]), String.format(Locale.ROOT, "%.0f", s.cpu[3]));
                append(results, RESULTS_HEADER, line);
                log(String.format("%s %s %d workers: %.0f req/s, p50 %s ms, p99 %s ms, %d errors%s; cpu %% of a core: server %.0f, "
                                + "loader %.0f, other %.0f, idle %.0f; one worker's requests: fewest %d, most %d", target, g.name, w,
                        rps, ms(s.hist.quantile(0.5)), ms(s.hist.quantile(0.99)), s.errors, s.kinds.isEmpty() ? "" : " " + s.kinds,
                        s.cpu[0], s.cpu[1], s.cpu[2], s.cpu[3], s.fewestPerWorker, s.mostPerWorker));
                if (s.errors > 0 || s.deadWorkers > 0) {
                    anyErrors = true;
                    writeErrors(out, target, g.name + "-" + w, s);
                }
            }
        }
        System.exit(anyErrors ? 2 : 0);
    }

    /**
     * Unmeasured load of grant {@code g} for {@code seconds} at {@code workers}, logged as {@code what} and recorded in
     * status.tsv as {@code key}: whether it had errors (their samples in errors-TARGET-GRANT-KEY.txt).
     */
    static boolean warm(URI base, String target, Grant g, String what, String key, double seconds, int workers,
            int timeoutMs, Path status, Path out) throws Exception {
        log(String.format("%s %s: %s %.0f s at %d workers", target, g.name, what, seconds, workers));
        RunStats s = runLoad(base, g.op, workers, seconds, timeoutMs);
        log(String.format("%s %s: %s done, %.0f req/s, %d errors%s", target, g.name, what, s.ok / s.seconds, s.errors,
                s.kinds.isEmpty() ? "" : " " + s.kinds));
        append(status, "target\tgrant\tstatus\tdetail", target + "\t" + g.name + "\t" + key + "\t"
                + String.format(Locale.ROOT, "%.0f s, %d ok, %d errors %s", s.seconds, s.ok, s.errors, s.kinds));
        if (s.errors > 0) {
            writeErrors(out, target, g.name + "-" + key, s);
            return true;
        }
        return false;
    }

    static void writeErrors(Path out, String target, String key, RunStats s) throws IOException {
        StringBuilder b = new StringBuilder();
        b.append(target).append(' ').append(key).append(": ").append(s.errors).append(" errors, ")
                .append(s.deadWorkers).append(" workers stopped (their refresh token family was revoked)\n");
        s.kinds.forEach((k, v) -> b.append("  ").append(v.get()).append(" x ").append(k).append("\n    sample: ")
                .append(s.samples.getOrDefault(k, "")).append('\n'));
        Files.writeString(out.resolve("errors-" + target + "-" + key + ".txt"), b.toString());
    }
}
