extension Watchable {
  /// The later changes, as an asynchronous sequence.
  ///
  /// Each access starts a new watch, and the stream buffers every change from that moment on,
  /// in order, until it is iterated; nothing is dropped. The watch stops when the iterating task
  /// is cancelled or the stream is released. The stream never finishes by itself: end the loop
  /// with `break` or by cancelling its task.
  ///
  /// ```swift
  /// for await change in name.changes {
  ///   print(change.new)
  ///   if change.new == "done" { break }     // stops the watch
  /// }
  /// ```
  public var changes: AsyncStream<AtomChange<Value>> {
    AsyncStream { continuation in
      let token = watch { change in
        continuation.yield(change)
      }
      continuation.onTermination = { _ in
        token.cancel()
      }
    }
  }
}
