package io.sluice.serving;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;

/**
 * The feature server's JSON answers other than features: a status, and every refusal as {@code
 * {"status": code, "message": …}}, which names what was wrong and never holds a stack trace.
 */
final class Replies {

    private static final System.Logger LOG = System.getLogger(FeatureServer.class.getName());

    private final ObjectMapper mapper;
    private final Limits limits;

    Replies(ObjectMapper mapper, Limits limits) {
        this.mapper = mapper;
        this.limits = limits;
    }

    /** The innermost cause's own words, without exception class names or stack frames. */
    static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = root.getMessage() == null ? "no reason given" : root.getMessage();
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }

    ObjectNode status(String status) {
        return mapper.createObjectNode().put("status", status);
    }

    String defaultMessage(RoutingContext ctx, int code) {
        return switch (code) {
            case 404 ->
                    "no such endpoint: " + ctx.request().path() + "; endpoints: " + Endpoints.PATHS;
            case 405 -> ctx.request().method() + " is not allowed on " + ctx.request().path();
            case 413 -> "the body is larger than the limit of " + limits.maxBodyBytes() + " bytes";
            case 500 -> {
                if (ctx.failure() != null) {
                    LOG.log(System.Logger.Level.ERROR, "request failed", ctx.failure());
                }
                yield "internal error; the server log has the details";
            }
            default -> "bad request";
        };
    }

    void refuse(RoutingContext ctx, int code, String message) {
        json(ctx, code, refusal(code, message));
    }

    /** A refusal's body: {@code {"status": code, "message": message}}. */
    ObjectNode refusal(int code, String message) {
        return mapper.createObjectNode().put("status", code).put("message", message);
    }

    void json(RoutingContext ctx, int code, ObjectNode body) {
        if (ctx.response().ended()) {
            return;
        }
        try {
            ctx.response()
                    .setStatusCode(code)
                    .putHeader("content-type", "application/json")
                    .end(mapper.writeValueAsString(body));
        } catch (IOException e) {
            ctx.fail(500, e);
        }
    }
}
