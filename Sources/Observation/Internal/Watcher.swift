/// One watch of an atom: its handler, and the flag its token raises to stop it.
final class Watcher<Value: Sendable>: Sendable {
  /// Where the changes go.
  private enum Route: Sendable {
    case direct(@Sendable (AtomChange<Value>) -> Void)
    case main(MainRelay<AtomChange<Value>>)
  }

  /// Raised by the watch's token; no delivery starts once it is up.
  let stopped = Flag()
  private let route: Route

  /// A watcher that calls `handler` on the delivering thread.
  init(_ handler: @escaping @Sendable (AtomChange<Value>) -> Void) {
    route = .direct(handler)
  }

  /// A watcher that calls `handler` on the main queue, in delivery order.
  init(onMain handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void) {
    route = .main(MainRelay(stopped: stopped, handler: handler))
  }

  /// Hands a change to the handler, unless the watch was stopped.
  func deliver(_ change: AtomChange<Value>) {
    guard !stopped.isRaised else { return }
    switch route {
    case .direct(let handler):
      handler(change)
    case .main(let relay):
      relay.send(change)
    }
  }

  /// Queues the initial change of a main-queue watcher in its relay, which is safe under the
  /// atom's lock: changes delivered after this reach the relay behind it. Returns `nil` for a
  /// direct watcher, whose initial change goes through the atom's delivery queue instead.
  func enqueueInitialOnMain(
    _ change: AtomChange<Value>, onMainQueue: Bool
  ) -> RelayState<AtomChange<Value>>.Action? {
    guard case .main(let relay) = route else { return nil }
    return relay.enqueue(change, onMainQueue: onMainQueue)
  }

  /// Performs the action ``enqueueInitialOnMain(_:onMainQueue:)`` returned, outside any lock.
  func perform(_ action: RelayState<AtomChange<Value>>.Action) {
    if case .main(let relay) = route {
      relay.perform(action)
    }
  }

  /// Drops changes still waiting for the main queue (call after raising ``stopped``).
  func dropWaiting() {
    if case .main(let relay) = route {
      relay.stop()
    }
  }
}

/// A change and the watchers it goes to: those registered when it took effect.
struct Delivery<Value: Sendable>: Sendable {
  let change: AtomChange<Value>
  let recipients: [Watcher<Value>]
}
