package io.sluice.catalog;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;

/**
 * Upkeep of catalog tables other than the warehouse's that the continuous compact job runs with
 * each maintenance of its own tables: the feature logs' tables, brought up to the logs' files. The
 * compact module knows nothing of feature views, so whoever starts the job hands it in.
 */
@FunctionalInterface
public interface CatalogUpkeep extends Serializable {

    /** Nothing more to keep up. */
    CatalogUpkeep NONE = (catalog, retention, now) -> {};

    /**
     * @param retention {@code catalog.snapshot_retention}
     * @param now the wall-clock time of this maintenance, epoch millis
     */
    void run(LakeCatalog catalog, Duration retention, long now) throws IOException;
}
