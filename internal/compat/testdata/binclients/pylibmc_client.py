"""pylibmc (libmemcached) in binary mode against one or more servers.

Usage: python3 pylibmc_client.py TARGET...
A TARGET is NAME=[!][USER:PASS@]HOST:PORT; USER:PASS logs in with SASL
PLAIN, and a leading "!" means the server must refuse this client
(no credentials, or wrong ones). For each target the script prints
"ok NAME" or "FAIL NAME OP: DETAIL" and stops that target at its first
failure; it exits 1 if any target failed. Run by clients_binary_test.go.
"""

import sys

import pylibmc


# PAST is an exptime memcached reads as a Unix time (over 30 days) that
# has passed: 1970-01-31.
PAST = 30 * 24 * 3600 + 1


class Mismatch(Exception):
    pass


def parse_target(spec):
    name, _, rest = spec.partition("=")
    refused = rest.startswith("!")
    if refused:
        rest = rest[1:]
    user = password = None
    if "@" in rest:
        creds, _, rest = rest.rpartition("@")
        user, _, password = creds.partition(":")
    return name, rest, user, password, refused


def connect(addr, user, password):
    kw = {}
    if user is not None:
        kw = {"username": user, "password": password}
    # cas: gets returns CAS values; no_block off and a short timeout so a
    # server that stays silent fails an operation instead of hanging.
    return pylibmc.Client(
        [addr],
        binary=True,
        behaviors={"cas": True, "connect_timeout": 2000, "receive_timeout": 2000000, "send_timeout": 2000000},
        **kw,
    )


def expect(op, got, want):
    if got != want:
        raise Mismatch("%s: got %r, want %r" % (op, got, want))


def raises(op, exc, f, *args):
    try:
        got = f(*args)
    except exc:
        return
    except Exception as e:  # another error than the one memcached's status maps to
        raise Mismatch("%s: raised %s %s, want %s" % (op, type(e).__name__, e, exc.__name__))
    raise Mismatch("%s: returned %r, want %s" % (op, got, exc.__name__))


def suite(mc):
    step = {"op": "flush_all"}

    def at(op):
        step["op"] = op

    try:
        expect("flush_all", mc.flush_all(), True)
        at("get_miss")
        expect("get_miss", mc.get("k1"), None)

        at("set_get")
        expect("set", mc.set("k1", b"v1"), True)
        expect("get", mc.get("k1"), b"v1")

        at("add")
        expect("add_existing", mc.add("k1", b"x"), False)
        expect("add_new", mc.add("k2", b"v2"), True)
        expect("get_added", mc.get("k2"), b"v2")

        at("replace")
        raises("replace_missing", pylibmc.NotFound, mc.replace, "k3", b"x")
        expect("replace_existing", mc.replace("k1", b"v1b"), True)
        expect("get_replaced", mc.get("k1"), b"v1b")

        at("cas")
        value, cas = mc.gets("k1")
        expect("gets_value", value, b"v1b")
        if not cas:
            raise Mismatch("gets: CAS %r, want a non-zero CAS" % (cas,))
        expect("cas_current", mc.cas("k1", b"v1c", cas), True)
        expect("cas_stale", mc.cas("k1", b"v1d", cas), False)
        expect("get_after_cas", mc.get("k1"), b"v1c")
        expect("gets_missing", mc.gets("nokey"), (None, None))

        at("incr_decr")
        expect("set_counter", mc.set("n", b"10"), True)
        expect("incr", mc.incr("n", 5), 15)
        expect("decr_below_zero", mc.decr("n", 20), 0)
        # memcached rewrites a counter in place, padding with spaces.
        expect("get_counter_padded", mc.get("n"), b"0 ")
        # Below 2**63: above it memcached 1.6.18 looks for a '-' past the
        # value's end (strchr in safe_strtoull), so its answer depends on
        # the bytes that follow the item in memory.
        expect("set_counter_large", mc.set("n", b"9223372036854775806"), True)
        expect("incr_large", mc.incr("n", 1), 9223372036854775807)
        raises("incr_missing", pylibmc.NotFound, mc.incr, "nokey", 1)
        mc.set("text", b"abc")
        raises("incr_non_numeric", pylibmc.Error, mc.incr, "text", 1)

        at("append_prepend")
        expect("append", mc.append("k2", b"-end"), True)
        expect("prepend", mc.prepend("k2", b"start-"), True)
        expect("get_appended", mc.get("k2"), b"start-v2-end")
        expect("append_missing", mc.append("nokey", b"x"), False)

        at("touch")
        expect("touch", mc.touch("k1", 300), True)
        expect("touch_missing", mc.touch("nokey", 300), False)

        at("expiry")
        # Over 30 days an exptime is a Unix time: this one is long past,
        # so the item is stored expired (no sleeping needed).
        expect("set_expired", mc.set("exp", b"v", time=PAST), True)
        expect("get_expired", mc.get("exp"), None)
        expect("set_for_touch", mc.set("exp", b"v", time=300), True)
        expect("touch_to_past", mc.touch("exp", PAST), True)
        expect("get_touched_to_past", mc.get("exp"), None)

        at("typed_values")
        # pylibmc keeps the Python type in the item's flags.
        expect("set_int", mc.set("int", 42), True)
        expect("get_int", mc.get("int"), 42)
        expect("set_obj", mc.set("obj", {"a": [1, 2]}), True)
        expect("get_obj", mc.get("obj"), {"a": [1, 2]})
        blob = bytes(range(256)) * 1024
        expect("set_large", mc.set("large", blob), True)
        expect("get_large", mc.get("large"), blob)
        expect("set_compressed", mc.set("zip", b"z" * 200000, min_compress_len=1), True)
        expect("get_compressed", mc.get("zip"), b"z" * 200000)

        at("multi")
        expect("set_multi", mc.set_multi({"m1": b"a", "m2": b"b", "m3": b"c"}), [])
        expect("get_multi", mc.get_multi(["k1", "k2", "m1", "m2", "m3", "nokey"]),
               {"k1": b"v1c", "k2": b"start-v2-end", "m1": b"a", "m2": b"b", "m3": b"c"})
        expect("delete_multi", mc.delete_multi(["m1", "m2"]), True)
        expect("get_multi_after_delete", mc.get_multi(["m1", "m2", "m3"]), {"m3": b"c"})

        at("delete")
        expect("delete", mc.delete("k1"), True)
        expect("delete_missing", mc.delete("k1"), False)
        expect("get_deleted", mc.get("k1"), None)

        at("stats")
        stats = mc.get_stats()
        if len(stats) != 1 or "pid" not in stats[0][1] or "version" not in stats[0][1]:
            raise Mismatch("get_stats: %r, want one server with pid and version" % (stats,))

        at("flush_all")
        expect("flush_all", mc.flush_all(), True)
        expect("get_after_flush", mc.get_multi(["k2", "n", "m3"]), {})
    except Mismatch:
        raise
    except Exception as e:
        raise Mismatch("%s: raised %s: %s" % (step["op"], type(e).__name__, e))


def refused(mc):
    """The server must refuse with an authentication error: libmemcached's
    41, MEMCACHED_AUTH_FAILURE (a timeout is not a refusal)."""
    try:
        got = mc.set("k", b"v")
    except pylibmc.Error as e:
        if str(e).startswith("error 41 "):
            return
        raise Mismatch("set without a valid login: raised %s %s, want error 41 (AUTHENTICATION FAILURE)" % (type(e).__name__, e))
    raise Mismatch("set without a valid login: returned %r, want an authentication error" % (got,))


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    failed = False
    for spec in argv:
        name, addr, user, password, must_refuse = parse_target(spec)
        try:
            mc = connect(addr, user, password)
            (refused if must_refuse else suite)(mc)
            mc.disconnect_all()
            print("ok", name, flush=True)
        except Mismatch as e:
            failed = True
            print("FAIL", name, e, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
