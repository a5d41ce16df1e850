import TinyInternals

/// Keeps a watch running: call ``cancel()`` or release the token to stop it.
///
/// After `cancel()` returns, no callback of the watch starts; one already running on another
/// thread may finish. Cancelling is idempotent, never blocks, and is safe from any thread,
/// including from inside the watch's own callback. Releasing the last reference cancels, so a
/// token that is not stored stops its watch at once:
///
/// ```swift
/// let token = name.watch { change in print(change.new) }
/// name.set("Ada")          // prints "Ada"
/// token.cancel()
/// name.set("Bob")          // prints nothing
/// ```
public final class WatchToken: Sendable {
  private let cancelled: Flag
  // nonisolated(unsafe): written only by `deinit`, when no other reference to the token exists,
  // so no `cancel()` can read it at the same time.
  private nonisolated(unsafe) var onCancel: (@Sendable () -> Void)?

  /// Creates a token that runs `onCancel` once: at the first ``cancel()``, or when the token is
  /// released without having been cancelled. Types that adopt ``Watchable`` return one from
  /// their `watch` methods.
  ///
  /// The token holds `onCancel` until it is released; no lock is held then, so what the closure
  /// captures may, in its `deinit`, watch the source again or cancel other tokens. A chain of
  /// tokens whose closures hold the next token is released one token after another, not nested,
  /// so a chain of any length is released in constant stack depth. Those releases take turns
  /// with deliveries, so a change a `deinit` they set off makes (an update, or a watch's initial
  /// value) is delivered once that `deinit` returns, as from inside a watcher.
  ///
  /// - Parameter onCancel: Stops the watch; it must be safe to call from any thread.
  public convenience init(onCancel: @escaping @Sendable () -> Void) {
    self.init(flag: Flag(), onCancel: onCancel)
  }

  /// Creates a token whose cancellation raises `flag` (which deliveries check) and then runs
  /// `onCancel`.
  init(flag: Flag, onCancel: @escaping @Sendable () -> Void) {
    cancelled = flag
    self.onCancel = onCancel
  }

  /// Whether the watch was cancelled.
  public var isCancelled: Bool {
    cancelled.isRaised
  }

  /// Stops the watch: no callback starts after this returns. Later calls do nothing.
  public func cancel() {
    if cancelled.raise() {
      onCancel?()
    }
  }

  deinit {
    cancel()
    // The closure may hold the next token of a chain, whose closure holds the next one, and so
    // on: release it without nesting.
    Trampoline.release(onCancel.take())
  }
}
