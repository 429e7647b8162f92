// UIKit controls and bar button items as signals. Linux CI typechecks this file
// against the stand-in UIKit (PlatformCheck/), whose app taps a button, moves a
// slider and taps a bar button item.
//
// The signals hang on UIKit's closure API (`UIAction`, iOS 14), not on
// target-action: a signal needs iOS 17 anyway, and an action needs no
// Objective-C target object to keep alive. What holds what: the control holds its
// actions, each action's handler holds its signal, the signal holds its observers
// weakly and nothing else; nothing holds the control. So a subscription is attach
// and forget, and a control and its observers deallocate as if it had none.
#if canImport(UIKit) && !os(watchOS)
import UIKit

/// Controls whose events are signals: every `UIControl`. A protocol only so that
/// ``signal(for:)`` can hand out the control with its own type (a `UISlider`, not a
/// `UIControl`).
@available(iOS 17, tvOS 17, visionOS 1, *)
public protocol ControlEventSignals: UIControl {}

@available(iOS 17, tvOS 17, visionOS 1, *)
extension UIControl: ControlEventSignals {}

@available(iOS 17, tvOS 17, visionOS 1, *)
extension ControlEventSignals {
    /// A signal that fires with this control each time one of `events` happens.
    ///
    /// ```swift
    /// saveButton.signal(for: .touchUpInside).subscribe(self) { controller, _ in
    ///     controller.save()
    /// }
    /// volumeSlider.signal(for: .valueChanged).subscribe(self) { controller, slider in
    ///     controller.player.volume = slider.value
    /// }
    /// ```
    ///
    /// The control keeps the signal (through a `UIAction` it was given with
    /// `addAction(_:for:)`), so nobody needs to store it, and asking again for the
    /// same events returns the same signal. Subscriptions are attach and forget: the
    /// signal holds its observers weakly, and holds neither the control nor them
    /// beyond a callback. Callbacks written in main-actor code run in place, as
    /// UIKit sends control events on the main thread; operators such as
    /// `debounce(for:)` apply per subscription. The signal keeps no last values
    /// (they would be the control, which keeps the signal), so
    /// `firePreviousData()` has nothing to replay.
    @MainActor
    public func signal(for events: UIControl.Event) -> Signal<Self> {
        let table = ControlSignalTable.of(self)
        let key = ControlSignalTable.Key(events: events.rawValue, type: ObjectIdentifier(Self.self))
        if let existing = table.signals[key] as? Signal<Self> { return existing }
        let signal = Signal<Self>()
        table.signals[key] = signal
        addAction(UIAction { action in
            // UIKit passes the control as the action's sender.
            guard let control = action.sender as? Self else { return }
            signal.fire(control)
            // The last values would be the control, which holds the signal: a cycle.
            signal.clearLastFired()
        }, for: events)
        return signal
    }
}

/// The signals of one control, by the events and the control type they were asked
/// for; the control holds it as an associated object.
@available(iOS 17, tvOS 17, visionOS 1, *)
@MainActor
private final class ControlSignalTable {
    struct Key: Hashable {
        let events: UInt
        let type: ObjectIdentifier
    }

    var signals: [Key: AnyObject] = [:]

    static func of(_ control: UIControl) -> ControlSignalTable {
        if let table = objc_getAssociatedObject(control, &controlSignalsKey) as? ControlSignalTable { return table }
        let table = ControlSignalTable()
        objc_setAssociatedObject(control, &controlSignalsKey, table, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return table
    }
}

@available(iOS 17, tvOS 17, visionOS 1, *)
extension UIBarButtonItem {
    /// A signal that fires with this item each time it is tapped.
    ///
    /// ```swift
    /// navigationItem.rightBarButtonItem?.actionSignal.subscribe(self) { controller, _ in
    ///     controller.share()
    /// }
    /// ```
    ///
    /// The first use makes the signal the item's `primaryAction` (iOS 14), copying
    /// the item's title and image into it; a primary action the item had still runs,
    /// before the signal fires. UIKit calls an item's primary action instead of its
    /// target and action, so ask for the signal of items set up in code, not of items
    /// whose taps go to a target and action. The item keeps the signal; subscriptions
    /// are attach and forget, as for ``ControlEventSignals/signal(for:)``, and it
    /// keeps no last values either.
    @MainActor
    public var actionSignal: Signal<UIBarButtonItem> {
        if let existing = objc_getAssociatedObject(self, &barButtonSignalKey) as? Signal<UIBarButtonItem> { return existing }
        let signal = Signal<UIBarButtonItem>()
        objc_setAssociatedObject(self, &barButtonSignalKey, signal, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        let previous = primaryAction
        // Weak: the item holds the action, which would otherwise hold the item.
        primaryAction = UIAction(title: previous?.title ?? title ?? "", image: previous?.image ?? image) { [weak self] action in
            previous?.performWithSender(action.sender, target: nil)
            guard let self else { return }
            signal.fire(self)
            // The last values would be the item, which holds the signal: a cycle.
            signal.clearLastFired()
        }
        return signal
    }
}

/// The associated-object keys of a control's signals and of a bar button item's;
/// only their addresses matter.
nonisolated(unsafe) private var controlSignalsKey: UInt8 = 0
nonisolated(unsafe) private var barButtonSignalKey: UInt8 = 0
#endif
