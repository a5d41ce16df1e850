/// One watch of an atom: its handler, and the flag its token raises to stop it.
final class Watcher<Value: Sendable>: Sendable {
  /// Raised by the watch's token; no delivery starts once it is up.
  let stopped = Flag()
  /// Receives the changes: the handler itself, or a hand-over to the main-queue relay.
  let receive: @Sendable (AtomChange<Value>) -> Void
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
  func deliver(_ change: AtomChange<Value>) {
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
struct Delivery<Value: Sendable>: Sendable {
  let change: AtomChange<Value>
  let recipients: [Watcher<Value>]
  /// Unretained, so a change nobody tracks copies no reference more: the atom holds its
  /// tracking for as long as it lives, and a batch is sent only by its live atom (one that is
  /// deallocated releases its pending batches unsent).
  let tracking: Unmanaged<AtomTracking>?

  init(
    change: AtomChange<Value>, recipients: [Watcher<Value>],
    tracking: Unmanaged<AtomTracking>? = nil
  ) {
    self.change = change
    self.recipients = recipients
    self.tracking = tracking
  }

  /// Hands the change to every recipient, in order, then reports it to Observation.
  ///
  /// Reporting after the watchers means that an `onChange` handler that reads a derived atom
  /// sees it recomputed (its recomputation is a watcher of this atom).
  func send() {
    // `recipients` keeps every watcher alive while `self` exists (it is a `let`), so the loop
    // borrows each one instead of retaining and releasing it around its call: the retains and
    // releases of a plain `for watcher in recipients` cost a third of a one-handler set.
    if recipients.count == 1 {
      // The common case: the change is borrowed, with no copy (whose retain and release of
      // the error cost a tenth of a one-handler set).
      Unmanaged.passUnretained(recipients[0])._withUnsafeGuaranteedRef { $0.deliver(change) }
    } else {
      // Copied once: borrowing it would copy it before each call.
      let change = self.change
      for index in recipients.indices {
        Unmanaged.passUnretained(recipients[index])._withUnsafeGuaranteedRef {
          $0.deliver(change)
        }
      }
    }
    if let tracking {
      tracking._withUnsafeGuaranteedRef { $0.notifyChange() }
    }
  }
}
