package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.rest.control.ApiException;
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
            return reader.readValue();
        } catch (UnsupportedOperationException e) {
            // the parser's own bound on a number's length (1,100 characters), which keeps parsing linear
            throw new ApiException(400, "number-too-long", "Number too long",
                    "a number in the request body has more than 1,100 characters, more than this server reads");
        } catch (NumberFormatException | ArithmeticException e) {
            // an exponent past what a number can have (1e-2147483649): JSON allows it, nothing can hold it
            throw new ApiException(400, "number-out-of-range", "Number out of range",
                    "a number in the request body has an exponent no number can hold");
        } catch (RuntimeException e) {
            if (e.getClass() != RuntimeException.class) {
                throw e; // not JSON (JsonException), or the body past its limit (BodyLimit's 413)
            }
            // the parser's nesting bound (1,000 levels), which it signals with a bare RuntimeException
            throw new ApiException(400, "json-too-deep", "JSON nested too deeply",
                    "the request body is nested deeper than the 1,000 levels this server reads");
        }
    }
}
