package dev.triggeroutbox.testkit;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.logs.v1.LogsServiceGrpc;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.metrics.v1.MetricsServiceGrpc;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An OpenTelemetry collector for tests: OTLP's trace service over gRPC (the protocol WildFly's exporter speaks) on a
 * loopback port, keeping every span it is sent. What a real collector receives, decoded from the wire.
 */
public final class OtlpCollector implements AutoCloseable {

    /** One span as it arrived: ids in lower-case hex (parent empty for a root), attributes as text. */
    public record Received(String service, String scope, String traceId, String spanId, String parentSpanId,
            String name,
            Span.SpanKind kind, Map<String, String> attributes, boolean failed, String statusMessage) {

        public String attribute(String key) {
            return attributes.get(key);
        }

        /** This span's traceparent as a W3C header would name it (sampled). */
        public String traceparent() {
            return "00-" + traceId + "-" + spanId + "-01";
        }
    }

    private final Server server;
    private final List<Received> spans = new CopyOnWriteArrayList<>();

    private OtlpCollector(int port) {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                .addService(new TraceServiceGrpc.TraceServiceImplBase() {
                    @Override
                    public void export(ExportTraceServiceRequest request,
                            StreamObserver<ExportTraceServiceResponse> answer) {
                        keep(request);
                        answer.onNext(ExportTraceServiceResponse.getDefaultInstance());
                        answer.onCompleted();
                    }
                })
                // the server exports its metrics and logs to the same endpoint: taken and dropped, so that it logs no failures
                .addService(new MetricsServiceGrpc.MetricsServiceImplBase() {
                    @Override
                    public void export(ExportMetricsServiceRequest request,
                            StreamObserver<ExportMetricsServiceResponse> answer) {
                        answer.onNext(ExportMetricsServiceResponse.getDefaultInstance());
                        answer.onCompleted();
                    }
                })
                .addService(new LogsServiceGrpc.LogsServiceImplBase() {
                    @Override
                    public void export(ExportLogsServiceRequest request,
                            StreamObserver<ExportLogsServiceResponse> answer) {
                        answer.onNext(ExportLogsServiceResponse.getDefaultInstance());
                        answer.onCompleted();
                    }
                }).build();
    }

    /** A collector listening on {@code port} (127.0.0.1); refuses a taken port. */
    public static OtlpCollector start(int port) {
        OtlpCollector collector = new OtlpCollector(port);
        try {
            collector.server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("OTLP collector: port " + port + " is taken?", e);
        }
        return collector;
    }

    private void keep(ExportTraceServiceRequest request) {
        HexFormat hex = HexFormat.of();
        for (ResourceSpans resource : request.getResourceSpansList()) {
            String service = text(resource.getResource(), "service.name");
            for (ScopeSpans scope : resource.getScopeSpansList()) {
                for (Span s : scope.getSpansList()) {
                    Map<String, String> attributes = new LinkedHashMap<>();
                    for (KeyValue kv : s.getAttributesList()) {
                        attributes.put(kv.getKey(), text(kv.getValue()));
                    }
                    spans.add(new Received(service, scope.getScope().getName(),
                            hex.formatHex(s.getTraceId().toByteArray()),
                            hex.formatHex(s.getSpanId().toByteArray()),
                            hex.formatHex(s.getParentSpanId().toByteArray()),
                            s.getName(), s.getKind(), Map.copyOf(attributes),
                            s.getStatus()
                                    .getCode() == io.opentelemetry.proto.trace.v1.Status.StatusCode.STATUS_CODE_ERROR,
                            s.getStatus().getMessage()));
                }
            }
        }
    }

    private static String text(Resource resource, String key) {
        return resource.getAttributesList().stream().filter(kv -> kv.getKey().equals(key)).findFirst()
                .map(kv -> text(kv.getValue())).orElse(null);
    }

    private static String text(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> Long.toString(value.getIntValue());
            case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
            case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
            default -> value.toString();
        };
    }

    /** Every span received so far. */
    public List<Received> spans() {
        return List.copyOf(spans);
    }

    /** The spans received so far that {@code which} matches. */
    public List<Received> spans(Predicate<Received> which) {
        return spans.stream().filter(which).toList();
    }

    /**
     * Waits until at least {@code count} received spans match {@code which}, at most {@code deadline}; answers them.
     * Fails naming what did arrive.
     */
    public List<Received> await(Predicate<Received> which, int count, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            List<Received> found = spans(which);
            if (found.size() >= count) {
                return found;
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("expected " + count + " spans, got " + found.size() + " of " + spans.size()
                        + " received: " + spans);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
