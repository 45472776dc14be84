// spymemcached in binary mode against one or more servers, all in one JVM
// (its start costs more than the cases).
//
// Usage: java -cp spymemcached.jar SpymemcachedClient.java TARGET...
// A TARGET is NAME=[!][USER:PASS@]HOST:PORT; USER:PASS logs in with SASL
// PLAIN, and a leading "!" means the server must refuse this client (no
// credentials, or wrong ones). For each target the program prints "ok NAME"
// or "FAIL NAME OP: DETAIL" and stops that target at its first failure; it
// exits 1 if any target failed. Run by clients_binary_test.go.

import java.net.SocketAddress;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import net.spy.memcached.AddrUtil;
import net.spy.memcached.CASResponse;
import net.spy.memcached.CASValue;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.FailureMode;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.auth.AuthDescriptor;
import net.spy.memcached.auth.PlainCallbackHandler;
import net.spy.memcached.internal.OperationFuture;

public class SpymemcachedClient {
    // An exptime memcached reads as a Unix time (over 30 days) that has
    // passed: 1970-01-31.
    static final int PAST = 30 * 24 * 3600 + 1;

    static final class Mismatch extends Exception {
        Mismatch(String msg) {
            super(msg);
        }
    }

    record Target(String name, String addr, String user, String password, boolean refused) {
        static Target parse(String spec) {
            int eq = spec.indexOf('=');
            String name = spec.substring(0, eq), rest = spec.substring(eq + 1);
            boolean refused = rest.startsWith("!");
            if (refused) rest = rest.substring(1);
            String user = null, password = null;
            int at = rest.lastIndexOf('@');
            if (at >= 0) {
                String creds = rest.substring(0, at);
                int colon = creds.indexOf(':');
                user = creds.substring(0, colon);
                password = creds.substring(colon + 1);
                rest = rest.substring(at + 1);
            }
            return new Target(name, rest, user, password, refused);
        }
    }

    static MemcachedClient connect(Target t, long opTimeoutMillis) throws Exception {
        ConnectionFactoryBuilder b = new ConnectionFactoryBuilder()
                .setProtocol(ConnectionFactoryBuilder.Protocol.BINARY)
                .setOpTimeout(opTimeoutMillis)
                // Retry: an operation issued before the connection is up waits for it
                // (Cancel would cancel it at once, as for a node that is down).
                .setFailureMode(FailureMode.Retry);
        if (t.user() != null) {
            b.setAuthDescriptor(new AuthDescriptor(new String[] {"PLAIN"},
                    new PlainCallbackHandler(t.user(), t.password())));
        }
        return new MemcachedClient(b.build(), AddrUtil.getAddresses(t.addr()));
    }

    static void expect(String op, Object got, Object want) throws Mismatch {
        boolean same = got instanceof byte[] g && want instanceof byte[] w ? Arrays.equals(g, w) : Objects.equals(got, want);
        if (!same) throw new Mismatch(op + ": got " + show(got) + ", want " + show(want));
    }

    static String show(Object v) {
        if (v instanceof byte[] b) return "byte[" + b.length + "]";
        if (v instanceof String s && s.length() > 80) return "\"" + s.substring(0, 80) + "...\" (" + s.length() + " chars)";
        return v instanceof String ? "\"" + v + "\"" : String.valueOf(v);
    }

    static <T> T await(Future<T> f) throws Exception {
        return f.get(5, TimeUnit.SECONDS);
    }

    static String op = "";

    static void suite(MemcachedClient mc) throws Exception {
        op = "flush";
        expect("flush", await(mc.flush()), true);
        op = "get_miss";
        expect("get_miss", mc.get("k1"), null);

        op = "set_get";
        expect("set", await(mc.set("k1", 0, "v1")), true);
        expect("get", mc.get("k1"), "v1");

        op = "add";
        expect("add_existing", await(mc.add("k1", 0, "x")), false);
        expect("add_new", await(mc.add("k2", 0, "v2")), true);
        expect("get_added", mc.get("k2"), "v2");

        op = "replace";
        expect("replace_missing", await(mc.replace("k3", 0, "x")), false);
        expect("replace_existing", await(mc.replace("k1", 0, "v1b")), true);
        expect("get_replaced", mc.get("k1"), "v1b");

        op = "cas";
        CASValue<Object> cv = mc.gets("k1");
        if (cv == null || !"v1b".equals(cv.getValue()) || cv.getCas() == 0) throw new Mismatch("gets: " + cv);
        expect("cas_current", mc.cas("k1", cv.getCas(), "v1c"), CASResponse.OK);
        expect("cas_stale", mc.cas("k1", cv.getCas(), "v1d"), CASResponse.EXISTS);
        expect("cas_missing", mc.cas("nokey", cv.getCas(), "x"), CASResponse.NOT_FOUND);
        expect("get_after_cas", mc.get("k1"), "v1c");
        expect("gets_missing", mc.gets("nokey"), null);

        op = "incr_decr";
        expect("set_counter", await(mc.set("n", 0, "10")), true);
        expect("incr", mc.incr("n", 5), 15L);
        expect("decr_below_zero", mc.decr("n", 20), 0L);
        // memcached rewrites a counter in place, padding with spaces.
        expect("get_counter_padded", mc.get("n"), "0 ");
        expect("incr_missing", mc.incr("nokey", 1), -1L);
        expect("incr_missing_default", mc.incr("c", 1, 100), 100L);
        expect("decr_missing_default", mc.decr("d", 1, 7), 7L);
        expect("incr_after_default", mc.incr("c", 1, 100), 101L);
        expect("async_incr", await(mc.asyncIncr("c", 4)), 105L);
        await(mc.set("text", 0, "abc"));
        expect("incr_non_numeric", mc.incr("text", 1), -1L);

        op = "append_prepend";
        expect("append", await(mc.append("k2", "-end")), true);
        expect("prepend", await(mc.prepend("k2", "start-")), true);
        expect("get_appended", mc.get("k2"), "start-v2-end");
        expect("append_missing", await(mc.append("nokey", "x")), false);

        op = "touch";
        expect("touch", await(mc.touch("k1", 300)), true);
        expect("touch_missing", await(mc.touch("nokey", 300)), false);
        CASValue<Object> gat = mc.getAndTouch("k1", 300);
        if (gat == null || !"v1c".equals(gat.getValue()) || gat.getCas() == 0) throw new Mismatch("getAndTouch: " + gat);
        expect("getAndTouch_missing", mc.getAndTouch("nokey", 300), null);

        op = "expiry";
        // Over 30 days an exptime is a Unix time: this one is long past, so
        // the item is stored expired (no sleeping needed).
        expect("set_expired", await(mc.set("exp", PAST, "v")), true);
        expect("get_expired", mc.get("exp"), null);
        expect("set_for_touch", await(mc.set("exp", 300, "v")), true);
        expect("touch_to_past", await(mc.touch("exp", PAST)), true);
        expect("get_touched_to_past", mc.get("exp"), null);

        op = "typed_values";
        // The serializing transcoder keeps the Java type (and compression) in the flags.
        expect("set_int", await(mc.set("int", 0, 42)), true);
        expect("get_int", mc.get("int"), 42);
        expect("set_long", await(mc.set("long", 0, 1L << 40)), true);
        expect("get_long", mc.get("long"), 1L << 40);
        HashMap<String, List<Integer>> obj = new HashMap<>(Map.of("a", List.of(1, 2)));
        expect("set_object", await(mc.set("obj", 0, obj)), true);
        expect("get_object", mc.get("obj"), obj);
        byte[] blob = new byte[256 * 1024];
        for (int i = 0; i < blob.length; i++) blob[i] = (byte) i;
        expect("set_large", await(mc.set("large", 0, blob)), true);
        expect("get_large", mc.get("large"), blob);
        String zip = "z".repeat(200000);
        expect("set_compressed", await(mc.set("zip", 0, zip)), true);
        expect("get_compressed", mc.get("zip"), zip);

        op = "multi";
        // Many requests in flight on one connection, then a bulk get
        // (GetKQ... and a Noop).
        List<Future<Boolean>> sets = List.of(mc.set("m1", 0, "a"), mc.set("m2", 0, "b"), mc.set("m3", 0, "c"));
        for (Future<Boolean> f : sets) expect("pipelined_set", await(f), true);
        Map<String, Object> bulk = mc.getBulk("k1", "k2", "m1", "m2", "m3", "nokey");
        expect("get_bulk", bulk, Map.of("k1", "v1c", "k2", "start-v2-end", "m1", "a", "m2", "b", "m3", "c"));
        expect("delete_m1", await(mc.delete("m1")), true);
        expect("get_bulk_after_delete", mc.getBulk(List.of("m1", "m3")), Map.of("m3", "c"));

        op = "delete";
        expect("delete", await(mc.delete("k1")), true);
        expect("delete_missing", await(mc.delete("k1")), false);
        expect("get_deleted", mc.get("k1"), null);

        op = "stats_version";
        Map<SocketAddress, Map<String, String>> stats = mc.getStats();
        Collection<Map<String, String>> per = stats.values();
        if (per.size() != 1 || !per.iterator().next().containsKey("pid") || !per.iterator().next().containsKey("version"))
            throw new Mismatch("getStats: " + stats);
        Collection<String> versions = mc.getVersions().values();
        if (versions.size() != 1 || !versions.iterator().next().matches("\\d+\\.\\d+.*"))
            throw new Mismatch("getVersions: " + versions);

        op = "flush";
        expect("flush", await(mc.flush()), true);
        expect("get_after_flush", mc.getBulk("k2", "n", "m3"), Map.of());
    }

    // authFailures counts the replies with status 0x20 ("Auth failure.")
    // spymemcached has logged: a refused login is only visible in its log,
    // since it retries the login and holds operations meanwhile.
    static final AtomicInteger authFailures = new AtomicInteger();

    static void watchAuthFailures() {
        Logger root = Logger.getLogger("");
        root.addHandler(new Handler() {
            @Override
            public void publish(LogRecord r) {
                String msg = r.getMessage();
                if (msg != null && msg.contains("Auth failure.")) {
                    authFailures.incrementAndGet();
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        });
    }

    // refused passes when the server refuses with status 0x20: the set's
    // own status without a login, the login's with wrong credentials (a
    // timeout is not a refusal).
    static void refused(MemcachedClient mc) throws Exception {
        int before = authFailures.get();
        OperationFuture<Boolean> set = mc.set("k", 0, "v");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (authFailures.get() > before) return;
            if (set.isDone()) {
                String msg = set.getStatus().getMessage();
                if (Boolean.TRUE.equals(set.getStatus().isSuccess())) throw new Mismatch("set without a valid login: stored, want an error");
                if (msg != null && msg.contains("Auth failure")) return;
                if (authFailures.get() > before) return;
                throw new Mismatch("set without a valid login: status \"" + msg + "\", want Auth failure");
            }
            Thread.sleep(10);
        }
        throw new Mismatch("set without a valid login: no authentication failure within 3 s");
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: java -cp spymemcached.jar SpymemcachedClient.java NAME=[!][USER:PASS@]HOST:PORT...");
            System.exit(2);
        }
        // spymemcached logs through java.util.logging, where refused logins are watched.
        System.setProperty("net.spy.log.LoggerImpl", "net.spy.memcached.compat.log.SunLogger");
        watchAuthFailures();
        boolean failed = false;
        for (String spec : args) {
            Target t = Target.parse(spec);
            MemcachedClient mc = null;
            try {
                mc = connect(t, 2000);
                if (t.refused()) refused(mc);
                else suite(mc);
                System.out.println("ok " + t.name());
            } catch (Mismatch e) {
                failed = true;
                System.out.println("FAIL " + t.name() + " " + e.getMessage());
            } catch (Exception e) {
                failed = true;
                System.out.println("FAIL " + t.name() + " " + op + ": raised " + e);
            } finally {
                // Every operation has been awaited; a refused one may be queued forever.
                if (mc != null) mc.shutdown(200, TimeUnit.MILLISECONDS);
            }
            System.out.flush();
        }
        System.exit(failed ? 1 : 0);
    }
}
