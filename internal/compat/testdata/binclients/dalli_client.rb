# Dalli 3.0 (binary protocol only) against one or more servers.
#
# Usage: ruby dalli_client.rb TARGET...
# A TARGET is NAME=[!][USER:PASS@]HOST:PORT; USER:PASS logs in with SASL
# PLAIN, and a leading "!" means the server must refuse this client (no
# credentials, or wrong ones). For each target the script prints "ok NAME"
# or "FAIL NAME OP: DETAIL" and stops that target at its first failure; it
# exits 1 if any target failed. Run by clients_binary_test.go.

require 'logger'
require 'dalli'

class Mismatch < StandardError; end

Dalli.logger = Logger.new($stderr)
Dalli.logger.level = Logger::WARN

def parse_target(spec)
  name, rest = spec.split('=', 2)
  refused = rest.start_with?('!')
  rest = rest[1..] if refused
  user = password = nil
  if rest.include?('@')
    creds, _, rest = rest.rpartition('@')
    user, password = creds.split(':', 2)
  end
  [name, rest, user, password, refused]
end

def connect(addr, user, password)
  opts = { socket_timeout: 2, socket_max_failures: 1, down_retry_delay: 0, compress: true }
  opts.merge!(username: user, password: password) if user
  Dalli::Client.new([addr], opts)
end

def expect(op, got, want)
  raise Mismatch, "#{op}: got #{got.inspect}, want #{want.inspect}" unless got == want
end

def truthy(op, got)
  raise Mismatch, "#{op}: got #{got.inspect}, want a truthy result" unless got
end

def falsy(op, got)
  raise Mismatch, "#{op}: got #{got.inspect}, want nil or false" if got
end

def suite(dc)
  $op = 'flush'
  at = ->(op) { $op = op }

  truthy('flush', dc.flush.all?)
  at.call('get_miss')
  expect('get_miss', dc.get('k1'), nil)

  at.call('set_get')
  truthy('set', dc.set('k1', 'v1', nil, raw: true))
  expect('get', dc.get('k1'), 'v1')

  at.call('add')
  falsy('add_existing', dc.add('k1', 'x', nil, raw: true))
  truthy('add_new', dc.add('k2', 'v2', nil, raw: true))
  expect('get_added', dc.get('k2'), 'v2')

  at.call('replace')
  # Dalli returns the reply's CAS field for a miss: memcached sends 0.
  expect('replace_missing', dc.replace('k3', 'x', nil, raw: true), 0)
  truthy('replace_existing', dc.replace('k1', 'v1b', nil, raw: true))
  expect('get_replaced', dc.get('k1'), 'v1b')

  at.call('cas')
  value, cas = dc.get_cas('k1')
  expect('get_cas_value', value, 'v1b')
  raise Mismatch, "get_cas: CAS #{cas.inspect}, want a non-zero CAS" unless cas.is_a?(Integer) && cas.positive?
  new_cas = dc.set_cas('k1', 'v1c', cas, nil, raw: true)
  raise Mismatch, "set_cas_current: got #{new_cas.inspect}, want the new CAS" unless new_cas.is_a?(Integer) && new_cas != cas
  falsy('set_cas_stale', dc.set_cas('k1', 'v1d', cas, nil, raw: true))
  expect('get_after_cas', dc.get('k1'), 'v1c')
  # The block form returns set's result, the new CAS (which Dalli 3.0.6
  # reads byte-swapped: it only ever hands it back to the server).
  truthy('cas_block', dc.cas('k1', nil, raw: true) { |v| "#{v}!" })
  expect('get_after_cas_block', dc.get('k1'), 'v1c!')
  expect('cas_block_missing', dc.cas('nokey') { |v| v }, nil)
  expect('get_cas_missing', dc.get_cas('nokey'), [nil, 0])
  falsy('delete_cas_stale', dc.delete_cas('k1', cas))

  at.call('incr_decr')
  truthy('set_counter', dc.set('n', '10', nil, raw: true))
  expect('incr', dc.incr('n', 5), 15)
  expect('decr_below_zero', dc.decr('n', 20), 0)
  # memcached rewrites a counter in place, padding with spaces.
  expect('get_counter_padded', dc.get('n'), '0 ')
  expect('incr_missing', dc.incr('nokey', 1), nil)
  expect('incr_missing_default', dc.incr('c', 1, nil, 100), 100)
  expect('decr_missing_default', dc.decr('d', 1, nil, 7), 7)
  expect('incr_after_default', dc.incr('c', 1), 101)
  dc.set('text', 'abc', nil, raw: true)
  begin
    got = dc.incr('text', 1)
    raise Mismatch, "incr_non_numeric: got #{got.inspect}, want Dalli::DalliError"
  rescue Dalli::DalliError => e
    raise Mismatch, "incr_non_numeric: #{e.message}, want status 6" unless e.message.include?('Response error 6')
  end

  at.call('append_prepend')
  truthy('append', dc.append('k2', '-end'))
  truthy('prepend', dc.prepend('k2', 'start-'))
  expect('get_appended', dc.get('k2'), 'start-v2-end')
  falsy('append_missing', dc.append('nokey', 'x'))

  at.call('touch_gat')
  expect('touch', dc.touch('k1', 300), true)
  expect('touch_missing', dc.touch('nokey', 300), nil)
  expect('gat', dc.gat('k1', 300), 'v1c!')
  expect('gat_missing', dc.gat('nokey', 300), nil)

  at.call('typed_values')
  # Dalli marks marshalled and compressed values in the item's flags.
  truthy('set_hash', dc.set('obj', { 'a' => [1, 2] }))
  expect('get_hash', dc.get('obj'), { 'a' => [1, 2] })
  truthy('set_int', dc.set('int', 42))
  expect('get_int', dc.get('int'), 42)
  blob = (0..255).map(&:chr).join.b * 1024
  truthy('set_large', dc.set('large', blob, nil, raw: true))
  expect('get_large', dc.get('large'), blob)
  truthy('set_compressed', dc.set('zip', 'z' * 200_000, nil, raw: true))
  expect('get_compressed', dc.get('zip'), 'z' * 200_000)

  at.call('multi')
  # multi: quiet sets (SetQ), flushed by a Noop.
  dc.multi do
    dc.set('m1', 'a', nil, raw: true)
    dc.set('m2', 'b', nil, raw: true)
    dc.set('m3', 'c', nil, raw: true)
    dc.delete('m2')
  end
  expect('get_multi', dc.get_multi('k1', 'k2', 'm1', 'm2', 'm3', 'nokey'),
         { 'k1' => 'v1c!', 'k2' => 'start-v2-end', 'm1' => 'a', 'm3' => 'c' })
  cas_multi = dc.get_multi_cas('m1', 'm3', 'nokey')
  expect('get_multi_cas_keys', cas_multi.keys.sort, %w[m1 m3])
  expect('get_multi_cas_values', cas_multi.values.map(&:first), %w[a c])
  truthy('get_multi_cas_cas', cas_multi.values.all? { |_, c| c.is_a?(Integer) && c.positive? })

  at.call('delete')
  truthy('delete', dc.delete('k1'))
  falsy('delete_missing', dc.delete('k1'))
  expect('get_deleted', dc.get('k1'), nil)

  at.call('stats_version')
  stats = dc.stats.values
  raise Mismatch, "stats: #{stats.inspect}, want one server with pid and version" unless stats.size == 1 && stats[0]&.key?('pid') && stats[0]&.key?('version')
  versions = dc.version.values
  raise Mismatch, "version: #{versions.inspect}, want one version" unless versions.size == 1 && versions[0] =~ /\A\d+\.\d+/

  at.call('flush')
  truthy('flush', dc.flush.all?)
  expect('get_after_flush', dc.get_multi('k2', 'n', 'm3'), {})
rescue Mismatch
  raise
rescue StandardError => e
  raise Mismatch, "#{$op}: raised #{e.class}: #{e.message}"
end

# The server must refuse with status 0x20: on the login itself ("Error
# authenticating") or, without one, on the request (a timeout is not a
# refusal).
def refused(dc)
  got = dc.set('k', 'v')
  raise Mismatch, "set without a valid login: returned #{got.inspect}, want an error"
rescue Dalli::DalliError => e
  return if e.message.start_with?('Response error 32:', 'Error authenticating: 0x20')

  raise Mismatch, "set without a valid login: raised #{e.class}: #{e.message}, want status 0x20"
end

if ARGV.empty?
  warn 'usage: ruby dalli_client.rb NAME=[!][USER:PASS@]HOST:PORT...'
  exit 2
end
failed = false
ARGV.each do |spec|
  name, addr, user, password, must_refuse = parse_target(spec)
  begin
    dc = connect(addr, user, password)
    must_refuse ? refused(dc) : suite(dc)
    dc.close
    puts "ok #{name}"
  rescue Mismatch => e
    failed = true
    puts "FAIL #{name} #{e.message}"
  end
  $stdout.flush
end
exit(failed ? 1 : 0)
