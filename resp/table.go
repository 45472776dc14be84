package resp

// commandFamilies lists every command family; each cmd_*.go file declares
// its family in one function. To find a command's implementation, open the
// file of its Redis group (cmd_string.go for GET, cmd_keys.go for DEL…).
func commandFamilies() [][]*Command {
	return [][]*Command{
		connectionCommands(),
		serverCommands(), memoryCommands(),
		stringCommands(),
		keyCommands(), objectCommands(), dumpCommands(),
		listCommands(),
		zsetCommands(),
		streamCommands(),
		geoCommands(),
		hashCommands(),
		setCommands(),
		bitmapCommands(), hllCommands(),
		sortCommands(),
		transactionCommands(),
		persistenceCommands(), debugCommands(), lolwutCommands(),
		pubsubCommands(),
		scriptingCommands(),
		aclCommands(),
		{monitorCommand()},
		slowlogCommands(), latencyCommands(),
		replicationCommands(),
	}
}
