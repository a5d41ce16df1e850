import TinyInternals

extension Atom {
  /// Watches the atom; see ``Watchable/watch(includingInitial:_:)``.
  ///
  /// ```swift
  /// let token = name.watch(includingInitial: true) { change in print(change.new) }
  /// ```
  ///
  /// - Parameters:
  ///   - includingInitial: Whether to deliver the current value first, flagged
  ///     ``AtomChange/isInitial``.
  ///   - handler: Receives each change.
  /// - Returns: A token that keeps the watch running; cancel or release it to stop.
  public func watch(
    includingInitial: Bool, _ handler: @escaping @Sendable (AtomChange<Value>) -> Void
  ) -> WatchToken {
    add(Recipient(handler), includingInitial: includingInitial)
  }

  /// Watches the atom on the main queue; see ``Watchable/watchOnMain(includingInitial:_:)``.
  ///
  /// ```swift
  /// let token = name.watchOnMain(includingInitial: true) { change in label.text = change.new }
  /// ```
  ///
  /// - Parameters:
  ///   - includingInitial: Whether to deliver the current value first, flagged
  ///     ``AtomChange/isInitial``.
  ///   - handler: Receives each change on the main actor.
  /// - Returns: A token that keeps the watch running; cancel or release it to stop.
  public func watchOnMain(
    includingInitial: Bool, _ handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void
  ) -> WatchToken {
    add(Recipient(onMain: handler), includingInitial: includingInitial)
  }

  /// The number of watches running, for tests.
  var watcherCount: Int {
    state.withLock { $0.recipients.count }
  }

  /// Whether the next change reports to Observation's registrar, for tests.
  var reportsToObservation: Bool {
    observation.tracked.isRaised
  }

  private func add(_ recipient: Recipient<Value>, includingInitial: Bool) -> WatchToken {
    let onMainQueue = includingInitial && MainQueue.isCurrent
    let (batch, mainAction) = state.withLock {
      $0.add(recipient, includingInitial: includingInitial, onMainQueue: onMainQueue)
    }
    let flag = recipient.flag
    let token = WatchToken(flag: flag) { [weak self] in
      // The removed watch is released after unlocking, and without nesting: its handler may
      // hold other watches' tokens, whose handlers hold others, and so on.
      guard let removed = self?.state.withLock({ $0.remove(flag) }) else { return }
      removed.relay?.stop()
      Trampoline.release(consume removed)
    }
    if let mainAction { recipient.relay?.perform(mainAction) }
    if let batch = consume batch { deliver(batch) }
    return token
  }
}

extension AtomState {
  /// Adds a watch. With `includingInitial`, its initial change is queued first: a main-queue watch's in
  /// its relay (perform the returned action outside the lock), any other's as a batch of its own
  /// (deliver it when one is returned).
  mutating func add(
    _ recipient: Recipient<Value>, includingInitial: Bool, onMainQueue: Bool
  ) -> (batch: Batch<Value>?, mainAction: RelayState<AtomChange<Value>>.Action?) {
    recipients.append(recipient)
    guard includingInitial else { return (nil, nil) }
    let initial = AtomChange.initial(value)
    if let relay = recipient.relay {
      return (nil, relay.enqueue(initial, onMainQueue: onMainQueue))
    }
    return (submit(Batch(initial, to: [recipient], reporting: false)), nil)
  }

  /// Removes the watch `flag` names and hands it back, to release after unlocking; batches
  /// already made still hold it, and skip it by its stop flag.
  mutating func remove(_ flag: Flag) -> Recipient<Value>? {
    guard let index = recipients.firstIndex(where: { $0.flag === flag }) else { return nil }
    return recipients.remove(at: index)
  }
}

extension Recipient {
  /// A watch that calls `handler` on the main queue, in delivery order.
  init(onMain handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void) {
    let flag = Flag()
    let relay = MainRelay(stopped: flag, handler: handler)
    self.flag = flag
    receive = { relay.send($0) }
    self.relay = relay
  }
}
