package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyReader;
import jakarta.ws.rs.ext.Provider;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;

/**
 * Reads request bodies declared as {@link JsonValue} with JSON-P directly. Without it RESTEasy hands
 * them to its JSON-B provider, which runs Yasson's deserialization machinery around the same parser:
 * about a seventh of a publish request's CPU in the profile, for a tree the API then reads itself.
 */
@Provider
@Consumes(MediaType.APPLICATION_JSON)
public class JsonValueReader implements MessageBodyReader<JsonValue> {

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return JsonValue.class.isAssignableFrom(type);
    }

    @Override
    public JsonValue readFrom(Class<JsonValue> type, Type genericType, Annotation[] annotations, MediaType mediaType,
            MultivaluedMap<String, String> headers, InputStream body) {
        try (JsonReader reader = Jsons.reader(body)) {
            return reader.readValue(); // the parser's own refusals are answered by ProblemMappers.parserBound
        }
    }
}
