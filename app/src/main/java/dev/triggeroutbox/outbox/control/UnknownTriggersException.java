package dev.triggeroutbox.outbox.control;

import java.util.List;

/** Rows of a batch named triggers that are not their app's: nothing of the batch may be written. */
public class UnknownTriggersException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final List<Integer> rows;

    public UnknownTriggersException(List<Integer> rows) {
        super("rows " + rows + " of the batch name triggers that are not their app's");
        this.rows = List.copyOf(rows);
    }

    /** The refused rows' positions in the batch, from 0. */
    public List<Integer> rows() {
        return rows;
    }
}
