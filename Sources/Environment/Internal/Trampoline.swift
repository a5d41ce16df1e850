// Copied, byte for byte, into the `Internal/` folder of every block whose work can chain as
// deep as the user's data; `.ci/shared-files` checks the copies. Edit
// `Sources/Shared/Trampoline.swift` only.

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// Runs work that would otherwise nest as deep as the user's data — resolving a chain of
/// promises, delivering through a chain of derived values, releasing a chain of objects — as a
/// loop on the calling thread.
///
/// The thread that enters first runs its work at once, then, before it leaves, every piece of
/// work that was queued on this thread meanwhile, first in, first out. Work handed over while
/// the thread is already running trampolined work is only queued, and runs after the current
/// piece returns. So the stack holds one level of trampolined work however long the chain:
/// a chain of a million steps runs on a 512 KB stack.
///
/// The hot path costs one thread-specific read and plain loads and stores in a per-thread
/// block of raw memory (no reference counting, no allocation): a caller runs its work inline
/// between ``enter()`` and ``leave(_:)``; only work that must wait is copied into an escaping
/// closure, and the list that holds it is made only then.
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
enum Trampoline {
  /// One thread's state, in a block of raw memory made on the thread's first use and freed when
  /// the thread ends (a thread never ends while it runs trampolined work).
  @usableFromInline
  struct State {
    /// Whether the thread is running trampolined work.
    @usableFromInline var isRunning = false
    /// The work waiting (an unmanaged ``Pending``), or `nil` when none waits.
    @usableFromInline var pending: UnsafeMutableRawPointer?
  }

  /// The work waiting on one thread.
  @usableFromInline
  final class Pending {
    var work: [() -> Void] = []
  }

  /// What ``enter()`` hands the thread's runner, to give back to ``leave(_:)``.
  @usableFromInline
  struct Entry {
    @usableFromInline let state: UnsafeMutablePointer<State>

    @inlinable
    init(_ state: UnsafeMutablePointer<State>) {
      self.state = state
    }
  }

  /// The thread-specific key under which every thread keeps its state.
  ///
  /// Reading the global that holds the key checks its one-time initialization on every read
  /// (about 25 instructions on Linux), so code that enters often reads it once, keeps it in a
  /// stored property, and calls ``enter(_:)``.
  @usableFromInline
  struct Key: Sendable {
    @usableFromInline let key: pthread_key_t

    @inlinable
    init(_ key: pthread_key_t) {
      self.key = key
    }
  }

  /// The key, from the global that holds it (see ``Key``).
  @usableFromInline
  static var key: Key {
    Key(trampolineStateKey)
  }

  /// Becomes the thread's runner of trampolined work: an entry when the thread was not running
  /// any (the caller runs its work, then calls ``leave(_:)`` with it), or `nil` when it already
  /// is (the caller must ``enqueue(_:)`` its work instead).
  @inlinable
  static func enter() -> Entry? {
    enter(key)
  }

  /// ``enter()``, with the thread-specific key read beforehand (see ``Key``).
  @inlinable
  static func enter(_ key: Key) -> Entry? {
    let state = current(key)
    guard !state.pointee.isRunning else { return nil }
    state.pointee.isRunning = true
    return Entry(state)
  }

  /// Runs every piece of work queued on this thread, including work queued meanwhile, then
  /// stops being the thread's runner; call it once, with what ``enter()`` returned.
  @inlinable
  static func leave(_ entry: Entry) {
    if entry.state.pointee.pending != nil { drain(entry.state) }
    entry.state.pointee.isRunning = false
  }

  /// Queues `work` to run on this thread after the current piece of trampolined work; call it
  /// only when ``enter()`` returned `nil`.
  @usableFromInline
  static func enqueue(_ work: @escaping () -> Void) {
    let state = current
    if let list = state.pointee.pending {
      Unmanaged<Pending>.fromOpaque(list).takeUnretainedValue().work.append(work)
    } else {
      let pending = Pending()
      pending.work.append(work)
      state.pointee.pending = Unmanaged.passRetained(pending).toOpaque()
    }
  }

  /// Runs `work` now, and the work it queues after it, or queues it when this thread is already
  /// running trampolined work.
  ///
  /// `work` may run inline. If what matters is that the values it releases are released while
  /// the thread runs trampolined work, use ``runQueued(_:)`` or ``release(_:)``: an optimized
  /// build may move a release that `work` makes, once inlined, ahead of ``enter()``.
  @usableFromInline
  static func run(_ work: @escaping () -> Void) {
    if let entry = enter() {
      work()
      leave(entry)
    } else {
      enqueue(work)
    }
  }

  /// Runs `work` from this thread's queue: at once (after any work already queued) when the
  /// thread runs no trampolined work, otherwise after the current piece.
  ///
  /// Unlike ``run(_:)``, `work` never runs inline, only through the queue's indirect call, so
  /// everything it releases is released while the thread is the queue's runner, in any build.
  /// It costs one closure allocation.
  @usableFromInline
  static func runQueued(_ work: @escaping () -> Void) {
    let entry = enter()
    enqueue(work)
    if let entry { leave(entry) }
  }

  /// Releases `value` without nesting: when this thread is already running trampolined work,
  /// the release waits for its turn in the queue, so the `deinit`s it sets off (which may
  /// release the next link of a chain, and so on) run one after another, not inside each
  /// other.
  ///
  /// Hand over the last reference: a temporary, or a variable with `consume`. Passing a
  /// variable without `consume` passes a copy, and the variable's own reference, released
  /// after this returns, may then be the last.
  @usableFromInline
  static func release<Value>(_ value: consuming Value) {
    if let entry = enter() {
      destroy(consume value)
      leave(entry)
    } else {
      enqueue { [value = consume value] in _ = value }
    }
  }

  /// Destroys `value` inside this call. Out of line on purpose: an optimized build may end a
  /// value's lifetime at its last use, which for a value that is only released is before
  /// ``enter()``, where the `deinit`s it sets off would nest again; handing it to a call that
  /// is not inlined pins the release between ``enter()`` and ``leave(_:)``.
  @usableFromInline
  @inline(never)
  static func destroy<Value>(_ value: consuming Value) {}

  /// Runs the queued work, first in, first out, until none is left. Work queued meanwhile goes
  /// to a new list, which runs after the current one: still first in, first out.
  @usableFromInline
  static func drain(_ state: UnsafeMutablePointer<State>) {
    while let list = state.pointee.pending {
      state.pointee.pending = nil
      let pending = Unmanaged<Pending>.fromOpaque(list).takeRetainedValue()
      for index in pending.work.indices {
        let work = pending.work[index]
        pending.work[index] = {}
        work()
      }
    }
  }

  /// This thread's state, made on first use.
  @inlinable
  static var current: UnsafeMutablePointer<State> {
    current(key)
  }

  /// This thread's state, made on first use, found with `key`.
  @inlinable
  static func current(_ key: Key) -> UnsafeMutablePointer<State> {
    if let state = pthread_getspecific(key.key) {
      return state.assumingMemoryBound(to: State.self)
    }
    return makeCurrent()
  }

  @usableFromInline
  static func makeCurrent() -> UnsafeMutablePointer<State> {
    let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
    state.initialize(to: State())
    pthread_setspecific(trampolineStateKey, state)
    return state
  }
}

/// The thread-specific key under which each thread keeps its ``Trampoline/State``, freed when
/// the thread ends.
@usableFromInline
let trampolineStateKey: pthread_key_t = {
  var key = pthread_key_t()
  #if canImport(Darwin)
    let created = pthread_key_create(&key) { $0.deallocate() }
  #else
    let created = pthread_key_create(&key) { $0?.deallocate() }
  #endif
  guard created == 0 else { fatalError("Trampoline: pthread_key_create failed (\(created))") }
  return key
}()
