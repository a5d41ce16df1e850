extension Watchable {
  /// The later changes, as an asynchronous sequence.
  ///
  /// Each access starts a new watch, and the stream buffers every change from that moment on,
  /// in order, until it is iterated; nothing is dropped, and the buffer is unbounded.
  ///
  /// The watch stops, and its buffer is released, as soon as one of these happens:
  /// - the task iterating the stream is cancelled (the loop then ends at its next step);
  /// - the stream and every iterator made from it are released. Leaving a
  ///   `for await change in atom.changes` loop with `break` or `return` does that, because the
  ///   loop holds the only stream and iterator; a stream kept in a variable or a property keeps
  ///   watching, and buffering, for as long as that lives;
  /// - the watched value releases the watch: ``Atom`` and ``DerivedAtom`` do when they are
  ///   deallocated. Then the stream finishes: the loop gets the changes buffered so far, then
  ///   ends.
  ///
  /// Otherwise the stream never finishes by itself.
  ///
  /// ```swift
  /// for await change in name.changes {
  ///   print(change.new)
  ///   if change.new == "done" { break }     // stops the watch: the loop held the stream
  /// }
  /// ```
  public var changes: AsyncStream<AtomChange<Value>> {
    AsyncStream { continuation in
      let stream = StreamEnd(continuation)
      let token = watch { change in
        stream.continuation.yield(change)
      }
      continuation.onTermination = { _ in
        token.cancel()
      }
    }
  }
}

/// Finishes a stream when it is released: the watch handler of ``Watchable/changes`` holds it,
/// so the stream finishes once the watched value lets go of the handler.
final class StreamEnd<Element: Sendable>: Sendable {
  let continuation: AsyncStream<Element>.Continuation

  init(_ continuation: AsyncStream<Element>.Continuation) {
    self.continuation = continuation
  }

  deinit {
    continuation.finish()
  }
}
