/// Runs work that would otherwise nest as deep as the user's data — resolving a chain of
/// promises, delivering through a chain of derived values, releasing a chain of objects — as a
/// loop on the calling thread.
///
/// The thread that enters first runs its work at once, then, before it leaves, every piece of
/// work queued on this thread meanwhile, first in, first out. Work handed over while the thread
/// is already running trampolined work is only queued, and runs after the current piece
/// returns. So the stack holds one level of trampolined work however long the chain: a chain of
/// a million steps runs on a 512 KB stack.
///
/// ```swift
/// if let entry = Trampoline.enter() {
///   deliver(batch)
///   Trampoline.leave(entry)
/// } else {
///   Trampoline.enqueue { deliver(batch) }
/// }
/// ```
@usableFromInline
package enum Trampoline {
  /// What ``enter()`` returns to the thread it made the runner of trampolined work, for
  /// ``leave(_:)``: the thread's state, so that leaving does not look it up again.
  @usableFromInline
  package struct Entry {
    let state: UnsafeMutablePointer<ThreadState>
  }

  /// Makes the calling thread the runner of trampolined work and returns its entry (then run
  /// your work and call ``leave(_:)`` with it), or returns `nil` when the thread already is
  /// (then ``enqueue(_:)`` the work instead).
  @usableFromInline
  package static func enter() -> Entry? {
    let state = ThreadState.current
    guard !state.pointee.isRunningTrampoline else { return nil }
    state.pointee.isRunningTrampoline = true
    return Entry(state: state)
  }

  /// Runs every piece of work queued on this thread, including work queued meanwhile, then
  /// stops being the thread's runner. Call it once, on the thread that ``enter()`` returned
  /// `entry` on.
  @usableFromInline
  package static func leave(_ entry: Entry) {
    let state = entry.state
    while !state.pointee.pending.isEmpty {
      swap(&state.pointee.pending, &state.pointee.running)
      var index = 0
      while index < state.pointee.running.count {
        let work = state.pointee.running[index]
        index += 1
        work.run()
      }
      state.pointee.running.removeAll(keepingCapacity: true)
    }
    state.pointee.isRunningTrampoline = false
  }

  /// Queues `work` to run on this thread after the current piece of trampolined work. Call it
  /// only when ``enter()`` returned `nil`.
  @usableFromInline
  package static func enqueue(_ work: @escaping () -> Void) {
    ThreadState.current.pointee.pending.append(ThreadState.Work(run: work))
  }

  /// Runs `work` now, and the work it queues after it, or queues it when this thread is already
  /// running trampolined work.
  package static func run(_ work: @escaping () -> Void) {
    if let entry = enter() {
      work()
      leave(entry)
    } else {
      enqueue(work)
    }
  }

  /// Releases `value` without nesting: when this thread is already running trampolined work,
  /// the release waits for its turn in the queue, so the `deinit`s it sets off (which may
  /// release the next link of a chain, and so on) run one after another, not inside each other.
  ///
  /// Hand over the last reference: a temporary, or a variable with `consume`.
  ///
  /// Inlinable, so that the value is destroyed by code specialized for its type (Promise map×3
  /// + whenResolved).
  @inlinable
  package static func release<Value>(_ value: consuming Value) {
    if let entry = enter() {
      destroy(value)
      leave(entry)
    } else {
      enqueue { [value = consume value] in _ = value }
    }
  }

  /// Destroys `value` inside this call. Not inlined, so that an optimized build cannot end the
  /// value's lifetime before ``enter()``, where the `deinit`s it sets off would nest again.
  @usableFromInline @inline(never)
  static func destroy<Value>(_ value: consuming Value) {}
}
