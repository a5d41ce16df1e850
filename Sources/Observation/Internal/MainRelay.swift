import Dispatch
import TinyInternals

/// Hands items to a main-actor handler in the order they were sent: at once when sent on the
/// main queue with nothing waiting, otherwise through one main-queue block per run of items.
///
/// Items keep the order in which their sends took the relay's lock (a watched atom sends
/// serially, in delivery order). Once `stopped` is raised, or after ``stop()``, no handler call
/// starts.
final class MainRelay<Item: Sendable>: Sendable {
  private let state = Locked(RelayState<Item>())
  private let stopped: Flag
  private let handler: @MainActor @Sendable (Item) -> Void

  /// Creates a relay whose handler stops being called once `stopped` is raised.
  init(stopped: Flag, handler: @escaping @MainActor @Sendable (Item) -> Void) {
    self.stopped = stopped
    self.handler = handler
  }

  /// Sends an item to the handler.
  func send(_ item: Item) {
    perform(enqueue(item, onMainQueue: MainQueue.isCurrent))
  }

  /// Queues an item without calling anything, so it can be done while another lock is held;
  /// the caller must then ``perform(_:)`` the returned action, outside that lock.
  func enqueue(_ item: Item, onMainQueue: Bool) -> RelayState<Item>.Action {
    state.withLock { $0.send(item, onMainQueue: onMainQueue) }
  }

  /// Does what ``enqueue(_:onMainQueue:)`` asked for.
  func perform(_ action: RelayState<Item>.Action) {
    switch action {
    case .drainNow:
      MainActor.assumeIsolated { drain() }
    case .scheduleDrain:
      DispatchQueue.main.async {
        MainActor.assumeIsolated { self.drain() }
      }
    case .none:
      break
    }
  }

  /// Drops the waiting items (released after unlocking); no handler call starts after this
  /// returns.
  func stop() {
    _ = state.withLock { $0.stop() }
  }

  @MainActor private func drain() {
    while let item = state.withLock({ $0.next() }) {
      if stopped.isRaised {
        _ = state.withLock { $0.stop() }
        continue
      }
      handler(item)
    }
  }
}
