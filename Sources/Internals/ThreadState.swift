#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

/// What each thread keeps for TinyBlocks, made on the thread's first use and freed when the
/// thread ends: the trampoline's queue. Its address names the thread (see ``number``).
@usableFromInline package struct ThreadState {
  /// Whether the thread is running trampolined work.
  var isRunningTrampoline = false
  /// Trampolined work waiting on this thread, first in, first out.
  var pending: [Work] = []
  /// The work the trampoline runs now: what was pending, swapped in. Emptied, and not freed,
  /// once run, so that work handed over once per delivery allocates no queue each time.
  var running: [Work] = []

  /// A piece of trampolined work. A struct, not a bare closure: an array stores a bare closure
  /// through a thunk allocated with it.
  struct Work {
    let run: () -> Void
  }

  /// The calling thread's state.
  static var current: UnsafeMutablePointer<ThreadState> {
    if let state = pthread_getspecific(threadStateKey) {
      return state.assumingMemoryBound(to: ThreadState.self)
    }
    let state = UnsafeMutablePointer<ThreadState>.allocate(capacity: 1)
    state.initialize(to: ThreadState())
    pthread_setspecific(threadStateKey, state)
    return state
  }

  /// A number that names the calling thread while it runs, never 0: the address of its state.
  ///
  /// Read through `pthread_getspecific`, which the optimizer must call again after an `await`,
  /// where the task may have moved to another thread. (`pthread_self()` would not do: the C
  /// library declares it `const`, and an optimized build reused one call's result after an
  /// `await`, even through a function the caller could not see into.)
  @usableFromInline
  package static var number: UInt {
    UInt(bitPattern: current)
  }
}

/// The key under which each thread keeps its ``ThreadState``.
private let threadStateKey: pthread_key_t = {
  var key = pthread_key_t()
  let created = pthread_key_create(&key) { pointer in
    #if canImport(Darwin)
      let state = pointer.assumingMemoryBound(to: ThreadState.self)
    #else
      guard let state = pointer?.assumingMemoryBound(to: ThreadState.self) else { return }
    #endif
    state.deinitialize(count: 1)
    state.deallocate()
  }
  guard created == 0 else { fatalError("TinyBlocks: pthread_key_create failed (\(created))") }
  return key
}()
