package dev.triggeroutbox.rest.boundary;

import dev.triggeroutbox.api.OutboxRefusedException;
import dev.triggeroutbox.rest.control.BodyLimits;
import dev.triggeroutbox.rest.control.Problems;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.ext.Provider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * Refuses oversize bodies with 413 before reading them: at once when Content-Length says so,
 * otherwise (chunked) as soon as the limit is crossed while reading. The limits are the features' own
 * ({@link BodyLimits}: batch calls have one, mail another, every other call the outbox's).
 */
@Provider
@PreMatching
public class BodyLimit implements ContainerRequestFilter {

    @Inject
    Instance<BodyLimits> features;

    private volatile List<BodyLimits> limits; // in order, found on first use (providers are made differently per server)

    private List<BodyLimits> limits() {
        List<BodyLimits> found = limits;
        if (found == null) {
            found = features.stream().sorted(Comparator.comparingInt(BodyLimits::order)).toList();
            limits = found;
        }
        return found;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        List<BodyLimits> all = limits();
        BodyLimits.Limit found = null;
        for (int i = 0; found == null && i < all.size(); i++) {
            found = all.get(i).limitFor(path);
        }
        if (found == null) {
            return;
        }
        int limit = found.bytes();
        if (request.getLength() > limit) {
            request.abortWith(
                    Problems.response(found.tooLarge().get(), request.getUriInfo().getRequestUri().getRawPath()));
            return;
        }
        if (request.hasEntity()) {
            request.setEntityStream(new Limited(request.getEntityStream(), limit, found.tooLarge()));
        }
    }

    /** Counts what is read and fails past the limit. */
    static final class Limited extends FilterInputStream {
        private final long limit;
        private final Supplier<OutboxRefusedException> tooLarge;
        private long read;

        Limited(InputStream in, long limit, Supplier<OutboxRefusedException> tooLarge) {
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
                throw tooLarge.get();
            }
        }
    }
}
