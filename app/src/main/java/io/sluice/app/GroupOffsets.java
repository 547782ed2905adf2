package io.sluice.app;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far consumer groups have read their topics, from the offsets they commit: the progress of a
 * bounded job that reads Kafka to its end and commits on every checkpoint.
 */
final class GroupOffsets implements AutoCloseable {

    private final Admin admin;

    GroupOffsets(String bootstrap) {
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    /** The sum of the topics' end offsets: the records a job reading all of them reaches. */
    long end(Set<String> topics) throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        admin.describeTopics(topics)
                .allTopicNames()
                .get()
                .forEach(
                        (topic, description) ->
                                description
                                        .partitions()
                                        .forEach(
                                                p ->
                                                        latest.put(
                                                                new TopicPartition(
                                                                        topic, p.partition()),
                                                                OffsetSpec.latest())));
        return admin.listOffsets(latest).all().get().values().stream()
                .mapToLong(o -> o.offset())
                .sum();
    }

    /** The sum of the groups' committed offsets over every partition they have committed. */
    long committed(Set<String> groups) throws ExecutionException, InterruptedException {
        long sum = 0;
        for (String group : groups) {
            for (OffsetAndMetadata o :
                    admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .values()) {
                if (o != null) {
                    sum += o.offset();
                }
            }
        }
        return sum;
    }

    @Override
    public void close() {
        admin.close();
    }
}
