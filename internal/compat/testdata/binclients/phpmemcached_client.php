<?php
// php-memcached (libmemcached) with Memcached::OPT_BINARY_PROTOCOL, and
// its session handler (binary by default), against one or more servers.
//
// Usage: php phpmemcached_client.php TARGET...
// A TARGET is NAME=[!][USER:PASS@]HOST:PORT; USER:PASS logs in with SASL
// PLAIN, and a leading "!" means the server must refuse this client (no
// credentials, or wrong ones). For each target the script prints "ok NAME"
// or "FAIL NAME OP: DETAIL" and stops that target at its first failure; it
// exits 1 if any target failed. Run by clients_binary_test.go.
//
// Output goes to STDOUT directly, not through PHP's output layer, so that
// headers are never "sent" and session_start keeps working between targets.

final class Mismatch extends Exception {}

// An exptime memcached reads as a Unix time (over 30 days) that has
// passed: 1970-01-31.
const PAST = 30 * 24 * 3600 + 1;

function out($line) { fwrite(STDOUT, $line . "\n"); }

function parse_target($spec) {
    [$name, $rest] = explode('=', $spec, 2);
    $refused = str_starts_with($rest, '!');
    if ($refused) $rest = substr($rest, 1);
    $user = $password = null;
    $at = strrpos($rest, '@');
    if ($at !== false) {
        [$user, $password] = explode(':', substr($rest, 0, $at), 2);
        $rest = substr($rest, $at + 1);
    }
    [$host, $port] = explode(':', $rest, 2);
    return [$name, $host, (int)$port, $user, $password, $refused];
}

function connect($host, $port, $user, $password) {
    $m = new Memcached();
    $m->setOption(Memcached::OPT_BINARY_PROTOCOL, true);
    $m->setOption(Memcached::OPT_CONNECT_TIMEOUT, 2000);
    $m->setOption(Memcached::OPT_RECV_TIMEOUT, 2000000);
    $m->setOption(Memcached::OPT_SEND_TIMEOUT, 2000000);
    $m->addServer($host, $port);
    if ($user !== null) $m->setSaslAuthData($user, $password);
    return $m;
}

function show($v) { return var_export($v, true); }

function expect($op, $got, $want) {
    if ($got !== $want) throw new Mismatch("$op: got " . show($got) . ", want " . show($want));
}

// expect_code checks the result code libmemcached derived from the reply's status.
function expect_code($op, $m, $want) {
    $code = $m->getResultCode();
    if ($code !== $want) throw new Mismatch("$op: result code $code (" . $m->getResultMessage() . "), want $want");
}

function suite($m, $host, $port, $user, $password, $name) {
    expect('flush', $m->flush(), true);
    expect('get_miss', $m->get('k1'), false);
    expect_code('get_miss', $m, Memcached::RES_NOTFOUND);

    expect('set', $m->set('k1', 'v1'), true);
    expect('get', $m->get('k1'), 'v1');

    expect('add_existing', $m->add('k1', 'x'), false);
    expect_code('add_existing', $m, Memcached::RES_DATA_EXISTS);
    expect('add_new', $m->add('k2', 'v2'), true);
    expect('get_added', $m->get('k2'), 'v2');

    expect('replace_missing', $m->replace('k3', 'x'), false);
    expect_code('replace_missing', $m, Memcached::RES_NOTFOUND);
    expect('replace_existing', $m->replace('k1', 'v1b'), true);
    expect('get_replaced', $m->get('k1'), 'v1b');

    $ext = $m->get('k1', null, Memcached::GET_EXTENDED);
    if (!is_array($ext) || $ext['value'] !== 'v1b' || !$ext['cas']) throw new Mismatch('get_extended: ' . show($ext));
    expect('cas_current', $m->cas($ext['cas'], 'k1', 'v1c'), true);
    expect('cas_stale', $m->cas($ext['cas'], 'k1', 'v1d'), false);
    expect_code('cas_stale', $m, Memcached::RES_DATA_EXISTS);
    expect('get_after_cas', $m->get('k1'), 'v1c');
    expect('cas_missing', $m->cas($ext['cas'], 'nokey', 'x'), false);
    expect_code('cas_missing', $m, Memcached::RES_NOTFOUND);

    expect('set_counter', $m->set('n', '10'), true);
    expect('increment', $m->increment('n', 5), 15);
    expect('decrement_below_zero', $m->decrement('n', 20), 0);
    // memcached rewrites a counter in place, padding with spaces.
    expect('get_counter_padded', $m->get('n'), '0 ');
    expect('increment_missing', $m->increment('nokey', 1), false);
    expect_code('increment_missing', $m, Memcached::RES_NOTFOUND);
    // With an initial value php-memcached sends the binary protocol's
    // increment-with-initial; memcached stores it as given.
    expect('increment_initial', $m->increment('c', 1, 100), 100);
    expect('decrement_initial', $m->decrement('d', 1, 7), 7);
    expect('increment_after_initial', $m->increment('c', 1, 100), 101);
    $m->set('text', 'abc');
    expect('increment_non_numeric', $m->increment('text', 1), false);
    // libmemcached 1.1 has no code for memcached's status 6 (non-numeric)
    expect_code('increment_non_numeric', $m, Memcached::RES_UNKNOWN_READ_FAILURE);

    $m->setOption(Memcached::OPT_COMPRESSION, false); // append and prepend need it off
    expect('append', $m->append('k2', '-end'), true);
    expect('prepend', $m->prepend('k2', 'start-'), true);
    expect('get_appended', $m->get('k2'), 'start-v2-end');
    expect('append_missing', $m->append('nokey', 'x'), false);
    expect_code('append_missing', $m, Memcached::RES_NOTSTORED);
    $m->setOption(Memcached::OPT_COMPRESSION, true);

    expect('touch', $m->touch('k1', 300), true);
    expect('touch_missing', $m->touch('nokey', 300), false);
    expect_code('touch_missing', $m, Memcached::RES_NOTFOUND);

    // Over 30 days an exptime is a Unix time: this one is long past, so
    // the item is stored expired (no sleeping needed).
    expect('set_expired', $m->set('exp', 'v', PAST), true);
    expect('get_expired', $m->get('exp'), false);
    expect('set_for_touch', $m->set('exp', 'v', 300), true);
    expect('touch_to_past', $m->touch('exp', PAST), true);
    expect('get_touched_to_past', $m->get('exp'), false);

    // php-memcached keeps the PHP type (and compression) in the item's flags.
    expect('set_int', $m->set('int', 42), true);
    expect('get_int', $m->get('int'), 42);
    expect('set_array', $m->set('arr', ['a' => [1, 2]]), true);
    expect('get_array', $m->get('arr'), ['a' => [1, 2]]);
    $blob = str_repeat(implode('', array_map('chr', range(0, 255))), 1024);
    expect('set_large', $m->set('large', $blob), true);
    expect('get_large', $m->get('large'), $blob);
    expect('set_compressed', $m->set('zip', str_repeat('z', 200000)), true);
    expect('get_compressed', $m->get('zip'), str_repeat('z', 200000));

    expect('set_multi', $m->setMulti(['m1' => 'a', 'm2' => 'b', 'm3' => 'c']), true);
    $got = $m->getMulti(['k1', 'k2', 'm1', 'm2', 'm3', 'nokey']);
    expect('get_multi', $got, ['k1' => 'v1c', 'k2' => 'start-v2-end', 'm1' => 'a', 'm2' => 'b', 'm3' => 'c']);
    expect('delete_multi', $m->deleteMulti(['m1', 'm2', 'nokey']), ['m1' => true, 'm2' => true, 'nokey' => Memcached::RES_NOTFOUND]);
    expect('get_multi_after_delete', $m->getMulti(['m1', 'm2', 'm3']), ['m3' => 'c']);

    expect('delete', $m->delete('k1'), true);
    expect('delete_missing', $m->delete('k1'), false);
    expect_code('delete_missing', $m, Memcached::RES_NOTFOUND);
    expect('get_deleted', $m->get('k1'), false);

    $stats = $m->getStats();
    $one = is_array($stats) ? array_values($stats) : [];
    if (count($one) !== 1 || !isset($one[0]['pid']) || !isset($one[0]['version'])) throw new Mismatch('getStats: ' . show($stats));
    $versions = $m->getVersion();
    if (!is_array($versions) || count($versions) !== 1 || !preg_match('/^\d+\.\d+/', array_values($versions)[0])) throw new Mismatch('getVersion: ' . show($versions));

    session_suite($m, $host, $port, $user, $password, $name);

    expect('flush', $m->flush(), true);
    expect('get_after_flush', $m->getMulti(['k2', 'n', 'm3']), []);
}

// session_suite writes a session through the memcached session handler,
// reads it back, and checks the item it stored.
function session_suite($m, $host, $port, $user, $password, $name) {
    ini_set('session.save_handler', 'memcached');
    ini_set('session.save_path', "$host:$port");
    ini_set('session.use_cookies', '0');
    ini_set('session.cache_limiter', '');
    ini_set('memcached.sess_binary_protocol', '1');
    ini_set('memcached.sess_sasl_username', $user ?? '');
    ini_set('memcached.sess_sasl_password', $password ?? '');
    $id = 'binclient' . preg_replace('/[^a-zA-Z0-9]/', '', $name);
    for ($round = 1; $round <= 2; $round++) {
        session_id($id);
        if (!session_start()) throw new Mismatch("session_start round $round failed");
        // The handler holds a lock item (added with add) while the session is open.
        expect("session_lock round $round", $m->get('memc.sess.key.lock.' . $id), '1');
        $count = $_SESSION['count'] ?? 0;
        expect("session_read round $round", $count, $round - 1);
        $_SESSION['count'] = $round;
        if (!session_write_close()) throw new Mismatch("session_write_close round $round failed");
    }
    // The handler stores the serialized session under its prefix and
    // deletes its lock when it closes.
    expect('session_item', $m->get('memc.sess.key.' . $id), 'count|i:2;');
    expect('session_lock_released', $m->get('memc.sess.key.lock.' . $id), false);
    session_id($id);
    if (!session_start()) throw new Mismatch('session_start for destroy failed');
    if (!session_destroy()) throw new Mismatch('session_destroy failed');
    expect('session_destroyed', $m->get('memc.sess.key.' . $id), false);
}

// The server must refuse with status 0x20, which libmemcached reports as
// an authentication failure (a timeout is not a refusal).
function refused($m) {
    $got = $m->set('k', 'v');
    if ($got !== false) throw new Mismatch('set without a valid login: returned ' . show($got) . ', want false');
    expect_code('set without a valid login', $m, Memcached::RES_AUTH_FAILURE);
}

if ($argc < 2) {
    fwrite(STDERR, "usage: php phpmemcached_client.php NAME=[!][USER:PASS@]HOST:PORT...\n");
    exit(2);
}
$failed = false;
foreach (array_slice($argv, 1) as $spec) {
    [$name, $host, $port, $user, $password, $mustRefuse] = parse_target($spec);
    try {
        $m = connect($host, $port, $user, $password);
        if ($mustRefuse) refused($m); else suite($m, $host, $port, $user, $password, $name);
        $m->quit();
        out("ok $name");
    } catch (Mismatch $e) {
        $failed = true;
        out("FAIL $name " . $e->getMessage());
    }
}
exit($failed ? 1 : 0);
