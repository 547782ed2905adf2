package io.sluice.testing;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a command line that runs a class in a new JVM for a test: this JVM's {@code java}
 * launcher, this JVM's JIT and garbage-collector flags, then the caller's options.
 *
 * <p>The build runs its tests with the C1 compiler only, the serial collector and no verification
 * of the class path's bytecode (the parent pom's {@code test.jvm.options}): test JVMs live for
 * seconds to minutes, where C2's compilations, G1's concurrent threads and verifying every loaded
 * class cost more CPU than they save, and the build has two cores. Child JVMs (a killed job, a
 * compaction in a small heap, a cluster's job and task managers) inherit the same flags, so a test
 * costs the same whether its work runs in the test JVM or in a child.
 */
public final class ChildJava {

    private ChildJava() {}

    /**
     * {@code java}, the inherited flags, the class-data archive of this JVM's class path where the
     * build asks for one ({@link SharedClasses}), then {@code options}.
     */
    public static List<String> command(String... options) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(inheritedOptions());
        command.addAll(SharedClasses.forChildren().options());
        command.addAll(List.of(options));
        return command;
    }

    /**
     * The class path for a child that runs this JVM's classes: the same entries, with class
     * directories as jars where the children share a class-data archive ({@link SharedClasses}).
     */
    public static String classPath() {
        return SharedClasses.forChildren().classPath();
    }

    /**
     * This JVM's JIT tier, collector and bytecode verification flags, in their order, for example
     * {@code -XX:TieredStopAtLevel=1}.
     */
    public static List<String> inheritedOptions() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(
                        arg ->
                                arg.startsWith("-XX:TieredStopAtLevel=")
                                        || (arg.startsWith("-XX:+Use") && arg.endsWith("GC"))
                                        || arg.equals("-XX:+UnlockDiagnosticVMOptions")
                                        || arg.equals("-XX:-BytecodeVerificationRemote"))
                .toList();
    }
}
