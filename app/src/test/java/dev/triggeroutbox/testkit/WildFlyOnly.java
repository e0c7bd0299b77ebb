package dev.triggeroutbox.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class that needs something only WildFly has (say why in {@link #value()}); skipped, with
 * that reason, on the other servers. Evaluated before Arquillian deploys anything.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(WildFlyOnly.Condition.class)
public @interface WildFlyOnly {

    /** What WildFly has that the others lack. */
    String value();

    class Condition implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            String reason = context.getRequiredTestClass().getAnnotation(WildFlyOnly.class).value();
            return ItServer.current() == ItServer.WILDFLY
                    ? ConditionEvaluationResult.enabled("on WildFly")
                    : ConditionEvaluationResult.disabled("WildFly only: " + reason);
        }
    }
}
