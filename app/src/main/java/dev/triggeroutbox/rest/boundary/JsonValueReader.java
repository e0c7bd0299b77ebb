package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.rest.control.Jsons;
import jakarta.annotation.Priority;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyReader;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
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
@Priority(Priorities.USER - 100) // before the JSON-P reader Jersey (Payara) registers as a feature's provider
public class JsonValueReader implements MessageBodyReader<JsonValue> {

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return JsonValue.class.isAssignableFrom(type);
    }

    /**
     * Reads exactly one JSON value in UTF-8: bytes that are not UTF-8 are refused, not replaced (so what is
     * stored is what was sent), and so is anything but whitespace after the value. The parser's own refusals
     * are answered by ProblemMappers (malformed JSON, parserBound, notUtf8).
     */
    @Override
    public JsonValue readFrom(Class<JsonValue> type, Type genericType, Annotation[] annotations, MediaType mediaType,
            MultivaluedMap<String, String> headers, InputStream body) throws IOException {
        try (JsonParser parser = Jsons.parser(Jsons.strictUtf8(body))) {
            if (!parser.hasNext()) {
                throw new JsonParsingException("the request body is empty", parser.getLocation());
            }
            parser.next();
            JsonValue value = parser.getValue();
            if (parser.hasNext()) {
                throw new JsonParsingException("more than one JSON value in the request body", parser.getLocation());
            }
            return value;
        }
    }
}
