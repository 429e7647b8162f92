// An API newer than visionOS 1.0, called without `if #available`: Task.immediate is
// visionOS 26 (iOS 26). Proves visionOS availability is enforced, including what the
// compiler derives from iOS availability through the SDK's version map.
// expect visionOS: 'immediate(name:priority:executorPreference:operation:)' is only available in visionOS 26.0 or newer
// expect iOS: 'immediate(name:priority:executorPreference:operation:)' is only available in iOS 26.0 or newer
func startNow() {
    Task.immediate {}
}
