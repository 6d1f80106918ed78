// Creates N agents on a running Warden for the partitioned SSE benchmark (single-file program, JDK 21+):
//   java SetupAgents.java BASE_URL ADMIN_TOKEN N OUT_FILE
// Writes one line per agent to OUT_FILE: `<agent id><TAB>Authorization: Bearer <agent token>`, the format of
// SseLoad's --partition-file. 32 requests in flight; fails (exit 1) on the first non-201 answer.

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class SetupAgents {
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"(agt_[A-Za-z0-9]+)\"");
    private static final Pattern TOKEN = Pattern.compile("\"token\"\\s*:\\s*\"(wdn_agt_[A-Za-z0-9_-]+)\"");

    public static void main(String[] args) throws Exception {
        URI agents = URI.create(args[0]).resolve("/agents");
        String admin = args[1];
        int n = Integer.parseInt(args[2]);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        Semaphore slots = new Semaphore(32);
        List<Future<String>> lines = new ArrayList<>();
        long start = System.nanoTime();
        try (var exec = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < n; i++) {
                int k = i;
                slots.acquire();
                lines.add(exec.submit(() -> {
                    try {
                        String body = "{\"ownerId\":\"bench" + (k % 100) + "\",\"name\":\"sse-" + k
                                + "\",\"type\":\"autonomous\",\"permissions\":[]}";
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(agents)
                                .header("Authorization", "Bearer " + admin).header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 201) {
                            throw new IllegalStateException("POST /agents: " + r.statusCode() + " " + r.body());
                        }
                        Matcher id = ID.matcher(r.body());
                        Matcher token = TOKEN.matcher(r.body());
                        if (!id.find() || !token.find()) {
                            throw new IllegalStateException("no id/token in " + r.body());
                        }
                        return id.group(1) + "\tAuthorization: Bearer " + token.group(1);
                    } finally {
                        slots.release();
                    }
                }));
            }
        }
        List<String> out = new ArrayList<>(n);
        for (Future<String> f : lines) {
            out.add(f.get());
        }
        Files.write(Path.of(args[3]), out);
        System.out.printf("created %d agents in %.1f s%n", n, (System.nanoTime() - start) / 1e9);
    }
}
