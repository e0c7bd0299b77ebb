package dev.triggeroutbox.targets.control;

/**
 * Every test of {@link WebhookClientTest} on the JDK's NIO, the transport a node uses where Netty's native epoll does
 * not load (another system or architecture, a temporary directory mounted noexec, or
 * {@code -Dio.netty.transport.noNative=true}).
 */
class WebhookClientNioTest extends WebhookClientTest {

    @Override
    boolean epoll() {
        return false;
    }
}
