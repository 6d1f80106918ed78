package dev.warden.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One HTTP/1.1 keep-alive connection that sends {@code POST} requests and reads their answers, for load
 * generators on the same two cores as the server: the JDK's {@code HttpClient} spends several times the CPU per
 * request, which the server then lacks. Not thread-safe: one connection per sending thread.
 */
final class KeepAliveClient implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String host;

    KeepAliveClient(URI base) throws IOException {
        socket = new Socket(base.getHost(), base.getPort());
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        host = base.getHost() + ":" + base.getPort();
    }

    /** The answer's status and body. */
    record Answer(int status, String body) {}

    Answer post(String path, String bearer, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String request = "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + bearer
                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n";
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        Head head = head();
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        if (head.chunked()) {
            for (int size = Integer.parseInt(line().trim(), 16); size > 0; size = Integer.parseInt(line().trim(), 16)) {
                answer.write(in.readNBytes(size));
                line();
            }
            line();
        } else if (head.length() > 0) {
            answer.write(in.readNBytes((int) head.length()));
        }
        return new Answer(head.status(), answer.toString(StandardCharsets.UTF_8));
    }

    /** An answer's status line and the headers that frame its body (length -1 when not given). */
    private record Head(int status, long length, boolean chunked) {}

    /** Reads an answer's status line and headers. */
    private Head head() throws IOException {
        int status = Integer.parseInt(line().substring(9, 12));
        long length = -1;
        boolean chunked = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        return new Head(status, length, chunked);
    }

    /**
     * Sends {@code GET path} for a stream (SSE) and hands each line of the answer's body to {@code lines} as it
     * arrives, on this thread, until the server or {@link #close} ends it. Throws unless the answer is 200. Bytes
     * are taken as chars: the benches look for ASCII marks only.
     */
    void stream(String path, String bearer, Consumer<String> lines) throws IOException {
        out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + bearer
                        + "\r\nAccept: text/event-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        Head head = head();
        if (head.status() != 200) {
            throw new IOException("stream answered " + head.status());
        }
        boolean chunked = head.chunked();
        StringBuilder line = new StringBuilder();
        while (true) {
            int chunk = Integer.MAX_VALUE;
            if (chunked) {
                chunk = Integer.parseInt(line().trim(), 16);
                if (chunk == 0) {
                    return;
                }
            }
            for (int i = 0; i < chunk; i++) {
                int c = in.read();
                if (c < 0) {
                    return;
                }
                if (c == '\n') {
                    lines.accept(line.toString());
                    line.setLength(0);
                } else if (c != '\r') {
                    line.append((char) c);
                }
            }
            line(); // the CRLF after the chunk
        }
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("connection closed");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
