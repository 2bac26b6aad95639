import NavReplayCommands

SignalHandlers.install()
NavReplayCommand.mainWithContractExitCodes()
