package io.sluice.serving;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;

/**
 * The time a request has from its headers to the end of its body ({@code --request-timeout}): two
 * route handlers, one before the body handler and one after it.
 */
final class ReceiveDeadline {

    /** Where a request keeps the id of its receive deadline's timer. */
    private static final String TIMER = "sluice.receiveDeadline";

    private final Vertx vertx;
    private final long seconds;
    private final Replies replies;

    ReceiveDeadline(Vertx vertx, long seconds, Replies replies) {
        this.vertx = vertx;
        this.seconds = seconds;
        this.replies = replies;
    }

    /**
     * Gives the request {@link Limits#requestTimeoutSeconds()} from its headers to the end of its
     * body, which the body handler waits for: then a 408 naming the limit, and the connection is
     * closed, the rest of the body unread. The idle timeout alone would let a client that trickles
     * a byte at a time hold a request, and its share of the server, open for ever.
     */
    void start(RoutingContext ctx) {
        long timer =
                vertx.setTimer(
                        seconds * 1000,
                        id -> {
                            if (ctx.response().headWritten()) {
                                return;
                            }
                            // Vert.x keeps an HTTP/1.1 connection open after a response, and a
                            // client still sending would keep it from ever being idle.
                            ctx.response()
                                    .setStatusCode(408)
                                    .putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE)
                                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                                    .end(
                                            replies.refusal(
                                                            408,
                                                            "the request did not arrive whole"
                                                                    + " within "
                                                                    + seconds
                                                                    + " s of its headers"
                                                                    + " (--request-timeout); send"
                                                                    + " its body at once")
                                                    .toString())
                                    .onComplete(sent -> ctx.request().connection().close());
                        });
        ctx.put(TIMER, timer);
        ctx.addEndHandler(done -> vertx.cancelTimer(timer));
        ctx.next();
    }

    /** The body has arrived: the request is no longer on its receive deadline. */
    void received(RoutingContext ctx) {
        Long timer = ctx.get(TIMER);
        if (timer != null) {
            vertx.cancelTimer(timer);
        }
        if (ctx.response().ended()) {
            return; // answered 408 already
        }
        ctx.next();
    }
}
