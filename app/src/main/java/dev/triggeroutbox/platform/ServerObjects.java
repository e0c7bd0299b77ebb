package dev.triggeroutbox.platform;

import javax.naming.InitialContext;
import javax.naming.NameNotFoundException;
import javax.naming.NamingException;

/**
 * Looks up objects the server binds by JNDI name (JMS connection factories, queues, topics), only
 * in the server's own {@code java:} namespace: a URL name ({@code ldap://…}, {@code rmi://…}) would
 * make the server fetch objects from elsewhere, so such names are refused, never looked up.
 */
public final class ServerObjects {

    private ServerObjects() {
    }

    /** Whether {@code name} is a name of the server's own namespace. */
    public static boolean isLocalName(String name) {
        return name != null && name.startsWith("java:") && name.length() > "java:".length()
                && !name.contains("://") && name.chars().noneMatch(Character::isWhitespace);
    }

    /**
     * The object bound at {@code name}, of {@code type}. {@link NameNotFoundException} when nothing is
     * bound there (also for a name that is not local) or something of another type.
     */
    public static <T> T lookup(String name, Class<T> type) throws NamingException {
        if (!isLocalName(name)) {
            throw new NameNotFoundException(name + " is not a java: name");
        }
        Object found = new InitialContext().lookup(name);
        if (!type.isInstance(found)) {
            throw new NameNotFoundException(name + " is not a " + type.getSimpleName());
        }
        return type.cast(found);
    }
}
