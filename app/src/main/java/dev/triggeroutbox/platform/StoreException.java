package dev.triggeroutbox.platform;

import java.sql.SQLException;

/**
 * The database failed a statement (or gave no connection). Unchecked, so that control classes and resources do
 * not pass {@code throws SQLException} along; the driver's exception is kept as the cause for the log. Its message
 * is the driver's and may carry SQL: the problem mappers answer it as an internal error without it.
 */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreException(SQLException cause) {
        super(cause.getMessage(), cause);
    }

    /** The driver's exception, with its SQLState. */
    public SQLException sqlException() {
        return (SQLException) getCause();
    }
}
