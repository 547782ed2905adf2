package io.sluice.app;

import io.sluice.lake.LakeFileSystem;

/**
 * Entry point for Flink application mode ({@code entryClass} of a FlinkDeployment). Unlike {@link
 * Main#main}, it never calls {@code System.exit}, which would take the JobManager down with it; a
 * failing command surfaces as an exception instead. The cluster's file systems are its own ({@link
 * LakeFileSystem#leaveToCluster}): an {@code s3:} lake is reached through the S3 plugin and the
 * {@code s3.*} settings of the deployment.
 */
public final class FlinkEntry {

    private FlinkEntry() {}

    public static void main(String[] args) {
        LakeFileSystem.leaveToCluster();
        int code = Main.run(args);
        if (code != 0) {
            throw new IllegalStateException("sluice " + String.join(" ", args) + " exited " + code);
        }
    }
}
