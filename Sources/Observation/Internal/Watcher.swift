/// One watch of an atom: its handler, and the flag its token raises to stop it.
@usableFromInline final class Watcher<Value: Sendable>: Sendable {
  /// Raised by the watch's token; no delivery starts once it is up.
  @usableFromInline let stopped = AtomicOrLocked()
  /// Receives the changes: the handler itself, or a hand-over to the main-queue relay.
  @usableFromInline let receive: @Sendable (AtomChange<Value>) -> Void
  /// The relay of a main-queue watcher.
  private let relay: MainRelay<AtomChange<Value>>?

  /// A watcher that calls `handler` on the delivering thread.
  init(_ handler: @escaping @Sendable (AtomChange<Value>) -> Void) {
    receive = handler
    relay = nil
  }

  /// A watcher that calls `handler` on the main queue, in delivery order.
  init(onMain handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void) {
    let relay = MainRelay(stopped: stopped, handler: handler)
    receive = { relay.send($0) }
    self.relay = relay
  }

  /// Hands a change to the handler, unless the watch was stopped.
  @inlinable func deliver(_ change: AtomChange<Value>) {
    guard !stopped.isRaised else { return }
    receive(change)
  }

  /// Queues the initial change of a main-queue watcher in its relay, which is safe under the
  /// atom's lock: changes delivered after this reach the relay behind it. Returns `nil` for a
  /// direct watcher, whose initial change goes through the atom's delivery queue instead.
  func enqueueInitialOnMain(
    _ change: AtomChange<Value>, onMainQueue: Bool
  ) -> RelayState<AtomChange<Value>>.Action? {
    relay?.enqueue(change, onMainQueue: onMainQueue)
  }

  /// Performs the action ``enqueueInitialOnMain(_:onMainQueue:)`` returned, outside any lock.
  func perform(_ action: RelayState<AtomChange<Value>>.Action) {
    relay?.perform(action)
  }

  /// Drops changes still waiting for the main queue (call after raising ``stopped``).
  func dropWaiting() {
    relay?.stop()
  }
}

/// A change, the watchers it goes to (those registered when it took effect), and the atom's
/// Observation tracking when a tracked read or registration may be waiting for it.
@usableFromInline struct Delivery<Value: Sendable>: Sendable {
  @usableFromInline let change: AtomChange<Value>
  @usableFromInline let recipients: [Watcher<Value>]
  @usableFromInline let tracking: AtomTracking?

  @inlinable
  init(change: AtomChange<Value>, recipients: [Watcher<Value>], tracking: AtomTracking? = nil) {
    self.change = change
    self.recipients = recipients
    self.tracking = tracking
  }

  /// Hands the change to every recipient, in order, then reports it to Observation, so that an
  /// `onChange` handler that reads a derived atom sees it recomputed (a derived atom is a
  /// watcher of its sources).
  @inlinable func send() {
    // Through the buffer: a `for` loop over the array itself retains and releases it.
    recipients.withUnsafeBufferPointer { watchers in
      for index in watchers.indices { watchers[index].deliver(change) }
    }
    tracking?.notifyChange()
  }
}
