// An API newer than the deployment target, called without `if #available`: the
// standard library's Duration is iOS 16, macOS 13, tvOS 16, watchOS 9.
// expect iOS: 'Duration' is only available in iOS 16.0 or newer
// expect macOS: 'Duration' is only available in macOS 13.0 or newer
// expect tvOS: 'Duration' is only available in tvOS 16.0 or newer
// expect watchOS: 'Duration' is only available in watchOS 9.0 or newer
func retryDelay() -> Duration {
    .seconds(2)
}
