package io.sluice.compact;

import java.io.Closeable;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;

/** Rows read one at a time, in order; from memory or merged from sorted runs on disk. */
interface RowStream extends Closeable {

    /** The next row, or null at the end. */
    HourRows.Row next() throws IOException;

    /** The rows of {@code rows}, in their order. */
    static RowStream of(List<HourRows.Row> rows) {
        Iterator<HourRows.Row> it = rows.iterator();
        return new RowStream() {
            @Override
            public HourRows.Row next() {
                return it.hasNext() ? it.next() : null;
            }

            @Override
            public void close() {}
        };
    }
}
