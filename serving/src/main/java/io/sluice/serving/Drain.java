package io.sluice.serving;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The requests a server has in flight, and whether it is draining: once it is, {@code /ready}
 * answers 503 (so Kubernetes takes the pod out of its Service) and every response closes its
 * connection, or on HTTP/2 its connection stops taking new streams (so a client's pooled connection
 * moves to another replica), while requests already sent, or still arriving, are answered.
 */
final class Drain {

    private final AtomicInteger inFlight = new AtomicInteger();
    private final Object idle = new Object();
    private volatile boolean draining;

    /** The first handler of every route: counts the request until its response ends or fails. */
    void track(RoutingContext ctx) {
        inFlight.incrementAndGet();
        // Called once, when the response has been sent, has failed, or its connection closed.
        ctx.addEndHandler(
                done -> {
                    if (inFlight.decrementAndGet() == 0) {
                        synchronized (idle) {
                            idle.notifyAll();
                        }
                    }
                });
        if (draining) {
            if (ctx.request().version() == HttpVersion.HTTP_2) {
                // HTTP/2 has no Connection header: a GOAWAY stops new streams on the connection
                // (the client opens another) and lets the ones in flight finish.
                ctx.request().connection().goAway(0);
            } else {
                ctx.response().putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
            }
        }
        ctx.next();
    }

    boolean draining() {
        return draining;
    }

    void start() {
        draining = true;
    }

    /** Requests whose responses have not ended. */
    int inFlight() {
        return inFlight.get();
    }

    /** Waits until no request is in flight, at most {@code timeout}; returns how many still are. */
    int awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            long left;
            while (inFlight.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(idle, left);
            }
        }
        return inFlight.get();
    }
}
