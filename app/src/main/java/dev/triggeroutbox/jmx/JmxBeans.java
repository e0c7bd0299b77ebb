package dev.triggeroutbox.jmx;

import dev.triggeroutbox.console.control.Counts;
import dev.triggeroutbox.outbox.entity.AppId;
import dev.triggeroutbox.dispatch.control.DispatchCounters;
import dev.triggeroutbox.dispatch.control.DispatchCycle;
import dev.triggeroutbox.dispatch.control.DispatchSettings;
import dev.triggeroutbox.dispatch.control.DispatcherSwitch;
import dev.triggeroutbox.platform.StoreException;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ContextService;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * Registers the outbox's MXBeans on the platform MBean server, which WildFly serves through its management
 * port and Payara through its JMX connector: JConsole and VisualVM show them beside the server's own. Each
 * call runs in this deployment's context (class loader, naming), whatever thread the JMX connector calls on.
 * A second deployment of the WAR on one server registers its beans with {@code name=<its context>} added.
 */
@Singleton
@Startup
@DependsOn("SchemaMigrations")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class JmxBeans {

    private static final Logger LOG = Logger.getLogger(JmxBeans.class.getName());
    static final String DOMAIN = "dev.triggeroutbox";

    @Resource
    ContextService context;

    @Inject
    Counts counts;

    @Inject
    DispatcherSwitch dispatcherSwitch;

    @Inject
    JmxActions actions;

    @Inject
    DispatchCounters counters;

    @Inject
    DispatchCycle cycle;

    @Inject
    DispatchSettings settings;

    private final List<ObjectName> registered = new ArrayList<>();

    @PostConstruct
    void register() {
        // not an overload of this method: Payara finds a lifecycle callback by its name alone
        publish("Outbox", OutboxMXBean.class, new OutboxView());
        publish("Dispatcher", DispatcherMXBean.class, new DispatcherView());
    }

    private <T> void publish(String type, Class<T> view, T bean) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        T inContext = context.createContextualProxy(bean, view);
        try {
            ObjectName name = new ObjectName(DOMAIN + ":type=" + type);
            if (server.isRegistered(name)) {
                name = new ObjectName(DOMAIN + ":type=" + type + ",name="
                        + ObjectName.quote(settings.nodeName() + "#" + registered.size()));
            }
            server.registerMBean(new StandardMBean(inContext, view, true), name);
            registered.add(name);
        } catch (JMException e) {
            LOG.log(Level.WARNING, "the outbox's " + type + " MXBean is not registered; JMX consoles will not show it",
                    e);
        }
    }

    @PreDestroy
    void unregister() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (ObjectName name : registered) {
            try {
                server.unregisterMBean(name);
            } catch (JMException e) {
                LOG.log(Level.FINE, "MXBean " + name + " already gone", e);
            }
        }
        registered.clear();
    }

    /** What JMX reads of a database that is down: the failure as the caller's exception, nothing logged per read. */
    private static IllegalStateException unavailable(StoreException e) {
        return new IllegalStateException("the outbox's database cannot be read: " + e.getMessage());
    }

    private final class OutboxView implements OutboxMXBean {

        private Counts.Snapshot snapshot() {
            try {
                return counts.snapshot();
            } catch (StoreException e) {
                throw unavailable(e);
            }
        }

        private long sum(java.util.function.ToLongFunction<Counts.Live> field) {
            return snapshot().live().stream().mapToLong(field).sum();
        }

        @Override
        public long getPending() {
            return sum(Counts.Live::pending);
        }

        @Override
        public long getScheduled() {
            return sum(Counts.Live::scheduled);
        }

        @Override
        public long getInFlight() {
            return sum(Counts.Live::inFlight);
        }

        @Override
        public long getDead() {
            return sum(Counts.Live::dead);
        }

        @Override
        public long getHeld() {
            return sum(Counts.Live::held);
        }

        @Override
        public String[] getHeldApps() {
            try {
                return actions.heldApps().toArray(String[]::new);
            } catch (StoreException e) {
                throw unavailable(e);
            }
        }

        @Override
        public boolean holdApp(String appId) {
            try {
                return actions.holdApp(appId(appId));
            } catch (StoreException e) {
                throw unavailable(e);
            }
        }

        @Override
        public int releaseApp(String appId) {
            try {
                return actions.releaseApp(appId(appId));
            } catch (StoreException e) {
                throw unavailable(e);
            }
        }

        private static AppId appId(String text) {
            try {
                return AppId.parse(text.strip());
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("not an app id (a UUID): " + text);
            }
        }

        @Override
        public long getDeliveredLastMinute() {
            return snapshot().deliveredLastMinute();
        }

        @Override
        public double getOldestDueAgeSeconds() {
            return snapshot().live().stream().mapToDouble(Counts.Live::oldestDueSeconds).max().orElse(0);
        }

        @Override
        public String getCountsAsOf() {
            return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(snapshot().asOf().atOffset(ZoneOffset.UTC));
        }

        @Override
        public boolean isPaused() {
            try {
                return dispatcherSwitch.paused();
            } catch (StoreException e) {
                throw unavailable(e);
            }
        }

        @Override
        public void pause() {
            switchTo(true);
        }

        @Override
        public void resume() {
            switchTo(false);
        }

        private void switchTo(boolean paused) {
            try {
                actions.switchDispatching(paused);
            } catch (StoreException e) {
                throw unavailable(e);
            }
        }
    }

    private final class DispatcherView implements DispatcherMXBean {

        private final Rates rates = new Rates(System::nanoTime, counters::claimed,
                () -> counters.delivered() + counters.retried() + counters.deadLettered());

        @Override
        public String getNodeName() {
            return settings.nodeName();
        }

        @Override
        public boolean isEnabled() {
            return settings.enabled();
        }

        @Override
        public int getInFlight() {
            return cycle.inFlight();
        }

        @Override
        public long getMillisSinceLastTick() {
            return counters.millisSinceLastTick();
        }

        @Override
        public long getClaimedTotal() {
            return counters.claimed();
        }

        @Override
        public long getDeliveredTotal() {
            return counters.delivered();
        }

        @Override
        public long getRetriedTotal() {
            return counters.retried();
        }

        @Override
        public long getDeadLetteredTotal() {
            return counters.deadLettered();
        }

        @Override
        public long getFencedTotal() {
            return counters.fenced();
        }

        @Override
        public long getLeasesRecoveredTotal() {
            return counters.leasesRecovered();
        }

        @Override
        public double getClaimsPerSecond() {
            return rates.perSecond(0);
        }

        @Override
        public double getDeliveriesPerSecond() {
            return rates.perSecond(1);
        }
    }
}
