package io.sluice.testing;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Starts making the child JVMs' class-data archive ({@link SharedClasses}) when a module's unit
 * tests start, where the build asks for it with the system property {@value #PROPERTY} (the
 * archive's directory). The archive is then made while the unit tests run and the job jar is
 * shaded, on the core those leave idle, instead of at the start of the ITCases, whose first test
 * JVM would otherwise make it while the other waits. It is made for this JVM's class path, which
 * must be the ITCases' own: a module that asks reads its classes from {@code target/classes} in
 * both (Failsafe's {@code classesDirectory}).
 *
 * <p>Registered as a JUnit Platform launcher session listener by the modules that use it ({@code
 * META-INF/services} in their test resources).
 */
public final class ClassDataPreparation implements LauncherSessionListener {

    static final String PROPERTY = "sluice.test.cds.prepare";

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String dir = System.getProperty(PROPERTY);
        if (dir == null) {
            return;
        }
        try {
            SharedClasses.startInBackground(
                    Path.of(dir),
                    System.getProperty("java.class.path"),
                    CdsTraining.class.getName());
        } catch (IOException e) {
            // The ITCases then make it themselves, as without this.
            System.err.println("ClassDataPreparation: not started: " + e);
        }
    }
}
