extension Trampoline {
  /// Runs `work` from this thread's queue of trampolined work: at once, with the work queued
  /// before it, when the thread runs no trampolined work; otherwise after the current piece.
  ///
  /// Unlike ``run(_:)`` and ``release(_:)``, the work never runs inline, only from the queue,
  /// through an indirect call. That keeps what it releases after the moment the thread became
  /// the queue's runner even in an optimized build, where a release written right after
  /// ``enter()`` can be moved before the store that marks the thread as running, and then
  /// nests as deep as the chain it frees.
  static func runQueued(_ work: @escaping () -> Void) {
    let entered = enter()
    enqueue(work)
    if entered { leave() }
  }
}
