import TinyInternals

extension Watchable {
  /// Calls `handler` with `owner` and every later change, for as long as `owner` exists.
  ///
  /// The atom keeps no strong reference to `owner`, so `handler` can use it freely without a
  /// `[weak self]` dance and without creating a retain cycle. Once `owner` is gone, the handler
  /// is never called again; the watch, with `handler` and what it captures, is released at the
  /// next change (nothing is told when an object is deallocated), or when the watched value is.
  /// Delivery follows the rules of ``watch(includingInitial:_:)``.
  ///
  /// ```swift
  /// final class NameLabel: Sendable {
  ///   init(_ name: Atom<String>) {
  ///     name.watch(owner: self) { label, change in label.show(change.new) }
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - owner: The object the watch lives with; held weakly.
  ///   - includingInitial: Whether to deliver the current value first, flagged
  ///     ``AtomChange/isInitial``.
  ///   - handler: Receives the owner and each change.
  public func watch<Owner: AnyObject & Sendable>(
    owner: Owner,
    includingInitial: Bool = false,
    _ handler: @escaping @Sendable (Owner, AtomChange<Value>) -> Void
  ) {
    let keeper = TokenKeeper()
    let token = watch(includingInitial: includingInitial) { [weak owner] change in
      guard let owner else { return keeper.cancel() }
      handler(owner, change)
    }
    keeper.keep(token)
  }
}

/// Holds the token of an owner-bound watch inside the watch itself, so the watch lives until it
/// cancels itself; a cancel that comes before the token arrives cancels it on arrival.
final class TokenKeeper: Sendable {
  private let state = Locked((token: WatchToken?.none, isCancelled: false))

  /// Keeps `token`, or cancels it when ``cancel()`` came first.
  func keep(_ token: WatchToken) {
    let isCancelled = state.withLock { state in
      if !state.isCancelled { state.token = token }
      return state.isCancelled
    }
    if isCancelled { token.cancel() }
  }

  /// Cancels the kept token and lets it go.
  func cancel() {
    let token = state.withLock { state in
      state.isCancelled = true
      return state.token.take()
    }
    token?.cancel()
  }
}
