package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.outbox.control.OutboxLimits;
import dev.triggeroutbox.rest.control.ApiException;
import dev.triggeroutbox.rest.control.Problems;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.ext.Provider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses oversize bodies with 413 before reading them: at once when Content-Length says so,
 * otherwise (chunked) as soon as the limit is crossed while reading.
 */
@Provider
@PreMatching
public class BodyLimit implements ContainerRequestFilter {

    @Inject
    OutboxLimits limits;

    @Override
    public void filter(ContainerRequestContext request) {
        int limit = limits.maxBodyBytes();
        if (request.getLength() > limit) {
            request.abortWith(Problems.response(ApiException.tooLarge(limit), request.getUriInfo().getRequestUri().getRawPath()));
            return;
        }
        if (request.hasEntity()) {
            request.setEntityStream(new Limited(request.getEntityStream(), limit));
        }
    }

    /** Counts what is read and fails past the limit. */
    static final class Limited extends FilterInputStream {
        private final long limit;
        private long read;

        Limited(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > limit) {
                throw ApiException.tooLarge(limit);
            }
        }
    }
}
