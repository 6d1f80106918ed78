// The origin behind Pushpin for the SSE benchmark (single-file program: `java GripOrigin.java PORT [CHANNEL]`).
//
// Pushpin forwards each new client request here; the answer tells Pushpin to hold the connection open as an
// event stream subscribed to CHANNEL (GRIP: `Grip-Hold: stream`, `Grip-Channel`; a request with `?ch=NAME`
// subscribes to channel NAME instead: the partitioned load). The origin is then out of the path: events are
// published to Pushpin's own publish endpoint (`POST :5561/publish/`) and fanned out by Pushpin. Listens on 127.0.0.1 only; `GET /health` answers 200 without GRIP headers.

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;

public class GripOrigin {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String channel = args.length > 1 ? args[1] : "bench";
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/health", ex -> {
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            var h = ex.getResponseHeaders();
            h.set("Content-Type", "text/event-stream");
            h.set("Cache-Control", "no-store");
            h.set("Grip-Hold", "stream");
            String query = ex.getRequestURI().getRawQuery();
            String own = query != null && query.startsWith("ch=") ? query.substring(3) : channel;
            h.set("Grip-Channel", own);
            ex.sendResponseHeaders(200, -1); // no initial body; Pushpin sends the headers and keeps the stream open
            ex.close();
        });
        server.start();
        System.out.println("grip origin on 127.0.0.1:" + port + ", channel " + channel);
    }
}
