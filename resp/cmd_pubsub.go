package resp

import (
	"fmt"
	"strings"

	"github.com/tandemkv/tandem/pubsub"
)

// pubsubCommands is the pub/sub family (Redis group "pubsub"). Arity,
// flags, key specs, since and summary are redis 7.0.15's. The registry is
// the front-end's pubsub.Hub; pubsub_client.go holds the client side (the
// outbox messages from other loops land in, subscribe mode, limits).
func pubsubCommands() []*Command {
	const (
		sub  = FlagPubSub | FlagNoScript | FlagLoading | FlagStale
		pub  = FlagPubSub | FlagLoading | FlagStale | FlagFast
		intr = FlagPubSub | FlagLoading | FlagStale
	)
	return []*Command{
		{Name: "subscribe", Arity: -2, Flags: sub, Internal: AllowedSubscribed, Group: "pubsub", Since: "2.0.0", Summary: "Listen for messages published to the given channels", Run: cmdSubscribe},
		{Name: "unsubscribe", Arity: -1, Flags: sub, Internal: AllowedSubscribed, Group: "pubsub", Since: "2.0.0", Summary: "Stop listening for messages posted to the given channels", Run: cmdUnsubscribe},
		{Name: "psubscribe", Arity: -2, Flags: sub, Internal: AllowedSubscribed, Group: "pubsub", Since: "2.0.0", Summary: "Listen for messages published to channels matching the given patterns", Run: cmdPSubscribe},
		{Name: "punsubscribe", Arity: -1, Flags: sub, Internal: AllowedSubscribed, Group: "pubsub", Since: "2.0.0", Summary: "Stop listening for messages posted to channels matching the given patterns", Run: cmdPUnsubscribe},
		{Name: "ssubscribe", Arity: -2, Flags: sub, Internal: AllowedSubscribed, FirstKey: 1, LastKey: -1, KeyStep: 1, Group: "pubsub", Since: "7.0.0", Summary: "Listen for messages published to the given shard channels", Run: cmdSSubscribe},
		{Name: "sunsubscribe", Arity: -1, Flags: sub, Internal: AllowedSubscribed, FirstKey: 1, LastKey: -1, KeyStep: 1, Group: "pubsub", Since: "7.0.0", Summary: "Stop listening for messages posted to the given shard channels", Run: cmdSUnsubscribe},
		{Name: "publish", Arity: 3, Flags: pub | FlagMayReplicate, Group: "pubsub", Since: "2.0.0", Summary: "Post a message to a channel", Run: cmdPublish},
		{Name: "spublish", Arity: 3, Flags: pub | FlagMayReplicate, FirstKey: 1, LastKey: 1, KeyStep: 1, Group: "pubsub", Since: "7.0.0", Summary: "Post a message to a shard channel", Run: cmdSPublish},
		{Name: "pubsub", Arity: -2, Group: "pubsub", Since: "2.8.0", Summary: "A container for Pub/Sub commands", Subcommands: []*Command{
			{Name: "pubsub|numsub", Arity: -2, Flags: intr, Group: "pubsub", Since: "2.8.0", Summary: "Get the count of subscribers for channels", Run: cmdPubSubNumSub},
			{Name: "pubsub|numpat", Arity: 2, Flags: intr, Group: "pubsub", Since: "2.8.0", Summary: "Get the count of unique patterns pattern subscriptions", Run: cmdPubSubNumPat},
			{Name: "pubsub|channels", Arity: -2, Flags: intr, Group: "pubsub", Since: "2.8.0", Summary: "List active channels", Run: cmdPubSubChannels},
			{Name: "pubsub|shardchannels", Arity: -2, Flags: intr, Group: "pubsub", Since: "7.0.0", Summary: "List active shard channels", Run: cmdPubSubShardChannels},
			{Name: "pubsub|shardnumsub", Arity: -2, Flags: intr, Group: "pubsub", Since: "7.0.0", Summary: "Get the count of subscribers for shard channels", Run: cmdPubSubShardNumSub},
			{Name: "pubsub|help", Arity: 2, Flags: FlagLoading | FlagStale, Group: "pubsub", Since: "6.2.0", Summary: "Show helpful text about the different subcommands", Run: cmdPubSubHelp},
		}},
	}
}

// pushName is the first element of a subscription push, by kind.
var (
	subscribedName   = [...]string{pubsub.Channel: "subscribe", pubsub.Pattern: "psubscribe", pubsub.Shard: "ssubscribe"}
	unsubscribedName = [...]string{pubsub.Channel: "unsubscribe", pubsub.Pattern: "punsubscribe", pubsub.Shard: "sunsubscribe"}
)

// subscriptionCount is the count a (un)subscribe push carries: channels
// and patterns together for SUBSCRIBE and PSUBSCRIBE, shard channels alone
// for SSUBSCRIBE (Redis's clientSubscriptionsCount and
// clientShardSubscriptionsCount).
func subscriptionCount(k pubsub.Kind, n pubsub.Counts) int64 {
	if k == pubsub.Shard {
		return int64(n.Shard)
	}
	return int64(n.Channels + n.Patterns)
}

func cmdSubscribe(c *Client, args [][]byte)  { c.subscribe(pubsub.Channel, args[1:]) }
func cmdPSubscribe(c *Client, args [][]byte) { c.subscribe(pubsub.Pattern, args[1:]) }

// cmdSSubscribe is SSUBSCRIBE: refused inside EXEC, where Redis's client
// may not block (SUBSCRIBE and PSUBSCRIBE are let through there, Redis's
// exception for MULTI).
func cmdSSubscribe(c *Client, args [][]byte) {
	if c.inExclusive {
		c.w.Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	c.subscribe(pubsub.Shard, args[1:])
}

func cmdUnsubscribe(c *Client, args [][]byte)  { c.unsubscribe(pubsub.Channel, args[1:]) }
func cmdPUnsubscribe(c *Client, args [][]byte) { c.unsubscribe(pubsub.Pattern, args[1:]) }
func cmdSUnsubscribe(c *Client, args [][]byte) { c.unsubscribe(pubsub.Shard, args[1:]) }

// subscribe adds each name and pushes a confirmation per name, repeats
// included, with the count after it.
func (c *Client) subscribe(k pubsub.Kind, names [][]byte) {
	s := c.subscriber()
	w := c.pushWriter()
	for _, name := range names {
		_, n := c.fe.hub.Subscribe(s, k, name)
		s.setCounts(n)
		w.Push(3)
		w.BulkString(subscribedName[k])
		w.Bulk(name)
		w.Int(subscriptionCount(k, n))
	}
	c.pushDone(w)
}

// unsubscribe removes each name (every subscription of the kind when none
// is given) and pushes a confirmation per name; with nothing to remove it
// pushes one with a null name, as Redis.
func (c *Client) unsubscribe(k pubsub.Kind, names [][]byte) {
	s := c.subscriber()
	w := c.pushWriter()
	if len(names) == 0 {
		all, after := c.fe.hub.UnsubscribeAll(s, k)
		for i, name := range all {
			s.setCounts(after[i])
			w.Push(3)
			w.BulkString(unsubscribedName[k])
			w.BulkString(name)
			w.Int(subscriptionCount(k, after[i]))
		}
		if len(all) == 0 {
			w.Push(3)
			w.BulkString(unsubscribedName[k])
			w.Null()
			w.Int(subscriptionCount(k, s.counts))
		}
	}
	for _, name := range names {
		_, n := c.fe.hub.Unsubscribe(s, k, name)
		s.setCounts(n)
		w.Push(3)
		w.BulkString(unsubscribedName[k])
		w.Bulk(name)
		w.Int(subscriptionCount(k, n))
	}
	c.pushDone(w)
}

// cmdPublish is PUBLISH channel message: the number of receivers. A
// message to the publisher itself comes before the reply, as Redis writes
// it into the reply buffer while publishing (afterCommand puts it there).
func cmdPublish(c *Client, args [][]byte) {
	n := c.fe.hub.Publish(args[1], args[2])
	c.propagateToReplicas(args)
	c.w.Int(int64(n))
}

// cmdSPublish is SPUBLISH shardchannel message.
func cmdSPublish(c *Client, args [][]byte) {
	n := c.fe.hub.SPublish(args[1], args[2])
	c.propagateToReplicas(args)
	c.w.Int(int64(n))
}

// propagateToReplicas records a publish for the replicas alone, as Redis
// 7.0 outside cluster mode (forceCommandPropagation with PROPAGATE_REPL):
// a replica's subscribers get its master's messages, and the AOF keeps
// none. A replica applying it publishes to its own subscribers.
func (c *Client) propagateToReplicas(args [][]byte) {
	c.fx.recorded = true
	if c.propagating() {
		c.fx.ops.AddReplicasOnly(c.db.Num(), args...)
	}
}

// subcommandSyntaxError is Redis's addReplySubcommandSyntaxError.
func (c *Client) subcommandSyntaxError(args [][]byte) {
	c.w.Error(mapNewlines(fmt.Sprintf("ERR unknown subcommand or wrong number of arguments for '%s'. Try %s HELP.",
		cutC(string(args[1]), 128), strings.ToUpper(cutC(string(args[0]), len(args[0]))))))
}

// writeActive writes PUBSUB CHANNELS / SHARDCHANNELS [pattern].
func (c *Client) writeActive(k pubsub.Kind, args [][]byte) {
	if len(args) > 3 {
		c.subcommandSyntaxError(args)
		return
	}
	var pat []byte
	if len(args) == 3 {
		pat = args[2]
	}
	names := c.fe.hub.Active(k, pat)
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

func cmdPubSubChannels(c *Client, args [][]byte)      { c.writeActive(pubsub.Channel, args) }
func cmdPubSubShardChannels(c *Client, args [][]byte) { c.writeActive(pubsub.Shard, args) }

// writeNumSub writes PUBSUB NUMSUB / SHARDNUMSUB: a flat array of name,
// count pairs, in RESP3 too.
func (c *Client) writeNumSub(k pubsub.Kind, names [][]byte) {
	c.w.Array(2 * len(names))
	for _, n := range names {
		c.w.Bulk(n)
		c.w.Int(int64(c.fe.hub.NumSub(k, n)))
	}
}

func cmdPubSubNumSub(c *Client, args [][]byte)      { c.writeNumSub(pubsub.Channel, args[2:]) }
func cmdPubSubShardNumSub(c *Client, args [][]byte) { c.writeNumSub(pubsub.Shard, args[2:]) }

func cmdPubSubNumPat(c *Client, _ [][]byte) { c.w.Int(int64(c.fe.hub.NumPat())) }

// pubsubHelp is PUBSUB HELP's text, redis 7.0's.
var pubsubHelp = []string{
	"CHANNELS [<pattern>]",
	"    Return the currently active channels matching a <pattern> (default: '*').",
	"NUMPAT",
	"    Return number of subscriptions to patterns.",
	"NUMSUB [<channel> ...]",
	"    Return the number of subscribers for the specified channels, excluding",
	"    pattern subscriptions(default: no channels).",
	"SHARDCHANNELS [<pattern>]",
	"    Return the currently active shard level channels matching a <pattern> (default: '*').",
	"SHARDNUMSUB [<shardchannel> ...]",
	"    Return the number of subscribers for the specified shard level channel(s)",
}

func cmdPubSubHelp(c *Client, args [][]byte) { c.help(args[0], pubsubHelp) }
