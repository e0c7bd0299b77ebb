package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.email.control.EmailSettings;
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
 * otherwise (chunked) as soon as the limit is crossed while reading. Batch calls ({@code …:batch}) have a
 * limit of their own, mail another.
 */
@Provider
@PreMatching
public class BodyLimit implements ContainerRequestFilter {

    @Inject
    OutboxLimits limits;

    @Inject
    EmailSettings email;

    @Override
    public void filter(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        boolean mail = email.isEmailPath(path);
        boolean batch = path.endsWith(":batch");
        int limit = mail ? email.maxBytes() : batch ? limits.maxBatchBytes() : limits.maxBodyBytes();
        ApiException tooLarge = mail ? email.tooLarge() : batch ? new ApiException(413, "payload-too-large", "Payload too large",
                "the request body exceeds the limit of " + limit + " bytes for a batch (outbox.max-batch-bytes)")
                : ApiException.tooLarge(limit);
        if (request.getLength() > limit) {
            request.abortWith(Problems.response(tooLarge, request.getUriInfo().getRequestUri().getRawPath()));
            return;
        }
        if (request.hasEntity()) {
            request.setEntityStream(new Limited(request.getEntityStream(), limit, tooLarge));
        }
    }

    /** Counts what is read and fails past the limit. */
    static final class Limited extends FilterInputStream {
        private final long limit;
        private final ApiException tooLarge;
        private long read;

        Limited(InputStream in, long limit, ApiException tooLarge) {
            super(in);
            this.limit = limit;
            this.tooLarge = tooLarge;
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
                throw tooLarge;
            }
        }
    }
}
