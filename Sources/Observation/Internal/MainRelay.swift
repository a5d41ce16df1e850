import Dispatch
import TinyInternals

/// Hands items to a main-actor handler in the order they were sent: at once when sent on the
/// main queue with nothing waiting, otherwise through one main-queue block per run of items.
///
/// Items keep the order in which their sends took the relay's lock (a watched atom sends
/// serially, in delivery order). Once `stopped` is raised, no handler call starts.
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
      DispatchQueue.main.async { MainActor.assumeIsolated { self.drain() } }
    case .none:
      break
    }
  }

  /// Drops the waiting items (released after unlocking), once `stopped` is raised: their user
  /// values need not wait for a drain that would skip them.
  func stop() {
    _ = state.withLock { $0.takeWaiting() }
  }

  /// Hands the waiting items over, oldest first, until none waits; once `stopped` is raised, it
  /// drops the rest.
  @MainActor private func drain() {
    while true {
      let items = state.withLock { $0.next() }
      if items.isEmpty { return }
      for item in items where !stopped.isRaised {
        handler(item)
      }
    }
  }
}

/// The pure state machine behind main-queue delivery for one handler: the items waiting for the
/// main queue and whether a drain of them is running or scheduled.
///
/// Items arrive one at a time (their source delivers serially) and leave in the same order. An
/// item sent on the main queue while nothing is waiting or draining runs at once, on the
/// sender; anything else joins the waiting items, and only the first item of a run asks for a
/// drain to be scheduled, so one main-queue block serves every item that arrives before it runs.
struct RelayState<Item: Sendable>: Sendable {
  /// What the sender of an item must do: `drainNow`, on this thread (it is the main queue: the
  /// item is first in line); `scheduleDrain` on the main queue; or nothing (`none`): a drain that
  /// is running or scheduled will reach the item.
  enum Action: Equatable { case drainNow, scheduleDrain, none }

  /// The items waiting for a drain, oldest first.
  private(set) var waiting: [Item] = []

  /// Whether a drain is running or scheduled.
  private(set) var isDraining = false

  /// Accepts an item sent from the main queue (`onMainQueue`) or from elsewhere.
  mutating func send(_ item: Item, onMainQueue: Bool) -> Action {
    waiting.append(item)
    if isDraining { return .none }
    isDraining = true
    return onMainQueue ? .drainNow : .scheduleDrain
  }

  /// Called by a drain: the items to hand over next, oldest first; none ends the drain.
  mutating func next() -> [Item] {
    if waiting.isEmpty { isDraining = false }
    return takeWaiting()
  }

  /// Takes the waiting items out, for the caller to release after unlocking (they hold user
  /// values).
  mutating func takeWaiting() -> [Item] {
    defer { waiting = [] }
    return waiting
  }
}
