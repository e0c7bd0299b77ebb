package dev.triggeroutbox.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document served at {@code /api/v1/openapi.json} against the JAX-RS resources as
 * compiled: every resource method is in the document and every operation of the document is a
 * resource method, with the same query, header and path parameters and the same roles. A method
 * added without documenting it (or documented and removed) fails this test.
 */
class OpenApiDocumentTest {

    private static final Pattern TEMPLATE = Pattern.compile("\\{(\\w+)(?::[^}]*)?}");

    /** What the server does or what the document says about one operation. */
    record Operation(Set<String> query, Set<String> headers, Set<String> path, Set<String> roles) {
    }

    private static Map<String, Operation> code;
    private static Map<String, Operation> document;

    @BeforeAll
    static void read() throws IOException, ClassNotFoundException {
        code = fromResources();
        document = fromDocument();
    }

    @Test
    void everyResourceMethodIsDocumentedAndNothingElse() {
        Set<String> undocumented = new TreeSet<>(code.keySet());
        undocumented.removeAll(document.keySet());
        Set<String> notServed = new TreeSet<>(document.keySet());
        notServed.removeAll(code.keySet());
        assertEquals(Set.of(), undocumented, "resource methods missing from src/main/resources/openapi.json");
        assertEquals(Set.of(), notServed, "operations in openapi.json that no resource method serves");
        assertTrue(code.size() >= 29, "found only " + code.keySet());
    }

    @Test
    void parametersAndRolesMatch() {
        code.forEach((op, served) -> {
            Operation documented = document.get(op);
            if (documented != null) {
                assertEquals(served.query(), documented.query(), op + ": query parameters");
                assertEquals(served.headers(), documented.headers(), op + ": header parameters");
                assertEquals(served.path(), documented.path(), op + ": path parameters");
                assertEquals(served.roles(), documented.roles(), op + ": roles (x-roles)");
            }
        });
    }

    private static Map<String, Operation> fromResources() throws IOException, ClassNotFoundException {
        java.nio.file.Path classes = java.nio.file.Path.of(System.getProperty("outbox.classes", "../target/classes"));
        List<String> names;
        try (Stream<java.nio.file.Path> files = Files.walk(classes.resolve("dev/triggeroutbox"))) {
            names = files.map(f -> classes.relativize(f).toString())
                    .filter(f -> f.endsWith(".class") && !f.contains("$"))
                    .map(f -> f.substring(0, f.length() - ".class".length()).replace('/', '.')).toList();
        }
        Map<String, Operation> ops = new TreeMap<>();
        for (String name : names) {
            Class<?> type = Class.forName(name, false, OpenApiDocumentTest.class.getClassLoader());
            Path root = type.getAnnotation(Path.class);
            if (root == null) {
                continue;
            }
            for (Method m : type.getDeclaredMethods()) {
                String verb = Arrays.stream(m.getAnnotations())
                        .map(a -> a.annotationType().getAnnotation(HttpMethod.class)).filter(h -> h != null)
                        .map(HttpMethod::value).findFirst().orElse(null);
                if (verb == null) {
                    continue;
                }
                Path sub = m.getAnnotation(Path.class);
                String path = normalize(root.value() + (sub == null ? "" : "/" + sub.value()));
                Set<String> query = new TreeSet<>();
                Set<String> headers = new TreeSet<>();
                for (Parameter p : m.getParameters()) {
                    if (p.isAnnotationPresent(QueryParam.class)) {
                        query.add(p.getAnnotation(QueryParam.class).value());
                    }
                    if (p.isAnnotationPresent(HeaderParam.class)) {
                        headers.add(p.getAnnotation(HeaderParam.class).value());
                    }
                    if (p.isAnnotationPresent(PathParam.class)) {
                        assertTrue(variables(path).contains(p.getAnnotation(PathParam.class).value()), path);
                    }
                }
                for (Field f : type.getDeclaredFields()) {
                    if (f.isAnnotationPresent(PathParam.class)) {
                        assertTrue(variables(path).contains(f.getAnnotation(PathParam.class).value()), path);
                    }
                }
                ops.put(verb + " " + path, new Operation(query, headers, variables(path), roles(type, m)));
            }
        }
        return ops;
    }

    private static Set<String> roles(Class<?> type, Method m) {
        if (m.isAnnotationPresent(PermitAll.class)) {
            return Set.of();
        }
        RolesAllowed roles = m.isAnnotationPresent(RolesAllowed.class)
                ? m.getAnnotation(RolesAllowed.class)
                : type.getAnnotation(RolesAllowed.class);
        if (roles == null || type.isAnnotationPresent(PermitAll.class) && !m.isAnnotationPresent(RolesAllowed.class)) {
            return Set.of();
        }
        return new TreeSet<>(Arrays.asList(roles.value()));
    }

    private static Map<String, Operation> fromDocument() throws IOException {
        JsonObject doc;
        try (InputStream in = Files.newInputStream(java.nio.file.Path.of("src/main/resources/openapi.json"))) {
            doc = Json.createReader(in).readObject();
        }
        assertEquals("/outbox/api/v1", doc.getJsonArray("servers").getJsonObject(0).getString("url"));
        Map<String, Operation> ops = new TreeMap<>();
        doc.getJsonObject("paths").forEach((path, item) -> item.asJsonObject().forEach((verb, value) -> {
            JsonObject op = value.asJsonObject();
            List<JsonObject> params = op.containsKey("parameters")
                    ? op.getJsonArray("parameters").getValuesAs(JsonObject.class)
                    : new ArrayList<>();
            Set<String> roles = op.getJsonArray("x-roles").getValuesAs(JsonString.class).stream()
                    .map(JsonString::getString).collect(Collectors.toCollection(TreeSet::new));
            // an open operation says so with an empty security list; a protected one asks for basic
            assertEquals(roles.isEmpty(), op.getJsonArray("security").isEmpty(),
                    verb + " " + path + ": security vs x-roles");
            assertTrue(op.containsKey("responses") && op.containsKey("summary"), verb + " " + path);
            ops.put(verb.toUpperCase() + " " + normalize(path),
                    new Operation(names(params, "query"), names(params, "header"),
                            names(params, "path"), roles));
        }));
        return ops;
    }

    private static Set<String> names(List<JsonObject> params, String in) {
        return params.stream().filter(p -> in.equals(p.getString("in"))).map(p -> p.getString("name"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static String normalize(String path) {
        String p = ("/" + path).replaceAll("/+", "/");
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    private static Set<String> variables(String path) {
        Set<String> names = new TreeSet<>();
        Matcher m = TEMPLATE.matcher(path);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

}
