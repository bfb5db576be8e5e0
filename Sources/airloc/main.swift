import AirlocCLI

await AirlocCommandLine.main()
