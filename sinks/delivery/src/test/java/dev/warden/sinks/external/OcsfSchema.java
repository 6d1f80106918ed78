package dev.warden.sinks.external;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A validator built from the OCSF schema's own definitions (the {@code ocsf/ocsf-schema} repository at the 1.8.0
 * release, commit {@code 3dcb905d}, kept in {@code src/test/resources/ocsf-1.8.0} with its licence): classes with
 * their {@code extends} chain and {@code $include}d profiles, the profiles an event names in
 * {@code metadata.profiles}, objects with theirs, and the dictionary's attribute types. An event is valid when every
 * required attribute is present, every attribute is one its class (or an applied profile, or an object) defines, every
 * value has its type (strings, integers in range, timestamps, IP addresses, booleans, objects and arrays of them),
 * every enumerated value is one of the enumeration, and {@code category_uid}, {@code class_uid} and {@code type_uid}
 * agree. Nothing here is written by hand about any class.
 */
final class OcsfSchema {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The event attributes whose values the schema derives rather than enumerates. */
    private static final java.util.Set<String> DERIVED = java.util.Set.of("class_uid", "category_uid", "type_uid");

    private final Path root;
    private final JsonNode dictionary;
    private final JsonNode types;
    private final Map<Integer, JsonNode> classes = new HashMap<>();
    private final Map<String, JsonNode> classesByName = new HashMap<>();
    private final Map<String, JsonNode> objects = new HashMap<>();
    private final String version;

    private OcsfSchema(Path root) throws IOException {
        this.root = root;
        this.dictionary = read(root.resolve("dictionary.json")).get("attributes");
        this.types = read(root.resolve("dictionary.json")).get("types").get("attributes");
        this.version = read(root.resolve("version.json")).get("version").asText();
        JsonNode categories = read(root.resolve("categories.json")).get("attributes");
        try (Stream<Path> files = Files.walk(root.resolve("events"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                JsonNode definition = read(file);
                classesByName.put(definition.get("name").asText(), definition);
                String category =
                        root.resolve("events").relativize(file).getName(0).toString();
                if (definition.has("uid") && categories.has(category)) {
                    classes.put(
                            categories.get(category).get("uid").asInt() * 1000
                                    + definition.get("uid").asInt(),
                            definition);
                }
            }
        }
        try (Stream<Path> files = Files.list(root.resolve("objects"))) {
            for (Path file : files.toList()) {
                JsonNode definition = read(file);
                objects.put(definition.get("name").asText(), definition);
            }
        }
    }

    /** The schema kept in the test resources. */
    static OcsfSchema load() {
        try {
            Path version = Path.of(
                    OcsfSchema.class.getResource("/ocsf-1.8.0/version.json").toURI());
            return new OcsfSchema(version.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    String version() {
        return version;
    }

    /** Why {@code event} is not a valid OCSF event of its class; empty when it is. */
    List<String> problems(JsonNode event) {
        List<String> problems = new ArrayList<>();
        if (!(event instanceof ObjectNode)) {
            return List.of("the event is not an object");
        }
        int classUid = event.path("class_uid").asInt(-1);
        JsonNode definition = classes.get(classUid);
        if (definition == null) {
            return List.of("class_uid " + event.path("class_uid") + " is no class of OCSF " + version);
        }
        if (event.path("category_uid").asInt(-1) != classUid / 1000) {
            problems.add("category_uid must be " + classUid / 1000);
        }
        long expectedType = classUid * 100L + event.path("activity_id").asLong(-1);
        if (event.path("type_uid").asLong(-2) != expectedType) {
            problems.add("type_uid must be class_uid × 100 + activity_id = " + expectedType);
        }
        Map<String, JsonNode> attributes = classAttributes(definition);
        List<String> applied = new ArrayList<>();
        event.path("metadata").path("profiles").forEach(p -> applied.add(p.asText()));
        for (String profile : applied) {
            JsonNode p = profile(profile);
            if (p == null) {
                problems.add("metadata.profiles names an unknown profile " + profile);
                continue;
            }
            p.get("attributes")
                    .fields()
                    .forEachRemaining(e -> attributes.putIfAbsent(e.getKey(), tag(e.getValue(), profile)));
        }
        checkObject("", event, attributes, applied, problems);
        return problems;
    }

    /** The class's attributes: its parents' first, then its own (overriding), with what it includes. */
    private Map<String, JsonNode> classAttributes(JsonNode definition) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        Optional.ofNullable(definition.get("extends"))
                .map(JsonNode::asText)
                .map(classesByName::get)
                .ifPresent(parent -> out.putAll(classAttributes(parent)));
        own(definition, out);
        return out;
    }

    private Map<String, JsonNode> objectAttributes(String name) {
        JsonNode definition = objects.get(name);
        Map<String, JsonNode> out = new LinkedHashMap<>();
        if (definition == null) {
            return out;
        }
        Optional.ofNullable(definition.get("extends"))
                .map(JsonNode::asText)
                .filter(objects::containsKey)
                .ifPresent(parent -> out.putAll(objectAttributes(parent)));
        own(definition, out);
        return out;
    }

    /** The definition's own attributes, merged over {@code out}, with its {@code $include}d files' (tagged). */
    private void own(JsonNode definition, Map<String, JsonNode> out) {
        JsonNode attributes = definition.path("attributes");
        for (JsonNode include : attributes.path("$include")) {
            JsonNode included = file(include.asText());
            String profile = included.path("meta").asText().equals("profile")
                    ? included.get("name").asText()
                    : null;
            included.path("attributes")
                    .fields()
                    .forEachRemaining(e -> out.merge(
                            e.getKey(), profile == null ? e.getValue() : tag(e.getValue(), profile), OcsfSchema::over));
        }
        attributes.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("$include")) {
                out.merge(e.getKey(), e.getValue(), OcsfSchema::over);
            }
        });
    }

    /** {@code child} over {@code parent}: the child's keys win. */
    private static JsonNode over(JsonNode parent, JsonNode child) {
        ObjectNode merged = ((ObjectNode) parent).deepCopy();
        child.fields().forEachRemaining(e -> {
            // An enumeration extends the inherited one (a class's activities add to the base event's 0 and 99)
            if (e.getKey().equals("enum") && merged.get("enum") instanceof ObjectNode inherited) {
                ObjectNode values = inherited.deepCopy();
                e.getValue().fields().forEachRemaining(v -> values.set(v.getKey(), v.getValue()));
                merged.set("enum", values);
            } else {
                merged.set(e.getKey(), e.getValue());
            }
        });
        return merged;
    }

    private static JsonNode tag(JsonNode attribute, String profile) {
        ObjectNode tagged = ((ObjectNode) attribute).deepCopy();
        if (!tagged.has("profile")) {
            tagged.put("profile", profile);
        }
        return tagged;
    }

    private JsonNode profile(String name) {
        Path file = root.resolve("profiles").resolve(name + ".json");
        return Files.exists(file) ? readUnchecked(file) : null;
    }

    private JsonNode file(String relative) {
        return readUnchecked(root.resolve(relative));
    }

    private void checkObject(
            String path,
            JsonNode value,
            Map<String, JsonNode> attributes,
            List<String> applied,
            List<String> problems) {
        attributes.forEach((name, spec) -> {
            boolean inForce = !spec.hasNonNull("profile")
                    || applied.contains(spec.get("profile").asText());
            if (inForce && "required".equals(spec.path("requirement").asText()) && !value.has(name)) {
                problems.add(path + name + " is required");
            }
        });
        value.fields().forEachRemaining(e -> {
            String name = e.getKey();
            JsonNode spec = attributes.get(name);
            boolean profiled = spec != null
                    && spec.hasNonNull("profile")
                    && !applied.contains(spec.get("profile").asText());
            if (spec == null || profiled) {
                problems.add(path + name + " is not an attribute here");
                return;
            }
            checkValue(path + name, e.getValue(), spec, dictionary.path(name), applied, problems);
        });
    }

    private void checkValue(
            String path, JsonNode value, JsonNode spec, JsonNode entry, List<String> applied, List<String> problems) {
        if (value.isNull()) {
            problems.add(path + " is null (leave it out instead)");
            return;
        }
        String type = spec.hasNonNull("type")
                ? spec.get("type").asText()
                : entry.path("type").asText();
        boolean array = spec.has("is_array")
                ? spec.get("is_array").asBoolean()
                : entry.path("is_array").asBoolean();
        if (array) {
            if (!value.isArray()) {
                problems.add(path + " must be an array");
                return;
            }
            for (int i = 0; i < value.size(); i++) {
                checkOne(path + "[" + i + "]", value.get(i), type, spec, entry, applied, problems);
            }
            return;
        }
        checkOne(path, value, type, spec, entry, applied, problems);
    }

    private void checkOne(
            String path,
            JsonNode value,
            String type,
            JsonNode spec,
            JsonNode entry,
            List<String> applied,
            List<String> problems) {
        if (objects.containsKey(type)) {
            if (!value.isObject()) {
                problems.add(path + " must be an object (" + type + ")");
                return;
            }
            if (type.equals("object")) {
                return; // the schema's open object (unmapped, data): any content
            }
            checkObject(path + ".", value, objectAttributes(type), applied, problems);
            return;
        }
        String base = baseType(type);
        switch (base) {
            case "string_t" -> {
                if (!value.isTextual()) {
                    problems.add(path + " must be a string (" + type + ")");
                } else if (type.equals("ip_t") && !isIp(value.asText())) {
                    problems.add(path + " must be an IP address");
                }
            }
            case "integer_t", "long_t" -> {
                if (!value.isIntegralNumber()) {
                    problems.add(path + " must be an integer (" + type + ")");
                } else {
                    JsonNode range = types.path(type).path("range");
                    if (range.isArray()
                            && (value.asLong() < range.get(0).asLong()
                                    || value.asLong() > range.get(1).asLong())) {
                        problems.add(path + " is out of range " + range);
                    }
                }
            }
            case "float_t" -> {
                if (!value.isNumber()) {
                    problems.add(path + " must be a number");
                }
            }
            case "boolean_t" -> {
                if (!value.isBoolean()) {
                    problems.add(path + " must be a boolean");
                }
            }
            case "json_t" -> {}
            default -> problems.add(path + " has a type this validator does not know: " + type);
        }
        JsonNode values = spec.has("enum") ? spec.get("enum") : entry.path("enum");
        // The identifiers the schema derives (class, category, type) have placeholder enumerations in the source
        // files: the checks of class_uid, category_uid and type_uid above stand for them.
        if (DERIVED.contains(path)) {
            return;
        }
        if (values.isObject() && values.size() > 0 && !values.has(value.asText())) {
            problems.add(path + " = " + value + " is not one of " + iterable(values.fieldNames()));
        }
    }

    /** The primitive a type is built on ({@code port_t} is an {@code integer_t}, {@code ip_t} a {@code string_t}). */
    private String baseType(String type) {
        String t = type;
        for (int i = 0; i < 5 && types.path(t).hasNonNull("type"); i++) {
            t = types.path(t).get("type").asText();
        }
        return t;
    }

    private static boolean isIp(String text) {
        if (!text.matches("[0-9a-fA-F:.]+")) {
            return false;
        }
        try {
            InetAddress.getByName(text);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static List<String> iterable(java.util.Iterator<String> names) {
        List<String> out = new ArrayList<>();
        names.forEachRemaining(out::add);
        return out;
    }

    private static JsonNode read(Path file) throws IOException {
        return JSON.readTree(file.toFile());
    }

    private static JsonNode readUnchecked(Path file) {
        try {
            return read(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
