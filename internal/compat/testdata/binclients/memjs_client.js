// memjs (Node; binary protocol only) against one or more servers.
//
// Usage: NODE_PATH=DIR/node_modules node memjs_client.js TARGET...
// A TARGET is NAME=[!][USER:PASS@]HOST:PORT; USER:PASS logs in with SASL
// PLAIN, and a leading "!" means the server must refuse this client (no
// credentials, or wrong ones). For each target the script prints "ok NAME"
// or "FAIL NAME OP: DETAIL" and stops that target at its first failure; it
// exits 1 if any target failed. Run by clients_binary_test.go.
//
// memjs 1.3 has no CAS and no multi-get: the script's "multi" is several
// gets in flight at once on memjs's one connection, matched by opaque.
'use strict';

const assert = require('assert');
const memjs = require('memjs');

class Mismatch extends Error {}

// An exptime memcached reads as a Unix time (over 30 days) that has
// passed: 1970-01-31.
const PAST = 30 * 24 * 3600 + 1;

function parseTarget(spec) {
  const eq = spec.indexOf('=');
  const name = spec.slice(0, eq);
  let rest = spec.slice(eq + 1);
  const refused = rest.startsWith('!');
  if (refused) rest = rest.slice(1);
  let user, password;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const creds = rest.slice(0, at);
    const colon = creds.indexOf(':');
    user = creds.slice(0, colon);
    password = creds.slice(colon + 1);
    rest = rest.slice(at + 1);
  }
  return { name, addr: rest, user, password, refused };
}

// A serializer in memjs's own extension point: JSON values are stored
// with flags 2, so the flags' round trip is checked too.
const JSON_FLAGS = 2;
const serializer = {
  serialize(opcode, value, extras) {
    if (Buffer.isBuffer(value) || typeof value === 'string') return { value, extras };
    const flagged = Buffer.from(extras);
    flagged.writeUInt32BE(JSON_FLAGS, 0);
    return { value: JSON.stringify(value), extras: flagged };
  },
  deserialize(opcode, value, extras) {
    if (extras && extras.length >= 4 && extras.readUInt32BE(0) === JSON_FLAGS) {
      return { value: JSON.parse(value.toString()), extras };
    }
    return { value, extras };
  },
};

const quietLogger = { log: (...args) => process.stderr.write(args.join(' ') + '\n') };

function connect(t) {
  return memjs.Client.create(t.addr, {
    username: t.user,
    password: t.password,
    retries: 1, // one attempt: a retry would hide a bad reply
    timeout: 2,
    logger: quietLogger,
    serializer,
  });
}

function expect(op, got, want) {
  try {
    assert.deepStrictEqual(got, want);
  } catch (e) {
    throw new Mismatch(`${op}: got ${show(got)}, want ${show(want)}`);
  }
}

function show(v) {
  if (Buffer.isBuffer(v)) return v.length > 40 ? `Buffer(${v.length})` : `Buffer(${JSON.stringify(v.toString('latin1'))})`;
  return JSON.stringify(v);
}

async function raises(op, f) {
  let got;
  try {
    got = await f();
  } catch (e) {
    return e.message;
  }
  throw new Mismatch(`${op}: returned ${show(got)}, want an error`);
}

const value = async (p) => (await p).value;
const str = async (p) => {
  const v = await value(p);
  return v === null ? null : v.toString('latin1');
};

async function suite(mc) {
  let op = 'flush';
  try {
    const flushed = await mc.flush();
    expect('flush', Object.values(flushed), [true]);
    op = 'get_miss';
    expect('get_miss', await mc.get('k1'), { value: null, flags: null });

    op = 'set_get';
    expect('set', await mc.set('k1', 'v1'), true);
    expect('get', await str(mc.get('k1')), 'v1');
    const got = await mc.get('k1');
    expect('get_flags', got.flags, Buffer.alloc(4));

    op = 'add';
    expect('add_existing', await mc.add('k1', 'x'), false);
    expect('add_new', await mc.add('k2', 'v2'), true);
    expect('get_added', await str(mc.get('k2')), 'v2');

    op = 'replace';
    expect('replace_missing', await mc.replace('k3', 'x'), false);
    expect('replace_existing', await mc.replace('k1', 'v1b'), true);
    expect('get_replaced', await str(mc.get('k1')), 'v1b');

    op = 'incr_decr';
    expect('set_counter', await mc.set('n', '10'), true);
    expect('increment', await mc.increment('n', 5, {}), { success: true, value: 15 });
    expect('decrement_below_zero', await mc.decrement('n', 20, {}), { success: true, value: 0 });
    // memcached rewrites a counter in place, padding with spaces.
    expect('get_counter_padded', await str(mc.get('n')), '0 ');
    // memjs always sends an initial value (0 unless given): a missing
    // counter is created with it, and the reply is the initial value.
    expect('increment_missing', await mc.increment('c0', 1, {}), { success: true, value: 0 });
    expect('increment_initial', await mc.increment('c', 1, { initial: 100 }), { success: true, value: 100 });
    expect('decrement_initial', await mc.decrement('d', 1, { initial: 7 }), { success: true, value: 7 });
    expect('increment_after_initial', await mc.increment('c', 1, { initial: 100 }), { success: true, value: 101 });
    await mc.set('text', 'abc');
    const nonNumeric = await raises('increment_non_numeric', () => mc.increment('text', 1, {}));
    if (!/Incr\/Decr on non-numeric value/.test(nonNumeric)) {
      throw new Mismatch(`increment_non_numeric: error ${JSON.stringify(nonNumeric)}, want status 6's message`);
    }

    op = 'append_prepend';
    expect('append', await mc.append('k2', '-end'), true);
    expect('prepend', await mc.prepend('k2', 'start-'), true);
    // memjs 1.3.2's prepend sends the Append opcode (0x0e).
    expect('get_appended', await str(mc.get('k2')), 'v2-endstart-');
    const appendMissing = await raises('append_missing', () => mc.append('nokey', 'x'));
    if (!/Item not stored/.test(appendMissing)) {
      throw new Mismatch(`append_missing: error ${JSON.stringify(appendMissing)}, want status 5's message`);
    }

    op = 'touch';
    expect('touch', await mc.touch('k1', 300), true);
    expect('touch_missing', await mc.touch('nokey', 300), false);

    op = 'expiry';
    // Over 30 days an exptime is a Unix time: this one is long past, so
    // the item is stored expired (no sleeping needed).
    expect('set_expired', await mc.set('exp', 'v', { expires: PAST }), true);
    expect('get_expired', await str(mc.get('exp')), null);
    expect('set_for_touch', await mc.set('exp', 'v', { expires: 300 }), true);
    expect('touch_to_past', await mc.touch('exp', PAST), true);
    expect('get_touched_to_past', await str(mc.get('exp')), null);

    op = 'typed_values';
    expect('set_json', await mc.set('obj', { a: [1, 2] }), true);
    const obj = await mc.get('obj');
    expect('get_json', obj.value, { a: [1, 2] });
    expect('get_json_flags', obj.flags.readUInt32BE(0), JSON_FLAGS);
    const blob = Buffer.alloc(256 * 1024);
    for (let i = 0; i < blob.length; i++) blob[i] = i & 0xff;
    expect('set_large', await mc.set('large', blob), true);
    expect('get_large', (await value(mc.get('large'))).equals(blob), true);

    op = 'multi';
    // Everything in flight at once on one connection.
    expect('pipelined_sets', await Promise.all([mc.set('m1', 'a'), mc.set('m2', 'b'), mc.set('m3', 'c')]), [true, true, true]);
    const keys = ['k1', 'k2', 'm1', 'm2', 'm3', 'nokey'];
    expect('pipelined_gets', await Promise.all(keys.map((k) => str(mc.get(k)))), ['v1b', 'v2-endstart-', 'a', 'b', 'c', null]);

    op = 'delete';
    expect('delete', await mc.delete('k1'), true);
    expect('delete_missing', await mc.delete('k1'), false);
    expect('get_deleted', await str(mc.get('k1')), null);

    op = 'stats';
    const stats = await new Promise((resolve, reject) => mc.stats((err, server, s) => (err ? reject(err) : resolve(s))));
    if (!stats || !('pid' in stats) || !('version' in stats)) throw new Mismatch(`stats: ${show(stats)}, want pid and version`);

    op = 'flush';
    expect('flush', Object.values(await mc.flush()), [true]);
    expect('get_after_flush', await Promise.all(['k2', 'n', 'm3'].map((k) => str(mc.get(k)))), [null, null, null]);
  } catch (e) {
    if (e instanceof Mismatch) throw e;
    throw new Mismatch(`${op}: raised ${e && e.message ? e.message : e}`);
  }
}

// The server must refuse with status 0x20, which memjs turns into this
// error on the login or the request (a timeout is not a refusal).
async function refused(mc) {
  let got;
  try {
    got = await mc.set('k', 'v');
  } catch (e) {
    if (e === 'Memcached server authentication failed!') return;
    throw new Mismatch(`set without a valid login: raised ${e && e.message ? e.message : e}, want the authentication failure`);
  }
  throw new Mismatch(`set without a valid login: returned ${show(got)}, want an error`);
}

async function main(argv) {
  if (argv.length === 0) {
    process.stderr.write('usage: node memjs_client.js NAME=[!][USER:PASS@]HOST:PORT...\n');
    return 2;
  }
  let failed = false;
  for (const spec of argv) {
    const t = parseTarget(spec);
    const mc = connect(t);
    try {
      await (t.refused ? refused(mc) : suite(mc));
      process.stdout.write(`ok ${t.name}\n`);
    } catch (e) {
      failed = true;
      process.stdout.write(`FAIL ${t.name} ${e instanceof Mismatch ? e.message : 'raised ' + e}\n`);
    } finally {
      mc.close();
    }
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then((code) => process.exit(code));
