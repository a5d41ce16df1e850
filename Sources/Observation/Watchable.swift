/// A read-only value that can be watched: ``Atom`` and ``DerivedAtom`` adopt it, and
/// ``ObservationGroup`` observes any adopter.
///
/// An adopter promises what ``Atom`` does: changes reach each watcher serially, in the order
/// they took effect, exactly once; a watch stops when its token is cancelled or released; a
/// main-queue watch started on the main queue with `includingInitial: true` delivers its
/// initial change before it returns.
///
/// ```swift
/// func show<Source: Watchable<String>>(_ source: Source) -> WatchToken {
///   source.watch(includingInitial: true) { change in print(change.new) }   // prints the value
/// }
/// ```
public protocol Watchable<Value>: AnyObject, Sendable {
  /// The type of the watched value.
  associatedtype Value: Sendable

  /// The current value: a snapshot, safe to read from any thread.
  var value: Value { get }

  /// Calls `handler` with every later change, and first with the current value when
  /// `includingInitial` is `true`.
  ///
  /// The handler runs on a thread that is changing the value, serially, outside any lock, in
  /// the order the changes took effect. The initial change is queued like any other change: it
  /// is delivered before this returns unless another thread is delivering at that moment, or
  /// this is called from inside a watcher (then it is delivered after the current delivery).
  ///
  /// ```swift
  /// let token = name.watch(includingInitial: true) { change in print(change.new) }
  /// // prints the current value at once
  /// ```
  ///
  /// - Parameters:
  ///   - includingInitial: Whether to deliver the current value first, flagged
  ///     ``AtomChange/isInitial``.
  ///   - handler: Receives each change. It may update the value it watches, or any other;
  ///     that change is delivered after the current delivery, so it must never wait for it.
  /// - Returns: A token that keeps the watch running; cancel or release it to stop.
  func watch(
    includingInitial: Bool, _ handler: @escaping @Sendable (AtomChange<Value>) -> Void
  ) -> WatchToken

  /// Calls the main-actor `handler` with every later change, in order, on the main queue, and
  /// first with the current value when `includingInitial` is `true`.
  ///
  /// A change that takes effect on the main queue while nothing earlier waits for this handler
  /// is delivered synchronously; any other change is delivered by a main-queue block. Started on
  /// the main queue, the initial change is delivered before this returns.
  ///
  /// A main-queue block runs whenever the main thread is free to drain the main queue: an app's
  /// run loop; Swift Testing (its tests run off the main thread, and the main queue keeps
  /// draining, also for `@MainActor` tests); an `async` XCTest test; a synchronous XCTest test
  /// only while it waits (`wait(for:timeout:)`), since its body occupies the main thread; a
  /// command-line tool only when its top-level code is `async` or it runs `RunLoop.main.run()` /
  /// `dispatchMain()`.
  ///
  /// ```swift
  /// let token = name.watchOnMain(includingInitial: true) { change in
  ///   label.text = change.new
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - includingInitial: Whether to deliver the current value first, flagged
  ///     ``AtomChange/isInitial``.
  ///   - handler: Receives each change on the main actor.
  /// - Returns: A token that keeps the watch running; cancel or release it to stop.
  func watchOnMain(
    includingInitial: Bool, _ handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void
  ) -> WatchToken
}

extension Watchable {
  /// Calls `handler` with every later change, on a thread that is changing the value, serially
  /// and in order.
  ///
  /// The same as `watch(includingInitial: false, handler)`.
  ///
  /// ```swift
  /// let token = name.watch { change in print(change.old, "→", change.new) }
  /// name.set("Ada")    // prints " → Ada"
  /// ```
  ///
  /// - Parameter handler: Receives each change.
  /// - Returns: A token that keeps the watch running; cancel or release it to stop.
  public func watch(_ handler: @escaping @Sendable (AtomChange<Value>) -> Void) -> WatchToken {
    watch(includingInitial: false, handler)
  }

  /// Calls the main-actor `handler` with every later change, in order, on the main queue.
  ///
  /// The same as `watchOnMain(includingInitial: false, handler)`.
  ///
  /// ```swift
  /// let token = name.watchOnMain { change in label.text = change.new }
  /// ```
  ///
  /// - Parameter handler: Receives each change on the main actor.
  /// - Returns: A token that keeps the watch running; cancel or release it to stop.
  public func watchOnMain(
    _ handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void
  ) -> WatchToken {
    watchOnMain(includingInitial: false, handler)
  }
}
