package io.sluice.features.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Collects what one logger writes at WARN and above, so a test can wait for something the job
 * reports (the MiniCluster runs in the test's JVM).
 */
public final class LogCapture implements AutoCloseable {

    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final String loggerName;
    private final AbstractAppender appender;

    public LogCapture(Class<?> logger) {
        this(logger.getName());
    }

    /** What the logger named {@code loggerName} writes, such as one of Netty's sub-loggers. */
    public LogCapture(String loggerName) {
        this.loggerName = loggerName;
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        appender =
                new AbstractAppender(
                        "capture-" + loggerName, null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        messages.add(event.getMessage().getFormattedMessage());
                    }
                };
        appender.start();
        LoggerConfig loggerConfig = new LoggerConfig(loggerName, Level.WARN, true);
        loggerConfig.addAppender(appender, Level.WARN, null);
        config.addLogger(loggerName, loggerConfig);
        context.updateLoggers();
    }

    public List<String> messages() {
        return messages;
    }

    @Override
    public void close() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().removeLogger(loggerName);
        context.updateLoggers();
        appender.stop();
    }
}
