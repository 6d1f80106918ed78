package dev.warden.api.http;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;

/**
 * Lets the other connections' requests run after each answer: the request's virtual thread yields its carrier once
 * the response is written. A virtual thread is never preempted; on a keep-alive connection whose client sends its
 * next request before the answer's thread reads it, the thread would otherwise read, answer and read again without
 * ever parking, holding its carrier while requests of other connections wait in the scheduler's queue, for seconds
 * under load (D200). The yield puts it behind them. Outermost filter.
 */
public final class TakeTurns implements Filter {
    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        try {
            chain.proceed();
        } finally {
            if (Thread.currentThread().isVirtual()) {
                Thread.yield();
            }
        }
    }
}
