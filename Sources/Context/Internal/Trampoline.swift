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
/// The hot path allocates nothing: a caller checks ``enter()``, runs its work inline, and calls
/// ``leave()``; only work that is queued because the thread was already inside is copied into
/// an escaping closure.
///
/// ```swift
/// if Trampoline.enter() {
///   deliver(batch)
///   Trampoline.leave()
/// } else {
///   Trampoline.enqueue { deliver(batch) }
/// }
/// ```
@usableFromInline
enum Trampoline {
  /// The work queued on one thread, and whether that thread is running trampolined work.
  @usableFromInline
  final class Queue {
    @usableFromInline var isRunning = false
    @usableFromInline var pending: [() -> Void] = []
    @usableFromInline var head = 0

    @usableFromInline
    init() {}
  }

  /// Becomes the thread's outermost runner of trampolined work: `true` when the thread was
  /// not running any (the caller must run its work, then call ``leave()``), `false` when it
  /// already is (the caller must ``enqueue(_:)`` its work instead).
  @inlinable
  static func enter() -> Bool {
    let queue = current
    guard !queue.isRunning else { return false }
    queue.isRunning = true
    return true
  }

  /// Queues `work` to run on this thread after the current piece of trampolined work; call it
  /// only when ``enter()`` returned `false`.
  @usableFromInline
  static func enqueue(_ work: @escaping () -> Void) {
    current.pending.append(work)
  }

  /// Runs every piece of work queued on this thread, including work queued meanwhile, then
  /// stops being the thread's runner; call it once after ``enter()`` returned `true`.
  @inlinable
  static func leave() {
    let queue = current
    if queue.head < queue.pending.count { drain(queue) }
    queue.isRunning = false
  }

  /// Runs `work` now, and the work it queues after it, or queues it when this thread is already
  /// running trampolined work.
  ///
  /// `work` may run inline. If what matters is that the values it releases are released while
  /// the thread runs trampolined work, use ``runQueued(_:)`` or ``release(_:)``: an optimized
  /// build may move a release that `work` makes, once inlined, ahead of ``enter()``.
  @usableFromInline
  static func run(_ work: @escaping () -> Void) {
    if enter() {
      work()
      leave()
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
    let entered = enter()
    enqueue(work)
    if entered { leave() }
  }

  /// Releases `value` without nesting: when this thread is already running trampolined work,
  /// the release waits for its turn in the queue, so the `deinit`s it sets off (which may
  /// release the next link of a chain, and so on) run one after another, not inside each
  /// other.
  @usableFromInline
  static func release<Value>(_ value: consuming Value) {
    if enter() {
      destroy(consume value)
      leave()
    } else {
      enqueue { [value = consume value] in _ = value }
    }
  }

  /// Destroys `value` inside this call. Out of line on purpose: an optimized build may end a
  /// value's lifetime at its last use, which for a value that is only released is before
  /// ``enter()``, where the `deinit`s it sets off would nest again; handing it to a call that
  /// is not inlined pins the release between ``enter()`` and ``leave()``.
  @usableFromInline
  @inline(never)
  static func destroy<Value>(_ value: consuming Value) {}

  /// Runs the queued work, first in, first out, until none is left.
  @usableFromInline
  static func drain(_ queue: Queue) {
    while queue.head < queue.pending.count {
      let work = queue.pending[queue.head]
      queue.pending[queue.head] = {}
      queue.head += 1
      work()
    }
    queue.pending.removeAll(keepingCapacity: queue.pending.count <= 1_024)
    queue.head = 0
  }

  /// This thread's queue, made on first use and released when the thread ends.
  @usableFromInline
  static var current: Queue {
    if let address = pthread_getspecific(trampolineQueueKey) {
      return Unmanaged<Queue>.fromOpaque(address).takeUnretainedValue()
    }
    let queue = Queue()
    pthread_setspecific(trampolineQueueKey, Unmanaged.passRetained(queue).toOpaque())
    return queue
  }
}

/// The thread-specific key under which each thread keeps its ``Trampoline/Queue``.
@usableFromInline
let trampolineQueueKey: pthread_key_t = {
  var key = pthread_key_t()
  #if canImport(Darwin)
    let created = pthread_key_create(&key) { Unmanaged<Trampoline.Queue>.fromOpaque($0).release() }
  #else
    let created = pthread_key_create(&key) {
      if let queue = $0 { Unmanaged<Trampoline.Queue>.fromOpaque(queue).release() }
    }
  #endif
  guard created == 0 else { fatalError("Trampoline: pthread_key_create failed (\(created))") }
  return key
}()
