package dev.warden.api.http;

import static dev.warden.testing.TestAgents.anAgent;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.webhooks.WebhooksConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cursor paging of the lists whose body is an array ({@code GET /agents}, {@code /delegations}, {@code /webhooks};
 * D183) through real HTTP: pages of {@code limit}, the next cursor in {@code Warden-Next-Cursor} and {@code Link},
 * the pages together equal to the whole list in its order, and a query parameter the list does not take refused.
 */
class ListPagingIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.webhooks(WebhooksConfig.builder().allowPrivateTargets(true).build()));

    static Http http;
    static String admin;
    static String alice;
    static String bob;

    @BeforeAll
    static void users() {
        http = warden.http();
        admin = warden.adminToken();
        alice = apiToken("pager-alice");
        bob = apiToken("pager-bob");
    }

    static String apiToken(String userId) {
        return warden.apiToken(userId);
    }

    static String agent(String token, String owner) {
        Http.Response res = http.post("/agents", token, anAgent(owner).json());
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    /** The pages of {@code path} with {@code limit}, followed by {@code Warden-Next-Cursor} or by {@code Link}. */
    static List<List<String>> pages(String path, String token, int limit, boolean followLink) {
        List<List<String>> pages = new ArrayList<>();
        String next = path + (path.contains("?") ? "&" : "?") + "limit=" + limit;
        while (next != null) {
            Http.Response page = http.get(next, token);
            assertThat(page.status()).as(page.body()).isEqualTo(200);
            pages.add(ids(page.json()));
            Optional<String> cursor = page.header(ListPaging.NEXT_CURSOR_HEADER);
            Optional<String> link = page.header("Link");
            assertThat(link.isPresent())
                    .as("Link and the cursor header come together")
                    .isEqualTo(cursor.isPresent());
            if (cursor.isEmpty()) {
                next = null;
            } else if (followLink) {
                Matcher m = Pattern.compile("^<([^>]+)>; rel=\"next\"$").matcher(link.get());
                assertThat(m.matches()).as(link.get()).isTrue();
                URI target = URI.create(m.group(1));
                assertThat(target.getRawQuery()).contains("limit=" + limit);
                next = target.getRawPath() + "?" + target.getRawQuery();
            } else {
                next = path + (path.contains("?") ? "&" : "?") + "limit=" + limit + "&cursor=" + cursor.get();
            }
        }
        return pages;
    }

    static List<String> ids(JsonNode array) {
        assertThat(array.isArray()).as(array.toString()).isTrue();
        List<String> ids = new ArrayList<>();
        array.forEach(item -> ids.add(item.get("id").asText()));
        return ids;
    }

    @Test
    void agentsComeInPagesThatTogetherAreTheWholeListInItsOrder() {
        String carol = apiToken("pager-carol");
        for (int i = 0; i < 5; i++) {
            agent(carol, "pager-carol");
        }
        agent(bob, "pager-bob");
        List<String> whole = ids(http.get("/agents", carol).json());
        assertThat(whole).hasSize(5);

        List<List<String>> byHeader = pages("/agents", carol, 2, false);
        assertThat(byHeader).extracting(List::size).containsExactly(2, 2, 1);
        assertThat(byHeader.stream().flatMap(List::stream).toList()).isEqualTo(whole);
        List<List<String>> byLink = pages("/agents?status=active", carol, 2, true);
        assertThat(byLink.stream().flatMap(List::stream).toList()).isEqualTo(whole);

        // a page exactly as long as what is left has no next page
        assertThat(pages("/agents", carol, 5, false)).containsExactly(whole);
        Http.Response exact = http.get("/agents?limit=5", carol);
        assertThat(exact.header(ListPaging.NEXT_CURSOR_HEADER)).isEmpty();
        assertThat(exact.header("Link")).isEmpty();
        // without limit or cursor, the whole list and no paging headers (SPEC: an array of Agent)
        assertThat(http.get("/agents", carol).header(ListPaging.NEXT_CURSOR_HEADER))
                .isEmpty();
    }

    @Test
    void aPageIsFullEvenWhenRowsTheCallerMayNotSeeLieBetween() {
        // An agent caller sees only itself among many: its page still has it, and nothing else leaks.
        String mine = agent(alice, "pager-alice");
        Http.Response created =
                http.post("/agents", alice, anAgent("pager-alice").json());
        String agentToken = created.json().get("token").asText();
        for (int i = 0; i < 3; i++) {
            agent(alice, "pager-alice");
        }
        List<List<String>> asAgent = pages("/agents", agentToken, 1, false);
        assertThat(asAgent).containsExactly(List.of(created.json().get("id").asText()));
        assertThat(asAgent.getFirst()).doesNotContain(mine);

        // Delegations between bob's agents lie between alice's: alice's pages are full and hold only hers.
        String a1 = agent(alice, "pager-alice");
        String a2 = agent(alice, "pager-alice");
        String b1 = agent(bob, "pager-bob");
        String b2 = agent(bob, "pager-bob");
        List<String> hers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            delegate(bob, b1, b2);
            hers.add(delegate(alice, a1, a2));
        }
        List<List<String>> delegationPages = pages("/delegations?fromAgent=" + a1, alice, 2, true);
        assertThat(delegationPages).extracting(List::size).containsExactly(2, 1);
        assertThat(delegationPages.stream().flatMap(List::stream).toList()).isEqualTo(hers);
        List<String> allHers = ids(http.get("/delegations", alice).json());
        assertThat(pages("/delegations", alice, 1, false).stream()
                        .flatMap(List::stream)
                        .toList())
                .isEqualTo(allHers)
                .doesNotContainAnyElementsOf(ids(http.get("/delegations", bob).json()));
    }

    static String delegate(String token, String from, String to) {
        Http.Response res = http.post("/delegations", token, """
                {"fromAgent":"%s","toAgent":"%s","permissions":[{"resource":"mcp:github:*","actions":["read"]}]}""".formatted(from, to));
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    @Test
    void webhooksComeInPagesToo() {
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Http.Response res = http.post("/webhooks", bob, "{\"url\":\"http://127.0.0.1:9/hook-" + i + "\"}");
            assertThat(res.status()).as(res.body()).isEqualTo(201);
            created.add(res.json().get("id").asText());
        }
        List<List<String>> pages = pages("/webhooks", bob, 2, true);
        assertThat(pages).extracting(List::size).containsExactly(2, 1);
        assertThat(pages.stream().flatMap(List::stream).toList()).isEqualTo(created);
    }

    @Test
    void aCursorBelongsToItsListAndItsFilters() {
        for (int i = 0; i < 3; i++) {
            agent(alice, "pager-alice");
        }
        String cursor = http.get("/agents?limit=1", alice)
                .header(ListPaging.NEXT_CURSOR_HEADER)
                .orElseThrow();

        for (String misuse : List.of(
                "/agents?status=active&cursor=" + cursor,
                "/delegations?cursor=" + cursor,
                "/webhooks?cursor=" + cursor,
                "/agents?cursor=" + cursor.substring(0, cursor.length() - 2) + "AA")) {
            Http.Response refused = http.get(misuse, alice);
            assertThat(refused.status()).as(misuse).isEqualTo(400);
            assertThat(refused.json().get("code").asText()).isEqualTo("bad_cursor");
        }
        assertThat(http.get("/agents?cursor=" + cursor, alice).status()).isEqualTo(200);
    }

    @Test
    void aQueryParameterTheListDoesNotTakeIsA400NamingIt() {
        for (String path : List.of("/agents?page=2", "/delegations?offset=50", "/webhooks?status=active")) {
            Http.Response refused = http.get(path, alice);
            assertThat(refused.status()).as(path).isEqualTo(400);
            assertThat(refused.header("Content-Type")).hasValue("application/problem+json");
            String name = path.substring(path.indexOf('?') + 1, path.indexOf('='));
            assertThat(refused.json().get("errors").get(0).get("field").asText())
                    .isEqualTo(name);
        }
        for (String limit : List.of("0", "201", "ten", "-1")) {
            Http.Response refused = http.get("/agents?limit=" + limit, alice);
            assertThat(refused.status()).as(limit).isEqualTo(400);
            assertThat(refused.json().get("errors").get(0).get("field").asText())
                    .isEqualTo("limit");
        }
    }
}
