package dev.warden.api.http;

import io.helidon.common.GenericType;
import io.helidon.common.uri.UriQuery;
import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.ServerResponseTrailers;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.http.spi.Sink;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.util.function.UnaryOperator;

/**
 * The answer to a {@code HEAD} (RFC 9110 9.3.2): a {@code GET} route's handler runs on it as on the GET's answer,
 * and what it would send as the body is measured and dropped, so the client gets the GET's status and headers,
 * {@code Content-Length} included, and no body. A streamed body is buffered only to count it.
 */
final class HeadResponse implements ServerResponse {
    private final ServerResponse res;

    HeadResponse(ServerResponse res) {
        this.res = res;
    }

    @Override
    public ServerResponse status(Status status) {
        res.status(status);
        return this;
    }

    @Override
    public Status status() {
        return res.status();
    }

    @Override
    public ServerResponse header(Header header) {
        res.header(header);
        return this;
    }

    @Override
    public void send() {
        res.send();
    }

    @Override
    public void send(byte[] bytes) {
        headOnly(bytes.length);
    }

    @Override
    public void send(Object entity) {
        switch (entity) {
            case byte[] bytes -> send(bytes);
            // Helidon writes a String as UTF-8 (pages, metrics)
            case String text -> send(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            default ->
                throw new IllegalStateException("a HEAD answer measures bytes and text only, not "
                        + entity.getClass().getName());
        }
    }

    @Override
    public boolean isSent() {
        return res.isSent();
    }

    @Override
    public OutputStream outputStream() {
        return new ByteArrayOutputStream() {
            private boolean closed;

            @Override
            public void close() {
                if (!closed) {
                    closed = true;
                    headOnly(size());
                }
            }
        };
    }

    private void headOnly(long length) {
        res.header(HeaderNames.CONTENT_LENGTH, Long.toString(length));
        res.send();
    }

    @Override
    public long bytesWritten() {
        return res.bytesWritten();
    }

    @Override
    public ServerResponse whenSent(Runnable listener) {
        res.whenSent(listener);
        return this;
    }

    @Override
    public ServerResponse reroute(String newPath) {
        res.reroute(newPath);
        return this;
    }

    @Override
    public ServerResponse reroute(String path, UriQuery query) {
        res.reroute(path, query);
        return this;
    }

    @Override
    public ServerResponse next() {
        res.next();
        return this;
    }

    @Override
    public ServerResponseHeaders headers() {
        return res.headers();
    }

    @Override
    public ServerResponseTrailers trailers() {
        return res.trailers();
    }

    @Override
    public void streamResult(String result) {
        res.streamResult(result);
    }

    @Override
    public <T extends Sink<?>> T sink(GenericType<T> sinkType) {
        throw new IllegalStateException("a HEAD answer has no body to stream into");
    }

    @Override
    public void streamFilter(UnaryOperator<OutputStream> filterFunction) {
        res.streamFilter(filterFunction);
    }
}
