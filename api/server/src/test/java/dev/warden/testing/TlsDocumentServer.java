package dev.warden.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A real HTTPS server on loopback that stands in for the web servers hosting client ID metadata documents: a
 * self-signed certificate for {@code localhost} made at start (its trust store is {@link #clientContext()}), a
 * well-behaved document at {@code /good.json}, and at {@code /slow.json} a server that sends its headers and then
 * one byte every half second for a minute. Counts the requests to each path.
 */
public final class TlsDocumentServer implements AutoCloseable {
    /** How long {@code /slow.json} keeps dribbling. */
    public static final Duration DRIBBLE = Duration.ofSeconds(60);

    private final HttpsServer server;
    private final SSLContext clientContext;
    private final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();

    private TlsDocumentServer(HttpsServer server, SSLContext clientContext) {
        this.server = server;
        this.clientContext = clientContext;
    }

    /** Starts on a free port of 127.0.0.1. */
    public static TlsDocumentServer start() {
        try {
            KeyPair keys = KeyPairGenerator.getInstance("EC").generateKeyPair();
            X509Certificate certificate = selfSigned(keys);
            KeyStore identity = KeyStore.getInstance("PKCS12");
            identity.load(null, null);
            identity.setKeyEntry("server", keys.getPrivate(), new char[0], new X509Certificate[] {certificate});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(identity, new char[0]);
            SSLContext serverContext = SSLContext.getInstance("TLS");
            serverContext.init(kmf.getKeyManagers(), null, null);

            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("server", certificate);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext clientContext = SSLContext.getInstance("TLS");
            clientContext.init(null, tmf.getTrustManagers(), null);

            HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
            server.setHttpsConfigurator(new HttpsConfigurator(serverContext));
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            TlsDocumentServer documents = new TlsDocumentServer(server, clientContext);
            server.createContext("/", documents::handle);
            server.start();
            return documents;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the TLS document server", e);
        }
    }

    /** The port it listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The URL of {@code path} (starting with {@code /}) as a client id: {@code https://localhost:<port><path>}. */
    public String url(String path) {
        return "https://localhost:" + port() + path;
    }

    /** A client TLS context that trusts this server's certificate (and nothing else). */
    public SSLContext clientContext() {
        return clientContext;
    }

    /** How many requests reached {@code path}. */
    public int hits(String path) {
        return hits.getOrDefault(path, new AtomicInteger()).get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        hits.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        try (exchange) {
            if (path.equals("/slow.json")) {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, 0);
                OutputStream out = exchange.getResponseBody();
                Instant end = Instant.now().plus(DRIBBLE);
                out.write('{');
                while (Instant.now().isBefore(end)) {
                    Thread.sleep(500);
                    out.write(' ');
                    out.flush();
                }
                return;
            }
            if (path.equals("/good.json")) {
                byte[] body = ("{\"client_id\":\"" + url(path) + "\",\"client_name\":\"Document client\","
                                + "\"redirect_uris\":[\"http://127.0.0.1:9/cb\"],\"token_endpoint_auth_method\":\"none\"}")
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                return;
            }
            exchange.sendResponseHeaders(404, -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away (as a deadline makes it): nothing to answer
        }
    }

    private static X509Certificate selfSigned(KeyPair keys) throws Exception {
        X500Name name = new X500Name("CN=localhost");
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                name,
                BigInteger.valueOf(now.toEpochMilli()),
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(1))),
                name,
                keys.getPublic());
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")
        }));
        return new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
