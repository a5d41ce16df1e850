import TinyInternals

extension Watchable {
  /// The later changes, as an asynchronous sequence.
  ///
  /// Each iteration watches the value on its own: its iterator starts a watch when it is made
  /// (a `for await` loop makes it as the loop starts), and buffers every change from then on, in
  /// order, until it is read; nothing is dropped, and the buffer is unbounded.
  ///
  /// The iterator owns the watch. The watch stops, and its buffer is released, as soon as one of
  /// these happens:
  /// - the loop ends, by `break`, `return` or a thrown error: the loop releases its iterator,
  ///   whether or not the sequence itself is kept in a variable;
  /// - the task iterating is cancelled: the loop ends at its next step, without the changes
  ///   still buffered;
  /// - the watched value lets go of the watch: ``Atom`` and ``DerivedAtom`` do when they are
  ///   deallocated. Then the loop gets the changes buffered so far, and ends.
  ///
  /// Otherwise the iteration never ends by itself.
  ///
  /// ```swift
  /// for await change in name.changes {
  ///   print(change.new)
  ///   if change.new == "done" { break }     // stops the watch
  /// }
  /// ```
  public var changes: AtomChanges<Value> {
    AtomChanges(source: self)
  }
}

/// The changes of a watchable value as an asynchronous sequence; see ``Watchable/changes``.
///
/// A sequence watches nothing by itself: each iterator made from it watches the value from the
/// moment it is made until it is released or its task is cancelled. Call `next()` from one task
/// at a time.
public struct AtomChanges<Value: Sendable>: AsyncSequence, Sendable {
  /// Each element is one change, in the order the changes took effect.
  public typealias Element = AtomChange<Value>

  let source: any Watchable<Value>

  /// Starts watching the value, and returns the iterator that owns the watch.
  ///
  /// - Returns: An iterator over the changes made from now on.
  public func makeAsyncIterator() -> Iterator {
    let buffer = ChangeBuffer<Value>()
    let feed = ChangeBuffer.Feed(buffer)
    return Iterator(buffer: buffer, token: source.watch { feed.buffer.push($0) })
  }

  /// Reads the changes of one watch; releasing it (every copy of it) stops the watch.
  public struct Iterator: AsyncIteratorProtocol, Sendable {
    let buffer: ChangeBuffer<Value>
    /// Cancels the watch when the last copy of the iterator is released.
    let token: WatchToken

    /// The next change: at once when one is buffered, otherwise when it is made. `nil` once the
    /// task is cancelled, or once the watched value let go of the watch and the buffered
    /// changes were read.
    ///
    /// - Returns: The next change, or `nil` at the end.
    public mutating func next() async -> AtomChange<Value>? {
      await withTaskCancellationHandler {
        await buffer.next()
      } onCancel: { [buffer, token] in
        buffer.finish(droppingBuffered: true)
        token.cancel()
      }
    }
  }
}

/// The changes a watch made and its iterator has not read yet, and the iterator's task while it
/// waits for one.
final class ChangeBuffer<Value: Sendable>: Sendable {
  private typealias Waiter = CheckedContinuation<AtomChange<Value>?, Never>
  private struct State {
    var changes = FIFO<AtomChange<Value>>()
    var waiter: Waiter?
    var isFinished = false
  }

  private let state = Locked(State())

  /// What the watch handler holds: once the watched value lets go of the handler, the buffer
  /// finishes after the changes it holds.
  final class Feed: Sendable {
    let buffer: ChangeBuffer

    init(_ buffer: ChangeBuffer) { self.buffer = buffer }
    deinit { buffer.finish(droppingBuffered: false) }
  }

  /// Hands `change` to the waiting task, or buffers it (unless the buffer is finished).
  func push(_ change: AtomChange<Value>) {
    let waiter = state.withLock { state in
      if state.waiter == nil && !state.isFinished { state.changes.append(change) }
      return state.waiter.take()
    }
    waiter?.resume(returning: change)
  }

  /// Ends the buffer: the waiting task, and every later `next()` once the buffered changes are
  /// read (or at once, `droppingBuffered`), get `nil`.
  func finish(droppingBuffered: Bool) {
    var dropped = FIFO<AtomChange<Value>>()
    let waiter = state.withLock { state in
      state.isFinished = true
      if droppingBuffered { swap(&dropped, &state.changes) }
      return state.waiter.take()
    }
    waiter?.resume(returning: nil)
    _ = consume dropped  // released here, after unlocking: the changes hold user values
  }

  deinit {
    // A buffered change may hold another iteration, whose buffer holds another, and so on:
    // release them without nesting.
    var changes = FIFO<AtomChange<Value>>()
    state.withLock { swap(&changes, &$0.changes) }
    Trampoline.release(consume changes)
  }

  /// The next buffered change, waiting for one when none is; `nil` once finished.
  func next() async -> AtomChange<Value>? {
    await withCheckedContinuation { (waiter: Waiter) in
      let ready = state.withLock { state -> AtomChange<Value>?? in
        if let change = state.changes.popFirst() { return change }
        if state.isFinished { return .some(nil) }
        if state.waiter != nil {
          fatalError("AtomChanges.Iterator.next(): called from two tasks at once")
        }
        state.waiter = waiter
        return nil
      }
      if let ready { waiter.resume(returning: ready) }
    }
  }
}
