package io.sluice.features.job;

import io.sluice.config.OnlineConfig;
import io.sluice.config.OnlineStoreType;
import io.sluice.features.online.OnlineStore;
import io.sluice.features.online.OnlineStores;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes tile updates to the online store in batches: bounded (a batch is flushed at {@link
 * #MAX_BATCH} tiles to Redis or {@link #SQLITE_MAX_BATCH} to SQLite, every {@code flushInterval},
 * and before every checkpoint completes), deduplicated by tile (only a tile's newest version in a
 * batch is sent), and retried with exponential back-off until the store takes it, never dropped. A
 * write blocks the task while the store is down, which backpressures the job instead of losing
 * data.
 *
 * <p>After each batch it records how far it has written the view ({@link OnlineStore#markWritten}):
 * the last watermark it received before the batch, since every tile update that came before that
 * watermark is in the batch or an earlier one, and the {@link TileAggregator} publishes every tile
 * of the events before a watermark ahead of it. Readers of a past time use the mark to tell a whole
 * answer from one the job has not caught up with. The end of a bounded input (the watermark {@code
 * Long.MAX_VALUE}) is not a mark: events may still come, with times after the last watermark's.
 *
 * <p>Written by hand rather than on Flink's {@code AsyncSinkBase}: tile writes are idempotent and
 * monotone, so the at-least-once flush-on-checkpoint below is effectively-once, and it needs none
 * of the async sink's buffered-state machinery.
 */
public final class OnlineSink implements Sink<TileUpdate> {

    private static final Logger LOG = LoggerFactory.getLogger(OnlineSink.class);

    /** Tiles per write batch to Redis, which the job writes from every subtask. */
    static final int MAX_BATCH = 1_000;

    /**
     * Tiles per write batch to SQLite, whose one file takes one writer: a transaction's cost is
     * mostly the pages it writes to the write-ahead log, which rows of one batch share. On one
     * writer thread an upsert took 55–62 µs in batches of 1,000 and 36–41 µs in batches of 10,000,
     * and that writer bounds the throughput job of {@code bench features} (docs/performance.md,
     * "What bounds the throughput job"). A batch still goes out every flush interval.
     */
    static final int SQLITE_MAX_BATCH = 10_000;

    private final OnlineConfig config;
    private final String view;
    private final int maxBatch;
    private final long flushIntervalMillis;

    /**
     * A sink of {@code view}'s tiles to {@code config}'s store, in batches of that store's size.
     */
    public OnlineSink(OnlineConfig config, String view, long flushIntervalMillis) {
        this.config = config;
        this.view = view;
        this.maxBatch = config.store() == OnlineStoreType.SQLITE ? SQLITE_MAX_BATCH : MAX_BATCH;
        this.flushIntervalMillis = flushIntervalMillis;
    }

    @Override
    public SinkWriter<TileUpdate> createWriter(WriterInitContext context) throws IOException {
        return new Writer(context);
    }

    private final class Writer implements SinkWriter<TileUpdate> {
        private final OnlineStore store;
        private final Map<OnlineStore.TileKey, TileUpdate> buffer = new LinkedHashMap<>();
        private final ProcessingTimeService time;
        private final Counter written;
        private final Counter stale;
        private final Counter retries;
        private final Histogram freshness;
        private final int parallelism;
        private final int subtask;

        /** The last watermark received, and the last one marked in the store. */
        private long watermark = Long.MIN_VALUE;

        private long marked = Long.MIN_VALUE;

        Writer(WriterInitContext context) throws IOException {
            this.store = OnlineStores.open(config);
            this.time = context.getProcessingTimeService();
            this.parallelism = context.getTaskInfo().getNumberOfParallelSubtasks();
            this.subtask = context.getTaskInfo().getIndexOfThisSubtask();
            var metrics = context.metricGroup();
            written = metrics.counter("onlineTilesWritten");
            stale = metrics.counter("onlineTilesAlreadyNewer");
            retries = metrics.counter("onlineWriteRetries");
            freshness =
                    metrics.histogram(
                            "freshnessMillis", new DescriptiveStatisticsHistogram(10_000));
            scheduleFlush();
        }

        private void scheduleFlush() {
            time.registerTimer(
                    time.getCurrentProcessingTime() + flushIntervalMillis,
                    ts -> {
                        // Timers run in the task's mailbox thread, never beside write().
                        flushBuffer();
                        scheduleFlush();
                    });
        }

        @Override
        public void write(TileUpdate update, Context context)
                throws IOException, InterruptedException {
            OnlineStore.TileKey key = update.key();
            TileUpdate previous = buffer.get(key);
            if (previous == null || previous.version <= update.version) {
                if (previous != null) {
                    update.newestEventTime =
                            Math.max(update.newestEventTime, previous.newestEventTime);
                }
                buffer.put(key, update);
            }
            if (buffer.size() >= maxBatch) {
                flushBuffer();
            }
        }

        @Override
        public void writeWatermark(Watermark mark) {
            if (mark.getTimestamp() != Long.MAX_VALUE) {
                watermark = Math.max(watermark, mark.getTimestamp());
            }
        }

        @Override
        public void flush(boolean endOfInput) throws IOException, InterruptedException {
            flushBuffer();
        }

        /** Writes the buffered tiles, then the mark of the watermark they came before. */
        private void flushBuffer() throws IOException, InterruptedException {
            long mark = watermark;
            if (!buffer.isEmpty()) {
                List<OnlineStore.TileWrite> writes = new ArrayList<>(buffer.size());
                for (TileUpdate u : buffer.values()) {
                    writes.add(u.write());
                }
                int applied = retried(writes.size() + " tiles", () -> store.write(writes));
                written.inc(applied);
                stale.inc(writes.size() - applied);
                long now = System.currentTimeMillis();
                for (TileUpdate u : buffer.values()) {
                    freshness.update(now - u.newestEventTime);
                }
                buffer.clear();
            }
            if (mark > marked) {
                retried(
                        "the written-through mark",
                        () -> {
                            store.markWritten(view, parallelism, subtask, mark);
                            return 0;
                        });
                marked = mark;
            }
        }

        /**
         * Runs {@code write} until the store takes it, with exponential back-off between attempts.
         * Blocking the task thread here is deliberate: it backpressures the job until the store
         * takes the batch.
         */
        private int retried(String what, StoreWrite write) throws InterruptedException {
            long backoff = 100;
            while (true) {
                try {
                    return write.run();
                } catch (IOException e) {
                    retries.inc();
                    LOG.warn(
                            "Online store write of {} failed ({}); retrying in {} ms",
                            what,
                            e.getMessage(),
                            backoff);
                    Thread.sleep(backoff);
                    backoff = Math.min(backoff * 2, 5_000);
                }
            }
        }

        @Override
        public void close() throws Exception {
            store.close();
        }
    }

    /** A write to the store. */
    private interface StoreWrite {
        int run() throws IOException;
    }
}
