// The Java client that OpenAPI Generator makes from Warden's OpenAPI document (generator `java`, library `native`:
// the JDK's HttpClient and Jackson), called against a running Warden. deploy/interop/generated-clients.sh generates the
// client into a temporary directory (package dev.warden.generated), compiles it together with this file and runs it:
//   WARDEN_URL=http://localhost:18080 java -cp <client classes and its jars> GeneratedJavaClientCheck
// Every call goes through the generated API classes and its answer is parsed into the generated model types, with
// unknown properties refused (the document says responses list every property). One `ok - <operation>` line per
// step; at the first failure `not ok - <operation>`, the error (the status and body of an HTTP error, or Jackson's
// message naming the field), and exit 1.
// The one call made beside the generated methods: the CSV export. The generator gives GET /audit/export one return
// type (List<AuditEntry>, parsed as JSON) although the document answers application/json or text/csv; so the CSV is
// asked for through the generated ApiClient (its HttpClient, base URI and request interceptor) with Accept: text/csv.
// The server must allow private webhook targets (run.sh starts it so): a webhook to 127.0.0.1 is created and deleted.

import com.fasterxml.jackson.databind.DeserializationFeature;
import dev.warden.generated.ApiClient;
import dev.warden.generated.ApiException;
import dev.warden.generated.api.AgentsApi;
import dev.warden.generated.api.AuditApi;
import dev.warden.generated.api.AuthorizationApi;
import dev.warden.generated.api.DelegationsApi;
import dev.warden.generated.api.UsersApi;
import dev.warden.generated.api.WebhooksApi;
import dev.warden.generated.model.Agent;
import dev.warden.generated.model.AgentCreate;
import dev.warden.generated.model.AgentStatus;
import dev.warden.generated.model.AgentType;
import dev.warden.generated.model.AuditEntry;
import dev.warden.generated.model.AuthorizationDecision;
import dev.warden.generated.model.AuthorizeRequest;
import dev.warden.generated.model.Delegation;
import dev.warden.generated.model.DelegationCreate;
import dev.warden.generated.model.EventType;
import dev.warden.generated.model.IssuedAgent;
import dev.warden.generated.model.IssuedWebhook;
import dev.warden.generated.model.Permission;
import dev.warden.generated.model.SignUpRequest;
import dev.warden.generated.model.SignedIn;
import dev.warden.generated.model.Webhook;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

public final class GeneratedJavaClientCheck {
  /** The header row of the CSV export, as the document's description of GET /audit/export gives it. */
  static final List<String> CSV_HEADER = List.of("id", "agentId", "userId", "callerId", "action", "resource",
      "parameters", "result", "reason", "durationMs", "tokensCost", "timestamp", "ip", "userAgent", "callerIp", "reasonDetail");

  @FunctionalInterface
  interface Call<T> {
    T call() throws Exception;
  }

  private static volatile String bearer;

  public static void main(String[] args) {
    String url = System.getenv("WARDEN_URL");
    if (url == null || url.isBlank()) {
      System.err.println("WARDEN_URL is not set (a running warden dev)");
      System.exit(2);
    }
    url = url.replaceAll("/+$", "");

    ApiClient client = new ApiClient();
    client.updateBaseUri(url);
    client.setReadTimeout(Duration.ofSeconds(30));
    // getObjectMapper() answers a copy: the generated default mapper, refusing unknown properties, is set instead.
    client.setObjectMapper(
        ApiClient.createDefaultObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true));
    // The generated APIs copy the interceptor when they are made: it reads the token of the moment.
    client.setRequestInterceptor(request -> {
      if (bearer != null) {
        request.header("Authorization", "Bearer " + bearer);
      }
    });
    UsersApi users = new UsersApi(client);
    AgentsApi agents = new AgentsApi(client);
    AuthorizationApi authorization = new AuthorizationApi(client);
    DelegationsApi delegations = new DelegationsApi(client);
    WebhooksApi webhooks = new WebhooksApi(client);
    AuditApi audit = new AuditApi(client);

    String username = "gen-java-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(5));
    SignedIn signedIn = step("signUp (POST /auth/sign-up)", () -> {
      SignUpRequest request = new SignUpRequest().username(username).password("pw-" + username + "-secret");
      SignedIn answer = patiently(() -> users.signUp(request));
      expect(answer.getToken() != null && answer.getToken().startsWith("wdn_ses_"), "a session token wdn_ses_…");
      expect(username.equals(answer.getUser().getUsername()), "user.username is the one signed up");
      expect(answer.getUser().getId() != null && answer.getUser().getCreatedAt() != null, "user.id and user.createdAt");
      return answer;
    });
    bearer = signedIn.getToken();
    String userId = signedIn.getUser().getId();

    IssuedAgent source = step("createAgent (POST /agents, tenantId, budget and expiresAt null)", () -> {
      AgentCreate create = new AgentCreate().ownerId(userId).name("generated-java-source").type(AgentType.AUTONOMOUS)
          .permissions(List.of(new Permission().resource("docs:*").actions(List.of("read"))));
      create.setTenantId(null);
      create.setBudget(null);
      create.setExpiresAt(null);
      IssuedAgent issued = agents.createAgent(create);
      expect(issued.getId() != null && issued.getId().startsWith("agt_"), "id agt_…");
      expect(issued.getToken() != null && issued.getToken().startsWith("wdn_agt_"), "token wdn_agt_…");
      expect(issued.getTenantId() == null, "tenantId null, got " + issued.getTenantId());
      expect(issued.getBudget() == null, "budget null, got " + issued.getBudget());
      expect(issued.getExpiresAt() == null, "expiresAt null, got " + issued.getExpiresAt());
      expect(issued.getStatus() == AgentStatus.ACTIVE, "status active, got " + issued.getStatus());
      expect(issued.getType() == AgentType.AUTONOMOUS, "type autonomous");
      expect(userId.equals(issued.getOwnerId()), "ownerId is the user");
      expect(issued.getPermissions().size() == 1, "one permission");
      expect(issued.getMetadata() != null, "metadata (an object)");
      expect(issued.getCreatedAt() != null && issued.getUpdatedAt() != null, "createdAt and updatedAt");
      return issued;
    });
    IssuedAgent target = step("createAgent (POST /agents, a delegated agent without permissions)", () -> {
      IssuedAgent issued = agents.createAgent(
          new AgentCreate().ownerId(userId).name("generated-java-target").type(AgentType.DELEGATED));
      expect(issued.getPermissions().isEmpty(), "no permissions, got " + issued.getPermissions());
      return issued;
    });

    step("listAgents (GET /agents)", () -> {
      List<Agent> list = agents.listAgents(null, null, null, 100, null);
      for (String id : List.of(source.getId(), target.getId())) {
        expect(list.stream().anyMatch(agent -> id.equals(agent.getId())), "the list has " + id);
      }
      expect(list.stream().allMatch(agent -> agent.getToken() == null), "no token in a list");
      return list;
    });
    step("getAgent (GET /agents/{id})", () -> {
      Agent agent = agents.getAgent(source.getId());
      expect(source.getId().equals(agent.getId()), "the same id");
      expect(agent.getToken() == null, "no token");
      expect(agent.getTenantId() == null && agent.getBudget() == null && agent.getExpiresAt() == null,
          "tenantId, budget and expiresAt still null");
      expect(agent.getPermissions().get(0).getActions().equals(List.of("read")), "permission actions [read]");
      return agent;
    });

    Delegation delegation = step("createDelegation (POST /delegations)", () -> {
      Delegation created = delegations.createDelegation(new DelegationCreate().fromAgent(source.getId())
          .toAgent(target.getId()).permissions(List.of(new Permission().resource("docs:*").actions(List.of("read")))));
      expect(created.getId() != null && created.getId().startsWith("dlg_"), "id dlg_…");
      expect(created.getDepth() == 1, "depth 1, got " + created.getDepth());
      expect(created.getMaxDepth() != null && created.getCreatedAt() != null, "maxDepth and createdAt");
      return created;
    });

    AuthorizationDecision allowed = step("authorize (POST /authorize, allowed through the delegation)", () -> {
      AuthorizationDecision decision = authorization.authorize(new AuthorizeRequest().agentId(target.getId())
          .action("read").resource("docs:readme").arguments(Map.of("page", 1)));
      expect(Boolean.TRUE.equals(decision.getAllowed()), "allowed, got " + decision);
      expect(decision.getAuditId() != null && decision.getAuditId().startsWith("aud_"), "auditId aud_…");
      return decision;
    });
    AuthorizationDecision denied = step("authorize (POST /authorize, denied)", () -> {
      AuthorizationDecision decision = authorization.authorize(
          new AuthorizeRequest().agentId(source.getId()).action("write").resource("docs:readme"));
      expect(Boolean.FALSE.equals(decision.getAllowed()), "denied, got " + decision);
      expect(decision.getReason() == AuthorizationDecision.ReasonEnum.NO_MATCHING_PERMISSION,
          "reason NO_MATCHING_PERMISSION, got " + decision.getReason());
      return decision;
    });

    step("listDelegations (GET /delegations)", () -> {
      List<Delegation> list = delegations.listDelegations(source.getId(), null, 100, null);
      expect(list.stream().anyMatch(d -> delegation.getId().equals(d.getId())), "the list has " + delegation.getId());
      return list;
    });

    IssuedWebhook webhook = step("createWebhook (POST /webhooks)", () -> {
      IssuedWebhook created = webhooks.createWebhook(new dev.warden.generated.model.WebhookCreate()
          .url(URI.create("http://127.0.0.1:9/generated-java")).eventTypes(List.of(EventType.BUDGET_EXCEEDED)));
      expect(created.getSecret() != null && created.getSecret().startsWith("whsec_"), "secret whsec_…");
      expect(created.getDescription() == null, "description null");
      expect(userId.equals(created.getOwnerId()), "ownerId is the user");
      return created;
    });
    step("listWebhooks (GET /webhooks)", () -> {
      List<Webhook> list = webhooks.listWebhooks(100, null);
      expect(list.stream().anyMatch(w -> webhook.getId().equals(w.getId())), "the list has " + webhook.getId());
      expect(list.stream().allMatch(w -> w.getSecret() == null), "no secret in a list");
      return list;
    });

    step("queryAudit (GET /audit)", () -> {
      AuditEntry entry = waitForEntry(() -> audit.queryAudit(target.getId(), null, null, null, null, null, 100, null),
          allowed.getAuditId());
      expect(entry.getResult() == AuditEntry.ResultEnum.ALLOWED, "result allowed, got " + entry.getResult());
      expect(entry.getDelegationChain() != null && entry.getDelegationChain().contains(delegation.getId()),
          "delegationChain has " + delegation.getId() + ", got " + entry.getDelegationChain());
      expect(entry.getContext() != null && entry.getTimestamp() != null, "context and timestamp");
      AuditEntry refused = waitForEntry(
          () -> audit.queryAudit(source.getId(), null, null, null, null, null, 100, null), denied.getAuditId());
      expect(refused.getResult() == AuditEntry.ResultEnum.DENIED, "result denied, got " + refused.getResult());
      return entry;
    });
    step("exportAudit (GET /audit/export, JSON)", () -> {
      List<AuditEntry> entries = audit.exportAudit(null, source.getId(), null, null, null, null, null);
      expect(entries.stream().anyMatch(e -> denied.getAuditId().equals(e.getId())), "the export has the denial");
      return entries;
    });
    step("exportAudit (GET /audit/export, Accept: text/csv, through the generated ApiClient)", () -> {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(client.getBaseUri() + "/audit/export?agentId="
          + ApiClient.urlEncode(source.getId()))).timeout(Duration.ofSeconds(30)).header("Accept", "text/csv").GET();
      client.getRequestInterceptor().accept(request);
      HttpResponse<String> response = client.getHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
      expect(response.statusCode() == 200, "200, got " + response.statusCode() + ": " + response.body());
      String type = response.headers().firstValue("Content-Type").orElse("");
      expect(type.startsWith("text/csv"), "Content-Type text/csv, got " + type);
      List<List<String>> records = csv(response.body());
      expect(!records.isEmpty(), "a header row");
      List<String> header = records.get(0);
      expect(header.equals(CSV_HEADER),
          "the header row to be the document's columns " + String.join(",", CSV_HEADER) + ", got "
              + String.join(",", header));
      for (List<String> row : records) {
        expect(row.size() == header.size(), header.size() + " cells in every row, got " + row);
      }
      int result = header.indexOf("result");
      expect(records.stream().anyMatch(row -> row.get(0).equals(denied.getAuditId()) && row.get(result).equals("denied")),
          "a row for the denial " + denied.getAuditId());
      return records;
    });

    step("deleteWebhook (DELETE /webhooks/{id})", () -> {
      webhooks.deleteWebhook(webhook.getId());
      return null;
    });
    System.out.println("generated Java client: every call parsed");
  }

  /** Runs one operation; on any failure prints what failed and exits 1. */
  static <T> T step(String operation, Call<T> call) {
    try {
      T value = call.call();
      System.out.println("ok - " + operation);
      return value;
    } catch (Throwable failure) {
      System.out.println("not ok - " + operation);
      System.err.println("generated Java client: " + operation + " failed: " + describe(failure));
      System.exit(1);
      throw new IllegalStateException(failure);
    }
  }

  static String describe(Throwable failure) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t != failure) {
        text.append("\n  caused by: ");
      }
      text.append(t.getClass().getName()).append(": ").append(t.getMessage());
      if (t instanceof ApiException api && api.getCode() != 0) {
        text.append(" (HTTP ").append(api.getCode()).append(')');
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return text.toString();
  }

  static void expect(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError("expected " + what);
    }
  }

  /** Waits out a 429 (a Retry-After of at most 70 s, twice at most), as the other interop scripts do. */
  static <T> T patiently(Call<T> call) throws Exception {
    for (int attempt = 0; ; attempt++) {
      try {
        return call.call();
      } catch (ApiException e) {
        long wait = e.getResponseHeaders() == null ? 1
            : e.getResponseHeaders().firstValue("Retry-After").map(Long::parseLong).orElse(1L);
        if (e.getCode() != 429 || attempt == 2 || wait > 70) {
          throw e;
        }
        System.out.println("# 429: waiting " + wait + " s");
        Thread.sleep(wait * 1000 + 100);
      }
    }
  }

  /** RFC 4180 records: fields separated by commas, quoted fields with doubled quotes, lines ending CRLF or LF. */
  static List<List<String>> csv(String text) {
    List<List<String>> records = new ArrayList<>();
    List<String> record = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"' && field.isEmpty()) {
        quoted = true;
      } else if (c == ',') {
        record.add(field.toString());
        field.setLength(0);
      } else if (c == '\r' || c == '\n') {
        if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
          i++;
        }
        record.add(field.toString());
        field.setLength(0);
        records.add(record);
        record = new ArrayList<>();
      } else {
        field.append(c);
      }
    }
    if (quoted) {
      throw new IllegalArgumentException("CSV: a quoted field is not closed");
    }
    if (!field.isEmpty() || !record.isEmpty()) {
      record.add(field.toString());
      records.add(record);
    }
    return records;
  }

  /** The entry with this id, from the list the call answers, asked again for up to 10 s. */
  static AuditEntry waitForEntry(Call<List<AuditEntry>> call, String id) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      List<AuditEntry> entries = call.call();
      for (AuditEntry entry : entries) {
        if (Objects.equals(id, entry.getId())) {
          return entry;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("expected audit entry " + id + " among " + entries.size() + " entries");
      }
      Thread.sleep(200);
    }
  }
}
